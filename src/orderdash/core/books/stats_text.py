"""The day at a glance in words: its JSON (`stats --json`, version 1: every amount exact decimal
text) and its lines of text, at most 80 columns (`orderdash stats`, the close of day screen's
text form). docs/books.md "The day at a glance" lists the keys."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.books.period import iso
from orderdash.core.books.stats import IN_PROGRESS, NO_TILL, TO_COME, Bucket, DayStats, Takings
from orderdash.core.domain.fiat import in_minor_digits
from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.jsontypes import JSONObject, JSONValue

STATS_VERSION = 1
#: What a bucket's state says beside it in the text.
STATE_WORDS = {IN_PROGRESS: "in progress", TO_COME: "to come"}
#: The words for the orders no till of the book charged.
NO_TILL_WORDS = "(no till)"


def _amounts(takings: Takings) -> dict[str, JSONValue]:
    return {unit: format(amount, "f") for unit, amount in sorted(takings.items())}


def stats_json(stats: DayStats) -> JSONObject:
    """The period at a glance as one JSON object (amounts as decimal text)."""
    buckets: list[JSONValue] = [_bucket_json(b) for b in stats.buckets]
    coins: dict[str, JSONValue] = {
        t.name: {
            "amount": format(t.amount if t.amount is not None else Decimal(0), "f"),
            "payments": t.payments,
            "takings": _amounts(t.takings),
        }
        for t in stats.coins
    }
    tills: dict[str, JSONValue] = {
        t.name: {"orders": t.orders, "payments": t.payments, "takings": _amounts(t.takings)}
        for t in stats.tills
    }
    return {
        "version": STATS_VERSION,
        "zone": str(stats.period.zone),
        "from": iso(stats.period.start),
        "until": iso(stats.period.end),
        "now": iso(stats.now.astimezone(stats.period.zone)),
        "unit": stats.unit,
        "currency": stats.currency,
        "buckets": buckets,
        "takings": _amounts(stats.takings),
        "payments": dict(sorted(stats.payments.items())),
        "week_ago": {
            "from": iso(stats.week_ago.start),
            "until": iso(stats.week_ago.end),
            "takings": _amounts(stats.week_ago_takings),
        },
        "orders": {"made": stats.made, "paid": stats.paid, "short": stats.short},
        "average_sale": _amounts(stats.average_sale),
        "coins": coins,
        "tills": tills,
        "warnings": list(stats.warnings),
    }


def _bucket_json(bucket: Bucket) -> JSONValue:
    return {
        "from": iso(bucket.span.start),
        "until": iso(bucket.span.end),
        "label": bucket.label,
        "offset": bucket.offset,
        "state": bucket.state,
        "takings": _amounts(bucket.takings),
        "payments": dict(sorted(bucket.payments.items())),
        "week_ago": None if bucket.week_ago is None else _amounts(bucket.week_ago),
    }


def money(amount: Decimal | None, unit: str | None) -> str:
    """An amount as a till shows it (the currency's minor digits, never rounded); "-" for
    none."""
    return "-" if amount is None else format(in_minor_digits(amount, unit), "f")


def _in(takings: Takings | None, unit: str | None) -> Decimal | None:
    if takings is None:
        return None
    return takings.get(unit, Decimal(0)) if unit is not None else Decimal(0)


def title(stats: DayStats) -> str:
    """'The day at a glance: 2026-10-25, Europe/Berlin, in EUR' (a week: its first and last
    day)."""
    zone = clean(str(stats.period.zone), limit=40)
    first = stats.period.start.date().isoformat()
    last = (stats.period.end - timedelta(microseconds=1)).date().isoformat()
    days = first if stats.unit == "hour" else f"{first} to {last}"
    what = "The day at a glance" if stats.unit == "hour" else "The week at a glance"
    unit = f", in {clean(stats.currency, limit=12)}" if stats.currency else ""
    return f"{what}: {days}, {zone}{unit}"


def bucket_rows(stats: DayStats) -> list[tuple[str, str, str, str, str]]:
    """Each bucket as the table shows it: when, takings (in the shown currency), payments,
    the same span a week earlier, and its state in words ("" when over)."""
    unit = stats.currency
    rows = []
    for bucket in stats.buckets:
        when = f"{bucket.label} {bucket.offset}"
        now = None if bucket.state == TO_COME else _in(bucket.takings, unit)
        pays = "" if bucket.state == TO_COME else str(bucket.payments.get(unit or "", 0))
        rows.append(
            (
                when,
                money(now, unit) if now is not None else "",
                pays,
                money(_in(bucket.week_ago, unit), unit),
                STATE_WORDS.get(bucket.state, ""),
            )
        )
    return rows


def summary(stats: DayStats) -> list[str]:
    """The orders, the average sale, the totals against a week earlier."""
    unit = stats.currency
    average = ", ".join(
        f"{money(amount, u)} {clean(u, limit=12)}" for u, amount in stats.average_sale.items()
    )
    lines = [
        f"Orders: {stats.made} made, {stats.paid} paid, {stats.short} short"
        + (f"; average sale {average}" if average else ""),
    ]
    if unit is not None:
        code = clean(unit, limit=12)
        count = stats.payments.get(unit, 0)
        lines.append(
            f"Takings {money(_in(stats.takings, unit), unit)} {code} in {count} "
            f"payment{'' if count == 1 else 's'}; a week earlier "
            f"{money(_in(stats.week_ago_takings, unit), unit)} {code}"
        )
    for other in sorted(set(stats.takings) - {unit}):
        count = stats.payments.get(other, 0)
        lines.append(
            f"  also {money(stats.takings[other], other)} {clean(other, limit=12)} in {count} "
            f"payment{'' if count == 1 else 's'}; a week earlier "
            f"{money(_in(stats.week_ago_takings, other), other)} {clean(other, limit=12)}"
        )
    return lines


def tally_lines(stats: DayStats) -> list[str]:
    """Per coin and per till, one line each."""
    lines: list[str] = []
    if stats.coins:
        lines += ["By coin"]
    for coin in stats.coins:
        name = clean(coin.name, limit=12)
        amount = "" if coin.amount is None else f"{format(coin.amount, 'f')} {name}"
        lines.append(f"  {amount:<28} {_payments(coin.payments)}  {_fiat(coin.takings)}")
    if stats.tills:
        lines += ["By till"]
    for till in stats.tills:
        name = NO_TILL_WORDS if till.name == NO_TILL else clean(till.name, limit=20)
        orders = f"{till.orders} order{'' if till.orders == 1 else 's'}"
        lines.append(f"  {name:<16} {orders:>11} {_payments(till.payments)}  {_fiat(till.takings)}")
    return lines


def _payments(count: int) -> str:
    return f"{count:>4} payment{'' if count == 1 else 's'}".ljust(13)


def _fiat(takings: Takings) -> str:
    return ", ".join(
        f"{money(amount, unit)} {clean(unit, limit=12)}" for unit, amount in sorted(takings.items())
    )


def stats_lines(stats: DayStats, *, warnings: bool = True) -> list[str]:
    """The period at a glance as text, within 80 columns (a figure never cut); `warnings`: its
    warnings at the end."""
    rows = bucket_rows(stats)
    head = ("Hour" if stats.unit == "hour" else "Day", "Takings", "Pays", "A week ago", "")
    table = [head, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    # the totals first: what a small screen shows before it scrolls
    lines = [title(stats), *summary(stats), ""]
    for when, takings, pays, before, state in table:
        lines.append(
            f"{when:<{widths[0]}}  {takings:>{widths[1]}}  {pays:>{widths[2]}}  "
            f"{before:>{widths[3]}}  {state}".rstrip()
        )
    tallies = tally_lines(stats)
    if tallies:
        lines += ["", *tallies]
    if warnings:
        lines += [f"warning: {clean(w, limit=200)}" for w in stats.warnings]
    return lines
