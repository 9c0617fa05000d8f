"""Start-up without the cyclic garbage collector.

Importing textual, pydantic and httpx and building the dashboard makes objects by the hundred
thousand, and the collector ran ~265 times meanwhile: ~70 ms of a ~500 ms start (measured by
wrapping bench/child_app.py with gc callbacks). `orderdash` pauses it first thing
(`cli.main`); a long-running command resumes it once it is up (the dashboard after its first
paint, `watch --jsonl` and `simulate` once started), first freezing what start-up made out of
every later collection (`gc.freeze`): those objects live as long as the process anyway, and
each full collection then walks only what came after. One-shot commands (`get`, `rates`) exit
before garbage could matter, and `main` turns the collector back on when it returns.

At exit CPython collects again, a full walk over every object still alive (most of them made
by the start-up), while it tears the modules down: ~30 ms of `orderdash get`'s ~250 ms, whether
the collector is on or off. `main` has the objects frozen at exit (`freeze_at_exit`), so that
walk skips them; the process is ending and its memory goes back to the system all the same.
"""

from __future__ import annotations

import atexit
import gc

_paused = False
_freezes_at_exit = False


def pause() -> bool:
    """Stop the collector for the start-up; False when it was off already (left as it is)."""
    global _paused
    if not gc.isenabled():
        return False
    gc.disable()
    _paused = True
    return True


def freeze_at_exit() -> None:
    """Freeze every object at interpreter exit (hooked once per process, however often `main`
    runs). Only the collector's walk is skipped: other exit hooks (logging's flush and close of
    the log file) and the flush of stdout run as before; what the walk would have freed goes
    back to the system with the process."""
    global _freezes_at_exit
    if not _freezes_at_exit:
        _freezes_at_exit = True
        atexit.register(gc.freeze)


def resume() -> None:
    """Up and running: freeze what start-up made and collect again. Only undoes `pause`."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def end(paused: bool) -> None:
    """Leaving `main`: the collector back on if it is still paused (no freeze: the caller may
    go on, as a test calling `main` does)."""
    global _paused
    if paused and _paused:
        _paused = False
        gc.enable()
