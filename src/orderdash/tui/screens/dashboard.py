"""The single-order dashboard: token input, detail, QR, transactions, status line.

Data flows down from here: the watcher's reports arrive as messages, the screen keeps the
current order and hands each widget what it shows. Reports of a previous token are dropped by
their generation number.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import urlsplit

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer, Header

from orderdash.core.client import Fetched, OrderClient
from orderdash.core.config import Settings
from orderdash.core.display import amount_text, coin_code, fiat_text
from orderdash.core.errors import InvalidToken, NotFound
from orderdash.core.models import Order
from orderdash.core.payment import PaymentState, payment_state
from orderdash.core.qr_payload import QRContent, QRPayload, qr_payload
from orderdash.core.refresh import Kind, TrackStatus
from orderdash.core.safetext import clean
from orderdash.core.tokens import normalize_token
from orderdash.core.watcher import Failure, OrderWatcher
from orderdash.tui.messages import FetchFailed, OrderFetched, TokenSubmitted, WatchStatusChanged
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.text import joined, literal
from orderdash.tui.widgets.order_detail import OrderDetail, rate_direction
from orderdash.tui.widgets.payment_qr import show_payload
from orderdash.tui.widgets.qr import QRView
from orderdash.tui.widgets.status_line import Freshness, StatusLine
from orderdash.tui.widgets.token_bar import TokenBar
from orderdash.tui.widgets.transactions import TransactionsPane, TransactionsTable

#: How long a new transaction keeps its mark in the table.
NEW_MARK_SECONDS = 30.0
#: Below this width the QR would squeeze the order and its payments: it is hidden, with a note.
QR_MIN_SCREEN_WIDTH = 100


class _Reporter:
    """Turns the watcher's callbacks into messages to the screen, tagged with the generation."""

    def __init__(self, screen: DashboardScreen, token: str, generation: int) -> None:
        self._screen, self._token, self._generation = screen, token, generation

    def on_fetched(
        self, kind: Kind, fetched: Fetched, new_transaction_ids: tuple[int, ...]
    ) -> None:
        self._screen.post_message(
            OrderFetched(self._token, self._generation, kind, fetched, new_transaction_ids)
        )

    def on_failure(self, failure: Failure) -> None:
        self._screen.post_message(FetchFailed(self._token, self._generation, failure))

    def on_status(self, status: dict[Kind, TrackStatus]) -> None:
        self._screen.post_message(WatchStatusChanged(self._token, self._generation, status))


class DashboardScreen(Screen[None]):
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
        Binding("escape", "focus_table", "Table", show=False),
    ]

    def __init__(
        self,
        client: OrderClient,
        settings: Settings,
        *,
        token: str | None = None,
        clock: Callable[[], float] = time.time,
        open_pos: bool = False,
    ) -> None:
        super().__init__()
        self.open_pos = open_pos
        self.payment: PaymentState | None = None
        self.payload: QRPayload | None = None
        self.pos: PosScreen | None = None
        #: The last `qrCode` the rate endpoint sent (getOrder carries none).
        self._server_qr: str | None = None
        self.client = client
        self.settings = settings
        self.clock = clock
        self.initial_token = token
        self.token: str | None = None
        self.generation = 0
        self.order: Order | None = None
        self.watcher: OrderWatcher | None = None
        self._direction: int | None = None
        self._told_no_token = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield TokenBar()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield OrderDetail(id="detail")
                yield TransactionsPane(id="transactions-pane")
            yield QRView(id="qr")
        yield StatusLine(clock=self.clock, id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)
        if self.initial_token:
            try:
                self.load(normalize_token(self.initial_token))
            except InvalidToken as error:
                self.query_one(TokenBar).show_error(error.message)
                self.query_one(TokenBar).input.focus()
            else:
                self.query_one(TransactionsTable).focus()
                if self.open_pos:
                    self.action_point_of_sale()
        else:
            self.query_one(TokenBar).input.focus()

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
        """Show `token`'s order from now on; everything of the previous one is cancelled."""
        self.generation += 1
        self.token = token
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
        self.watch_order(token, self.generation)

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_order(self, token: str, generation: int) -> None:
        watcher = OrderWatcher(
            self.client,
            token,
            _Reporter(self, token, generation),
            poll_interval=self.settings.poll_interval,
            refresh_interval=self.settings.refresh_interval,
        )
        self.watcher = watcher
        await watcher.run()

    def _is_current(self, message: OrderFetched | FetchFailed | WatchStatusChanged) -> bool:
        return message.generation == self.generation and message.token == self.token

    @property
    def _status(self) -> StatusLine:
        return self.query_one(StatusLine)

    # -- reports from the watcher --------------------------------------------------------------

    @on(OrderFetched)
    def _order_fetched(self, message: OrderFetched) -> None:
        if not self._is_current(message):
            return
        fetched = message.fetched
        order = fetched.order
        if self.order is not None and order.exchange_rate != self.order.exchange_rate:
            self._direction = rate_direction(self.order.exchange_rate, order.exchange_rate)
        self.order = order
        now = self.clock()
        if message.kind is Kind.RATES and order.qr_code:
            self._server_qr = order.qr_code
        self.payment = payment_state(order, fetched.received_at)
        mode = QRContent(self.settings.qr_content)
        self.payload = qr_payload(order, self.payment, mode, self._server_qr)
        qr_note = show_payload(self.query_one(QRView), self.payload)
        what = _qr_what(self.payload, qr_note)
        self.query_one(OrderDetail).show(
            order, fetched.received_at, self._direction, self.payment, what
        )
        pane = self.query_one(TransactionsPane)
        pane.show(
            order.transactions,
            message.new_transaction_ids,
            coin_code(order),
            clean(order.currency.abbreviation, limit=12),
        )
        self.sub_title = (
            f"{clean(order.company_name, limit=40)} \u00b7 {clean(order.token, limit=40)}"
        )

        state = self._status.state
        state.loading = False
        state.last_update = now
        state.errors.pop(message.kind, None)
        state.retry_at.pop(message.kind, None)
        if message.kind is Kind.RATES:
            state.next_rate_at = now + self.settings.refresh_interval
        self._update_staleness()
        self.query_one(TokenBar).show_error(None)
        self._update_pos()
        if message.new_transaction_ids:
            self._announce_payment(order, message.new_transaction_ids)

    def _announce_payment(self, order: Order, new_ids: tuple[int, ...]) -> None:
        by_id = {tx.id: tx for tx in order.transactions}
        parts = []
        for tx_id in new_ids:
            tx = by_id.get(tx_id)
            if tx is not None:
                parts.append(
                    f"{amount_text(tx.amount.base)} {coin_code(order)} "
                    f"({fiat_text(tx.amount_fiat.base, order.currency.abbreviation)})"
                )
        if self.pos is not None:
            self.pos.payment_arrived()
        if self.settings.bell:
            self.app.bell()
        self.notify(
            clean(", ".join(parts), limit=200) or "new transaction",
            title=f"Payment received \u00b7 {clean(order.company_name, limit=40)}",
            markup=False,
            timeout=8,
        )
        self.set_timer(NEW_MARK_SECONDS, self.query_one(TransactionsTable).clear_new_marks)

    @on(FetchFailed)
    def _fetch_failed(self, message: FetchFailed) -> None:
        if not self._is_current(message):
            return
        failure = message.failure
        state = self._status.state
        state.errors[failure.kind] = failure.error.message
        state.retry_at[failure.kind] = self.clock() + failure.retry_in
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

    # -- actions --------------------------------------------------------------------------------

    def action_refresh(self) -> None:
        if self.watcher is not None and self.token is not None:
            self.watcher.refresh_now()
            self.notify("Refreshing\u2026", timeout=1.5, markup=False)

    def action_point_of_sale(self) -> None:
        if self.pos is not None:
            return
        self.pos = PosScreen(primary=self.settings.pos_primary, clock=self.clock)
        self.app.push_screen(self.pos, callback=self._pos_closed)
        self.call_after_refresh(self._update_pos)

    def _pos_closed(self, _: None) -> None:
        self.pos = None

    def _update_pos(self) -> None:
        if self.pos is None or not self.pos.is_mounted:
            return
        if self.order is None or self.payment is None or self.payload is None:
            return
        self.pos.show(self.order, self.payment, self.payload, self._status.state.next_rate_at)

    def action_copy_address(self) -> None:
        if self.order is None or not self.order.address:
            self.notify("No address to copy yet.", severity="warning", markup=False)
            return
        self.app.copy_to_clipboard(self.order.address)
        self.notify(
            f"Address copied: {clean(self.order.address, limit=80)}", timeout=3, markup=False
        )

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
        if self.token:
            self.app.copy_to_clipboard(self.token)
            self.notify("Order token copied.", timeout=3, markup=False)

    def action_copy_hash(self) -> None:
        tx = self.query_one(TransactionsTable).selected()
        if tx is not None:
            self.app.copy_to_clipboard(tx.hash)
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
