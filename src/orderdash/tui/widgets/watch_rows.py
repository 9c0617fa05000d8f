"""What a row of the watch list shows: its cells fitted to their columns' widths, the columns
themselves, and how each column sorts (`watch_list.py` lays the rows out in its table)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from orderdash.core.domain.columns import ColumnSpec
from orderdash.core.domain.payment import PaymentState, Phase
from orderdash.core.domain.status import tone_of
from orderdash.core.domain.text import (
    CUT,
    MISSING,
    ROUNDED,
    amount_text,
    coin_code,
    fit_amount,
    fit_money,
)
from orderdash.core.safetext import clean, shorten_middle
from orderdash.core.watching.entry import Entry
from orderdash.tui.styles import TONE_STYLES
from orderdash.tui.text import literal

ALERT_MARK = Text("\u25cf", "bold #de935f")
#: The order open in the panes below: its row is marked so the operator sees which one it is.
OPEN_MARK = Text("\u25b6", "bold #81a2be")


def age_text(seconds: float | None) -> str:
    """Coarse on purpose: the cell changes at most once a minute."""
    if seconds is None:
        return "\u2014"
    if seconds < 60:
        return "<1m"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    return f"{int(seconds // 86400)}d"


HEALTH_STYLES = {"ok": "green", "stale": "bold #de935f", "error": "bold #cc6666", "loading": "dim"}
#: The list's columns, left to right. Token, when the order was created (the list's default
#: sort: newest first), status, what to pay and health always stay; the others go when the
#: width is short, the highest `drop` first (company, data age...). A new column (a marker) is
#: one spec here and one cell in `cells`.
COLUMN_SPECS = (
    ColumnSpec("alert", " "),
    ColumnSpec("token", "Token", min_width=9),
    ColumnSpec("company", "Company", drop=9),
    ColumnSpec("created", "Created"),
    ColumnSpec("coin", "Coin", drop=3),
    ColumnSpec("fiat", "Fiat", drop=4, min_width=9),
    ColumnSpec("amount", "Amount", drop=2, min_width=10, max_width=14),
    ColumnSpec("status", "Status", min_width=8),
    ColumnSpec("payment", "Payment", min_width=16, max_width=36),
    ColumnSpec("txs", "Txs", drop=5),
    ColumnSpec("last_tx", "Last tx", drop=6),
    ColumnSpec("age", "Data", drop=7),
    ColumnSpec("health", "Health"),
)
COLUMNS = tuple((spec.key, spec.label) for spec in COLUMN_SPECS)
SORT_MARKS = {False: "\u25b2", True: "\u25bc"}
#: Cells of the natural width (nothing to fit yet).
UNFITTED = 10**6


class TokenCell(Text):
    """The token column's cell: shows the token shortened, carries it whole for sorting."""

    def __init__(self, token: str, width: int = 16) -> None:
        super().__init__(shorten_middle(clean(token), max(width, 1)))
        self.token = token


def payment_text(payment: PaymentState, width: int) -> str:
    """What the customer must do, in `width` cells: the headline when it fits with its figure
    whole, else shorter words around the figure (rounded with "\u2248" only when even
    "send X BTC" does not fit)."""
    match payment.phase:
        case Phase.PARTLY_PAID:
            send = payment.send
            figure = send.amount if send is not None else payment.due_coin
            forms = ("Partly paid: send {} more", "Partly paid: send {}", "send {}")
        case Phase.OVERPAID if payment.excess_coin is not None:
            figure = payment.excess_coin
            forms = ("Overpaid by {}", "over by {}", "+{}")
        case _ if payment.absorbed_fiat is not None:
            # paid, a shortfall absorbed: the staff's list says how much, in fiat
            short = f"{amount_text(payment.absorbed_fiat)} {payment.currency}".strip()
            return clean(f"{payment.headline}, {short} short", limit=width)
        case _:
            return clean(payment.headline, limit=width)
    for form in forms:
        room = width - len(form) + 2
        text = fit_money(figure, payment.coin, room)
        if ROUNDED not in text and CUT not in text and len(text) <= room:
            return form.format(text)
    form = forms[-1]
    return clean(form.format(fit_money(figure, payment.coin, width - len(form) + 2)), limit=width)


#: The columns whose cells move with the clock alone.
AGE_COLUMNS = ("age", "last_tx", "created")


def age_cells(entry: Entry, now: float) -> dict[str, Text]:
    """The row's cells that move with the clock (`AGE_COLUMNS`), as `cells` makes them."""
    order, last_tx = entry.order, entry.last_tx_ms
    ages = {
        "age": Text(age_text(None if entry.updated_at is None else now - entry.updated_at)),
        "last_tx": Text(age_text(None if last_tx is None else now - last_tx / 1000)),
        "created": Text(""),
    }
    if order is not None:
        created = order.created_at_ms / 1000 if order.created_at_ms else None
        ages["created"] = Text(age_text(None if created is None else now - created))
    return ages


def cells(
    entry: Entry,
    now: float,
    widths: Mapping[str, int] | None = None,
    *,
    is_open: bool = False,
) -> dict[str, Any]:
    """The row's cells, each fitted to its column's width in `widths` (a column not there: its
    natural width)."""
    width = (widths or {}).get
    order, payment = entry.order, entry.payment
    token = TokenCell(entry.token, width("token", 16))
    if is_open:
        token.stylize("bold")
    values: dict[str, Any] = {
        "alert": ALERT_MARK if entry.unseen else OPEN_MARK if is_open else Text(""),
        "token": token,
        **age_cells(entry, now),
        "health": Text(entry.health, HEALTH_STYLES[entry.health]),
    }
    if order is None:
        blank = ("coin", "fiat", "amount", "status", "txs", "company")
        values.update({k: Text("") for k in blank})
        # the error fills the room the column has; it never makes the column wider
        values["payment"] = Text(clean(entry.error or "", limit=width("payment", 0)), "dim")
        return values
    currency = clean(order.currency.abbreviation, limit=8)
    values.update(
        {
            "company": literal(order.company_name, limit=min(width("company", 24), 24)),
            "coin": Text(clean(coin_code(order), limit=width("coin", 12)) or MISSING),
            "fiat": Text(
                fit_money(order.amount_fiat, currency, width("fiat", UNFITTED), group=True),
                justify="right",
            ),
            "amount": Text(fit_amount(order.amount, width("amount", UNFITTED)), justify="right"),
            "status": literal(
                f" {order.status.label} ",
                TONE_STYLES[tone_of(order.status.code, order.status.label)],
                limit=min(width("status", 24), 24),
            ),
            "payment": literal(
                payment_text(payment, width("payment", UNFITTED)) if payment else ""
            ),
            "txs": Text(
                fit_amount(Decimal(len(order.transactions)), width("txs", 9)), "", justify="right"
            ),
        }
    )
    return values


def natural_widths(entry: Entry, now: float) -> dict[str, int]:
    """How wide each of the row's cells would be with room to spare (an error counts 0)."""
    return {key: cell_len(cell.plain) for key, cell in cells(entry, now).items()}


#: How the list is sorted, in words, where "by <column>" would not say which way is which:
#: (ascending, reversed). The age columns sort the most recent first.
SORT_WORDS = {
    "created": ("newest first", "oldest first"),
    "last_tx": ("latest payment first", "earliest payment first"),
    "age": ("freshest data first", "oldest data first"),
    "alert": ("alerts first", "alerts last"),
}


def sort_phrase(column: str, reverse: bool) -> str:
    """The list's sort in a few words: "newest first", "by coin, reversed"."""
    if column in SORT_WORDS:
        return SORT_WORDS[column][reverse]
    label = dict(COLUMNS).get(column, column).strip().lower()
    return f"by {label}, reversed" if reverse else f"by {label}"


def view_line(shown: int, total: int, state_filter: str, sort: str) -> str:
    """What the list shows of what is watched, and in which order, for a line of its own:
    "showing 5 of 30 \u00b7 partly paid \u00b7 newest first" (a text filter is in its own box,
    beside it, and counts in "showing")."""
    parts = [f"showing {shown} of {total}"]
    if state_filter != "all":
        parts.append(state_filter)
    parts.append(sort)
    return " \u00b7 ".join(parts)


def sort_key(entry: Entry, column: str) -> tuple:
    order = entry.order
    missing = (1,)
    match column:
        case "token":
            return (0, entry.token)
        case "company":
            return (0, order.company_name.lower()) if order else missing
        case "created":
            # newest first; a token not answered yet (just added, or mistyped) before them all
            return (0, -(order.created_at_ms or 0)) if order else (-1,)
        case "coin":
            return (0, order.coin_base_name or "") if order else missing
        case "fiat":
            return (0, order.currency.abbreviation, order.amount_fiat) if order else missing
        case "amount":
            return (0, order.amount) if order and order.amount is not None else missing
        case "status":
            return (0, order.status.code) if order else missing
        case "payment":
            return (0, entry.payment.phase.value) if entry.payment else missing
        case "txs":
            return (0, len(order.transactions)) if order else missing
        case "last_tx":
            return (0, -(entry.last_tx_ms or 0))
        case "age":
            return (0, -(entry.updated_at or 0))
        case "health":
            return (0, ["error", "stale", "loading", "ok"].index(entry.health))
        case _:  # alert
            return (0, not entry.unseen)
