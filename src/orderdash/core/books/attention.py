"""The orders that need a human (docs/attention.md): what went wrong with an order, its figure
in coin and fiat (exact, the service's digits), how long ago, and the suggested next step.

One definition with the close of day: the kinds come from `orders.exceptional` (underpaid,
overpaid, expired with a payment, paid after expiry, unconfirmed), with three differences the
close does not make: an open order whose latest payment left a shortfall is listed already, as
a kind of its own (`still_paying`: the customer may pay the rest; `underpaid` is an order
closed short), an unconfirmed order needs a human only once it has waited `unconfirmed_after`
seconds, and an order closed short by no more than the payment tolerance (`tolerance`,
`core/domain/tolerance.py`; closed underpaid, expired with a payment, or paid by the
service's word) is paid, its shortfall absorbed: nothing to do.
To these the attention view adds an order whose token now names another order (the service
reset and reused it: `identity changed`, as the watcher detects it). A resolved order is left
out: one whose latest resolution (`resolved`: token -> its time in epoch ms) was made at or
after its newest trouble (`resolved_by`), so that a payment or a new order under the token
after the resolution brings it back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.books.orders import ABSORBED_KINDS, BookOrder, absorbed, exceptional
from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.jsontypes import JSONObject
    from orderdash.core.ledger import ResolutionRecord

#: Seconds an unconfirmed payment may wait for its confirmations before a human looks at it:
#: an hour (six Bitcoin blocks, the usual "confirmed", take about that long).
DEFAULT_UNCONFIRMED_AFTER = 3600.0

#: The kinds, most urgent first: an order with several is shown under its first.
KINDS = (
    "identity_changed",
    "underpaid",
    "overpaid",
    "expired_with_payment",
    "canceled_with_payment",
    "paid_after_expiry",
    "unconfirmed",
    "still_paying",
)
#: Each kind in a few words, where they are not its name's ("underpaid" is an order closed
#: short; one still open is `still_paying`).
KIND_WORDS = {"underpaid": "closed short", "still_paying": "still paying"}

#: What to do next, one text per kind (docs/attention.md "Next steps").
NEXT_STEPS = {
    "identity_changed": (
        "the token now names another order: check which one the customer paid, then resolve"
    ),
    "underpaid": "ask the customer for the shortfall, or accept it and write it off",
    "overpaid": "refund the excess to the customer, or keep it as credit with their consent",
    "expired_with_payment": (
        "the order expired with a payment: deliver if it covers the price, else refund it"
    ),
    "canceled_with_payment": (
        "the order was canceled with a payment: refund it, or deliver if the customer still wants"
    ),
    "paid_after_expiry": (
        "paid after expiry: deliver at the old price if it covers it, else refund the payment"
    ),
    "unconfirmed": "the payment is still unconfirmed: wait, or hold the goods until it confirms",
    "still_paying": "wait, or accept at the counter",
}


def kind_words(kind: str) -> str:
    """A kind as a person reads it: "closed short", "still paying", "paid after expiry"."""
    return KIND_WORDS.get(kind, kind.replace("_", " "))


def counts_text(found: Iterable[OrderAttention]) -> str:
    """What the orders found are, by their first kind in KINDS' order: "2 closed short, 1
    still paying"."""
    counts: dict[str, int] = {}
    for o in found:
        counts[o.first.kind] = counts.get(o.first.kind, 0) + 1
    return ", ".join(f"{counts[k]} {kind_words(k)}" for k in KINDS if k in counts)


@dataclass(frozen=True)
class Attention:
    """One thing about one order that needs a human."""

    token: str
    kind: str
    #: What the figure is: shortfall, excess, received; empty when there is none
    #: (identity changed).
    figure: str
    coin_amount: Decimal | None
    fiat_amount: Decimal | None
    coin: str
    currency: str
    #: When it happened (epoch ms): the payment that made it; for identity changed, the
    #: creation of the order the token names now.
    at_ms: int | None
    state: str
    company: str

    @property
    def next_step(self) -> str:
        return NEXT_STEPS[self.kind]

    def age_seconds(self, now_ms: int) -> float | None:
        return None if self.at_ms is None else max(0, now_ms - self.at_ms) / 1000


@dataclass(frozen=True)
class OrderAttention:
    """An order that needs a human: what does, most urgent first (never empty)."""

    token: str
    items: tuple[Attention, ...]

    @property
    def first(self) -> Attention:
        return self.items[0]

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(item.kind for item in self.items)

    @property
    def newest_ms(self) -> int:
        """When its newest trouble happened (epoch ms; 0 when no item has a time)."""
        return max((item.at_ms for item in self.items if item.at_ms is not None), default=0)


def resolved_by(found: OrderAttention, resolved: Mapping[str, int]) -> bool:
    """Whether the order's latest resolution (`resolved`: token -> its time, epoch ms) was made
    at or after its newest trouble: a resolution covers what had happened when it was made,
    never a later payment or a new order under the same token."""
    at = resolved.get(found.token)
    return at is not None and at >= found.newest_ms


def resolution_times(records: Iterable[ResolutionRecord]) -> dict[str, int]:
    """Token -> the time of its latest resolution (epoch ms), from the ledger's records."""
    times: dict[str, int] = {}
    for record in records:
        at = int(record.at.timestamp() * 1000)
        if at > times.get(record.token, -1):
            times[record.token] = at
    return times


def identity_of(order: BookOrder) -> tuple[int, int]:
    """What tells one order from another under the same token: its id and its creation (the
    watcher's `Identity`)."""
    return order.id, order.created_ms


def attention_of(
    order: BookOrder,
    *,
    now_ms: int,
    unconfirmed_after: float = DEFAULT_UNCONFIRMED_AFTER,
    tolerance: Decimal = Decimal(0),
    resolved: Mapping[str, int] | None = None,
    was: tuple[int, int] | None = None,
) -> OrderAttention | None:
    """What about `order` needs a human at `now_ms` (epoch ms), None when nothing does or its
    latest resolution (`resolved`: token -> epoch ms) is as new as its newest trouble. `was`:
    the identity (`identity_of`) the token named at an earlier read; `tolerance`: the payment
    tolerance in percent (`underpaid_tolerance`)."""
    found: list[Attention] = []

    def add(
        kind: str, figure: str, coin: Decimal | None, fiat: Decimal | None, at_ms: int | None
    ) -> None:
        found.append(
            Attention(
                order.token,
                kind,
                figure,
                coin,
                fiat,
                order.coin,
                order.currency,
                at_ms,
                order.state,
                order.company,
            )
        )

    if was is not None and was != identity_of(order):
        add("identity_changed", "", None, None, order.created_ms)
    paid_short = absorbed(order, tolerance)
    for item in exceptional(order, open_shortfall=True):
        if paid_short and item.kind in ABSORBED_KINDS:
            continue
        if item.kind == "underpaid" and order.state == "in_progress":
            add("still_paying", item.figure, item.coin, item.fiat, item.at_ms)
            continue
        if item.kind == "unconfirmed":
            since = item.at_ms if item.at_ms is not None else order.created_ms
            if now_ms - since < unconfirmed_after * 1000:
                continue
        add(item.kind, item.figure, item.coin, item.fiat, item.at_ms)
    if not found:
        return None
    found.sort(key=lambda a: KINDS.index(a.kind))
    result = OrderAttention(order.token, tuple(found))
    return None if resolved and resolved_by(result, resolved) else result


def needing_attention(
    orders: Iterable[BookOrder],
    *,
    now_ms: int,
    unconfirmed_after: float = DEFAULT_UNCONFIRMED_AFTER,
    tolerance: Decimal = Decimal(0),
    resolved: Mapping[str, int] | None = None,
    was: dict[str, tuple[int, int]] | None = None,
) -> list[OrderAttention]:
    """The orders of `orders` that need a human, the most recent trouble first (then by
    token). `resolved`: token -> the time of its latest resolution (epoch ms; `attention_of`).
    `was`: the identity each token named at an earlier read."""
    earlier = was or {}
    found = [
        found
        for order in orders
        if (
            found := attention_of(
                order,
                now_ms=now_ms,
                unconfirmed_after=unconfirmed_after,
                tolerance=tolerance,
                resolved=resolved,
                was=earlier.get(order.token),
            )
        )
        is not None
    ]
    found.sort(key=lambda o: (-(o.first.at_ms or 0), o.token))
    return found


def age_text(seconds: float | None) -> str:
    """How long ago, in the two largest units: "45s", "12m", "3h 05m", "2d 04h"."""
    if seconds is None:
        return "?"
    whole = int(seconds)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours:02d}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m"
    return f"{secs}s"


def figure_text(item: Attention) -> str:
    """The figure as one text: "shortfall 0.0001 BTC (2.50 EUR)"; empty when there is none."""
    if item.coin_amount is None or item.fiat_amount is None:
        return ""
    coin = f"{format(item.coin_amount, 'f')} {item.coin}".strip()
    fiat = f"{format(item.fiat_amount, 'f')} {item.currency}".strip()
    return f"{item.figure} {coin} ({fiat})"


def as_json(found: list[OrderAttention], *, now_ms: int) -> JSONObject:
    """The JSON of `orderdash attention --json` (docs/attention.md, version 2): every amount a
    string of exact decimal text."""
    return {
        "version": 2,
        "now_ms": now_ms,
        "count": len(found),
        "orders": [
            {
                "token": o.token,
                "kinds": list(o.kinds),
                "state": o.first.state,
                "company": o.first.company,
                "coin": o.first.coin,
                "currency": o.first.currency,
                "items": [_item_json(item, now_ms) for item in o.items],
            }
            for o in found
        ],
    }


def _item_json(item: Attention, now_ms: int) -> JSONObject:
    amounts: JSONObject | None = None
    if item.coin_amount is not None and item.fiat_amount is not None:
        amounts = {"coin": format(item.coin_amount, "f"), "fiat": format(item.fiat_amount, "f")}
    age = item.age_seconds(now_ms)
    return {
        "kind": item.kind,
        "figure": item.figure or None,
        "amount": amounts,
        "at_ms": item.at_ms,
        "age_seconds": None if age is None else int(age),
        "next_step": item.next_step,
    }


#: `orderdash attention`'s exit code when some order needs a human (0: none does; 5: some
#: orders could not be read, so the answer may be short).
EXIT_NEEDS_ATTENTION = 1


def attention_lines(found: list[OrderAttention], *, now_ms: int) -> list[str]:
    """One aligned line per order (`orderdash attention`): token, kinds, figure in coin and in
    fiat (exact, right-aligned), how long ago, the next step. Service text cleaned."""
    rows = []
    for o in found:
        item = o.first
        coin = fiat = ""
        if item.coin_amount is not None and item.fiat_amount is not None:
            coin = f"{format(item.coin_amount, 'f')} {clean(item.coin, limit=12)}"
            fiat = f"{format(item.fiat_amount, 'f')} {clean(item.currency, limit=12)}"
        rows.append(
            (
                clean(o.token, limit=60),
                "+".join(o.kinds),
                item.figure,
                coin,
                fiat,
                age_text(item.age_seconds(now_ms)) + " ago",
                item.next_step,
            )
        )
    head = ("ORDER", "KIND", "FIGURE", "COIN", "FIAT", "WHEN", "NEXT STEP")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(6)]
    right = (False, False, False, True, True, True)

    def line(row: tuple[str, ...]) -> str:
        cells = [row[i].rjust(widths[i]) if right[i] else row[i].ljust(widths[i]) for i in range(6)]
        return "  ".join([*cells, row[6]]).rstrip()

    return [line(head), *(line(r) for r in rows)]
