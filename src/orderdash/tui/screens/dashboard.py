"""The single-order dashboard: token input, detail, QR, transactions, status line.

Data flows down from here: the watcher's reports arrive as messages, the screen keeps the
current order and hands each widget what it shows. Reports of a previous token are dropped by
their generation number.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Header

from orderdash.core.client import Fetched, OrderClient
from orderdash.core.config import Settings
from orderdash.core.display import amount_text, coin_code, fiat_text
from orderdash.core.errors import NotFound
from orderdash.core.models import Order
from orderdash.core.payment import PaymentState, Phase, payment_state
from orderdash.core.qr_payload import QRContent, QRPayload, qr_payload
from orderdash.core.refresh import Kind, TrackStatus
from orderdash.core.safetext import clean
from orderdash.core.watcher import Change, Failure, OrderWatcher
from orderdash.core.watchlist import (
    MAX_TOKENS,
    WatchListFile,
    default_path,
    parse_tokens,
)
from orderdash.tui.messages import (
    CustomerScreen,
    FetchFailed,
    OrderChosen,
    OrderFetched,
    TokensAdded,
    TokenSubmitted,
    WatchListRead,
    WatchListSaved,
    WatchStatusChanged,
)
from orderdash.tui.screens.alerts import AddTokensScreen, Alert, AlertsScreen
from orderdash.tui.text import joined, literal
from orderdash.tui.widgets.keys import KeysFooter
from orderdash.tui.widgets.order_detail import OrderDetail, rate_direction
from orderdash.tui.widgets.payment_qr import ServerImageDecoded, show_payload
from orderdash.tui.widgets.qr import QRView
from orderdash.tui.widgets.status_line import Freshness, StatusLine
from orderdash.tui.widgets.token_bar import TokenBar
from orderdash.tui.widgets.transactions import TransactionsPane, TransactionsTable
from orderdash.tui.widgets.watch_list import Entry, WatchListPane, WatchTable

if TYPE_CHECKING:
    from orderdash.tui.screens.pos import PosScreen

#: How long a new transaction keeps its mark in the table.
NEW_MARK_SECONDS = 30.0
#: A dashboard left open for weeks keeps the latest alerts and undoable removals, not all.
MAX_ALERTS = 1000
MAX_UNDO = 100
#: Below this width the QR would squeeze the order and its payments: it is hidden, with a note.
QR_MIN_SCREEN_WIDTH = 100


class _Reporter:
    """Turns the watcher's callbacks into messages to the screen."""

    def __init__(self, screen: DashboardScreen) -> None:
        self._screen = screen

    def on_fetched(self, token: str, kind: Kind, fetched: Fetched, change: Change) -> None:
        self._screen.post_message(OrderFetched(token, kind, fetched, change))

    def on_failure(self, token: str, failure: Failure) -> None:
        self._screen.post_message(FetchFailed(token, failure))

    def on_status(self, token: str, status: dict[Kind, TrackStatus]) -> None:
        self._screen.post_message(WatchStatusChanged(token, status))


class DashboardScreen(Screen[None]):
    #: `on_mount` focuses what fits the start (the order's table, the list or the token
    #: input). Textual's default would focus the token input first, a frame earlier, and the
    #: footer would show that input's keys (only "/") and then rebuild for the table's.
    AUTO_FOCUS = ""
    BINDINGS = [
        Binding("r", "refresh", "Refresh", tooltip="Fetch the order and the rate now"),
        Binding("c", "copy_address", "Copy address", tooltip="Copy the payment address"),
        Binding("y", "copy_amount", "Copy amount", tooltip="Copy the coin amount, exact digits"),
        Binding(
            "o",
            "open_transaction",
            "Open tx",
            tooltip="Open the selected transaction's explorer page",
        ),
        Binding("p", "point_of_sale", "POS", tooltip="Full-screen view for the paying customer"),
        Binding("slash", "focus_token", "Token", tooltip="Type another order token"),
        Binding("a", "add_tokens", "Add", tooltip="Add orders to the watch list (paste several)"),
        Binding("d", "remove_order", "Remove", tooltip="Remove the selected order from the list"),
        Binding("u", "undo_remove", "Undo", show=False, tooltip="Put the last removed order back"),
        Binding("f", "filter", "Filter", tooltip="Filter the watch list by text"),
        Binding("t", "state_filter", "State", tooltip="Show only orders in one state (cycles)"),
        Binding("s", "sort", "Sort", tooltip="Sort the watch list by the next column"),
        Binding("l", "alerts", "Alerts", tooltip="The log of alerts"),
        Binding("w", "toggle_list", "List", show=False, tooltip="Show or hide the watch list"),
        Binding("escape", "focus_table", "Table", show=False),
    ]

    def __init__(
        self,
        client: OrderClient,
        settings: Settings,
        *,
        tokens: Sequence[str] = (),
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        open_pos: bool = False,
    ) -> None:
        super().__init__()
        self.open_pos = open_pos
        self.initial_tokens = list(tokens)
        self.entries: dict[str, Entry] = {}
        self.alerts: deque[Alert] = deque(maxlen=MAX_ALERTS)
        self._removed: deque[tuple[str, Entry]] = deque(maxlen=MAX_UNDO)
        self.store: WatchListFile | None = None
        if settings.persist_watchlist:
            path = (
                Path(settings.watchlist_file).expanduser()
                if settings.watchlist_file
                else default_path()
            )
            self.store = WatchListFile(path)
        self.payment: PaymentState | None = None
        self.payload: QRPayload | None = None
        self.pos: PosScreen | None = None
        #: The last `qrCode` the rate endpoint sent (getOrder carries none).
        self._server_qr: str | None = None
        self.client = client
        self.settings = settings
        self.clock = clock
        self.monotonic = monotonic
        self.token: str | None = None
        self.order: Order | None = None
        self.watcher = OrderWatcher(
            client,
            _Reporter(self),
            poll_interval=settings.poll_interval,
            refresh_interval=settings.refresh_interval,
            budget_per_minute=settings.budget_per_minute,
            concurrency=settings.concurrency,
        )
        self._direction: int | None = None
        self._told_no_token = False
        self._told_mismatch: set[tuple[str, str]] = set()
        self._received_at = 0.0
        # This instance's watch-list changes not yet merged into the file, written by one
        # worker at a time (`_flush_watch_list`), in the order they were made.
        self._pending_lock = threading.Lock()
        self._pending_added: dict[str, None] = {}
        self._pending_removed: set[str] = set()
        self._store_busy = False
        self._flushing = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield TokenBar()
        yield WatchListPane(clock=self.clock, id="watch")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield OrderDetail(id="detail")
                yield TransactionsPane(id="transactions-pane")
            yield QRView(id="qr")
        yield StatusLine(monotonic=self.monotonic, id="status")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)
        self.run_watcher()
        if self.store is not None:
            # reading the file costs what the file holds: never on the event loop
            self._store_busy = True
            self._read_watch_list(initial=True)
        else:
            self._start([])

    def on_unmount(self) -> None:
        # quitting must not lose a change still queued for the file (the store waits for a
        # merge in progress, then takes this one)
        with self._pending_lock:
            added = list(self._pending_added)
            removed = set(self._pending_removed)
            self._pending_added.clear()
            self._pending_removed.clear()
        if self.store is not None and (added or removed):
            with contextlib.suppress(OSError):
                self.store.apply(added, removed)

    def _start(self, saved: list[str]) -> None:
        """The rest of mounting, once the saved list is known: the given tokens join it."""
        given = parse_tokens("\n".join(self.initial_tokens), known=saved)
        for _, reason in given.invalid:
            self.query_one(TokenBar).show_error(reason)
        self._add_tokens(saved, save=False)
        self._add_tokens(given.tokens, save=True)
        first = next(iter(given.tokens + given.duplicates), None)
        if first is not None:
            self.load(first)
            self.query_one(TransactionsTable).focus()
            if self.open_pos:
                self.action_point_of_sale()
        elif self.entries:
            self.query_one(WatchTable).focus()
        else:
            self.query_one(TokenBar).input.focus()
        self._update_list_visibility()

    def on_resize(self, event: Resize) -> None:
        narrow = event.size.width < QR_MIN_SCREEN_WIDTH
        self.set_class(narrow, "-narrow")
        detail = self.query_one(OrderDetail)
        detail.border_subtitle = (
            f"QR hidden: needs {QR_MIN_SCREEN_WIDTH}+ columns" if narrow else ""
        )

    # -- loading and watching ------------------------------------------------------------------

    @on(TokenSubmitted)
    def _token_submitted(self, message: TokenSubmitted) -> None:
        self.load(message.token)
        self.query_one(TransactionsTable).focus()

    def load(self, token: str) -> None:
        """Show `token`'s order in the detail panes (adding it to the watch list if new)."""
        if token not in self.entries:
            self._add_tokens([token], save=True)
            if token not in self.entries:  # the list is full (the user was told)
                return
        self.token = token
        self.watcher.focus({token})
        self.order = None
        self.payment = None
        self.payload = None
        self._server_qr = None
        self._direction = None
        self.query_one(TokenBar).input.value = token
        self.query_one(OrderDetail).show_message(
            joined(Text("Loading ", "italic"), literal(token, limit=80), "\u2026")
        )
        self.query_one(OrderDetail).remove_class("-stale")
        self.query_one(TransactionsPane).reset()
        self.query_one(QRView).text = ""
        self.sub_title = clean(token, limit=60)
        self._status.state = Freshness(loading=True, rates_enabled=self.client.has_bearer_token)
        self._status.tick()
        if not self.client.has_bearer_token and not self._told_no_token:
            self._told_no_token = True
            self.notify(
                "Rate refresh is off: it needs a bearer token (--bearer-token-file). "
                "The order is still polled.",
                title="No bearer token",
                severity="warning",
                markup=False,
            )
        entry = self.entries.get(token)
        self._mark_seen(token)
        if entry is not None and entry.order is not None and entry.fetched is not None:
            # what the list already knows shows at once; the focused read refreshes it
            self._show_order(entry.fetched, Kind.ORDER, ())

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def run_watcher(self) -> None:
        await self.watcher.run()

    def _is_current(self, message: OrderFetched | FetchFailed | WatchStatusChanged) -> bool:
        return message.token == self.token

    @property
    def _status(self) -> StatusLine:
        return self.query_one(StatusLine)

    # -- reports from the watcher --------------------------------------------------------------

    @on(OrderFetched)
    def _order_fetched(self, message: OrderFetched) -> None:
        token = message.token
        entry = self.entries.get(token)
        if entry is None:  # removed meanwhile
            return
        fetched = message.fetched
        payment = payment_state(fetched.order, fetched.received_at)
        updated = replace(
            entry,
            fetched=fetched,
            payment=payment,
            error=None,
            failing=False,
            updated_at=self.clock(),
        )
        self.entries[token] = updated
        if message.change:
            self._raise_alerts(updated, message.change)
        self.query_one(WatchListPane).update_entry(self.entries[token])
        if token == self.token:
            self._show_order(fetched, message.kind, message.change.new_transaction_ids)

    def _show_order(self, fetched: Fetched, kind: Kind, new_ids: tuple[int, ...]) -> None:
        """The focused order into the detail, transactions, QR and status panes."""
        order = fetched.order
        if self.order is not None and order.exchange_rate != self.order.exchange_rate:
            self._direction = rate_direction(self.order.exchange_rate, order.exchange_rate)
        self.order = order
        now = self.clock()
        if kind is Kind.RATES and order.qr_code:
            self._server_qr = order.qr_code
        self.payment = payment_state(order, fetched.received_at)
        mode = QRContent(self.settings.qr_content)
        self.payload = qr_payload(
            order, self.payment, mode, self._server_qr, uppercase=self.settings.qr_uppercase
        )
        self._received_at = fetched.received_at
        self._show_qr()
        pane = self.query_one(TransactionsPane)
        pane.show(
            order.transactions,
            new_ids,
            coin_code(order),
            clean(order.currency.abbreviation, limit=12),
        )
        self.sub_title = (
            f"{clean(order.company_name, limit=40)} \u00b7 {clean(order.token, limit=40)}"
        )

        state = self._status.state
        state.loading = False
        state.last_update = now
        state.errors.pop(kind, None)
        state.retry_at.pop(kind, None)
        if kind is Kind.RATES:
            state.next_rate_at = self.monotonic() + self.settings.refresh_interval
        self._update_staleness()
        self.query_one(TokenBar).show_error(self._token_mismatch(order))
        self._update_pos()
        if new_ids:
            if self.pos is not None:
                self.pos.payment_arrived()
            self.set_timer(NEW_MARK_SECONDS, self.query_one(TransactionsTable).clear_new_marks)

    def _show_qr(self) -> None:
        """The QR pane, and the order detail that says what the code is."""
        if self.order is None or self.payment is None or self.payload is None:
            return
        qr_note = show_payload(self.query_one(QRView), self.payload)
        what = _qr_what(self.payload, qr_note)
        self.query_one(OrderDetail).show(
            self.order, self._received_at, self._direction, self.payment, what
        )

    @on(ServerImageDecoded)
    def _server_image_decoded(self, event: ServerImageDecoded) -> None:
        event.stop()
        self._show_qr()

    def _token_mismatch(self, order: Order) -> str | None:
        """A warning when the service answered with another token than the one asked (it may
        normalise tokens, so the answer is shown, but never as if nothing were odd)."""
        if self.token is None or order.token == self.token:
            return None
        warning = (
            f"Warning: the service answered for order token {clean(order.token, limit=60)!r}, "
            f"not {clean(self.token, limit=60)!r} as asked"
        )
        if (self.token, order.token) not in self._told_mismatch:
            self._told_mismatch.add((self.token, order.token))
            self.notify(warning, title="Another order token", severity="warning", markup=False)
        return warning

    def _raise_alerts(self, entry: Entry, change: Change) -> None:
        """Toast, bell, a mark on the row until seen, and a line in the alerts log."""
        order, payment = entry.order, entry.payment
        assert order is not None and payment is not None
        company = clean(order.company_name, limit=40)
        texts = []
        if change.new_transaction_ids:
            by_id = {tx.id: tx for tx in order.transactions}
            paid = [
                f"{amount_text(tx.amount.base)} {coin_code(order)} "
                f"({fiat_text(tx.amount_fiat.base, order.currency.abbreviation)})"
                for tx in (by_id.get(i) for i in change.new_transaction_ids)
                if tx is not None
            ]
            texts.append(f"Payment received: {', '.join(paid) or 'new transaction'}")
        if change.status is not None:
            before, after = change.status
            texts.append(f"Status {clean(before, limit=30) or '?'} \u2192 {clean(after, limit=30)}")
        if payment.phase in (Phase.OVERPAID, Phase.UNDERPAID, Phase.EXPIRED, Phase.UNCLEAR):
            texts.append(payment.headline)
        text = clean("; ".join(texts), limit=240)
        self.alerts.append(Alert(self.clock(), entry.token, company, text))
        if entry.token != self.token or self.app.screen is not self:
            entry.unseen = True
        # with the customer's screen up, only its own order rings; the app holds the toast
        if self.settings.bell and (self.pos is None or entry.token == self.token):
            self.app.bell()
        self.notify(
            text, title=f"{company} \u00b7 {clean(entry.token, limit=30)}", markup=False, timeout=8
        )

    @on(FetchFailed)
    def _fetch_failed(self, message: FetchFailed) -> None:
        failure = message.failure
        entry = self.entries.get(message.token)
        if entry is not None and failure.kind is Kind.ORDER:
            failed = replace(entry, error=failure.error.message, failing=True)
            self.entries[message.token] = failed
            self.query_one(WatchListPane).update_entry(failed)
        if not self._is_current(message):
            return
        state = self._status.state
        state.errors[failure.kind] = failure.error.message
        state.retry_at[failure.kind] = self.monotonic() + failure.retry_in
        if self.order is None and failure.kind is Kind.ORDER:
            self.query_one(OrderDetail).show_message(literal(failure.error.message, "bold"))
            if isinstance(failure.error, NotFound):
                self.query_one(TokenBar).show_error(failure.error.message)
        self._update_staleness()

    @on(WatchStatusChanged)
    def _watch_status_changed(self, message: WatchStatusChanged) -> None:
        if self._is_current(message):
            self._status.state.statuses = message.status

    def _update_staleness(self) -> None:
        state = self._status.state
        stale = state.stale and self.order is not None
        if self.pos is not None:
            self.pos.set_connection_problem(stale)
        detail = self.query_one(OrderDetail)
        detail.set_class(stale, "-stale")
        if stale and state.last_update is not None:
            since = time.strftime("%H:%M:%S", time.localtime(state.last_update))
            detail.border_title = f"Order \u00b7 STALE since {since}"
        else:
            detail.border_title = "Order"
        self._status.tick()

    def _tick(self) -> None:
        self.query_one(OrderDetail).tick(self.clock())
        # another dashboard on the same list: a stat a second tells when it wrote the file
        if self.store is not None and not self._store_busy and self.store.changed():
            self._store_busy = True
            self._read_watch_list(initial=False)

    # -- actions --------------------------------------------------------------------------------

    def action_refresh(self) -> None:
        if self.token is not None:
            self.watcher.refresh_now(self.token)
            self.notify("Refreshing\u2026", timeout=1.5, markup=False)

    # -- the watch list ---------------------------------------------------------------------------

    def _add_tokens(self, tokens: Sequence[str], *, save: bool) -> list[str]:
        added = list(dict.fromkeys(token for token in tokens if token not in self.entries))
        room = max(MAX_TOKENS - len(self.entries), 0)
        if len(added) > room:
            # what is saved must load again: the cap is the same one loading enforces
            self._tell_full(len(added) - room)
            added = added[:room]
        for token in added:
            self.entries[token] = Entry(token)
            self.watcher.add(token)
        if added:
            self.query_one(WatchListPane).set_entries(self.entries.values())
            self._update_list_visibility()
            if save:
                self._save(added=added)
        return added

    def _tell_full(self, count: int) -> None:
        self.notify(
            f"The watch list holds at most {MAX_TOKENS} orders: {count} not added "
            "(remove some with d first)",
            title="Watch list full",
            severity="warning",
            markup=False,
        )

    def _save(self, added: Sequence[str] = (), removed: Sequence[str] = ()) -> None:
        """Queue this instance's change for the file; one worker merges the queue in order."""
        if self.store is None:
            return
        with self._pending_lock:
            for token in added:
                self._pending_removed.discard(token)
                self._pending_added[token] = None
            for token in removed:
                self._pending_added.pop(token, None)
                self._pending_removed.add(token)
            start = not self._flushing
            self._flushing = True
        self._store_busy = True
        if start:
            self._flush_watch_list()

    @work(thread=True, group="watchlist-save", exit_on_error=False)
    def _flush_watch_list(self) -> None:
        """Merge the queued changes into the file until none is left (one such worker at a
        time, so the changes reach the file in the order they were made)."""
        store = self.store
        while store is not None:
            with self._pending_lock:
                added = list(self._pending_added)
                removed = set(self._pending_removed)
                self._pending_added.clear()
                self._pending_removed.clear()
                if not added and not removed:
                    self._flushing = False
                    return
            try:
                saved = store.apply(added, removed)
            except OSError as error:
                self.post_message(WatchListSaved([], [], None, error=str(error)))
                continue
            self.post_message(WatchListSaved(saved.tokens, saved.refused, saved.warning))

    @work(thread=True, group="watchlist-read", exit_on_error=False)
    def _read_watch_list(self, initial: bool) -> None:
        assert self.store is not None
        try:
            tokens, warning = self.store.load() if initial else self.store.reload()
        except OSError as error:
            tokens, warning = [], f"cannot read the watch list {self.store.path}: {error}"
        self.post_message(WatchListRead(tokens, warning, initial))

    @on(WatchListRead)
    def _watch_list_read(self, message: WatchListRead) -> None:
        self._store_busy = False
        if message.warning:
            self.notify(message.warning, title="Watch list", severity="warning", markup=False)
        if message.initial:
            self._start(message.tokens)
        else:
            self._adopt(message.tokens)

    @on(WatchListSaved)
    def _watch_list_saved(self, message: WatchListSaved) -> None:
        with self._pending_lock:
            self._store_busy = self._flushing
        if message.error is not None:
            self.notify(
                f"The watch list could not be saved: {message.error}",
                severity="error",
                markup=False,
            )
            return
        if message.warning:
            self.notify(message.warning, title="Watch list", severity="warning", markup=False)
        if message.refused:
            self._tell_full(len(message.refused))
        self._adopt(message.tokens)

    def _adopt(self, tokens: list[str]) -> None:
        """Take in what the file holds (another instance's additions and removals), except
        this instance's own changes still on their way to it."""
        with self._pending_lock:
            pending_added = set(self._pending_added)
            pending_removed = set(self._pending_removed)
        in_file = set(tokens)
        gone = [t for t in self.entries if t not in in_file and t not in pending_added]
        for token in gone:
            self.entries.pop(token)
            self.watcher.remove(token)
            self.query_one(WatchListPane).remove(token)
        self._add_tokens([t for t in tokens if t not in pending_removed], save=False)
        if gone:
            self._update_list_visibility()

    def _mark_seen(self, token: str) -> None:
        entry = self.entries.get(token)
        if entry is not None and entry.unseen:
            seen = replace(entry, unseen=False)
            self.entries[token] = seen
            self.query_one(WatchListPane).update_entry(seen)

    def _update_list_visibility(self) -> None:
        pane = self.query_one(WatchListPane)
        # one order is the single-order dashboard: the list appears from the second one on
        pane.display = len(self.entries) > 1 and not self.has_class("-list-hidden")

    @on(OrderChosen)
    def _order_chosen(self, message: OrderChosen) -> None:
        self.load(message.token)

    @on(WatchTable.RowHighlighted)
    def _row_highlighted(self, event: WatchTable.RowHighlighted) -> None:
        # seen = the operator is on the list, on that row (not a row moving under an idle cursor)
        if event.row_key.value is not None and event.data_table.has_focus:
            self._mark_seen(event.row_key.value)

    @on(TokensAdded)
    def _tokens_added(self, message: TokensAdded) -> None:
        parsed = parse_tokens(message.text, known=self.entries)
        added = self._add_tokens(parsed.tokens, save=True)
        parts = [f"Added {len(added)}"]
        if parsed.duplicates:
            parts.append(f"{len(parsed.duplicates)} already watched")
        if parsed.invalid:
            raw, reason = parsed.invalid[0]
            more = f" (and {len(parsed.invalid) - 1} more)" if len(parsed.invalid) > 1 else ""
            parts.append(f"{len(parsed.invalid)} refused: {clean(raw, limit=30)}: {reason}{more}")
        severity = "warning" if parsed.invalid else "information"
        self.notify("; ".join(parts), severity=severity, markup=False)

    def action_add_tokens(self) -> None:
        def added(text: str | None) -> None:
            if text:
                self.post_message(TokensAdded(text))

        self.app.push_screen(AddTokensScreen(), callback=added)

    def action_remove_order(self) -> None:
        token = self.query_one(WatchListPane).selected_token()
        if token is None:
            token = self.token
        if token is None or token not in self.entries:
            self.notify("No order selected.", severity="warning", markup=False)
            return
        self._removed.append((token, self.entries.pop(token)))
        self.watcher.remove(token)
        self.query_one(WatchListPane).remove(token)
        self._update_list_visibility()
        self._save(removed=[token])
        self.notify(
            f"Removed {clean(token, limit=40)} \u2014 press u to undo", timeout=6, markup=False
        )

    def action_undo_remove(self) -> None:
        if not self._removed:
            self.notify("Nothing to undo.", markup=False)
            return
        if len(self.entries) >= MAX_TOKENS:
            self._tell_full(1)
            return
        token, entry = self._removed.pop()
        self.entries[token] = entry
        self.watcher.add(token)
        if token == self.token:
            self.watcher.focus({token})
        self.query_one(WatchListPane).add(entry)
        self._update_list_visibility()
        self._save(added=[token])
        self.notify(f"Back on the list: {clean(token, limit=40)}", timeout=3, markup=False)

    def action_filter(self) -> None:
        self.remove_class("-list-hidden")
        self._update_list_visibility()
        self.query_one("#watch-filter").focus()

    def action_state_filter(self) -> None:
        state = self.query_one(WatchListPane).cycle_state_filter()
        self.notify(f"Showing: {state}", timeout=2, markup=False)

    def action_sort(self) -> None:
        self.query_one(WatchListPane).cycle_sort()

    def action_toggle_list(self) -> None:
        self.toggle_class("-list-hidden")
        self._update_list_visibility()

    def action_alerts(self) -> None:
        self.app.push_screen(AlertsScreen(list(self.alerts)), callback=self._alert_chosen)

    def _alert_chosen(self, token: str | None) -> None:
        if token is not None and token in self.entries:
            self.load(token)

    def action_point_of_sale(self) -> None:
        if self.pos is not None:
            return
        # imported when first opened: the big digits and the screen are not needed before
        from orderdash.tui.screens.pos import PosScreen

        self.pos = PosScreen(
            primary=self.settings.pos_primary, clock=self.clock, monotonic=self.monotonic
        )
        self.app.push_screen(self.pos, callback=self._pos_closed)
        self.post_message(CustomerScreen(up=True))
        self.call_after_refresh(self._update_pos)

    def _pos_closed(self, _: None) -> None:
        self.pos = None
        self.post_message(CustomerScreen(up=False))

    def _update_pos(self) -> None:
        if self.pos is None or not self.pos.is_mounted:
            return
        if self.order is None or self.payment is None or self.payload is None:
            return
        self.pos.show(self.order, self.payment, self.payload, self._status.state.next_rate_at)
        state = self._status.state
        self.pos.set_connection_problem(state.stale and self.order is not None)

    def action_copy_address(self) -> None:
        if self.order is None or not self.order.address:
            self.notify("No address to copy yet.", severity="warning", markup=False)
            return
        if self._copy(self.order.address, "address"):
            self.notify(
                f"Address copied: {clean(self.order.address, limit=80)}", timeout=3, markup=False
            )

    def _copy(self, text: str, what: str) -> bool:
        """Copy server text as is, or refuse: a control character would travel to wherever it is
        pasted (a wallet, a shell), and a lone surrogate cannot even be encoded for the
        terminal's clipboard sequence (it used to stop the app with UnicodeEncodeError)."""
        if not text.isprintable():
            self.notify(
                f"The {what} holds control characters or invalid text and cannot be copied: "
                f"{clean(text, limit=60)}",
                severity="error",
                markup=False,
            )
            return False
        self.app.copy_to_clipboard(text)
        return True

    def action_copy_amount(self) -> None:
        if self.order is None or self.order.amount is None:
            self.notify("No coin amount yet (coin not chosen).", severity="warning", markup=False)
            return
        amount = amount_text(self.order.amount)
        self.app.copy_to_clipboard(amount)
        self.notify(f"Amount copied: {amount} {coin_code(self.order)}", timeout=3, markup=False)

    def action_open_transaction(self) -> None:
        tx = self.query_one(TransactionsTable).selected()
        if tx is None:
            self.notify("Select a transaction first.", severity="warning", markup=False)
            return
        url = tx.hash_url or ""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or not url.isprintable():
            self.notify(
                f"Not opening a link that is not http(s): {clean(url, limit=80)}",
                severity="error",
                markup=False,
            )
            return
        self.app.open_url(url)
        self.notify(f"Opening {clean(parts.netloc, limit=60)}\u2026", timeout=3, markup=False)

    def action_copy_token(self) -> None:
        if self.token and self._copy(self.token, "order token"):
            self.notify("Order token copied.", timeout=3, markup=False)

    def action_copy_hash(self) -> None:
        tx = self.query_one(TransactionsTable).selected()
        if tx is not None and self._copy(tx.hash, "transaction hash"):
            self.notify("Transaction hash copied.", timeout=3, markup=False)

    def action_focus_token(self) -> None:
        self.query_one(TokenBar).input.focus()

    def action_focus_table(self) -> None:
        self.query_one(TransactionsTable).focus()


def _qr_what(payload: QRPayload, note: str) -> str:
    """What the QR code on screen says, in a few words."""
    if payload.kind == "server" and not note:
        what = "the server's QR image"
    elif payload.kind == "uri":
        what = (
            "payment URI with the amount due"
            if "?amount=" in (payload.text or "")
            else "payment URI"
        )
    elif payload.kind == "address":
        what = "the address"
    else:
        what = "nothing"
    return f"{what} ({note})" if note else what
