"""`receive = true`: the dashboard runs the callback receiver in a thread of its own
(callback_server/inside.py), started after the first paint and stopped at quit. It writes what it
reads to the book and announces it there; the dashboard hears it as every till on the book does
(`AppBooks` hearing), never told directly. Its URL is said once; a port it cannot listen on is
one line, and the dashboard goes on polling."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orderdash.callback_server.inside import InsideReceiver
    from orderdash.core.settings.model import Settings
    from orderdash.core.usecases.reads import BookOpener
    from orderdash.tui.ui import Notify

#: How long the receiver's notices stay up.
NOTICE_SECONDS = 30


def _nobody(url: str) -> None:
    return None


class DashboardReceiver:
    """`start()` on the App's loop; `receiving(url)` is told the URL once it listens (the demo
    points its simulator's callbacks there)."""

    def __init__(
        self,
        settings: Settings,
        open_book: BookOpener | None,
        notify: Notify,
        receiving: Callable[[str], None] = _nobody,
    ) -> None:
        self._settings, self._open_book, self._notify = settings, open_book, notify
        self.receiving = receiving
        self.receiver: InsideReceiver | None = None

    def start(self) -> None:
        from orderdash.callback_server.inside import InsideReceiver, on_loop

        loop = asyncio.get_running_loop()  # told back here, from the receiver's thread
        self.receiver = InsideReceiver(
            self._settings,
            self._open_book,
            listening=on_loop(loop, self._listening),
            failed=on_loop(loop, self._failed),
        )
        self.receiver.start()

    def _listening(self, url: str) -> None:
        self._notify(
            f"receiving callbacks at {url}",
            title="Callbacks",
            severity="information",
            timeout=NOTICE_SECONDS,
            markup=False,
        )
        self.receiving(url)

    def _failed(self, text: str) -> None:
        self._notify(
            f"{text}; polling as before",
            title="Callbacks",
            severity="warning",
            timeout=NOTICE_SECONDS,
            markup=False,
        )

    async def aclose(self) -> None:
        if self.receiver is not None:
            await self.receiver.aclose()
