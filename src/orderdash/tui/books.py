"""The dashboard's side of the books (core/ledger, core/books).

`AppBooks`: every order the dashboard reads is written down (only when its answer changed, in
the ledger's own thread), a charge (`n`) is written before its create is sent, and after the
first paint this till's charges a crash left unresolved are looked up and each named in a
notice ("12.50 EUR at 10:02: made, awaiting payment"). Nothing here blocks the event loop: the
book is opened, read and written in the writer's thread (`BookWriter`).

`Z` opens the close of day (`screens/close_day.py`), `e` exports the watch list's rows as shown
(`tui/export.py`): both the use cases of `core/usecases`. The book is the one the commands open
(`core/books/run.py`), unless `make_app` was given an opener of its own; the reads go through
the App's client and the dashboard's own budgets (the watcher's): the history through its rate
budget, getOrder through its getOrder budget, so that the close and the watch list together
stay within the service's limits.

AppBooks holds no App: it is given what it uses (`books_for`), a notify callable and the App's
worker runner; the screen to show and to open a screen over are passed to `close_day` and
`export_list`. The ledger's and the books' modules are no part of the start-up: they are
imported where first used, after the first paint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from orderdash.core.model.errors import OrderdashError
from orderdash.core.polling.refresh import Kind
from orderdash.core.watching import attention as keeping

if TYPE_CHECKING:
    from asyncio import AbstractEventLoop
    from datetime import datetime

    from textual.app import App
    from textual.screen import Screen

    from orderdash.core.ledger import Book
    from orderdash.core.ledger.writer import BookWriter
    from orderdash.core.model.results import Fetched
    from orderdash.core.notify.events import Notices
    from orderdash.core.polling.push import PushNews
    from orderdash.core.service.client import OrderClient
    from orderdash.core.settings.model import Settings
    from orderdash.core.usecases.attention import OrderAttention
    from orderdash.core.usecases.told import BookHearing
    from orderdash.core.watching.attention import Batch
    from orderdash.core.watching.session import Severity
    from orderdash.tui.parts import Parts
    from orderdash.tui.receiving import DashboardReceiver
    from orderdash.tui.ui import Notify, PushScreen, RunWorker

#: How long the notice of an earlier charge stays up.
NOTICE_SECONDS = 30


def books_for(
    app: App[None], settings: Settings, parts: Parts, notices: Notices | None = None
) -> AppBooks:
    """The App's books: its notices and workers, and its `attention`, the count of orders
    that need a human."""
    return AppBooks(
        settings,
        parts,
        notices,
        notify=app.notify,
        run_worker=app.run_worker,
        attention_changed=partial(setattr, app, "attention"),
    )


class AppBooks:
    def __init__(
        self,
        settings: Settings,
        parts: Parts,
        notices: Notices | None = None,
        *,
        notify: Notify,
        run_worker: RunWorker,
        attention_changed: Callable[[int], None],
    ) -> None:
        """`parts.client`: whose order reads are written, and through which the close of day
        reads; `notices`: the owner's notifications, if any rule; `notify`: where what the
        ledger says is shown; `run_worker`: where the work off the event loop runs;
        `attention_changed`: told the count of orders that need a human."""
        self._client, self._settings = parts.client, settings
        self._notify, self._run_worker = notify, run_worker
        self._notices = notices
        if notices is not None:
            notices.attention_from_phases = False  # told from the keeper below, every kind
        self._state, self._watcher = parts.state, parts.watcher
        self._open_book = parts.open_book
        self._writer: BookWriter | None = None
        #: The watched orders that need a human, less those the ledger holds resolved.
        self.attention = keeping.AttentionKeeper(
            parts.state,
            changed=attention_changed,
            unconfirmed_after=settings.attention_unconfirmed_after,
            tolerance=settings.underpaid_tolerance,
        )
        self.attention.asking = self._resolutions_of
        if notices is not None:  # the owner hears of each, once the ledger answered about it,
            # and again when it comes back after a resolution (the keeper tells each coming
            # into view once; the claim in the ledger, once whoever tells it)
            self.attention.needs_human = partial(self._needs_human, notices)
        #: Orders that need a human, found before the ledger was open: asked at `start`.
        self._asking: list[str] | None = []
        #: A classification of the watched orders runs in a thread (one at a time).
        self._classifying = False
        #: The book's announcements heard (`start`), once the ledger is open.
        self.hearing: BookHearing | None = None
        #: Told of an order the ledger holds accepted at the counter, once the state shows it
        #: paid (the App shows it so on every screen).
        self.accepted: Callable[[str], None] = lambda token: None
        #: The callback receiver run inside the dashboard (`receive = true`), from `start`.
        self.receiver: DashboardReceiver | None = None
        #: Told the in-process receiver's URL once it listens (the demo's simulator sends there).
        self.receiving: Callable[[str], None] = lambda url: None

    def _needs_human(self, notices: Notices, found: OrderAttention) -> None:
        first = found.first
        resolved = self.attention.resolved.get(found.token)
        entry = self._state.entries.get(found.token)
        payment = entry.payment if entry is not None else None
        notices.attention(
            found.token,
            first.kind,
            first.next_step,
            state=first.kind if resolved is None else f"{first.kind} after {resolved}",
            phase=payment.phase if payment is not None else None,
            amount=first.fiat_amount,
            currency=first.currency,
        )

    @property
    def writer(self) -> BookWriter:
        """Made when first needed (after the first paint, or at `n`): the ledger's modules are
        no part of the start-up."""
        if self._writer is None:
            from orderdash.core.ledger.open import writer_for

            self._writer = writer_for(self._settings)
            if self._notices is not None:  # each notification claimed in the book first
                from orderdash.core.notify.claims import LedgerClaims

                self._notices.claims = LedgerClaims(self._writer)
            loop = asyncio.get_running_loop()  # made on the App's loop: told back there
            self._writer.on_problem = lambda text: _told(loop, self._ledger_problem, text)
        return self._writer

    def _ledger_problem(self, text: str) -> None:
        """Orders stopped being written down: said once, and again only after they were
        written again and then stopped again (the writer tells each such change once)."""
        self._notify(
            f"Orders are not being written down: {text}",
            title="Ledger",
            severity="warning",
            timeout=NOTICE_SECONDS,
            markup=False,
        )

    def start(self) -> None:
        """After the first paint: orders read from now on are written down, and this till's
        unresolved charges are looked up (in a worker)."""
        if self._notices is not None:
            _ = self.writer  # its claims from now on: each notification sent once on the book
        self._client.on_order_read = self._read
        self._run_worker(self._resolve(), group="ledger", exclusive=True, exit_on_error=False)
        self._run_worker(self._hear(), group="ledger-told", exclusive=True, exit_on_error=False)
        if self._settings.receive:
            from orderdash.tui.receiving import DashboardReceiver

            self.receiver = DashboardReceiver(
                self._settings, self._open_book, self._notify, self.receiving
            )
            self.receiver.start()
        waiting, self._asking = self._asking, None
        if waiting:
            self._resolutions_of(waiting)

    def _resolutions_of(self, tokens: list[str]) -> None:
        """Which of `tokens` (orders that newly need a human) are resolved: asked of the ledger
        in a worker (the writer's thread), once it is open."""
        if self._asking is not None:
            self._asking += tokens
            return
        self._run_worker(self._resolved_of(tokens), group="ledger-resolutions", exit_on_error=False)

    async def _resolved_of(self, tokens: list[str]) -> None:
        from orderdash.core.ledger import LedgerError
        from orderdash.core.usecases.attention import resolved_in

        try:
            records = await self.writer.resolutions_of(tokens)
        except LedgerError:
            records = []  # the ledger's trouble is told by its writer; the orders stay
        resolved = resolved_in(records)
        # an order accepted at the counter (by this till before a restart, or another) is
        # shown paid again: the ledger, not this process's memory, holds the acceptance
        for token in resolved.accepted - self._state.accepted:
            self._state.accept(token)
            self.accepted(token)
        self.attention.answered(tokens, resolved.times)

    def resolved(self, times: dict[str, int]) -> None:
        """Resolutions written (token -> their time, epoch ms): those orders leave the
        attention view, until they go wrong again."""
        if times:
            self.attention.resolve(times)

    def tick(self) -> None:
        """A second: the watched orders whose answer changed are classified in a thread (one
        classification at a time), the results applied back here on the loop."""
        if self._classifying:
            return  # what changed meanwhile is taken at the next tick after it
        batch = self.attention.take()
        if not batch.items:
            self.attention.apply(batch, [])
            return
        self._classifying = True
        self._run_worker(self._classify(batch), group="attention", exit_on_error=False)

    async def _classify(self, batch: Batch) -> None:
        try:
            results = await asyncio.to_thread(keeping.classify, batch)
        finally:
            self._classifying = False
        self.attention.apply(batch, results)

    async def _hear(self) -> None:
        """The orders another process (the callback receiver) announces on the book, shown as
        polled answers are; the poll backs off while they flow (`core/usecases/told.py`)."""
        from orderdash.core.usecases.told import BookHearing

        settings = self._settings
        self.hearing = BookHearing.from_settings(
            self.writer, self._watcher, settings, self._push_news
        )
        await self.hearing.run()

    def _push_news(self, news: PushNews) -> None:
        """The callbacks began to flow, stopped, or missed a payment: said once each."""
        severity: Severity = "information" if news.kind == "flowing" else "warning"
        if news.kind == "no-callback":
            severity = "error"
        self._notify(
            news.text, title="Callbacks", severity=severity, timeout=NOTICE_SECONDS, markup=False
        )

    def _read(self, fetched: Fetched) -> None:
        self.writer.saw(fetched.order.token, fetched.raw)

    async def _resolve(self) -> None:
        from orderdash.core.ledger import LedgerError
        from orderdash.core.ledger.charges import recent_window, resolve_unresolved
        from orderdash.core.ledger.open import service_of
        from orderdash.core.usecases.reads import BudgetGate, zone_named

        try:
            zone = zone_named(self._settings.timezone)
        except OrderdashError:
            zone = None  # the close of day says what is wrong with the setting
        try:
            # the lookups spend the watcher's getOrder budget, as the close does
            resolutions = await resolve_unresolved(
                self.writer,
                self._client,
                gate=BudgetGate(self._watcher.scheduler.budgets[Kind.ORDER]),
                recent=recent_window(self._settings.timeout),
                here=service_of(self._settings),
                zone=zone,
            )
        except LedgerError as error:
            self._notify(error.message, title="Ledger", severity="warning", markup=False)
            return
        said = [(r.line, bool(r.outcome)) for r in resolutions.found]
        said += [(line, False) for line in resolutions.later]  # unresolved yet: a warning
        for line, known in said:
            self._notify(
                f"An earlier charge: {line}",
                title="Ledger",
                severity="information" if known else "warning",
                timeout=NOTICE_SECONDS,
                markup=False,
            )

    async def aclose(self) -> None:
        """At exit: what is pending written, the book closed."""
        self._client.on_order_read = None
        if self.receiver is not None:
            await self.receiver.aclose()
        if self._writer is not None:
            await self._writer.aclose()

    def close_day(self, shown: Screen[object], push_screen: PushScreen) -> None:
        """`Z`: the close of day screen, on today's report, pushed over `shown` (unless it is
        the close of day already)."""
        from orderdash.core.usecases.close import CloseOptions, closed_notice
        from orderdash.core.usecases.reads import BudgetGate, ledger_book, zone_named
        from orderdash.core.usecases.stats import StatsOptions
        from orderdash.tui.screens.close_day import CloseDayScreen, today_in

        settings, opener = self._settings, self._open_book or ledger_book
        if isinstance(shown, CloseDayScreen):
            return
        try:
            zone = zone_named(settings.timezone)
        except OrderdashError as error:
            self._notify(error.message, title="Close of day", severity="error", markup=False)
            return
        screen = CloseDayScreen(
            client=self._client,
            options=CloseOptions.from_settings(settings),
            readonly=settings.readonly,
            zone=zone,
            today=today_in(zone, self._state.clock),
            open_book=lambda: _ReadsWrittenByTheApp(opener(settings), self._client),
            order_gate=BudgetGate(self._watcher.scheduler.budgets[Kind.ORDER]),
            private_gate=self._watcher,
            on_closed=closed_notice(settings),  # the day's digest to the owner's rules
            glance=StatsOptions.from_settings(settings),
            clock=self._state.clock,
            written_down=self.writer.written_down,
        )
        push_screen(screen, callback=lambda _: None)

    def export_list(self, shown: Screen[object]) -> None:
        """`e`: the watch list on `shown`, as shown, to a CSV file (`tui/export.py`)."""
        from orderdash.tui.export import export_shown

        export_shown(shown, self._state, self._settings, self._notify, self._run_worker)


def _told(loop: AbstractEventLoop, fn: Callable[[str], None], text: str) -> None:
    """`fn(text)` on `loop`, from the ledger's thread, without waiting for it (a loop that has
    ended hears nothing)."""
    try:
        loop.call_soon_threadsafe(fn, text)
    except RuntimeError:
        pass


class _ReadsWrittenByTheApp:
    """The close of day's book in the dashboard: the close reads its orders through the App's
    client, whose hook writes each read already (`AppBooks._read`), so the close's own write of
    the same read is left out; everything else is the book's."""

    def __init__(self, book: Book, client: OrderClient) -> None:
        self._book, self._client = book, client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._book, name)

    def order_seen(self, token: str, till: str, seen_at: datetime, order_json: str) -> None:
        if self._client.on_order_read is None:  # before the first paint: nobody else writes
            self._book.order_seen(token, till, seen_at, order_json)
