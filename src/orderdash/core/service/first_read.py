"""A dashboard's first getOrder, sent at once in a thread of its own through the blocking
client, before the dashboard is built, and awaited later by the event loop that shows it."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

    from orderdash.core.model.results import Fetched

# asyncio is imported where it is used, not here: `orderdash get` never loads it.


class FirstRead:
    """One getOrder sent at once in a thread of its own, whose answer an event loop may await
    later (`OrderClient.begin_first_read`), even one that did not run yet when it was sent."""

    def __init__(self, token: str, ask: Callable[[str], Fetched]) -> None:
        self.token = token
        self._lock = threading.Lock()
        #: The answer or the failure, once the thread has one.
        self._outcome: tuple[Fetched | None, BaseException | None] | None = None
        #: The loop and future of the one awaiting it, if it awaits before the answer came.
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[Fetched]] | None = None
        threading.Thread(
            target=self._ask, args=(ask,), name="orderdash-first-read", daemon=True
        ).start()

    def _ask(self, ask: Callable[[str], Fetched]) -> None:
        fetched, failure = None, None
        try:
            fetched = ask(self.token)
        except BaseException as error:  # noqa: BLE001 - handed to whoever awaits it
            failure = error
        with self._lock:
            self._outcome = (fetched, failure)
            waiter = self._waiter
        if waiter is not None:
            loop, future = waiter
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting
                loop.call_soon_threadsafe(_settle, future, fetched, failure)

    async def answer(self) -> Fetched:
        import asyncio  # not at the top: `orderdash get` runs without an event loop

        loop = asyncio.get_running_loop()
        with self._lock:
            outcome = self._outcome
            if outcome is None:
                future: asyncio.Future[Fetched] = loop.create_future()
                self._waiter = (loop, future)
        if outcome is None:
            return await future
        fetched, failure = outcome
        if failure is not None:
            raise failure
        assert fetched is not None  # an outcome holds the order or the failure
        return fetched


def _settle(
    future: asyncio.Future[Fetched], fetched: Fetched | None, error: BaseException | None
) -> None:
    if future.done():  # cancelled: the dashboard quit or no longer wants it
        return
    if error is not None:
        future.set_exception(error)
    else:
        assert fetched is not None  # an outcome holds the order or the failure
        future.set_result(fetched)
