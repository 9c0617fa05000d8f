"""How far a long books command is (`close`, `export`, `attention`), on stderr while it reads:
a bar on a terminal (rich), else a plain line every `progress_interval` seconds, each with what
is done, what is left and how long that takes at the getOrder budget's pace. Nothing shows
before FIRST_LINE seconds, so a command over by then says nothing; a plain run that showed
lines ends with one more saying it is done. stdout stays the command's answer.

The reads tell how far they are through the callbacks core takes (`core/books/gather.py`:
`pages(n)` for the history, `progress(done, total)` for getOrder), the same the dashboard's
`Z` shows.
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

# rich's bar shows only on a terminal, once the command proved long; the books commands that
# show it read for seconds at the least, and its modules take a few hundredths of that
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn
from rich.progress import Progress as Bar

if TYPE_CHECKING:
    from orderdash.core.polling.account import CommandBudget
    from orderdash.core.settings.model import Settings

#: Seconds before the first line (or the bar): a command over sooner shows none.
FIRST_LINE = 2.0


def duration(seconds: float) -> str:
    """'1 h 59 min', '4 min', '40 s': a person's estimate, never more precise than that (and
    never "0 s" for something still to do)."""
    if seconds < 60:
        return f"{math.ceil(max(seconds, 0))} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


class Progress:
    """The progress of one command (`what`: "export"), fed by the callbacks `pages` and
    `orders`; `seconds_per_read` is the getOrder budget's pace (`Budget.emission_interval`).
    Used as an async context manager around the reads, on their event loop."""

    def __init__(
        self,
        what: str,
        *,
        seconds_per_read: float,
        interval: float,
        stream: TextIO | None = None,
        tty: bool | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._what = what
        self._pace = seconds_per_read
        self._interval = interval
        self._stream = stream if stream is not None else sys.stderr
        self._tty = self._stream.isatty() if tty is None else tty
        self._monotonic = monotonic
        self._started = monotonic()
        self._pages = 0
        self._done = 0
        self._total: int | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._bar: Bar | None = None
        self._task = TaskID(0)
        #: Lines written (plain) or the bar shown: the command said it was under way.
        self.shown = 0

    # -- the callbacks core is given ------------------------------------------------------------

    def pages(self, count: int) -> None:
        self._pages = count
        self._update_bar()

    def orders(self, done: int, total: int) -> None:
        self._done, self._total = done, total
        self._update_bar()

    # -- what it says ---------------------------------------------------------------------------

    def left_words(self) -> str:
        """'18,800 left, about 1 h 59 min at the budget's pace'."""
        if self._total is None:
            return ""
        left = max(self._total - self._done, 0)
        return f"{left:,} left, about {duration(left * self._pace)} at the budget's pace"

    def line(self) -> str:
        """The plain line for now."""
        if self._total is None:
            return f"orderdash: {self._what}: reading the order history, page {self._pages:,}"
        return (
            f"orderdash: {self._what}: {self._done:,} of {self._total:,} orders read, "
            f"{self.left_words()}"
        )

    def last_line(self) -> str:
        took = duration(self._monotonic() - self._started)
        if self._total is None:
            return f"orderdash: {self._what}: done in {took}"
        return f"orderdash: {self._what}: {self._done:,} of {self._total:,} orders read in {took}"

    # -- showing it -----------------------------------------------------------------------------

    async def __aenter__(self) -> Progress:
        self._started = self._monotonic()
        self._ticker = asyncio.create_task(self._tick())
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            try:
                await self._ticker
            except asyncio.CancelledError:
                pass
        if self._bar is not None:
            self._bar.stop()  # transient: the bar leaves the terminal as it was
        elif self.shown and kind is None:
            self._write(self.last_line())

    async def _tick(self) -> None:
        await asyncio.sleep(min(FIRST_LINE, self._interval))
        if self._tty:
            self._show_bar()
            return
        while True:
            if self._total is None or self._done < self._total:
                self._write(self.line())  # (every order read: the last line says so, once)
            await asyncio.sleep(self._interval)

    def _write(self, line: str) -> None:
        try:
            self._stream.write(line + "\n")
            self._stream.flush()
        except (OSError, ValueError):  # stderr gone: the command's answer still matters
            return
        self.shown += 1

    def _show_bar(self) -> None:
        self._bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            TextColumn("{task.fields[left]}"),
            console=Console(file=self._stream, force_terminal=True),
            transient=True,
        )
        self._task = self._bar.add_task("", total=None, left="")
        self._update_bar()
        self._bar.start()
        self.shown += 1

    def _update_bar(self) -> None:
        if self._bar is None:
            return
        if self._total is None:
            words = f"{self._what}: the order history, page {self._pages:,}"
            self._bar.update(self._task, description=words, left="")
        else:
            self._bar.update(
                self._task,
                description=f"{self._what}: orders read",
                total=self._total,
                completed=self._done,
                left=self.left_words(),
            )


def progress_for(what: str, settings: Settings, order_gate: CommandBudget) -> Progress:
    """The progress of `what` at the pace of `order_gate` (a `CommandBudget`), every
    `settings.progress_interval` seconds."""
    return Progress(
        what,
        seconds_per_read=order_gate.budget.emission_interval,
        interval=settings.progress_interval,
    )
