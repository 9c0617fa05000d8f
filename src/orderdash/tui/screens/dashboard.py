"""The dashboard: token input, watch list, detail, QR, transactions, status line.

The session (`core/watching/session.py`, built by `make_app`) owns the state and the watcher
and makes every change to what is watched; this screen composes the panes, binds the keys and
routes the watcher's reports: the state says what changed, and the order on screen, its
freshness, the customer display's words and the attention count go down from the app's
reactives to the panes that show them (`data_bind`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from textual import on
from textual.app import ComposeResult
from textual.events import Resize
from textual.reactive import var

from orderdash.core.model.errors import NotFound
from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import Transaction
from orderdash.core.polling.refresh import Kind
from orderdash.core.safetext import clean
from orderdash.core.watching.onscreen import Freshness, Shown
from orderdash.core.watching.session import WatchSession
from orderdash.tui import messages
from orderdash.tui.app_data import AppData
from orderdash.tui.bindings import DASHBOARD_BINDINGS, FOOTER_FIRST, READONLY_MARK, READONLY_OFF
from orderdash.tui.compat.held_render import HeldRenderScreen
from orderdash.tui.text import literal
from orderdash.tui.widgets.keys_footer import KeysFooter
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.order_view import OrderView
from orderdash.tui.widgets.status_line import StatusLine
from orderdash.tui.widgets.title_header import TitleHeader
from orderdash.tui.widgets.token_bar import TokenBar
from orderdash.tui.widgets.transactions import TransactionsPane
from orderdash.tui.widgets.watch_list import WatchListPane

if TYPE_CHECKING:
    from orderdash.tui.host import DashboardHost

#: Below this width the QR would squeeze the order and its payments: it is hidden, with a note.
QR_MIN_SCREEN_WIDTH = 100


class DashboardScreen(HeldRenderScreen):
    # (HeldRenderScreen: rendered once the start-up's hold on painting ends, not under it)
    #: `start` focuses what fits the start (the order's table, the list or the token input).
    #: Textual's default would focus the token input first, a frame earlier, and the footer
    #: would show that input's keys (only "/") and then rebuild for the table's.
    AUTO_FOCUS = ""
    BINDINGS = DASHBOARD_BINDINGS

    #: The app's, bound (`data_bind`), for the panes to bind in turn.
    shown: var[Shown | None] = var(None, init=False)
    freshness: var[Freshness] = var(Freshness, init=False)
    customer_display: var[str] = var("", init=False)
    attention: var[int] = var(0, init=False)
    roster: var[int] = var(0, init=False)

    def __init__(
        self, session: WatchSession, *, first_paint_held: bool = False, readonly: bool = False
    ) -> None:
        super().__init__()
        self.readonly = readonly  # (the setting: READ-ONLY in the footer, changes off)
        #: Every change to what is watched goes through the session (it owns state and watcher).
        self.session = session
        self.state = session.state
        self._mismatch_shown = False
        #: The app holds painting until the first order is on this screen (`end_of_hold`).
        self._first_paint_held = first_paint_held
        #: Set once its widgets are mounted and its data bound (the app's first screen: no
        #: push_screen awaits it).
        self.composed = asyncio.Event()
        # (made by the app as its first screen, in its context: its reactives to bind)
        self.data_bind(
            AppData.shown,
            AppData.freshness,
            AppData.customer_display,
            AppData.attention,
            AppData.roster,
        )

    def compose(self) -> ComposeResult:
        yield TitleHeader().data_bind(DashboardScreen.attention)
        # (the account's banner goes here with its first problem: `account_problem`)
        yield TokenBar()
        yield WatchListPane(self.state, id="watch").data_bind(DashboardScreen.roster)
        # the order over its transactions, the QR docked beside both (app.tcss)
        view = OrderView(self.state, draw_qr_later=self._first_paint_held, id="main")
        yield view.data_bind(DashboardScreen.shown, DashboardScreen.freshness)
        status = StatusLine(monotonic=self.state.monotonic, id="status")
        yield status.data_bind(DashboardScreen.freshness, DashboardScreen.customer_display)
        yield KeysFooter(first=FOOTER_FIRST, mark=READONLY_MARK if self.readonly else "")

    def end_of_hold(self) -> None:
        super().end_of_hold()
        self.query_one(OrderView).draw_qr()

    def on_mount(self) -> None:
        self.watch(self.app, "tick", self._tick, init=False)
        # (the binding to the app's data is made when this screen's messages start, after this
        # Mount: what the app sets from here on reaches the panes at once)
        self.call_later(self.composed.set)

    @property
    def _app(self) -> DashboardHost:
        """The app (OrderDashApp, which imports the dashboard: seen through its Protocol)."""
        return cast("DashboardHost", self.app)

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

    def _tick(self) -> None:
        self.query_one(StatusLine).tick()
        self.query_one(OrderView).tick(self.state.clock())
        self.query_one(WatchListPane).tick()
        self.query_one(OrderView).check_qr()

    def account_problem(self, text: str | None) -> None:
        """A one-line banner for a problem with the merchant's account (None: none), over the
        token bar. Mounted with the first problem: a start without one does without it."""
        from orderdash.tui.widgets.account_banner import AccountBanner

        AccountBanner.tell(self, text, before=self.query_one(TokenBar))

    # -- the order on screen -------------------------------------------------------------------

    @on(messages.TokenSubmitted)
    @on(messages.OrderChosen)
    def _order_asked(self, message: messages.TokenSubmitted | messages.OrderChosen) -> None:
        if message.token == self.state.token and message.token in self.state.not_found:
            # Enter again on a token the service does not know: the operator insists
            self.session.insist(message.token)
            self.query_one(TokenBar).show_error(None)
            return
        self.load(message.token)
        if isinstance(message, messages.OrderChosen):  # the last order's error is not this one's
            self.query_one(TokenBar).show_error(None)
        if isinstance(message, messages.TokenSubmitted):  # from the list, the focus stays there
            self.query_one(TransactionsPane).table.focus()

    def load(self, token: str) -> None:
        """Show `token`'s order in the detail panes (adding it to the watch list if new)."""
        previous = self.state.token
        if not self.session.open(token):  # the list is full (the user was told)
            return
        self.query_one(TokenBar).input.value = token
        self.query_one(OrderView).show_loading(token)
        self.sub_title = clean(token, limit=60)
        self._app.freshness = self.state.freshness
        if not self.state.rates_enabled:
            self._app.alarms.tell_no_bearer()
        pane = self.query_one(WatchListPane)
        if previous in self.state.entries and previous != token:
            pane.update_entry(previous)  # no longer marked open
        pane.update_entry(token)
        pane.mark_seen(token)
        entry = self.state.entries.get(token)
        if entry is not None and entry.fetched is not None:
            # what the list already knows shows at once; the focused read refreshes it
            self._show_order(entry.fetched, Kind.ORDER, ())

    def close_order(self) -> None:
        """The open order left the watch list: the panes go back to empty, and no countdown
        for an order nobody watches stays on screen (it once froze at "retrying in 0:00")."""
        self.state.unfocus()
        self.query_one(OrderView).closed()
        self.query_one(TokenBar).input.value = ""
        self.query_one(TokenBar).show_error(None)
        self.sub_title = ""
        self._app.freshness = self.state.freshness
        self._app.shown = None

    def _show_order(self, fetched: Fetched, kind: Kind, new_ids: tuple[int, ...]) -> None:
        """The focused order into the detail, transactions, QR and status panes."""
        order = self.state.show(fetched, kind, new_ids).order
        company, token = clean(order.company_name, limit=40), clean(order.token, limit=40)
        self.sub_title = f"{company} \u00b7 {token}"
        self._app.freshness = self.state.freshness
        warning, first = self.state.token_mismatch(order)
        if warning and first:
            self.notify(warning, title="Another order token", severity="warning", markup=False)
        if warning or self._mismatch_shown:
            # only its own warning is cleared: a refused input stays until the next Enter
            self.query_one(TokenBar).show_error(warning)
            self._mismatch_shown = warning is not None
        self._app.shown = self.state.shown

    # -- reports from the watcher --------------------------------------------------------------

    @on(messages.OrderFetched)
    def _order_fetched(self, message: messages.OrderFetched) -> None:
        looking = message.token == self.state.token and self.app.screen is self
        entry = self.session.fetched(
            message.token, message.fetched, message.change, looking=looking
        )
        if entry is None:  # removed meanwhile
            return
        self.query_one(WatchListPane).update_entry(entry.token)
        if message.token == self.state.token:
            self._show_order(message.fetched, message.kind, message.change.new_transaction_ids)
        if message.token == self.state.customer_token:
            self.session.publish_display()

    @on(messages.FetchFailed)
    def _fetch_failed(self, message: messages.FetchFailed) -> None:
        self._app.alarms.failed_read(failure := message.failure)  # the owner's outage
        if self.session.failed(message.token, failure):
            self.query_one(WatchListPane).update_entry(message.token)
        if message.token == self.state.customer_token:
            self.session.publish_display()
        if message.token != self.state.token:
            return
        if self.state.order is None and failure.kind is Kind.ORDER:
            self.query_one(OrderView).show_message(literal(failure.error.message, "bold"))
            if isinstance(failure.error, NotFound):
                note = (
                    " \u00b7 not saved: Enter again to keep it"
                    if message.token in self.state.not_found
                    else ""
                )
                self.query_one(TokenBar).show_error(failure.error.message + note)
        self._app.freshness = self.state.freshness

    @on(messages.WatchStatusChanged)
    def _watch_status_changed(self, message: messages.WatchStatusChanged) -> None:
        self.state.statuses(message.token, message.status)
        if message.token == self.state.token:
            self._app.freshness = self.state.freshness

    # -- the watch list ---------------------------------------------------------------------------

    def orders_arrived(self) -> None:
        """Orders joined the list by themselves (the account's): after an empty start the list
        takes the focus from the empty token input, so that the keys work on it."""
        field = self.query_one(TokenBar).input
        if self.state.token is None and self.state.entries and field.has_focus and not field.value:
            self.query_one(WatchListPane).table.focus()

    def entry_changed(self, token: str) -> None:
        """The state changed `token`'s entry outside a read (a new order's mark)."""
        self.query_one(WatchListPane).update_entry(token)

    # -- the keys (`tui/bindings.py`) --------------------------------------------------------------
    # `d`, `c`, `y`, `o`, `R`, `P` act on the list's highlighted row while the list has the focus,
    # else on the order open in the panes; `g`, `f`, `t`, `s`, `S` and `w` on the list itself.
    # The list pane keeps the rows, the session what is watched, the desk (`tui/desk.py`) the
    # clipboard and the browser: the keys hand each its part.

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.readonly and action in READONLY_OFF)

    def target_token(self) -> str | None:
        """The order a key acts on: the list's highlighted row while the list has the focus,
        else the order open in the panes."""
        return self.query_one(WatchListPane).highlighted_token() or self.state.token

    def selected_transaction(self) -> Transaction | None:
        return self.query_one(OrderView).selected_transaction()

    def action_remove_order(self) -> None:
        self.session.unwatch(self.target_token())

    def action_resolve_order(self) -> None:
        self._app.action_resolve_order(self.target_token() or "")

    def action_print_receipt(self) -> None:
        self._app.receipts.print(self.target_token(), by="dashboard")

    def action_copy_address(self) -> None:
        self._app.desk.copy_address(self.target_token())

    def action_copy_amount(self) -> None:
        self._app.desk.copy_amount(self.target_token())

    def action_open_transaction(self) -> None:
        token = self.query_one(WatchListPane).highlighted_token()
        if token is None:
            self._app.desk.open_transaction(self.selected_transaction())
        else:  # the list's row: its newest payment
            self._app.desk.open_transaction(self.state.newest_transaction(token))

    def action_toggle_details(self) -> None:
        detail = self.query_one(OrderDetail)
        detail.details = not detail.details

    def action_focus_token(self) -> None:
        self.query_one(TokenBar).input.focus()

    def action_focus_table(self) -> None:
        self.query_one(TransactionsPane).table.focus()

    def action_focus_list(self) -> None:
        if not self.query_one(WatchListPane).focus_rows():
            self.notify(
                "The watch list shows from the second order on (a adds orders).",
                timeout=3,
                markup=False,
            )

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
