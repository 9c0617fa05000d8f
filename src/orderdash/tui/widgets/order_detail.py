"""The order detail pane: every field of the order, in groups a person reads top-down."""

from __future__ import annotations

from decimal import Decimal

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from orderdash.core.display import (
    MISSING,
    amount_text,
    coin_code,
    epoch_ms_text,
    fiat_text,
    rate_text,
    server_time_text,
)
from orderdash.core.expiry import Expiry, expiry_for
from orderdash.core.models import Order
from orderdash.core.payment import PaymentState, Phase
from orderdash.core.status import Tone, tone_of
from orderdash.tui.text import joined, literal

TONE_STYLES = {
    Tone.OPEN: "bold black on #f0c674",
    Tone.PROGRESS: "bold black on #81a2be",
    Tone.GOOD: "bold black on #8fd18f",
    Tone.WARN: "bold black on #de935f",
    Tone.BAD: "bold white on #a54242",
    Tone.UNKNOWN: "bold black on #b0b0b0",
}
DIRECTION_MARKS = {
    1: Text(" \u25b2", "bold green"),
    -1: Text(" \u25bc", "bold red"),
    0: Text(" =", "dim"),
}
LABEL_STYLE = "dim"
PHASE_STYLES = {
    Phase.AWAITING: "bold",
    Phase.PARTLY_PAID: "bold #de935f",
    Phase.UNCLEAR: "bold #de935f",
    Phase.CONFIRMING: "bold #8fd18f",
    Phase.CONFIRMED: "bold #8fd18f",
    Phase.OVERPAID: "bold #de935f",
    Phase.UNDERPAID: "bold #cc6666",
    Phase.EXPIRED: "bold #cc6666",
    Phase.CANCELED: "bold #cc6666",
}


def status_badge(order: Order) -> Text:
    return literal(f" {order.status.label} ", TONE_STYLES[tone_of(order.status.code)], limit=40)


def _grid(rows: list[tuple[str, Text]]) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style=LABEL_STYLE, no_wrap=True, min_width=9)
    grid.add_column(overflow="fold")
    for label, value in rows:
        grid.add_row(label, value)
    return grid


class OrderDetail(VerticalScroll, can_focus=False):
    """Shows one order; `show` hands it the data, `tick` moves the expiry countdown."""

    def compose(self) -> ComposeResult:
        yield Static(Text("Enter an order token above.", "dim"), id="detail-head")
        yield Static(id="detail-money")
        yield Static(id="detail-times")
        yield Static(id="detail-identity")

    def on_mount(self) -> None:
        self.border_title = "Order"
        self._expiry: Expiry | None = None
        self._order: Order | None = None

    def show_message(self, message: Text) -> None:
        """No order to show (loading, not found): one line instead of the fields."""
        self._order = None
        self._expiry = None
        self.query_one("#detail-head", Static).update(message)
        for part in ("#detail-money", "#detail-times", "#detail-identity"):
            self.query_one(part, Static).update("")

    def show(
        self,
        order: Order,
        received_at: float,
        rate_direction: int | None,
        payment: PaymentState,
        qr_what: str,
    ) -> None:
        self._order = order
        self._expiry = expiry_for(order, received_at)
        head = Text.assemble(
            literal(order.company_name, "bold", limit=80), "  ", status_badge(order)
        )
        self.query_one("#detail-head", Static).update(head)
        money = self._money(order, rate_direction, payment, qr_what)
        self.query_one("#detail-money", Static).update(money)
        self.query_one("#detail-identity", Static).update(self._identity(order))
        self.tick(received_at)

    def tick(self, now: float) -> None:
        if self._order is None or self._expiry is None:
            return
        self.query_one("#detail-times", Static).update(self._times(self._order, self._expiry, now))

    @staticmethod
    def _money(
        order: Order, rate_direction: int | None, payment: PaymentState, qr_what: str
    ) -> Table:
        currency = order.currency.abbreviation
        fiat = Text(fiat_text(order.amount_fiat, currency), "bold")
        if order.coin_chosen:
            coin = Text(f"{amount_text(order.amount)} {coin_code(order)}", "bold")
            amount = joined(fiat, "  =  ", coin)
            coin_name = literal(order.coin, limit=40)
        else:
            amount = joined(fiat, Text("  (coin not chosen yet)", "italic"))
            coin_name = Text(MISSING)
        rate = Text(rate_text(order))
        if rate_direction is not None and order.exchange_rate is not None:
            rate.append_text(DIRECTION_MARKS[rate_direction])
        return _grid(
            [
                ("Payment", literal(payment.summary, PHASE_STYLES.get(payment.phase, ""))),
                ("Amount", amount),
                ("Rate", rate),
                ("Coin", coin_name),
                ("Currency", literal(f"{order.currency.currency} ({currency})", limit=60)),
                ("Address", literal(order.address or MISSING, "bold", limit=200)),
                ("QR", Text(qr_what, "dim")),
            ]
        )

    @staticmethod
    def _times(order: Order, expiry: Expiry, now: float) -> Table:
        created = joined(
            literal(server_time_text(order.created_at)),
            Text(f"  ({epoch_ms_text(order.created_at_ms)})", "dim"),
        )
        countdown = expiry.countdown(now)
        expires = Text(countdown or "unit unknown", "bold" if countdown else "italic")
        expires.append(f"  ({expiry.raw})", "dim")
        due = literal(MISSING if order.due_date is None else order.due_date, limit=80)
        return _grid([("Created", created), ("Expires", expires), ("Due date", due)])

    @staticmethod
    def _identity(order: Order) -> Table:
        urls = order.urls
        return _grid(
            [
                ("Order", Text(f"{order.id}  \u00b7  customer {order.customer_id}")),
                ("Type", literal(order.type, limit=40)),
                ("Status", literal(f"{order.status.label}  [{order.status.code}]", limit=80)),
                ("Token", literal(order.token, limit=200)),
                ("E-mail", literal(order.email or MISSING, limit=120)),
                ("Success", literal(urls.success_url or MISSING, limit=200)),
                ("Cancel", literal(urls.cancel_url or MISSING, limit=200)),
                ("Callback", literal(urls.callback_url or MISSING, limit=200)),
            ]
        )


def rate_direction(previous: Decimal | None, current: Decimal | None) -> int | None:
    if previous is None or current is None:
        return None
    return (current > previous) - (current < previous)
