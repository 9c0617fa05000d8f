"""The order detail pane: every field of the order, in groups a person reads top-down.

It speaks people's words ("still due", "expires in 12:34"); the service's own field names and
raw values (`expirationTime`, `createdAtMiliseconds`, the status code) are in the details view,
toggled with `i`."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from orderdash.core.domain.display import (
    MISSING,
    amount_text,
    coin_code,
    epoch_ms_text,
    fiat_text,
    json_value_text,
    rate_text,
    server_time_text,
)
from orderdash.core.domain.expiry import UNKNOWN_TEXT, Expiry, expiry_for
from orderdash.core.domain.payment import PaymentState, Phase
from orderdash.core.domain.status import tone_of
from orderdash.core.service.models import Order
from orderdash.tui.styles import TONE_STYLES
from orderdash.tui.text import joined, literal, text_key, text_shape

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
    return literal(
        f" {order.status.label} ",
        TONE_STYLES[tone_of(order.status.code, order.status.label)],
        limit=40,
    )


Rows = list[tuple[str, Text]]


def status_words(order: Order) -> str:
    label, code = order.status.label, order.status.code
    return label if code == label else f"{label}  [{code}]"


def payment_words(payment: PaymentState) -> str:
    """The payment line in people's words (the service's underPaid / overPaid figures by their
    names are in the details view and the transactions table)."""
    if payment.phase is Phase.PARTLY_PAID and payment.due_coin is not None:
        fiat = amount_text(payment.due_fiat, group=True)
        return (
            f"partly paid: {amount_text(payment.due_coin)} {payment.coin} "
            f"({fiat} {payment.currency}) still due"
        )
    if payment.phase is Phase.UNCLEAR and payment.latest is not None:
        return "payment received, but the amounts disagree: check them (i shows the figures)"
    return payment.summary


Key = tuple[object, ...]


def _grid(rows: Rows) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style=LABEL_STYLE, no_wrap=True, min_width=9)
    grid.add_column(overflow="fold")
    for label, value in rows:
        grid.add_row(label, value)
    return grid


class OrderDetail(VerticalScroll, can_focus=False):
    """Shows one order; `show` hands it the data, `tick` moves the expiry countdown.

    Each part is rebuilt and repainted only when what it shows changed, and without a layout
    pass when only digits changed (a countdown, a new amount of the same length): a poll that
    brings nothing new repaints nothing here.
    """

    DEFAULT_CSS = """
    OrderDetail {
        border: round $primary 50%;
        border-title-color: $text;
        border-subtitle-color: $text-muted;
        padding: 0 1;
        #detail-head, #detail-money, #detail-times {
            margin-bottom: 1;
        }
    }
    OrderDetail.-stale {
        border: round $warning;
        border-title-color: $warning;
        border-title-style: bold;
        & > Static {
            text-opacity: 70%;
        }
    }
    """

    PARTS = ("#detail-head", "#detail-money", "#detail-times", "#detail-identity")

    #: The details view: the service's field names and raw values beside people's words.
    details: reactive[bool] = reactive(False, init=False, layout=False, repaint=False)

    #: Wall time since which the order shown is stale (its poll failing), or None. A reactive:
    #: the screen sets it on every answer, and only a change repaints the border.
    stale_since: reactive[float | None] = reactive(None, init=False, layout=False, repaint=False)

    def watch_stale_since(self) -> None:
        self.set_class(self.stale_since is not None, "-stale")
        self._retitle()

    def watch_details(self) -> None:
        self._retitle()
        if self._last is not None:
            self.show(*self._last)

    def _retitle(self) -> None:
        title = "Order \u00b7 details (i: people's words)" if self.details else "Order"
        if (since := self.stale_since) is not None:
            title += f" \u00b7 STALE since {time.strftime('%H:%M:%S', time.localtime(since))}"
        self.border_title = title

    def compose(self) -> ComposeResult:
        yield Static(Text("Enter an order token above.", "dim"), id="detail-head")
        yield Static(id="detail-money")
        yield Static(id="detail-times")
        yield Static(id="detail-identity")

    def on_mount(self) -> None:
        self.border_title = "Order"
        self._expiry: Expiry | None = None
        self._order: Order | None = None
        self._last: tuple[Order, float, int | None, PaymentState, str, str | None] | None = None
        # per part: what it shows (to skip equal updates) and its shape (to skip layouts)
        self._shown: dict[str, Key] = {}
        self._shapes: dict[str, Key] = {}

    def show_loading(self, token: str) -> None:
        self.stale_since = None
        self.show_message(joined(Text("Loading ", "italic"), literal(token, limit=80), "\u2026"))

    def show_message(self, message: Text) -> None:
        """No order to show (loading, not found): one line instead of the fields."""
        self._order = None
        self._expiry = None
        self._last = None
        self._set("#detail-head", (text_key(message),), (text_shape(message),), lambda: message)
        for part in ("#detail-money", "#detail-times", "#detail-identity"):
            self._set(part, (), (), lambda: "")

    def show(
        self,
        order: Order,
        received_at: float,
        rate_direction: int | None,
        payment: PaymentState,
        qr_what: str,
        was: str | None = None,
    ) -> None:
        """`was`: what this token named before it changed identity (kept to compare)."""
        self._order = order
        self._last = (order, received_at, rate_direction, payment, qr_what, was)
        self._expiry = expiry_for(order, received_at)
        head = Text.assemble(
            literal(order.company_name, "bold", limit=80), "  ", status_badge(order)
        )
        self._set("#detail-head", (text_key(head),), (text_shape(head),), lambda: head)
        money = self._money_rows(order, rate_direction, payment, qr_what, raw=self.details)
        if was is not None:
            money.insert(0, ("\u26a0 Was", literal(f"another order: {was}", "bold red", limit=200)))
        self._set_grid("#detail-money", money)
        self._set_grid("#detail-identity", self._identity_rows(order, raw=self.details))
        self.tick(received_at)

    def tick(self, now: float) -> None:
        if self._order is None or self._expiry is None:
            return
        self._set_grid(
            "#detail-times", self._times_rows(self._order, self._expiry, now, raw=self.details)
        )

    def _set_grid(self, part: str, rows: Rows) -> None:
        key = tuple((label, text_key(value)) for label, value in rows)
        shape = tuple((label, text_shape(value)) for label, value in rows)
        self._set(part, key, shape, lambda: _grid(rows))

    def _set(self, part: str, key: Key, shape: Key, build: Callable[[], RenderableType]) -> None:
        """Show `build()` in `part` unless it shows `key` already; lay out again only when the
        shape (the text with digits masked) changed."""
        if self._shown.get(part) == key:
            return
        self.query_one(part, Static).update(build(), layout=self._shapes.get(part) != shape)
        self._shown[part], self._shapes[part] = key, shape

    @staticmethod
    def _money_rows(
        order: Order,
        rate_direction: int | None,
        payment: PaymentState,
        qr_what: str,
        *,
        raw: bool = False,
    ) -> Rows:
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
        return [
            (
                "Payment",
                literal(
                    payment.summary if raw else payment_words(payment),
                    PHASE_STYLES.get(payment.phase, ""),
                ),
            ),
            ("Amount", amount),
            ("Rate", rate),
            ("Coin", coin_name),
            ("Currency", literal(f"{order.currency.currency} ({currency})", limit=60)),
            ("Address", literal(order.address or MISSING, "bold", limit=200)),
            ("QR", Text(qr_what, "dim")),
        ]

    @staticmethod
    def _times_rows(order: Order, expiry: Expiry, now: float, *, raw: bool = False) -> Rows:
        countdown = expiry.countdown(now)
        expires = Text(countdown or UNKNOWN_TEXT, "bold" if countdown else "italic")
        due = Text(json_value_text(order.due_date, limit=80))
        if raw:
            return [
                ("createdAt", literal(server_time_text(order.created_at))),
                ("createdAtMiliseconds", Text(str(order.created_at_ms))),
                ("expires", expires),
                ("", Text(expiry.raw, "dim")),
                ("dueDate", due),
            ]
        created = joined(
            literal(server_time_text(order.created_at)),
            Text(f"  ({epoch_ms_text(order.created_at_ms)})", "dim"),
        )
        if not countdown:  # no reading of them to trust: the service's values say why
            expires.append(f"  ({expiry.raw})", "dim")
        return [("Created", created), ("Expires", expires), ("Due date", due)]

    @staticmethod
    def _identity_rows(order: Order, *, raw: bool = False) -> Rows:
        urls = order.urls
        if raw:
            return [
                ("id", Text(str(order.id))),
                ("customerId", Text(str(order.customer_id))),
                ("type", literal(order.type, limit=40)),
                ("status", literal(f"code {order.status.code}, label {order.status.label}")),
                ("token", literal(order.token, limit=200)),
                ("email", literal(order.email or MISSING, limit=120)),
                ("successUrl", literal(urls.success_url or MISSING, limit=200)),
                ("cancelUrl", literal(urls.cancel_url or MISSING, limit=200)),
                ("callbackUrl", literal(urls.callback_url or MISSING, limit=200)),
            ]
        return [
            ("Order", Text(f"{order.id}  \u00b7  customer {order.customer_id}")),
            ("Type", literal(order.type, limit=40)),
            # the code only when it says more than the label
            ("Status", literal(status_words(order), limit=80)),
            ("Token", literal(order.token, limit=200)),
            ("E-mail", literal(order.email or MISSING, limit=120)),
            ("Success", literal(urls.success_url or MISSING, limit=200)),
            ("Cancel", literal(urls.cancel_url or MISSING, limit=200)),
            ("Callback", literal(urls.callback_url or MISSING, limit=200)),
        ]
