"""A blocking call (a name look-up, a ledger's connect) waited for at most so long, in a daemon
thread of its own: `asyncio.to_thread` would hold the process at its exit until the call ends,
and a look-up that hangs must not make `doctor` hang."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")


async def within(seconds: float, call: Callable[[], _T]) -> _T:
    """`call()`'s result, or its exception; TimeoutError after `seconds` (the thread is left to
    finish on its own, its result dropped)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[_T] = loop.create_future()

    def settle(result: _T | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        try:
            outcome: tuple[_T | None, BaseException | None] = (call(), None)
        except BaseException as error:  # handed to the caller, which decides
            outcome = (None, error)
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=run, name="orderdash-doctor", daemon=True).start()
    return await asyncio.wait_for(done, seconds)
