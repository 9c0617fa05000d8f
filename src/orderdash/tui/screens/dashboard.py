"""The dashboard: token input, watch list, detail, QR, transactions, status line.

The app owns the state (`DashboardState`) and the watcher; this screen composes the panes,
binds the keys and routes the watcher's reports: the state says what changed, the screen hands
each widget what it shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Header

from orderdash.core.domain.display import coin_code
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.watcher import OrderWatcher
from orderdash.core.safetext import clean
from orderdash.core.service.client import Fetched
from orderdash.core.service.errors import NotFound
from orderdash.core.service.models import Transaction
from orderdash.core.watching.state import DashboardState, Freshness
from orderdash.tui import messages
from orderdash.tui.bindings import DASHBOARD_BINDINGS
from orderdash.tui.compat.keys_footer import KeysFooter
from orderdash.tui.text import literal
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.payment_qr import ServerImageDecoded, qr_what, show_payload
from orderdash.tui.widgets.qr import QRView
from orderdash.tui.widgets.status_line import StatusLine
from orderdash.tui.widgets.token_bar import TokenBar
from orderdash.tui.widgets.transactions import TransactionsPane
from orderdash.tui.widgets.watch_list import WatchListPane

#: Below this width the QR would squeeze the order and its payments: it is hidden, with a note.
QR_MIN_SCREEN_WIDTH = 100


class DashboardScreen(Screen[None]):
    #: `start` focuses what fits the start (the order's table, the list or the token input).
    #: Textual's default would focus the token input first, a frame earlier, and the footer
    #: would show that input's keys (only "/") and then rebuild for the table's.
    AUTO_FOCUS = ""
    BINDINGS = DASHBOARD_BINDINGS

    #: How fresh the order on screen is (the state's, handed down to the status line).
    freshness: var[Freshness] = var(Freshness, init=False)
    #: What the customer display shows, in a few words ("" when nothing is published).
    customer_display: var[str] = var("", init=False)

    def __init__(self, state: DashboardState, watcher: OrderWatcher) -> None:
        super().__init__()
        self.state, self.watcher = state, watcher

    def compose(self) -> ComposeResult:
        yield Header()
        yield TokenBar()
        yield WatchListPane(self.state, id="watch")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield OrderDetail(id="detail")
                yield TransactionsPane(id="transactions-pane")
            yield QRView(id="qr")
        yield StatusLine(monotonic=self.state.monotonic, id="status").data_bind(
            DashboardScreen.freshness, DashboardScreen.customer_display
        )
        yield KeysFooter()

    def on_mount(self) -> None:
        self.watch(self.app, "tick", self._tick, init=False)
        self.watch(self.app, "roster", self.query_one(WatchListPane).rebuild)

    def start(self, first: str | None, token_errors: Sequence[str]) -> None:
        """The orders to watch are known: open `first` (given on the command line) and say why
        given tokens were refused."""
        for reason in token_errors:
            self.query_one(TokenBar).show_error(reason)
        if first is not None:
            self.load(first)
            self.query_one(TransactionsPane).table.focus()
        elif self.state.entries:
            self.query_one(WatchListPane).table.focus()
        else:
            self.query_one(TokenBar).input.focus()

    def on_resize(self, event: Resize) -> None:
        narrow = event.size.width < QR_MIN_SCREEN_WIDTH
        self.set_class(narrow, "-narrow")
        note = f"QR hidden: needs {QR_MIN_SCREEN_WIDTH}+ columns" if narrow else ""
        self.query_one(OrderDetail).border_subtitle = note

    @property
    def _app(self) -> Any:
        """The app (OrderDashApp, which imports this module: not named here)."""
        return self.app

    def _tick(self) -> None:
        self.query_one(StatusLine).tick()
        self.query_one(OrderDetail).tick(self.state.clock())
        self.query_one(WatchListPane).tick()

    # -- the order on screen -------------------------------------------------------------------

    @on(messages.TokenSubmitted)
    @on(messages.OrderChosen)
    def _order_asked(self, message: messages.TokenSubmitted | messages.OrderChosen) -> None:
        self.load(message.token)
        if isinstance(message, messages.TokenSubmitted):  # from the list, the focus stays there
            self.query_one(TransactionsPane).table.focus()

    def load(self, token: str) -> None:
        """Show `token`'s order in the detail panes (adding it to the watch list if new)."""
        self._app.watch_tokens([token], save=True)
        if token not in self.state.entries:  # the list is full (the user was told)
            return
        self.state.focus(token)
        self.watcher.focus(self.state.closely_watched)
        self.query_one(TokenBar).input.value = token
        self.query_one(OrderDetail).show_loading(token)
        self.query_one(TransactionsPane).reset()
        self.query_one(QRView).text = ""
        self.sub_title = clean(token, limit=60)
        self.freshness = self.state.freshness
        if not self.state.rates_enabled:
            self._app.tell_no_bearer()
        self.query_one(WatchListPane).mark_seen(token)
        entry = self.state.entries.get(token)
        if entry is not None and entry.fetched is not None:
            # what the list already knows shows at once; the focused read refreshes it
            self._show_order(entry.fetched, Kind.ORDER, ())

    def _show_order(self, fetched: Fetched, kind: Kind, new_ids: tuple[int, ...]) -> None:
        """The focused order into the detail, transactions, QR and status panes."""
        order = self.state.show(fetched, kind, new_ids).order
        self._show_qr()
        currency = clean(order.currency.abbreviation, limit=12)
        self.query_one(TransactionsPane).show(
            order.transactions, new_ids, coin_code(order), currency
        )
        company, token = clean(order.company_name, limit=40), clean(order.token, limit=40)
        self.sub_title = f"{company} \u00b7 {token}"
        self._update_freshness()
        warning, first = self.state.token_mismatch(order)
        if warning and first:
            self.notify(warning, title="Another order token", severity="warning", markup=False)
        self.query_one(TokenBar).show_error(warning)
        self._app.shown = self.state.shown

    @on(ServerImageDecoded)
    def _show_qr(self) -> None:
        """The QR pane, and the detail that says what the code is (again once the server's
        image is decoded, in a worker)."""
        if (shown := self.state.shown) is not None:
            what = qr_what(shown.payload, show_payload(self.query_one(QRView), shown.payload))
            detail = self.query_one(OrderDetail)
            detail.show(shown.order, shown.received_at, self.state.direction, shown.payment, what)

    def _update_freshness(self) -> None:
        self.freshness = freshness = self.state.freshness
        stale = freshness.stale and self.state.order is not None
        self.query_one(OrderDetail).stale_since = freshness.last_update if stale else None

    # -- reports from the watcher --------------------------------------------------------------

    @on(messages.OrderFetched)
    def _order_fetched(self, message: messages.OrderFetched) -> None:
        looking = message.token == self.state.token and self.app.screen is self
        result = self.state.fetched(message.token, message.fetched, message.change, looking=looking)
        if result is None:  # removed meanwhile
            return
        entry, alert = result
        if alert is not None:
            self._app.announce(alert)
        self.query_one(WatchListPane).update_entry(entry.token)
        if message.token == self.state.token:
            self._show_order(message.fetched, message.kind, message.change.new_transaction_ids)
        if message.token == self.state.customer_token:
            self._app.publish_display()

    @on(messages.FetchFailed)
    def _fetch_failed(self, message: messages.FetchFailed) -> None:
        failure = message.failure
        if self.state.failed(message.token, failure) is not None:
            self.query_one(WatchListPane).update_entry(message.token)
        if message.token == self.state.customer_token:
            self._app.publish_display()
        if message.token != self.state.token:
            return
        if self.state.order is None and failure.kind is Kind.ORDER:
            self.query_one(OrderDetail).show_message(literal(failure.error.message, "bold"))
            if isinstance(failure.error, NotFound):
                self.query_one(TokenBar).show_error(failure.error.message)
        self._update_freshness()

    @on(messages.WatchStatusChanged)
    def _watch_status_changed(self, message: messages.WatchStatusChanged) -> None:
        self.state.statuses(message.token, message.status)
        if message.token == self.state.token:
            self.freshness = self.state.freshness

    # -- the watch list ---------------------------------------------------------------------------

    def action_remove_order(self) -> None:
        self._app.unwatch(self.query_one(WatchListPane).selected_token() or self.state.token)

    def action_filter(self) -> None:
        self.query_one(WatchListPane).focus_filter()

    def action_state_filter(self) -> None:
        state = self.query_one(WatchListPane).cycle_state_filter()
        self.notify(f"Showing: {state}", timeout=2, markup=False)

    def action_sort(self) -> None:
        self.query_one(WatchListPane).cycle_sort()

    def action_reverse_sort(self) -> None:
        self.query_one(WatchListPane).reverse_sort()

    def action_toggle_list(self) -> None:
        self.query_one(WatchListPane).toggle_hidden()

    # -- the selected transaction, the focus -----------------------------------------------------

    def selected_transaction(self) -> Transaction | None:
        return self.query_one(TransactionsPane).table.selected()

    def action_open_transaction(self) -> None:
        self._app.open_transaction(self.selected_transaction())

    def action_focus_token(self) -> None:
        self.query_one(TokenBar).input.focus()

    def action_focus_table(self) -> None:
        self.query_one(TransactionsPane).table.focus()
