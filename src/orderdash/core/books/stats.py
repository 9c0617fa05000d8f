"""The day at a glance (docs/books.md "The day at a glance"): a day's takings hour by hour (or a
week's, day by day) beside the same hours a week earlier, the orders made, paid and short, the
average sale, and the takings per coin and per till.

Everything is counted as the close counts it, by the close's own code: a day is the close's
(`period.day_period`: local midnight to the next, 23 or 25 hours when the clocks change), an
hour is [t, t + 1 h) in elapsed time from that midnight, so that a day's hours are 23, 24 or 25
and each is labelled with its local time and UTC offset (the repeated hour of an autumn night
shows twice, +02:00 then +01:00). The takings of a span are the close's `received` of that
span (`sales.sales_block` on the span as a period): the fiat of the payments made in it, to the
orders the close would read (created in it or in the day before it, `gather.LOOK_BACK`). The
day's orders and coins are the close's report of the day (`report.build_report`).

A week earlier is matched by the local wall clock: this hour's 14:00 beside that day's 14:00.
An hour that is on one of the two days only (the hour the clocks skip or repeat) has nothing
beside it, and the totals compare the two whole days.

A week is the sum of its seven closes: each day's row is that day's glance (its close's
figures, the same day a week earlier beside it), and every figure of the week adds up the
seven days' own, so that a day's row always agrees with that day's close.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

from orderdash.core.books.gather import LOOK_BACK
from orderdash.core.books.orders import BookOrder, exact_sum, paid_or_absorbed
from orderdash.core.books.period import Period
from orderdash.core.books.report import build_report
from orderdash.core.books.sales import sales_block
from orderdash.core.books.shape import SumJSON
from orderdash.core.domain.fiat import minor_digits
from orderdash.core.ledger import ResolutionRecord

#: The parts of the close's difference that are an order closed short (not absorbed).
SHORT_PARTS = ("closed_short", "written_off")
#: A bucket's state: over, the one now, or not begun.
DONE, IN_PROGRESS, TO_COME = "done", "in_progress", "to_come"
#: The books' name for the orders no till of this book charged (made elsewhere: a web shop).
NO_TILL = ""

#: Takings per fiat currency, exact.
Takings = dict[str, Decimal]


@dataclass(frozen=True)
class Bucket:
    """One hour (or day) of the period: its span, how a person reads its start (local time and
    UTC offset), its takings and payments, the same span a week earlier (None: no such span),
    and whether it is over, under way or still to come."""

    span: Period
    label: str
    offset: str
    takings: Takings
    #: The payments in it, per fiat currency.
    payments: dict[str, int]
    week_ago: Takings | None
    state: str


@dataclass(frozen=True)
class Tally:
    """What one coin or one till took: its payments, their coin amount (a coin's only), their
    fiat (the close's `received`), and the orders it made (a till's only)."""

    name: str
    payments: int
    takings: Takings
    amount: Decimal | None = None
    orders: int = 0


@dataclass(frozen=True)
class DayStats:
    """The period at a glance (`unit`: "hour" for a day, "day" for a week)."""

    period: Period
    week_ago: Period
    unit: str
    now: datetime
    #: The currency the hours are shown in: the till's own when it took any, else the one
    #: that took most; the others are listed with their totals.
    currency: str | None
    buckets: list[Bucket]
    takings: Takings
    #: The payments of the period per fiat currency.
    payments: dict[str, int]
    week_ago_takings: Takings
    made: int
    paid: int
    short: int
    average_sale: Takings
    coins: list[Tally]
    tills: list[Tally]
    warnings: list[str] = field(default_factory=list)


def hour_spans(period: Period) -> list[Period]:
    """The period's hours, each an hour of elapsed time from its start (the last one shorter
    when the period ends between two)."""
    spans = []
    start = period.start.astimezone(UTC)
    end = period.end.astimezone(UTC)
    while start < end:
        after = min(start + timedelta(hours=1), end)
        zone = period.zone
        spans.append(Period(start.astimezone(zone), after.astimezone(zone), zone))
        start = after
    return spans


def wall_key(span: Period) -> tuple[int, int, int]:
    """An hour's place on the wall clock: its local hour and minute, and which of two it is
    when the clocks went back (the repeated hour's second is `fold` 1)."""
    return (span.start.hour, span.start.minute, span.start.fold)


def of_period(orders: Iterable[BookOrder], period: Period) -> list[BookOrder]:
    """The orders the close of `period` reads: those created in it or in the day before."""
    low = int((period.start - LOOK_BACK).timestamp() * 1000)
    return [o for o in orders if low <= o.created_ms < period.end_ms]


def takings_of(
    orders: Sequence[BookOrder], span: Period, tolerance: Decimal
) -> tuple[Takings, dict[str, int]]:
    """The close's `received` of `span` per fiat currency, and its payments: the sales block
    of the orders with a payment in it (the others receive nothing there)."""
    paying = [o for o in orders if any(span.contains_ms(p.at_ms) for p in o.payments)]
    block = sales_block(paying, span, currency=None, tolerance=tolerance)
    fiat = {unit: row for unit, row in block["fiat"].items() if row["payments"]}
    return (
        {unit: Decimal(row["received"]) for unit, row in fiat.items()},
        {unit: row["payments"] for unit, row in fiat.items()},
    )


def _state(span: Period, now_ms: int) -> str:
    if now_ms >= span.end_ms:
        return DONE
    return IN_PROGRESS if span.contains_ms(now_ms) else TO_COME


def _label(span: Period, unit: str) -> tuple[str, str]:
    start = span.start
    if unit == "day":
        return start.strftime("%a %Y-%m-%d"), _offset(start)
    return start.strftime("%H:%M"), _offset(start)


def _offset(when: datetime) -> str:
    delta = when.utcoffset() or timedelta(0)
    sign = "-" if delta < timedelta(0) else "+"
    minutes = abs(int(delta.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def average(amounts: Sequence[Decimal], currency: str) -> Decimal:
    """The mean of `amounts` to the currency's minor digits (half to even: an average is the
    one figure here that is rounded, and it says so in the docs)."""
    with localcontext() as context:
        context.prec = 60
        mean = exact_sum(amounts) / len(amounts)
        return mean.quantize(Decimal(1).scaleb(-minor_digits(currency)), rounding=ROUND_HALF_EVEN)


def glance(
    orders: Sequence[BookOrder],
    period: Period,
    spans: Sequence[Period],
    *,
    unit: str,
    week_ago: Period,
    week_ago_spans: Sequence[Period],
    tills: Mapping[str, str],
    resolutions: Sequence[ResolutionRecord],
    currency: str | None,
    tolerance: Decimal,
    now: datetime,
) -> DayStats:
    """The period at a glance from the orders the ledger holds (`orders`: any of them; each
    span reads those its close would). `tills`: token -> the till that charged it;
    `resolutions`: the orders', oldest first; `currency` the till's, `tolerance` the payment
    tolerance (both the close's). A week (`unit` "day") is the sum of its days' glances."""
    if unit == "day":
        days = [
            glance(
                orders,
                day,
                [],
                unit="hour",
                week_ago=before,
                week_ago_spans=[],
                tills=tills,
                resolutions=resolutions,
                currency=currency,
                tolerance=tolerance,
                now=now,
            )
            for day, before in zip(spans, week_ago_spans, strict=True)
        ]
        paid = [o for day in spans for o in _paid(orders, day, tolerance)]
        return _week(days, period, week_ago, currency, _averages(paid), now)
    mine = of_period(orders, period)
    earlier = of_period(orders, week_ago)
    now_ms = int(now.timestamp() * 1000)
    report = build_report(
        mine,
        period,
        till="*",
        closed_at=now,
        resolutions=resolutions,
        currency=currency,
        tolerance=tolerance,
    )
    beside = {wall_key(s): s for s in week_ago_spans}
    buckets = []
    for span in spans:
        takings, payments = takings_of(mine, span, tolerance)
        other = beside.get(wall_key(span))
        label, offset = _label(span, unit)
        buckets.append(
            Bucket(
                span,
                label,
                offset,
                takings,
                payments,
                None if other is None else takings_of(earlier, other, tolerance)[0],
                _state(span, now_ms),
            )
        )
    fiat = report["sales"]["fiat"]
    takings = {u: Decimal(row["received"]) for u, row in fiat.items() if row["payments"]}
    paid = _paid(mine, period, tolerance)
    return DayStats(
        period=period,
        week_ago=week_ago,
        unit=unit,
        now=now,
        currency=_shown_currency(takings, currency),
        buckets=buckets,
        takings=takings,
        payments={u: row["payments"] for u, row in fiat.items() if row["payments"]},
        week_ago_takings=takings_of(earlier, week_ago, tolerance)[0],
        made=report["orders"]["total"],
        paid=len(paid),
        short=sum(row["parts"][p]["orders"] for row in fiat.values() for p in SHORT_PARTS),
        average_sale=_averages(paid),
        coins=_coins(mine, period, report["received"]["coins"], tolerance),
        tills=_tills(mine, period, tills, tolerance),
    )


def _paid(orders: Iterable[BookOrder], period: Period, tolerance: Decimal) -> list[BookOrder]:
    """The orders made in `period` that the close counts as paid."""
    made = [o for o in orders if period.contains_ms(o.created_ms)]
    return [o for o in made if paid_or_absorbed(o, tolerance)]


def _averages(paid: Iterable[BookOrder]) -> Takings:
    """The average sale of the `paid` orders, per currency."""
    by_unit: dict[str, list[Decimal]] = {}
    for order in paid:
        by_unit.setdefault(order.currency, []).append(order.amount_fiat)
    return {u: average(amounts, u) for u, amounts in sorted(by_unit.items())}


def _week(
    days: Sequence[DayStats],
    period: Period,
    week_ago: Period,
    currency: str | None,
    average_sale: Takings,
    now: datetime,
) -> DayStats:
    """The week of the seven `days`' glances: a row each (its takings and payments, the same
    day a week earlier beside it), and every total the sum of the days' own."""
    now_ms = int(now.timestamp() * 1000)
    buckets = []
    for day in days:
        label, offset = _label(day.period, "day")
        state = _state(day.period, now_ms)
        buckets.append(
            Bucket(
                day.period, label, offset, day.takings, day.payments, day.week_ago_takings, state
            )
        )
    takings = _added(d.takings for d in days)
    return DayStats(
        period=period,
        week_ago=week_ago,
        unit="day",
        now=now,
        currency=_shown_currency(takings, currency),
        buckets=buckets,
        takings=takings,
        payments=_counted(d.payments for d in days),
        week_ago_takings=_added(d.week_ago_takings for d in days),
        made=sum(d.made for d in days),
        paid=sum(d.paid for d in days),
        short=sum(d.short for d in days),
        average_sale=average_sale,
        coins=_tallies_added([t for d in days for t in d.coins]),
        tills=_tallies_added([t for d in days for t in d.tills]),
    )


def _added(takings: Iterable[Takings]) -> Takings:
    """Takings added up per currency, exactly."""
    by_unit: dict[str, list[Decimal]] = {}
    for each in takings:
        for unit, amount in each.items():
            by_unit.setdefault(unit, []).append(amount)
    return {unit: exact_sum(amounts) for unit, amounts in sorted(by_unit.items())}


def _counted(counts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Counts added up per name."""
    total: dict[str, int] = {}
    for each in counts:
        for name, count in each.items():
            total[name] = total.get(name, 0) + count
    return dict(sorted(total.items()))


def _tallies_added(tallies: Sequence[Tally]) -> list[Tally]:
    """The tallies of one name (a coin, a till) added up, in name order."""
    by_name: dict[str, list[Tally]] = {}
    for tally in tallies:
        by_name.setdefault(tally.name, []).append(tally)
    added = []
    for name in sorted(by_name):
        same = by_name[name]
        amounts = [t.amount for t in same if t.amount is not None]
        added.append(
            Tally(
                name,
                sum(t.payments for t in same),
                _added(t.takings for t in same),
                amount=exact_sum(amounts) if amounts else None,
                orders=sum(t.orders for t in same),
            )
        )
    return added


def _shown_currency(takings: Takings, own: str | None) -> str | None:
    if own is not None and (own in takings or not takings):
        return own
    if not takings:
        return None
    return max(sorted(takings), key=lambda unit: takings[unit])


def _coins(
    orders: Sequence[BookOrder],
    period: Period,
    received: Mapping[str, SumJSON],
    tolerance: Decimal,
) -> list[Tally]:
    """Per coin, from the close's `received.coins` (amount and payments) and its `received`
    in fiat of that coin's orders."""
    tallies = []
    for coin in sorted(received):
        row = received[coin]
        takings, _ = takings_of([o for o in orders if o.coin == coin], period, tolerance)
        tallies.append(Tally(coin, row["payments"], takings, amount=Decimal(row["amount"])))
    return tallies


def _tills(
    orders: Sequence[BookOrder], period: Period, tills: Mapping[str, str], tolerance: Decimal
) -> list[Tally]:
    """Per till that charged orders (as the close of one till keeps them: `Book.charges`);
    the orders no till of the book charged under `NO_TILL`."""
    groups: dict[str, list[BookOrder]] = {}
    for order in orders:
        groups.setdefault(tills.get(order.token, NO_TILL), []).append(order)
    tallies = []
    for name in sorted(groups):
        kept = groups[name]
        takings, payments = takings_of(kept, period, tolerance)
        made = sum(1 for o in kept if period.contains_ms(o.created_ms))
        if made or payments:
            tallies.append(Tally(name, sum(payments.values()), takings, orders=made))
    return tallies
