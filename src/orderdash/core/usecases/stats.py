"""The day at a glance (`orderdash stats`, the close of day screen): a day's (or a week's)
takings against a week earlier, counted as the close counts them (`core/books/stats.py`), from
the ledger only: nothing is asked of the service. Blocking (the book's reads and the orders'
parsing grow with the day): the dashboard calls `read_stats` in a thread."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.books.gather import LOOK_BACK
from orderdash.core.books.orders import BadOrder, BookOrder, read_seen
from orderdash.core.books.period import Period, day_period, zone_named
from orderdash.core.books.stats import NO_TILL, DayStats, glance, hour_spans
from orderdash.core.books.stats_text import (
    NO_TILL_WORDS,
    STATE_WORDS,
    bucket_rows,
    money,
    stats_json,
    stats_lines,
    summary,
    tally_lines,
    title,
)
from orderdash.core.model.errors import UsageError

if TYPE_CHECKING:
    from datetime import tzinfo

    from orderdash.core.ledger import Book
    from orderdash.core.settings.model import Settings

__all__ = [
    "MAX_STATS_ORDERS",
    "NO_TILL",
    "NO_TILL_WORDS",
    "STATE_WORDS",
    "DayStats",
    "StatsOptions",
    "bucket_rows",
    "money",
    "read_stats",
    "stats_json",
    "stats_lines",
    "stats_period",
    "summary",
    "tally_lines",
    "title",
]

#: Most orders read from the ledger for one glance (a day and the same day a week earlier,
#: each with its day before; a week and the week before): a busy shop's fortnight. More are
#: left out, with a warning.
MAX_STATS_ORDERS = 20_000
#: The days `--week` covers: today and the six before it.
WEEK_DAYS = 7


@dataclass(frozen=True)
class StatsOptions:
    """What the glance takes from the settings: the store's time zone (by name: a bad one is
    told when the period is made), the till's currency and the payment tolerance (the close's)."""

    timezone: str | None
    currency: str | None
    tolerance: Decimal = Decimal(0)

    @classmethod
    def from_settings(cls, settings: Settings) -> StatsOptions:
        return cls(settings.timezone, settings.currency, settings.underpaid_tolerance)


@dataclass(frozen=True)
class StatsPeriod:
    """What a glance covers: the period, its spans (hours, or a week's days), the same a week
    earlier, and the unit of the spans."""

    period: Period
    spans: list[Period]
    week_ago: Period
    week_ago_spans: list[Period]
    unit: str
    warnings: list[str] = field(default_factory=list)


def stats_period(zone: tzinfo, *, day: str | None, week: bool, now: datetime) -> StatsPeriod:
    """`day` (YYYY-MM-DD; None: today in `zone` as of `now`), or (`week`) the seven days ending
    today, with the same a week earlier."""
    today = now.astimezone(zone).date()
    if week and day is not None:
        raise UsageError("give --day or --week, not both")
    if week:
        days = [_before(today, n) for n in range(WEEK_DAYS - 1, -1, -1)]
        spans = [_day(d, zone) for d in days]
        before = [_day(_before(d, WEEK_DAYS), zone) for d in days]
        period = Period(spans[0].start, spans[-1].end, zone)
        earlier = Period(before[0].start, before[-1].end, zone)
        return StatsPeriod(period, spans, earlier, before, "day")
    period = day_period(day if day is not None else today.isoformat(), zone)
    week_ago = _day(_before(period.start.date(), WEEK_DAYS), zone)
    return StatsPeriod(period, hour_spans(period), week_ago, hour_spans(week_ago), "hour")


def _before(when: date, days: int) -> date:
    """`days` days before `when`; one line when that is before the calendar's first day."""
    try:
        return when - timedelta(days=days)
    except OverflowError:
        raise UsageError(
            f"{when.isoformat()} is too near the edge of the calendar (years 1 to 9999): the "
            "day at a glance needs the same day a week earlier"
        ) from None


def _day(when: date, zone: tzinfo) -> Period:
    return day_period(when.isoformat(), zone)


def read_stats(
    book: Book,
    options: StatsOptions,
    *,
    day: str | None,
    week: bool,
    now: datetime,
    zone: tzinfo | None = None,
) -> DayStats:
    """The glance asked for (`stats_period`) from `book`'s reads, as of `now` (aware), in
    `zone` (None: the options' time zone)."""
    in_zone = zone if zone is not None else zone_named(options.timezone)
    asked = stats_period(in_zone, day=day, week=week, now=now)
    since = asked.week_ago.start - LOOK_BACK
    warnings = list(asked.warnings)
    seen = book.orders_seen_since(since, MAX_STATS_ORDERS + 1)
    if len(seen) > MAX_STATS_ORDERS:
        seen = seen[:MAX_STATS_ORDERS]
        warnings.append(
            f"the ledger holds more than {MAX_STATS_ORDERS:,} orders read since "
            f"{since.date().isoformat()}: the figures count the first {MAX_STATS_ORDERS:,}"
        )
    orders: list[BookOrder] = []
    unread = 0
    for row in seen:
        order = _order(row.token, row.order_json)
        if order is None:
            unread += 1
        else:
            orders.append(order)
    if unread:
        warnings.append(f"{unread} of the ledger's orders could not be read: not counted")
    charges = book.charges(since, asked.period.end, None)
    tokens = [o.token for o in orders]
    resolutions = book.resolutions_of(tokens) if tokens else []
    stats = glance(
        orders,
        asked.period,
        asked.spans,
        unit=asked.unit,
        week_ago=asked.week_ago,
        week_ago_spans=asked.week_ago_spans,
        tills={c.token: c.till for c in charges},
        resolutions=resolutions,
        currency=options.currency,
        tolerance=options.tolerance,
        now=now,
    )
    stats.warnings.extend(warnings)
    return stats


def _order(token: str, text: str) -> BookOrder | None:
    """One row of the ledger as the books read it; None when it cannot be (`read_seen`)."""
    try:
        order, _ = read_seen(token, text)
    except BadOrder:
        return None
    return order
