"""The close of day (`Z`): a day's report in the store's time zone, read off the event loop.

It opens on today's report as a dry run ("not closed yet"), or the frozen report when the day
was closed already; `c` closes the day after a yes (`ConfirmScreen`), and the frozen report
and its digest show (with one line when it differs from the dry run confirmed: what arrived
meanwhile is in it). Left and right move a day back and forth (not past today). The work is
the `close` command's use case (`core/usecases/close.py`) through the App's client, in one
worker group; while it reads, one line says how far it is; a failure is one line and closes
nothing. Leaving while a dry run reads cancels it, quietly.

Beside the report, the day at a glance (`widgets/day_glance.py`, the `stats` command's use case:
`core/usecases/stats.py`): read from the ledger in a thread once the day's report is read (its
reads are in the ledger then), as a chart with its table, or its text form on a narrow screen.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from orderdash.core.model.errors import OrderdashError
from orderdash.core.safetext import clean
from orderdash.core.usecases.close import (
    CloseOptions,
    CloseResult,
    OnClosed,
    book_or_stand_in,
    change_note,
    day_report,
    report_lines,
)
from orderdash.core.usecases.reads import Gate, OrderReader, Period, day_period
from orderdash.core.usecases.stats import StatsOptions, read_stats
from orderdash.tui.bindings import READONLY_MARK
from orderdash.tui.screens.confirm import ConfirmScreen
from orderdash.tui.text import one_line
from orderdash.tui.widgets.day_glance import DayGlance
from orderdash.tui.widgets.keys_footer import KeysFooter

if TYPE_CHECKING:
    from orderdash.core.ledger import Book
    from orderdash.core.usecases.close import CloseReport
    from orderdash.core.usecases.stats import DayStats

log = logging.getLogger(__name__)


#: The footer's keys chosen first, whatever the width: help, then what this screen is for.
FOOTER_FIRST = ("help", "close_day", "back", "quit")
#: The narrowest screen the day at a glance is drawn on beside the report (its chart and
#: table; the report keeps 76 columns, a digest's line); narrower, `g` shows its text form in
#: the report's place.
WIDE_ENOUGH = 110


class CloseDayScreen(Screen[None]):
    DEFAULT_CSS = """
    CloseDayScreen {
        #close-title { height: 1; padding: 0 1; background: $panel; text-style: bold; }
        #close-book { height: 1; padding: 0 1; color: $warning; display: none; }
        #close-status { height: 1; padding: 0 1; color: $text-muted; }
        #close-status.-failed { color: $error; text-style: bold; }
        #close-body { height: 1fr; }
        #close-report { height: 1fr; width: 1fr; padding: 0 1; }
        #close-glance { width: 44; padding: 0 1 0 0; }
        &.-narrow #close-glance { width: 1fr; padding: 0 1; }
    }
    """
    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the dashboard"),
        # (priority: the report's scroll would take the arrows; it never scrolls sideways)
        Binding("left", "day(-1)", "Day before", priority=True, tooltip="The day before"),
        Binding("right", "day(1)", "Day after", priority=True, tooltip="The next day"),
        Binding("c", "close_day", "Close day", tooltip="Freeze this day's report (asks)"),
        Binding("r", "read_again", "Read again", show=False, tooltip="Read the day again"),
        Binding("g", "glance", "Glance", tooltip="The day at a glance: shown or not"),
    ]

    def __init__(
        self,
        *,
        client: OrderReader,
        options: CloseOptions,
        readonly: bool,
        zone: tzinfo,
        today: date,
        open_book: Callable[[], Book],
        order_gate: Gate,
        private_gate: Gate,
        on_closed: OnClosed | None = None,
        glance: StatsOptions | None = None,
        clock: Callable[[], float] = time.time,
        written_down: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """`options`: the close's, from the settings; `readonly`: a read-only operator's (the
        report only); `open_book`: the shop's book (blocking: called in a thread); `on_closed`:
        told of each close made here; `glance`: the day at a glance's options (None: no
        currency, no tolerance; its zone is `zone`), `clock`: now, for its hour in progress
        (the App's wall clock); `written_down`: returns once the reads the App has handed its
        ledger so far are written (None: nothing is written on the side)."""
        super().__init__()
        self._client = client
        self._options = options
        self._readonly = readonly
        self._on_closed = on_closed
        self._zone = zone
        self._today = today
        self._open_book = open_book
        self._order_gate = order_gate
        self._private_gate = private_gate
        self._glance_options = glance if glance is not None else StatsOptions(None, None)
        self._clock = clock
        self._written_down = written_down
        #: `g` was pressed (an odd number of times): the glance's default turned over.
        self._glance_toggled = False
        self.day = today
        #: The day's report as last shown (None while none is).
        self.result: CloseResult | None = None
        #: The day at a glance as last shown (None while none is).
        self.glance: DayStats | None = None
        #: The day on screen is closed (its report frozen).
        self.closed = False
        #: The book could not be opened: why, in one line ("" while it could).
        self.no_book = ""
        self.reading = False
        #: The person left the screen: a read still under way was cancelled and tells nothing.
        self.left = False
        self._close_asked = False
        #: The dry run's report the person confirmed closing (None: no close asked).
        self._confirmed_report: CloseReport | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="close-title")
        yield Static(id="close-book")
        yield Static(id="close-status")
        with Horizontal(id="close-body"):
            with VerticalScroll(id="close-report"):
                yield Static(id="close-lines")
            yield DayGlance(id="close-glance")
        yield KeysFooter(first=FOOTER_FIRST, mark=READONLY_MARK if self._readonly else "")

    def on_mount(self) -> None:
        self._read(dry_run=True)

    def on_resize(self, event: events.Resize) -> None:
        self._lay_out(event.size.width < WIDE_ENOUGH)

    def action_glance(self) -> None:
        self._glance_toggled = not self._glance_toggled
        self._lay_out(self.has_class("-narrow"))

    def _lay_out(self, narrow: bool) -> None:
        """Wide, the glance beside the report unless `g` hid it; narrow, the report, or (after
        `g`) the glance's text form in its place."""
        self.set_class(narrow, "-narrow")
        glance = self.query_one(DayGlance)
        glance.narrow = narrow
        glance.display = narrow == self._glance_toggled
        self.query_one("#close-report").display = not (narrow and glance.display)

    @property
    def period(self) -> Period:
        return day_period(self.day.isoformat(), self._zone)

    # -- the keys ---------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close_day" and self._readonly:
            return False
        # today has no day after it yet: the key shows, dimmed
        if action == "day" and parameters == (1,) and self.day >= self._today:
            return None
        return True

    def action_back(self) -> None:
        if not self._close_under_way():  # a close is seen through: its outcome is shown
            # a dry run still reading is cancelled here, before the screen's parts go: it
            # would otherwise tell its progress to a screen being taken down
            self.left = True
            self.workers.cancel_group(self, "close-day")
            self.dismiss(None)

    def action_day(self, step: int) -> None:
        if self._close_under_way():
            return
        day = self.day + timedelta(days=step)
        if day > self._today:
            self._status("That day has not begun yet.")
            return
        self.day, self.result, self.closed, self.glance = day, None, False, None
        self.query_one(DayGlance).waiting()
        self.refresh_bindings()
        self.query_one("#close-lines", Static).update("")
        self._read(dry_run=True)

    def action_read_again(self) -> None:
        if not self._close_under_way():
            self._read(dry_run=True)

    def _close_under_way(self) -> bool:
        """A close is under way (it is never cancelled for another day): says so."""
        if self.reading and self._close_asked:
            self._status("Closing the day: its outcome first.")
            return True
        return False

    def action_close_day(self) -> None:
        if self.reading:
            self._status("Still reading: the day can be closed once it is shown.")
        elif self.closed:
            self._status("This day is closed already: its report never changes.")
        elif self.no_book:
            self._status("Nothing can be closed without the book (see above).", failed=True)
        elif self.result is None or self.result.missing:
            self._status("Not every order was read: read again (r) before closing.", failed=True)
        else:
            period = self.period
            question = (
                f"Close {self.day.isoformat()} ({period.start.isoformat()} to "
                f"{period.end.isoformat()})? Its report is frozen: what arrives later goes "
                "to the next day's adjustments."
            )
            self.app.push_screen(ConfirmScreen("Close of day", question), self._confirmed)

    def _confirmed(self, yes: bool | None) -> None:
        if yes:
            self._confirmed_report = None if self.result is None else self.result.report
            self._read(dry_run=False)
        else:
            self._status("Not closed.")

    # -- the work (off the event loop: the reads are awaited, the book's calls in threads) -------

    def _read(self, *, dry_run: bool) -> None:
        self.reading, self._close_asked = True, not dry_run
        self._show_title()
        self._status("Closing the day\u2026" if not dry_run else "Reading the order history\u2026")
        self._day_worker(self.day, dry_run)

    @work(group="close-day", exclusive=True, exit_on_error=False)
    async def _day_worker(self, day: date, dry_run: bool) -> None:
        period = day_period(day.isoformat(), self._zone)
        book: Book | None = None
        try:
            opened, self.no_book = await asyncio.to_thread(book_or_stand_in, self._open_book)
            book = opened
            result, closed = await self._report(opened, period, dry_run)
            lines = await asyncio.to_thread(report_lines, result.report, closed=closed)
            # (only a close this screen saved: another till's, found instead, is "Closed already")
            confirmed = self._confirmed_report if result.saved else None
            note = (
                ""
                if confirmed is None
                else await asyncio.to_thread(change_note, confirmed, result.report)
            )
        except OrderdashError as error:
            self._failed(day, error.message)
            return
        except Exception as error:  # a book's storage error: told, never a crash
            log.warning("close of day failed: %s", error, exc_info=True)
            self._failed(day, f"{type(error).__name__}: {error}")
            return
        finally:
            if book is not None:
                await asyncio.to_thread(book.close_connection)
            if day == self.day and not self.left:
                self._glance_worker(day)
        if day != self.day or self.left:  # the person moved to another day, or left
            return
        self.reading = False
        self.result, self.closed = result, closed
        book_line = self.query_one("#close-book", Static)
        book_line.update(one_line(f"No book: {self.no_book} (a dry run only)"))
        book_line.display = bool(self.no_book)
        self.query_one("#close-lines", Static).update(Text("\n".join(lines), overflow="fold"))
        self._show_title()
        outcome = self._outcome(result, closed, dry_run)
        if self._readonly and not closed and not result.missing:
            outcome = "Read-only: the report only, the day is not closed from here."
        self._status(f"Closed, but {note}" if note else outcome)

    async def _report(self, book: Book, period: Period, dry_run: bool) -> tuple[CloseResult, bool]:
        return await day_report(
            self._client,
            book,
            period,
            self._options,
            dry_run=dry_run,
            order_gate=self._order_gate,
            private_gate=self._private_gate,
            progress=lambda done, total: self._progress(period, done, total),
            on_closed=self._on_closed,
        )

    @work(group="day-glance", exclusive=True, exit_on_error=False)
    async def _glance_worker(self, day: date) -> None:
        """The day at a glance from the ledger, once the reads the day's report made are
        written down (the App writes them in order), read and worked out in a thread."""
        try:
            if self._written_down is not None:
                await self._written_down()
            stats = await asyncio.to_thread(self._glance_of, day)
        except OrderdashError as error:
            self._glance_failed(day, error.message)
            return
        except Exception as error:  # a book's storage error: told, never a crash
            log.warning("day at a glance failed: %s", error, exc_info=True)
            self._glance_failed(day, type(error).__name__)
            return
        if day == self.day and not self.left:
            self.glance = stats
            self.query_one(DayGlance).show(stats)

    def _glance_of(self, day: date) -> DayStats:
        """In a thread: the day at a glance as of the App's clock."""
        now = datetime.fromtimestamp(self._clock(), self._zone)
        book, _ = book_or_stand_in(self._open_book)
        try:
            return read_stats(
                book,
                self._glance_options,
                day=day.isoformat(),
                week=False,
                now=now,
                zone=self._zone,
            )
        finally:
            book.close_connection()

    def _glance_failed(self, day: date, reason: str) -> None:
        if day == self.day and not self.left:
            self.query_one(DayGlance).unavailable(reason)

    def _progress(self, period: Period, done: int, total: int) -> None:
        if period.start.date() == self.day and not self.left:
            self._status(f"Reading {done} of {total} orders\u2026")

    def _failed(self, day: date, reason: str) -> None:
        if day != self.day or self.left:
            return
        self.reading = False
        self._show_title()  # no longer "reading"
        self._status(f"Failed, nothing closed: {reason}", failed=True)

    @staticmethod
    def _outcome(result: CloseResult, closed: bool, dry_run: bool) -> str:
        if result.missing:
            return f"{result.missing} orders could not be read: r reads the day again."
        if closed and dry_run:
            return "Closed earlier: the report as it was closed."
        if closed:
            return "Closed: this report is frozen." if result.saved else "Closed already."
        # (the title says "not closed yet", and so does the report's till line)
        return "c closes the day (it asks first)."

    # -- what shows -------------------------------------------------------------------------------

    def _show_title(self) -> None:
        state = "reading" if self.reading else "closed" if self.closed else "not closed yet"
        zone = clean(str(self._zone), limit=40)
        title = f"Close of day \u00b7 {self.day.isoformat()} \u00b7 {zone} \u00b7 {state}"
        self.query_one("#close-title", Static).update(one_line(title))

    def _status(self, text: str, *, failed: bool = False) -> None:
        status = self.query_one("#close-status", Static)
        status.set_class(failed, "-failed")
        status.update(one_line(text))


def today_in(zone: tzinfo, clock: Callable[[], float]) -> date:
    """The store's date now (the App's wall clock, so a frozen clock shows a fixed day)."""
    return datetime.fromtimestamp(clock(), zone).date()
