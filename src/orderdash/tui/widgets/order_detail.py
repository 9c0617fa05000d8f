"""The order detail pane: every field of the order, in groups a person reads top-down.

It speaks people's words ("still due", "expires in 12:34"); the service's own field names and
raw values (`expirationTime`, `createdAtMiliseconds`, the status code) are in the details view,
toggled with `i`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from orderdash.core.domain.expiry import EXPIRING_SOON_S, UNKNOWN_TEXT, Expiry, expiry_for
from orderdash.core.domain.payment import PaymentState, Phase
from orderdash.core.domain.status import tone_of
from orderdash.core.domain.text import (
    MISSING,
    amount_text,
    coin_code,
    epoch_ms_text,
    fiat_text,
    json_value_text,
    rate_text,
    server_time_text,
)
from orderdash.core.model.wire import Order
from orderdash.tui.styles import TONE_STYLES
from orderdash.tui.text import joined, literal, text_key, text_shape

if TYPE_CHECKING:
    from rich.table import Table

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
    Phase.PAID_SHORT: "bold #8fd18f",
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
        words = (
            f"partly paid: {amount_text(payment.due_coin)} {payment.coin} "
            f"({fiat} {payment.currency}) still due"
        )
        # three figures that do not add up, named: which one the screens go by
        return f"{words}; {payment.due_rules}" if payment.due_rules else words
    if payment.phase is Phase.UNCLEAR and payment.latest is not None:
        return "payment received, but the amounts disagree: check them (i shows the figures)"
    return payment.summary


Key = tuple[object, ...]

#: The parts, top-down; a blank line after each but the last.
PARTS = ("head", "money", "times", "identity")
_GAP = 1
_LABEL_MIN_WIDTH = 9


def _grid(rows: Rows) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style=LABEL_STYLE, no_wrap=True, min_width=_LABEL_MIN_WIDTH)
    grid.add_column(overflow="fold")
    for label, value in rows:
        grid.add_row(label, value)
    return grid


def grid_lines(console: Console, rows: Rows, width: int) -> list[list[Segment]]:
    """The lines `_grid(rows)` renders at `width`, without Rich's table measuring (most of the
    cost of a first paint of this pane): the labels' column as wide as its widest label (at
    least 9), one space, then each value wrapped (long words folded) in what is left."""
    label_width = max(_LABEL_MIN_WIDTH, *(cell_len(label) for label, _ in rows))
    room = width - label_width - 1
    widest = max(cell_len(line) for _, value in rows for line in value.plain.split("\n"))
    value_width = min(widest, room)
    if value_width < 1:  # narrower than any pane gets: Rich's own squeezing
        return console.render_lines(_grid(rows), console.options.update_width(width), pad=False)
    label_style = console.get_style(LABEL_STYLE)
    lines: list[list[Segment]] = []
    for label, value in rows:
        wrapped = value.wrap(console, value_width, justify="left", overflow="fold")
        for index, line in enumerate(wrapped):
            shown = label if index == 0 else ""
            cell = shown + " " * (label_width - cell_len(shown) + 1)
            lines.append([Segment(cell, label_style), *_segments(console, line)])
    return lines


def _segments(console: Console, line: Text) -> list[Segment]:
    """A line's segments with its base style (`Text.render` leaves that to its caller)."""
    segments = line.render(console)
    if not line.style:
        return list(segments)
    return list(Segment.apply_style(segments, console.get_style(line.style)))


class _Part:
    """One part of the pane: what it shows, its shape, and its lines per width."""

    __slots__ = ("build", "key", "lines", "shape")

    def __init__(self) -> None:
        self.key: Key | None = None
        self.shape: Key | None = None
        self.build: Callable[[Console, int], list[list[Segment]]] = lambda console, width: []
        self.lines: dict[int, list[list[Segment]]] = {}

    def lines_at(self, console: Console, width: int) -> list[list[Segment]]:
        if (lines := self.lines.get(width)) is None:
            # one width at a time: a resize re-renders, a tick reuses
            self.lines = {width: (lines := self.build(console, width))}
        return lines


def _text_lines(text: Text) -> Callable[[Console, int], list[list[Segment]]]:
    def build(console: Console, width: int) -> list[list[Segment]]:
        return [_segments(console, line) for line in text.wrap(console, width)]

    return build


def _rows_lines(rows: Rows) -> Callable[[Console, int], list[list[Segment]]]:
    def build(console: Console, width: int) -> list[list[Segment]]:
        return grid_lines(console, rows, width) if rows else []

    return build


class OrderDetail(ScrollView, can_focus=False):
    """Shows one order; `show` hands it the data, `tick` moves the expiry countdown.

    One widget draws the four parts (the name and status, the money, the times, the identity)
    line by line, and scrolls when they are taller than its room. Each part is rebuilt only
    when what it shows changed, its lines rendered once per width, and repainted without a
    layout pass when only digits changed (a countdown, a new amount of the same length): a poll
    that brings nothing new repaints nothing here.
    """

    DEFAULT_CSS = """
    OrderDetail {
        border: round $primary 50%;
        border-title-color: $text;
        border-subtitle-color: $text-muted;
        padding: 0 1;
        overflow-x: hidden;
        overflow-y: auto;
    }
    OrderDetail.-stale {
        border: round $warning;
        border-title-color: $warning;
        border-title-style: bold;
        text-opacity: 70%;
    }
    """

    #: The details view: the service's field names and raw values beside people's words.
    details: reactive[bool] = reactive(False, init=False, layout=False, repaint=False)

    #: Wall time since which the order shown is stale (its poll failing), or None. A reactive:
    #: the screen sets it on every answer, and only a change repaints the border.
    stale_since: reactive[float | None] = reactive(None, init=False, layout=False, repaint=False)

    def __init__(self, *, lead: str = "", id: str | None = None) -> None:  # noqa: A002
        """`lead`: a line under "Enter an order token above." (`order_view.empty_pane`)."""
        super().__init__(id=id)
        self.border_title = "Order"
        self._expiry: Expiry | None = None
        self._order: Order | None = None
        self._last: tuple[Order, float, int | None, PaymentState, str, str | None] | None = None
        self._parts = {name: _Part() for name in PARTS}
        #: The first line of each part and the lines in all, at `_width` (None: to lay out).
        self._tops: dict[str, int] = {}
        self._width: int | None = None
        self._all: list[list[Segment]] = []
        placeholder = Text("Enter an order token above.", "dim")
        if lead:
            placeholder.append("\n" + lead)
        self._set(
            "head", (text_key(placeholder),), (text_shape(placeholder),), _text_lines(placeholder)
        )

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

    def show_loading(self, token: str) -> None:
        self.stale_since = None
        self.show_message(joined(Text("Loading ", "italic"), literal(token, limit=80), "\u2026"))

    def show_message(self, message: Text) -> None:
        """No order to show (loading, not found): one line instead of the fields."""
        self._order = None
        self._expiry = None
        self._last = None
        self._set_text("head", message)
        for part in ("money", "times", "identity"):
            self._set(part, (), (), _rows_lines([]))

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
        self._set_text("head", head)
        money = self._money_rows(order, rate_direction, payment, qr_what, raw=self.details)
        if was is not None:
            money.insert(0, ("\u26a0 Was", literal(f"another order: {was}", "bold red", limit=200)))
        self._set_grid("money", money)
        self._set_grid("identity", self._identity_rows(order, raw=self.details))
        self.tick(received_at)

    def tick(self, now: float) -> None:
        if self._order is None or self._expiry is None:
            return
        self._set_grid("times", self._times_rows(self._order, self._expiry, now, raw=self.details))

    def text(self, width: int = 200) -> str:
        """The pane's lines as plain text at `width` columns (for a test or a copy)."""
        console = self.app.console
        lines = self._lines(console, width)
        return "\n".join("".join(segment.text for segment in line).rstrip() for line in lines)

    def _set_text(self, part: str, text: Text) -> None:
        self._set(part, (text_key(text),), (text_shape(text),), _text_lines(text))

    def _set_grid(self, part: str, rows: Rows) -> None:
        key = tuple((label, text_key(value)) for label, value in rows)
        shape = tuple((label, text_shape(value)) for label, value in rows)
        self._set(part, key, shape, _rows_lines(rows))

    def _set(
        self, name: str, key: Key, shape: Key, build: Callable[[Console, int], list[list[Segment]]]
    ) -> None:
        """Show what `build` renders in part `name` unless it shows `key` already; lay out
        again only when the shape (the text with digits masked) changed."""
        part = self._parts[name]
        if part.key == key:
            return
        same_shape, width = part.shape == shape, self._width
        part.key, part.shape, part.build, part.lines = key, shape, build, {}
        # the same shape: the same lines at every width, in the same place: repaint, no layout
        if same_shape and width is not None:
            top = self._tops[name]
            lines = part.lines_at(self.app.console, width)
            self._all[top : top + len(lines)] = lines
            self.refresh_lines(top, len(lines))  # a countdown's lines, not the whole pane
        else:
            self._width = None
            self._size_to_content()

    def _lines(self, console: Console, width: int) -> list[list[Segment]]:
        """Every line of the pane at `width`: the parts, a blank line after each one that shows
        something (but the last)."""
        if width == self._width:
            return self._all
        tops: dict[str, int] = {}
        lines: list[list[Segment]] = []
        for index, name in enumerate(PARTS):
            tops[name] = len(lines)
            lines.extend(self._parts[name].lines_at(console, width))
            if index < len(PARTS) - 1:
                lines.extend([[]] * _GAP)
        self._tops, self._all, self._width = tops, lines, width
        return lines

    def _content_width(self) -> int:
        return self.scrollable_content_region.width

    def _size_to_content(self) -> None:
        if not self.is_mounted:
            return
        width = self._content_width()
        if width <= 0:
            self.refresh(layout=True)
            return
        height = len(self._lines(self.app.console, width))
        self.virtual_size = Size(width, height)
        self.refresh()

    def on_mount(self) -> None:
        self._size_to_content()

    def on_resize(self) -> None:
        self._size_to_content()

    def render_line(self, y: int) -> Strip:
        width = self._content_width()
        lines = self._lines(self.app.console, width)
        if self.virtual_size.height != len(lines) or self.virtual_size.width != width:
            self.call_later(self._size_to_content)
        index = y + self.scroll_offset.y
        if index >= len(lines):
            return Strip.blank(width, self.visual_style.rich_style)
        return Strip(lines[index]).apply_style(self.visual_style.rich_style)

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
        left = expiry.remaining(now)
        if left is not None and 0 < left <= EXPIRING_SOON_S:
            expires.stylize("bold black on #de935f")  # the last minutes stand out
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
