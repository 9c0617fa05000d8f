"""The close report (a "Z report"): built from the orders read, canonical JSON, its digest.

The keys are the interface (docs/books.md "Close of day", `REPORT_VERSION`). Every amount is
exact decimal text; the digest is the SHA-256 of the canonical JSON of the report without
`digest` (sorted keys, no spaces, ASCII), and that JSON holds the previous close's digest
(`previous`, `chain.py`): the closes of a till form a chain. A close never changes once saved:
the earlier closes' reports are read back to find the payments that came after them
(`adjustments`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from orderdash.core.books.attention import kind_words
from orderdash.core.books.orders import BookOrder, Payment, exact_sum, exceptions_of
from orderdash.core.books.period import Period, iso
from orderdash.core.books.sales import check_adds_up, detail, headline, sales_block
from orderdash.core.books.shape import (
    CloseReport,
    ExceptionJSON,
    FigureJSON,
    LinkJSON,
    PaymentJSON,
    ReceivedJSON,
    RefundJSON,
    ResolutionJSON,
    SpanJSON,
    SumJSON,
)
from orderdash.core.domain.status import STATES
from orderdash.core.ledger import RefundRecord, ResolutionRecord
from orderdash.core.safetext import clean

#: 2: exceptions carry their `resolution`, and the report lists the `resolutions` made in the
#: period. 3: `previous`, the close it follows in its till's chain (`chain.py`). A close of
#: version 1 or 2 still reads back, against its own digest (`frozen.py`). 4: `sales`, the
#: orders' fiat against what was received, the difference in named parts (`sales.py`).
REPORT_VERSION = 4
READABLE_VERSIONS = (1, 2, 3, 4)
#: An exception's figure, by its kind: what is missing, what is too much, or what came.
FIGURE_NAMES = ("shortfall", "excess", "received")
#: The human report's heading of each block of `received`, in its order.
RECEIVED_HEADINGS = {"coins": "Received in coin", "fiat": "Received in fiat"}


@dataclass(frozen=True)
class EarlierClose:
    """What an earlier close of the same till counted: its period and payments."""

    start_ms: int
    end_ms: int
    period: SpanJSON
    #: (order token, payment id) counted in its `received` or listed in its `adjustments`.
    counted: frozenset[tuple[str, int]]

    @classmethod
    def from_report(cls, report: CloseReport) -> EarlierClose:
        period = report["period"]
        counted = {(p["order"], p["id"]) for p in report.get("payments", [])}
        counted |= {(a["order"], a["id"]) for a in report.get("adjustments", [])}
        return cls(
            int(datetime.fromisoformat(period["from"]).timestamp() * 1000),
            int(datetime.fromisoformat(period["until"]).timestamp() * 1000),
            {"from": period["from"], "until": period["until"]},
            frozenset(counted),
        )


def canonical(report: Mapping[str, object]) -> str:
    """The canonical JSON text of `report` without its `digest`."""
    body = {key: value for key, value in report.items() if key != "digest"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def digest_of(report: Mapping[str, object]) -> str:
    return hashlib.sha256(canonical(report).encode("ascii")).hexdigest()


def _sums(payments: Iterable[Payment]) -> ReceivedJSON:
    """Per coin and per fiat currency: the exact sum (`exact_sum`: never rounded) and count."""
    coins: dict[str, list[Decimal]] = {}
    fiat: dict[str, list[Decimal]] = {}
    for payment in payments:
        coins.setdefault(payment.coin, []).append(payment.amount)
        fiat.setdefault(payment.currency, []).append(payment.fiat)
    return {"coins": _sum_table(coins), "fiat": _sum_table(fiat)}


def _sum_table(table: dict[str, list[Decimal]]) -> dict[str, SumJSON]:
    return {
        unit: {"amount": format(exact_sum(amounts), "f"), "payments": len(amounts)}
        for unit, amounts in table.items()
    }


def _payment_entry(payment: Payment, period: Period) -> PaymentJSON:
    return {
        "order": payment.order,
        "id": payment.id,
        "at": iso(period.local(payment.at_ms)),
        "coin": payment.coin,
        "amount": payment.amount_text,
        "currency": payment.currency,
        "fiat": payment.fiat_text,
    }


def resolution_entry(record: ResolutionRecord, period: Period) -> ResolutionJSON:
    """A resolution as the report keeps it (docs/books.md "Resolutions")."""
    return {
        "order": record.token,
        "kind": record.kind,
        "reason": record.reason,
        "operator": record.operator,
        "till": record.till,
        "at": iso(record.at.astimezone(period.zone)),
        "refund": refund_entry(record.refund),
    }


def refund_entry(refund: RefundRecord | None) -> RefundJSON | None:
    """A resolution's refund with every digit (the report and `orderdash resolve --json`)."""
    if refund is None:
        return None
    return {
        "coin": refund.coin,
        "amount": format(refund.amount, "f"),
        "basis": refund.basis,
        "rate": None if refund.rate is None else format(refund.rate, "f"),
        "fee": format(refund.fee, "f"),
    }


def build_report(
    orders: Sequence[BookOrder],
    period: Period,
    *,
    till: str,
    closed_at: datetime,
    earlier: Sequence[EarlierClose] = (),
    warnings: Sequence[str] = (),
    resolutions: Sequence[ResolutionRecord] = (),
    made: Sequence[ResolutionRecord] = (),
    previous: LinkJSON | None = None,
    currency: str | None = None,
    tolerance: Decimal = Decimal(0),
) -> CloseReport:
    """The close of `period` from `orders` (those created in it and in the look-back before
    it), its digest included. `resolutions`: those of the orders (oldest first: an order's
    last is its state); `made`: those made in the period, listed whatever their order;
    `previous`: the close it follows (`chain.link_to`), None for a till's first; `currency`
    the till's (the `currency` setting) and `tolerance` the `underpaid_tolerance` setting, for
    `sales` (`sales.py`). BooksDoNotAddUp when its figures would not add up."""
    of_period = [o for o in orders if period.contains_ms(o.created_ms)]
    counts = dict.fromkeys(STATES, 0)
    for order in of_period:
        counts[order.state] += 1
    received = [p for o in orders for p in o.payments if period.contains_ms(p.at_ms)]
    received.sort(key=lambda p: (p.at_ms, p.id, p.order))
    exceptions = [e for o in sorted(of_period, key=_when) for e in exceptions_of(o, tolerance)]
    latest = {record.token: record for record in resolutions}
    for entry in exceptions:
        record = latest.get(entry["order"])
        entry["resolution"] = None if record is None else resolution_entry(record, period)
    report: CloseReport = {
        "version": REPORT_VERSION,
        "period": {
            "from": iso(period.start),
            "until": iso(period.end),
            "zone": str(period.zone),
        },
        "till": till,
        "closed_at": iso(closed_at.astimezone(period.zone)),
        "orders": {"total": len(of_period), "by_state": counts},
        "received": _sums(received),
        "sales": sales_block(
            orders, period, currency=currency, tolerance=tolerance, resolutions=resolutions
        ),
        "exceptions": exceptions,
        "adjustments": _adjustments(orders, period, earlier),
        "payments": [_payment_entry(p, period) for p in received],
        "resolutions": [resolution_entry(r, period) for r in made],
        "warnings": list(warnings),
        "previous": previous,
    }
    check_adds_up(report["sales"], report["received"]["fiat"])
    report["digest"] = digest_of(report)
    return report


def _when(order: BookOrder) -> tuple[int, int, str]:
    return (order.created_ms, order.id, order.token)


def _adjustments(
    orders: Sequence[BookOrder], period: Period, earlier: Sequence[EarlierClose]
) -> list[PaymentJSON]:
    """Payments to an order of an earlier close that this close is the first to see: made in
    this period, or made within an earlier closed period but after its close (counted by no
    close so far). Each names the close that covered its order."""
    found: list[PaymentJSON] = []
    closes = [c for c in earlier if c.end_ms <= period.start_ms]
    if not closes:
        return found
    counted = frozenset().union(*(c.counted for c in closes))
    for order in sorted(orders, key=_when):
        covering = next((c for c in closes if c.start_ms <= order.created_ms < c.end_ms), None)
        if covering is None:
            continue
        for payment in sorted(order.payments, key=lambda p: (p.at_ms, p.id)):
            if (payment.order, payment.id) in counted:
                continue
            in_closed = any(c.start_ms <= payment.at_ms < c.end_ms for c in closes)
            if period.contains_ms(payment.at_ms) or in_closed:
                entry = _payment_entry(payment, period)
                entry["closed_period"] = covering.period
                found.append(entry)
    return found


def change_note(confirmed: CloseReport, frozen: CloseReport) -> str:
    """What follows "Closed, but" when `frozen` (the close as made) differs from `confirmed` (the
    dry run the person agreed to) in anything but when it was built; "" when they agree."""

    def body(report: CloseReport) -> dict[str, object]:
        # (another till's close saved meanwhile is the one this close follows: not the day's)
        apart = ("closed_at", "digest", "previous")
        return {k: v for k, v in report.items() if k not in apart}

    if body(confirmed) == body(frozen):
        return ""
    arrived = len(frozen.get("payments", [])) - len(confirmed.get("payments", []))
    if arrived > 0:
        payments = "payment" if arrived == 1 else "payments"
        return f"{arrived} {payments} arrived since the dry run: the close shows them."
    return "the day changed since the dry run: the close shows it as it is now."


def figure_of(entry: ExceptionJSON) -> tuple[str, FigureJSON]:
    """An exception's figure: its name and its coin and fiat amounts."""
    if "shortfall" in entry:
        return "shortfall", entry["shortfall"]
    if "excess" in entry:
        return "excess", entry["excess"]
    return "received", entry["received"]


def report_lines(report: CloseReport, *, closed: bool = True) -> list[str]:
    """The report as lines of text (the `close` command's, the dashboard's `Z`); every text in
    it cleaned (a report read back from the ledger is as untrusted as the service). `closed`
    False: a dry run, shown without a digest."""

    def c(value: object, limit: int = 60) -> str:
        return clean(str(value), limit=limit)

    period, orders = report["period"], report["orders"]
    till = "all tills" if report["till"] == "*" else c(report["till"])
    lines = [
        f"Close of day {c(period['from'])} to {c(period['until'])} ({c(period['zone'])})",
        f"Till: {till}   closed at {c(report['closed_at'])}",
        f"Digest: {c(report['digest'], 80)} (report version {c(report['version'])})",
        "",
    ]
    previous = report.get("previous")
    if previous:  # version 3 on: the close this one follows in the till's chain
        lines[3:3] = [
            f"Follows the close of {c(previous['from'])} to {c(previous['until'])}, "
            f"digest {c(previous['digest'], 80)}"
        ]
    if not closed:
        lines[1:3] = [
            f"Till: {till}   NOT CLOSED: a dry run, the day is not closed yet "
            f"(report version {c(report['version'])})"
        ]
    sales = report.get("sales")
    if sales is not None:  # version 4 on: what an owner reads first
        check_adds_up(sales, report["received"]["fiat"])
        lines += headline(sales, c) + [""]
    lines += [
        f"Orders: {c(orders['total'])} made in the period",
    ]
    # in the states' own order, whether the report was just built or read back (sorted keys)
    by_state = orders["by_state"]
    known = [state for state in STATES if state in by_state]
    counts = [
        f"{c(state, 30).replace('_', ' ')} {c(by_state[state])}"
        for state in known + sorted(set(by_state) - set(known))
        if by_state[state]
    ]
    if counts:
        lines.append("  " + ", ".join(counts))
    received = {"coins": report["received"]["coins"], "fiat": report["received"]["fiat"]}
    amounts = {
        (kind, unit): c(row["amount"], 200)
        for kind in RECEIVED_HEADINGS
        for unit, row in received[kind].items()
    }
    # one column of amounts for both blocks: right-aligned, never cut (the longest sets it)
    width = max((len(amount) for amount in amounts.values()), default=0)
    if not any(received[kind] for kind in RECEIVED_HEADINGS):
        lines += ["", "Received", "  nothing"]
    for kind, heading in RECEIVED_HEADINGS.items():
        if received[kind]:
            lines += ["", heading]
        for unit, row in sorted(received[kind].items()):
            count = row["payments"]
            payments = "payment" if count == 1 else "payments"
            lines.append(
                f"  {c(unit, 12):<6} {amounts[kind, unit]:>{width}}  {c(count)} {payments}"
            )
    if sales is not None:
        lines += detail(sales, c)
    exceptions = report["exceptions"]
    needing = len({entry["order"] for entry in exceptions})
    lines += [
        "",
        f"Exceptions: {len(exceptions)} on {needing} order{'' if needing == 1 else 's'} of the "
        "period that need a human",
    ]
    for entry in exceptions:
        name, figure = figure_of(entry)
        # only a closed order's shortfall is an exception (an open one is still paying)
        kind = kind_words(c(entry["kind"], 30))
        lines.append(
            f"  {kind:<21} {c(entry['order'], 40)}  "
            f"{name} {c(figure['coin'], 200)} {c(entry['coin'], 12)} "
            f"({c(figure['fiat'], 200)} {c(entry['currency'], 12)})"
        )
        resolution = entry.get("resolution")
        if resolution:
            lines.append(f"    resolved: {_resolution_words(resolution)}")
    lines += [
        "",
        f"Adjustments: {len(report['adjustments'])} payments in the period to orders of an "
        "earlier close",
    ]
    for adjustment in report["adjustments"]:
        lines.append(
            f"  {c(adjustment['at'])}  {c(adjustment['order'], 40)}  "
            f"{c(adjustment['amount'], 200)} {c(adjustment['coin'], 12)} "
            f"({c(adjustment['fiat'], 200)} {c(adjustment['currency'], 12)}), order of the "
            f"close {c(adjustment['closed_period']['from'])}"
        )
    if "resolutions" in report:  # version 2 on
        lines += ["", f"Resolutions: {len(report['resolutions'])} made in the period"]
        for made in report["resolutions"]:
            lines.append(f"  {c(made['at'])}  {c(made['order'], 40)}  {_resolution_words(made)}")
    return lines


def _resolution_words(entry: ResolutionJSON) -> str:
    """'refunded 0.00049 BTC (payment, fee 0.00001) by anna at front, 10:02: the reason'."""

    def c(value: object, limit: int = 60) -> str:
        return clean(str(value), limit=limit)

    refund = entry.get("refund")
    money = ""
    if refund:
        rate = f" {c(refund['rate'], 40)}" if refund.get("rate") else ""
        fee = f", fee {c(refund['fee'], 40)}" if refund.get("fee") not in (None, "0") else ""
        money = (
            f" {c(refund['amount'], 60)} {c(refund['coin'], 12)} "
            f"({c(refund['basis'], 12)}{rate}{fee})"
        )
    return (
        f"{c(entry['kind'], 20)}{money} by {c(entry['operator'], 64)} at "
        f"{c(entry['till'], 64)}, {c(entry['at'])}: {c(entry['reason'], 300)}"
    )
