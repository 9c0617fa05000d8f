"""The callback receiver of `orderdash receive` (its desk and its web server) running in a thread
of its own with its own loop, on a free loopback port, against a simulator and a real book:
what the end-to-end tests of the receiver send their callbacks to."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

from orderdash.callback_server.server import ReceiverServer
from orderdash.core.ledger import Book, ReceivedCallback
from orderdash.core.service.client import OrderClient
from orderdash.core.settings.model import Settings
from orderdash.core.usecases.reads import command_gates
from orderdash.core.usecases.receive import CallbackDesk, ReceiveOptions

DEADLINE = 5.0


class RunningReceiver:
    """`with RunningReceiver(settings, book) as r:` serves at `r.url`; `pulled` holds each
    token `on_pulled` was told, in order."""

    def __init__(self, settings: Settings, book: Book) -> None:
        self.settings, self.book = settings, book
        self.pulled: list[str] = []
        self.url = ""
        self._cv = threading.Condition()
        self._server: ReceiverServer | None = None
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="test-receiver", daemon=True)

    def __enter__(self) -> RunningReceiver:
        self._thread.start()
        self.wait_for(lambda: bool(self.url) or self._failed is not None)
        if self._failed is not None:
            raise self._failed
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.stop()
        self._thread.join(DEADLINE)

    @property
    def server(self) -> ReceiverServer:
        assert self._server is not None, "not serving"
        return self._server

    def _told(self, token: str) -> None:
        with self._cv:
            self.pulled.append(token)
            self._cv.notify_all()

    def _listening(self, url: str) -> None:
        with self._cv:
            self.url = url
            self._cv.notify_all()

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # the test sees it
            with self._cv:
                self._failed = exc
                self._cv.notify_all()

    async def _serve(self) -> None:
        async with OrderClient.from_settings(self.settings) as client:
            gate, _ = command_gates(self.settings)
            options = ReceiveOptions.from_settings(self.settings)
            desk = CallbackDesk(self.book, client, gate, options, on_pulled=self._told)
            self._server = ReceiverServer(desk, "127.0.0.1", 0)
            await self._server.serve(self._listening)

    def wait_for(self, done: Callable[[], bool]) -> None:
        """Until `done()` (asked whenever the receiver tells something, and every 10 ms for
        what only the book shows), DEADLINE at most."""
        deadline = time.monotonic() + DEADLINE
        with self._cv:
            while not done():
                left = deadline - time.monotonic()
                assert left > 0, "the receiver did not get there in time"
                self._cv.wait(min(left, 0.01))

    def journal_until(self, count: int, settled: bool = True) -> list[ReceivedCallback]:
        """The journal once it holds `count` callbacks (`settled`: none still "received")."""
        rows: list[ReceivedCallback] = []

        def done() -> bool:
            nonlocal rows
            rows = self.book.callbacks_received(1000)
            return len(rows) >= count and not (
                settled and any(row.outcome == "received" for row in rows)
            )

        self.wait_for(done)
        return rows
