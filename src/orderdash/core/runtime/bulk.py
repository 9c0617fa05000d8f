"""Many objects made at once in a worker thread without freezing the event loop's thread.

A 7.9 MB history page of 50,000 orders is parsed and validated in a worker thread, yet the
screen froze for up to 0.4 s at a time: the objects it makes (~750,000 tracked by the cyclic
collector) set off full collections as they pile up, each a walk over all of them in one C
call that holds the GIL. Measured on the parse alone: 3.2 s with gaps of the event loop up to
0.4 s with the collector on, 0.8 s and gaps under 25 ms with it paused.

`bulk_objects` pauses the collector while the block runs and, when the collector was on, moves
what is alive into the oldest generation as it ends (`gc.freeze` then `gc.unfreeze`: two list
splices, no walk): turned back on, the collector would otherwise walk all of them at its next
young collection, from whichever thread allocates next. Nothing stays frozen, so cyclic garbage
alive at that moment is collected at the next full collection like any other (a freeze that
stayed would keep it for good, once per huge page: a till left running against a service that
sends them would grow). The next full collection comes at its usual pace (what the splice adds
is not counted towards it) and by then a history page's items, plain data dropped once read,
are gone by their reference counts. The price: what the start-up froze (`startup.resume`)
joins the oldest generation too, and full collections walk it again from then on.

Letting go of them has the same trap: the last reference to a list of 50,000 orders frees all
of them in one C call (0.15-0.3 s with the GIL held, measured in the dashboard). `let_go`
empties such a list in a worker thread a few hundred items at a time, so the GIL changes
hands between them.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from typing import Any

#: Lists at least this long are let go of in a worker thread (`let_go`).
LARGE_LIST = 5_000
#: Items freed at a time there.
LET_GO_CHUNK = 500

_lock = threading.Lock()
_running = 0
_was_enabled = False


@contextlib.contextmanager
def bulk_objects() -> Iterator[None]:
    """Pause the cyclic collector for the block (blocks may overlap: the last one out puts it
    back); at the end, when the collector was on before, move what is alive into the oldest
    generation without a walk."""
    global _running, _was_enabled
    with _lock:
        if _running == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0 and _was_enabled:
                gc.freeze()  # every generation spliced into the permanent one, counts reset
                gc.unfreeze()  # ... and spliced back into the oldest: nothing stays frozen
                gc.enable()


def let_go(objects: list[Any]) -> None:
    """Empty `objects`, which holds the last references to its items, in a worker thread a
    chunk at a time; a short list is left to be freed as usual."""
    if len(objects) < LARGE_LIST:
        return

    def empty() -> None:
        while objects:
            del objects[-LET_GO_CHUNK:]

    threading.Thread(target=empty, name="orderdash-let-go", daemon=True).start()
