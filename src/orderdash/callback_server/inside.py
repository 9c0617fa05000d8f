"""The callback receiver inside another process (`receive = true`: the dashboard, `watch
--jsonl`; `orderdash demo`): the receiver's desk and web server (`server.py`) in a thread of its
own, with its own event loop, its own getOrder client and budget, and its own
connection to the book. What it reads it writes to the book and announces there: the process
around it hears that as every till on the book does (core/usecases/told.py), never told
directly, so one machine on a SQLite book needs no second process.

This module is light: uvicorn and Starlette are imported in the receiver's thread, when it
starts (after the dashboard's first paint), never on the start-up's path nor on its loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from orderdash.core.model.errors import OrderdashError
from orderdash.core.service.client import OrderClient
from orderdash.core.usecases.reads import command_gates, ledger_book
from orderdash.core.usecases.receive import CallbackDesk, ReceiveOptions

if TYPE_CHECKING:
    from orderdash.callback_server.server import ReceiverServer
    from orderdash.core.ledger import Book
    from orderdash.core.settings.model import Settings
    from orderdash.core.usecases.reads import BookOpener

log = logging.getLogger(__name__)

#: How long a stopping receiver is waited for (its server lets answers under way finish).
STOP_SECONDS = 3.0


def _nothing(text: str) -> None:
    return None


class InsideReceiver:
    """The receiver at the settings' `receive_host`:`receive_port`, in a daemon thread from
    `start()` to `stop()`. `listening(url)` is told its URL once it listens; `failed(text)`
    one line if it cannot start (a port taken, a book that does not open) or stops on its own.
    Both are called from the receiver's thread: whoever shows them hands them to its own loop."""

    def __init__(
        self,
        settings: Settings,
        open_book: BookOpener | None = None,
        *,
        listening: Callable[[str], None] = _nothing,
        failed: Callable[[str], None] = _nothing,
    ) -> None:
        self._settings, self._open_book = settings, open_book
        self._listening, self._failed = listening, failed
        self._server: ReceiverServer | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="orderdash-receiver", daemon=True)
        #: The URL it listens on, once it does.
        self.url: str | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Ask it to stop (from any thread); `join` waits for it."""
        self._stopping.set()
        if self._server is not None:
            self._server.stop()

    def join(self, timeout: float = STOP_SECONDS) -> bool:
        """Whether it stopped within `timeout`."""
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    async def aclose(self) -> None:
        """Stopped, waited for off the caller's loop."""
        self.stop()
        if not await asyncio.to_thread(self.join):
            log.warning("the callback receiver did not stop within %gs", STOP_SECONDS)

    def _run(self) -> None:

        try:
            book = (self._open_book or ledger_book)(self._settings)
        except OrderdashError as exc:
            self._failed(f"the callback receiver did not start: {exc.message}")
            return
        try:
            asyncio.run(self._serve(book))
        except OrderdashError as exc:  # the port cannot be listened on
            self._failed(f"the callback receiver did not start: {exc.message}")
        except Exception:  # a bug stops the receiver, never the process around it
            log.exception("the callback receiver stopped")
            self._failed("the callback receiver stopped (the log says why)")
        finally:
            book.close_connection()

    async def _serve(self, book: Book) -> None:
        from orderdash.callback_server.server import ReceiverServer

        settings = self._settings
        async with OrderClient.from_settings(settings) as client:
            gate, _ = command_gates(settings)  # a getOrder budget of its own, as a process has
            desk = CallbackDesk(book, client, gate, ReceiveOptions.from_settings(settings))
            self._server = server = ReceiverServer(
                desk, settings.receive_host, settings.receive_port
            )
            if self._stopping.is_set():
                return
            await server.serve(self._started)

    def _started(self, url: str) -> None:
        if self._stopping.is_set():  # asked to stop before its server was there to be told
            if self._server is not None:
                self._server.stop()
            return
        self.url = url
        self._listening(url)


def on_loop(loop: asyncio.AbstractEventLoop, fn: Callable[[str], None]) -> Callable[[str], None]:
    """`fn`, called on `loop` when called from another thread (a loop that has ended hears
    nothing)."""

    def told(text: str) -> None:
        try:
            loop.call_soon_threadsafe(fn, text)
        except RuntimeError:
            pass

    return told


async def receive_inside(
    settings: Settings,
    open_book: BookOpener | None = None,
    *,
    listening: Callable[[str], None] = _nothing,
    failed: Callable[[str], None] = _nothing,
) -> None:
    """The receiver, until cancelled: `listening` and `failed` told on the caller's loop."""
    loop = asyncio.get_running_loop()
    receiver = InsideReceiver(
        settings, open_book, listening=on_loop(loop, listening), failed=on_loop(loop, failed)
    )
    receiver.start()
    try:
        await asyncio.Event().wait()
    finally:
        await receiver.aclose()
