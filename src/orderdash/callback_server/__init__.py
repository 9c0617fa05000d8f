"""The callback receiver's web server (`server.py`) and the receiver run inside a dashboard or
`watch` (`inside.py`): the service's callbacks over HTTP, each a hint handed to the receiver's
use case (`core/usecases/receive.py`). Neither the core nor the TUI's first paint loads it."""
