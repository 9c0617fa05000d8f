"""The use cases: each once, typed; the CLI and the TUI only render them."""
