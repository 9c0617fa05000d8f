"""Sales against received, per fiat currency: what the orders of the period charged, what came
in during it, and the difference split into named parts that add up to it exactly
(docs/books.md "Sales and received").

For each order made in the period, in its fiat currency: its amount (`amountFiat`) is a sale.
Its payments (each `amountFiat.base`, at the rate of its own moment) and the figures the
service states with its latest payment (`underPaid` and `overPaid` in fiat) share it out:

  still_paying   an open order's shortfall (in progress: the customer may pay the rest), or
                 the whole amount of an open order with no payment yet
  closed_short   a closed order's shortfall (underpaid, expired or canceled part-paid)
  unpaid_closed  the whole amount of an expired or canceled order with no payment
  tolerance      a closed order's shortfall within the `underpaid_tolerance` setting
                 (`orders.absorbed`: underpaid or expired, or paid by the service's word):
                 taken as paid
  written_off    a closed order's shortfall whose latest resolution is "written-off"
  excess         an order's overpayment, negative (more came than was charged)
  refunded       an overpayment whose latest resolution is "refunded", negative
  rate_moved     what is left of the order's amount once its payments, its shortfall and its
                 excess are taken off: the rate's moves between the order and its payments
                 (and the service's rounding of each fiat figure to its digits)
  paid_outside   the payments to the period's orders made outside the period (after its end):
                 received in another period
  earlier_orders the payments made in the period to orders made before it, negative: received
                 now for the sales of an earlier period

So that sales - (sum of the parts) == received holds by construction, to the last digit: each
order's parts take exactly its amount less its payments in the period. `check_adds_up` checks
it again on every report; a report that breaks it is an error, never shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from orderdash.core.books.orders import BookOrder, absorbed, exact_sum
from orderdash.core.books.period import Period
from orderdash.core.books.shape import SalesJSON, SalesRowJSON, SumJSON
from orderdash.core.domain.fiat import in_minor_digits
from orderdash.core.ledger import ResolutionRecord
from orderdash.core.model.errors import OrderdashError
from orderdash.core.safetext import clean

#: Makes a value of the report one printable line of at most so many characters (a report
#: read back is untrusted).
Shown = Callable[[object, int], str]

#: The parts of the difference, in the order a report lists them.
PARTS = (
    "rate_moved",
    "still_paying",
    "closed_short",
    "unpaid_closed",
    "tolerance",
    "written_off",
    "excess",
    "refunded",
    "paid_outside",
    "earlier_orders",
)
#: Each part in a few words, for a person.
PART_WORDS = {
    "rate_moved": "rate moved",
    "still_paying": "still paying",
    "closed_short": "closed short",
    "unpaid_closed": "unpaid, closed",
    "tolerance": "absorbed by tolerance",
    "written_off": "written off",
    "excess": "overpaid",
    "refunded": "refunded",
    "paid_outside": "paid outside the period",
    "earlier_orders": "paid to earlier orders",
}
#: What a part's count counts.
PART_COUNTS = {"earlier_orders": "earlier order"}
_OPEN = frozenset({"in_progress"})
_CLOSED_UNPAID = frozenset({"expired", "canceled"})


class BooksDoNotAddUp(OrderdashError):
    """A report's sales, parts and received do not add up: it is not shown."""


@dataclass(frozen=True, slots=True)
class PartEntry:
    """One order's share of one part of the difference (what the settlement lists a row for)."""

    part: str
    order: str
    amount: Decimal


@dataclass
class _Row:
    sales: list[Decimal] = field(default_factory=list)
    received: list[Decimal] = field(default_factory=list)
    parts: dict[str, list[Decimal]] = field(default_factory=dict)
    counted: dict[str, set[str]] = field(default_factory=dict)
    #: Each amount as it was added: (part, order, amount), in the order they came.
    entries: list[PartEntry] = field(default_factory=list)

    def add(self, part: str, amount: Decimal, order: str) -> None:
        self.parts.setdefault(part, []).append(amount)
        self.counted.setdefault(part, set()).add(order)
        self.entries.append(PartEntry(part, order, amount))


def _latest_kinds(resolutions: Sequence[ResolutionRecord]) -> dict[str, str]:
    """Each order's latest resolution kind (`resolutions` oldest first)."""
    return {record.token: record.kind for record in resolutions}


def _share_out(
    order: BookOrder, row: _Row, period: Period, kind: str | None, tolerance: Decimal
) -> None:
    """One order of the period: its amount is a sale, shared out among the parts."""
    amount = order.amount_fiat
    row.sales.append(amount)
    token = order.token
    if not order.payments:
        row.add("unpaid_closed" if order.state in _CLOSED_UNPAID else "still_paying", amount, token)
        return
    paid = exact_sum(p.fiat for p in order.payments)
    outside = [p.fiat for p in order.payments if not period.contains_ms(p.at_ms)]
    if outside:
        row.add("paid_outside", exact_sum(outside), token)
    latest = order.latest
    assert latest is not None  # the order has payments
    short = latest.under_paid_fiat.copy_negate() if latest.under_paid_fiat < 0 else Decimal(0)
    excess = latest.over_paid_fiat if latest.over_paid_fiat > 0 else Decimal(0)
    if short > 0:
        # written off first: an order accepted as paid at the counter may still be open at the
        # service, and what the customer was told (paid) is what the close says
        if kind == "written-off":
            row.add("written_off", short, token)
        elif order.state in _OPEN:
            row.add("still_paying", short, token)
        elif absorbed(order, tolerance):  # as the attention view and the exceptions judge it
            row.add("tolerance", short, token)
        else:
            row.add("closed_short", short, token)
    if excess > 0:
        row.add("refunded" if kind == "refunded" else "excess", excess.copy_negate(), token)
    rest = exact_sum((amount, paid.copy_negate(), short.copy_negate(), excess))
    if rest:
        row.add("rate_moved", rest, token)


def sales_block(
    orders: Iterable[BookOrder],
    period: Period,
    *,
    currency: str | None,
    tolerance: Decimal,
    resolutions: Sequence[ResolutionRecord] = (),
) -> SalesJSON:
    """The report's `sales`: per fiat currency its sales, received, difference and parts (every
    part, 0 included, each with the orders it counts), exact decimal text; `currency` the
    till's own (listed first), `tolerance` the `underpaid_tolerance` setting."""
    rows, payments = _shared_out(orders, period, tolerance, resolutions)
    fiat: dict[str, SalesRowJSON] = {}
    for unit, row in rows.items():
        sales, received = exact_sum(row.sales), exact_sum(row.received)
        fiat[unit] = {
            "sales": format(sales, "f"),
            "orders": len(row.sales),
            "received": format(received, "f"),
            "payments": payments.get(unit, 0),
            "difference": format(exact_sum((sales, received.copy_negate())), "f"),
            "parts": {
                part: {
                    "amount": format(exact_sum(row.parts.get(part, ())), "f"),
                    "orders": len(row.counted.get(part, ())),
                }
                for part in PARTS
            },
        }
    block: SalesJSON = {"currency": currency, "tolerance": format(tolerance, "f"), "fiat": fiat}
    check_adds_up(block)
    return block


def part_entries(
    orders: Iterable[BookOrder],
    period: Period,
    *,
    tolerance: Decimal,
    resolutions: Sequence[ResolutionRecord] = (),
) -> dict[str, list[PartEntry]]:
    """Per fiat currency, each order's share of each part, as `sales_block` shares them out
    from the same arguments (the same computation: its parts are these amounts summed)."""
    rows, _ = _shared_out(orders, period, tolerance, resolutions)
    return {unit: list(row.entries) for unit, row in rows.items()}


def _shared_out(
    orders: Iterable[BookOrder],
    period: Period,
    tolerance: Decimal,
    resolutions: Sequence[ResolutionRecord],
) -> tuple[dict[str, _Row], dict[str, int]]:
    """Per fiat currency: its orders' amounts shared out (`_share_out`), and its payments in
    the period; a currency with neither a sale nor a payment in the period left out."""
    kinds = _latest_kinds(resolutions)
    rows: dict[str, _Row] = {}
    payments: dict[str, int] = {}
    for order in orders:
        row = rows.setdefault(order.currency, _Row())
        in_period = [p for p in order.payments if period.contains_ms(p.at_ms)]
        row.received.extend(p.fiat for p in in_period)
        payments[order.currency] = payments.get(order.currency, 0) + len(in_period)
        if period.contains_ms(order.created_ms):
            _share_out(order, row, period, kinds.get(order.token), tolerance)
        elif in_period:
            row.add(
                "earlier_orders", exact_sum(p.fiat for p in in_period).copy_negate(), order.token
            )
    # an order of the look-back with nothing in the period leaves its currency out
    kept = {unit: row for unit, row in rows.items() if row.sales or row.received}
    return kept, payments


def check_adds_up(block: SalesJSON, received: Mapping[str, SumJSON] | None = None) -> None:
    """BooksDoNotAddUp unless, for every currency, sales - (sum of the parts) == received and
    difference == sales - received, exactly; `received`: the report's `received.fiat`, whose
    sums the block's must be."""
    for unit, row in block["fiat"].items():
        sales, got = Decimal(row["sales"]), Decimal(row["received"])
        parts = exact_sum(Decimal(p["amount"]) for p in row["parts"].values())
        difference = exact_sum((sales, got.copy_negate()))
        if (
            exact_sum((sales, parts.copy_negate())) != got
            or Decimal(row["difference"]) != difference
        ):
            raise BooksDoNotAddUp(
                f"the close's {clean(unit, limit=12)} figures do not add up (sales "
                f"{clean(row['sales'], limit=60)}, received {clean(row['received'], limit=60)}, "
                f"parts {parts}): the report is not shown"
            )
        if received is not None:
            stated = received.get(unit)
            if Decimal(stated["amount"] if stated else 0) != got:
                raise BooksDoNotAddUp(
                    f"the close's {clean(unit, limit=12)} received is not the sum of its "
                    "payments: the report is not shown"
                )


def currencies(block: SalesJSON) -> list[str]:
    """The block's currencies, the till's first, then the others by name."""
    own = block.get("currency")
    rest = sorted(unit for unit in block["fiat"] if unit != own)
    return ([own] if own in block["fiat"] else []) + rest


def _money(amount: str, unit: str, c: Shown) -> str:
    """A figure of the report as a till shows money: with the currency's minor digits (0 CHF
    as 0.00), never rounded (`fiat.in_minor_digits`); one printable line either way."""
    text = str(c(amount, 200))
    try:
        return format(in_minor_digits(Decimal(text), unit), "f")
    except ArithmeticError:  # not a number (a damaged report is refused before it is shown)
        return text


def headline(block: SalesJSON, c: Shown) -> list[str]:
    """The lines an owner reads first, one per currency (the till's first):
    'Sales 22.00 EUR · Received 21.97 EUR · Difference 0.03 EUR: rate moved 0.03'. `c`
    makes a value of the report one printable line (a report read back is untrusted)."""
    lines = []
    own = block.get("currency")
    units = currencies(block)
    for index, unit in enumerate(units):
        row = block["fiat"][unit]
        code = c(unit, 12)
        named = [
            f"{PART_WORDS[part]} {_money(row['parts'][part]['amount'], unit, c)}"
            for part in PARTS
            if part in row["parts"] and Decimal(row["parts"][part]["amount"]) != 0
        ]
        line = (
            f"Sales {_money(row['sales'], unit, c)} {code} \u00b7 "
            f"Received {_money(row['received'], unit, c)} {code} \u00b7 "
            f"Difference {_money(row['difference'], unit, c)} {code}"
        )
        if own is not None and unit != own and (index == 0 or units[index - 1] == own):
            lines.append(f"Other currencies (not added to {c(own, 12)}: no conversion)")
        lines.append(line + (": " + ", ".join(named) if named else ""))
    return lines


def detail(block: SalesJSON, c: Shown) -> list[str]:
    """Each currency's figures, one a line, with what each count counts (the parts that are 0
    left out), the tolerance named where it absorbed a shortfall."""
    lines: list[str] = []
    own = block.get("currency")
    for unit in currencies(block):
        row = block["fiat"][unit]
        whose = " (the till's currency)" if unit == own else ""
        figures = [
            ("sales", row["sales"], _count(row["orders"], "order", "made in the period")),
            ("received", row["received"], _count(row["payments"], "payment", "in the period")),
            ("difference", row["difference"], ""),
        ]
        for part in PARTS:
            entry = row["parts"].get(part)
            if entry is None or Decimal(entry["amount"]) == 0:
                continue
            counted = _count(entry["orders"], PART_COUNTS.get(part, "order"), "")
            if part == "tolerance":
                counted += f", within {c(block['tolerance'], 20)} %"
            figures.append(("  " + PART_WORDS[part], entry["amount"], counted))
        shown = [(name, _money(amount, unit, c), counted) for name, amount, counted in figures]
        width = max(len(amount) for _, amount, _ in shown)
        lines += ["", f"Sales and received in {c(unit, 12)}{whose}"]
        for name, amount, counted in shown:
            lines.append(f"  {name:<25} {amount:>{width}}  {counted}".rstrip())
    return lines


def _count(count: int, noun: str, tail: str) -> str:
    n = int(count)
    return f"{n} {noun}{'' if n == 1 else 's'} {tail}".rstrip()
