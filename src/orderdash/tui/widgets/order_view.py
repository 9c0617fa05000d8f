"""The order on screen: its detail over its transactions, the QR docked beside both.

The order on screen and its freshness come bound from the screen (`data_bind`: `shown`,
`freshness`); the dashboard says when it is loading or gone. It hands each pane its part, and
takes the QR back when the order's time is up or the service stops answering (`tick`).
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import var

from orderdash.core.domain.text import coin_code
from orderdash.core.model.wire import Transaction
from orderdash.core.safetext import clean
from orderdash.core.watching.alert_text import order_figures
from orderdash.core.watching.onscreen import Freshness, Shown
from orderdash.core.watching.state import DashboardState
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.payment_qr import ServerImageDecoded, qr_what, show_payload
from orderdash.tui.widgets.qr import QRView
from orderdash.tui.widgets.transactions import TransactionsPane

#: Under the empty order pane while no account is connected: where the way to connect one is.
NO_ACCOUNT = (
    "No account connected: set access_token_file and customer_id to list the shop's orders "
    "and make charges (README: The merchant's account)."
)


def empty_pane(lead: str) -> Text:
    """What the order pane says with no order open."""
    text = Text("Enter an order token above.", "dim")
    if lead:
        text.append("\n" + lead)
    return text


class OrderView(Vertical):
    #: The order on screen as last answered (bound: set again for each answer).
    shown: var[Shown | None] = var(None, init=False)
    #: How fresh it is (bound): an order no longer renewed says since when.
    freshness: var[Freshness] = var(Freshness, init=False)

    def __init__(self, state: DashboardState, *, draw_qr_later: bool = False, id: str) -> None:
        """`draw_qr_later`: the start-up holds painting; the code is drawn a frame after the
        order (`draw_qr`)."""
        super().__init__(id=id)
        #: Under the empty pane's "Enter an order token above." while no account is connected.
        self._lead = "" if state.account_connected else NO_ACCOUNT
        self.state = state
        self._draw_qr_later = draw_qr_later
        #: Why the QR pane has no code though the order is payable ("" : it has its code).
        self._qr_withdrawn = ""

    def compose(self) -> ComposeResult:
        yield OrderDetail(lead=self._lead, id="detail")
        yield TransactionsPane(id="transactions-pane")
        qr = QRView(id="qr")
        if self._draw_qr_later:
            qr.draw_later()  # the order first, the code one frame after
        yield qr

    def draw_qr(self) -> None:
        self.call_after_refresh(self.query_one(QRView).draw_now)

    def show_loading(self, token: str) -> None:
        self.query_one(OrderDetail).show_loading(token)
        self.query_one(TransactionsPane).reset()
        qr = self.query_one(QRView)
        qr.text = ""
        qr.placeholder = ""  # the order pane says it is loading

    def closed(self) -> None:
        self.query_one(OrderDetail).show_message(empty_pane(self._lead))
        self.query_one(TransactionsPane).reset()
        self.query_one(QRView).text = ""

    def show_message(self, message: Text) -> None:
        """Why there is no order to show (its first read failed)."""
        self.query_one(OrderDetail).show_message(message)

    def watch_shown(self, shown: Shown | None) -> None:
        """The order on screen into the detail, QR and transactions panes (None: it is loading
        or gone, as the dashboard says: `show_loading`, `closed`)."""
        if shown is None:
            return
        self.show_qr()
        order = shown.order
        currency = clean(order.currency.abbreviation, limit=12)
        self.query_one(TransactionsPane).show(
            order.transactions, shown.new_ids, coin_code(order), currency
        )
        self.watch_freshness(self.freshness)

    @on(ServerImageDecoded)
    def show_qr(self) -> None:
        """The QR pane, and the detail that says what the code is (again once the server's
        image is decoded, in a worker)."""
        self._qr_withdrawn = withdrawn = self.state.qr_withdrawn()
        if (shown := self.state.shown) is not None:
            note = show_payload(self.query_one(QRView), shown.payload, shown.payment, withdrawn)
            what = qr_what(shown.payload, note)
            detail = self.query_one(OrderDetail)
            entry = self.state.entries.get(self.state.token or "")
            was = order_figures(entry.was) if entry is not None and entry.was else None
            detail.show(
                shown.order, shown.received_at, self.state.direction, shown.payment, what, was
            )

    def watch_freshness(self, freshness: Freshness) -> None:
        stale = freshness.stale and self.state.order is not None
        self.query_one(OrderDetail).stale_since = freshness.last_update if stale else None

    def tick(self, now: float) -> None:
        self.query_one(OrderDetail).tick(now)

    def check_qr(self) -> None:
        """Once a second: the order's time is up, or a rate period passed without an answer."""
        if self.state.qr_withdrawn() != self._qr_withdrawn:
            self.show_qr()

    def selected_transaction(self) -> Transaction | None:
        return self.query_one(TransactionsPane).table.selected()
