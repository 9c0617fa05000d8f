"""The books' periods and report, pure: days of 23, 24 and 25 hours, naive and offset times,
refusals in one line, and a report's canonical form and digest."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from orderdash.core.books.orders import read_order
from orderdash.core.books.period import choose_period, day_period, span_period, zone_named
from orderdash.core.books.report import EarlierClose, build_report, canonical, digest_of
from orderdash.core.domain.status import state_of
from orderdash.core.model import jsontext
from orderdash.core.model.errors import UsageError


@pytest.mark.parametrize(
    ("zone", "day", "hours"),
    [
        ("Europe/Berlin", "2026-10-25", 25),
        ("Europe/Berlin", "2026-03-29", 23),
        ("America/New_York", "2026-03-08", 23),
        ("America/New_York", "2026-11-01", 25),
        ("Asia/Tokyo", "2026-10-25", 24),
    ],
)
def test_a_day_is_local_midnight_to_local_midnight(zone: str, day: str, hours: int) -> None:
    period = day_period(day, zone_named(zone))
    assert period.duration == timedelta(hours=hours)
    assert period.end_ms - period.start_ms == hours * 3_600_000
    assert period.start.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M") == f"{day} 00:00"


def test_naive_times_are_in_the_zone_and_offsets_are_kept() -> None:
    zone = zone_named("America/New_York")
    period = span_period("2026-03-08T00:00", "2026-03-09T00:00+00:00", zone)
    assert period.start == datetime(2026, 3, 8, 5, 0, tzinfo=UTC)
    assert period.end == datetime(2026, 3, 9, 0, 0, tzinfo=UTC)
    assert period.end.utcoffset() == timedelta(hours=-4)  # shown in the zone, after the change


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"day": "2026-13-01"}, "is not a date"),
        ({"day": "yesterday"}, "is not a date"),
        ({"since": "soon", "until": "2026-01-02"}, "not an ISO-8601 time"),
        ({"since": "2026-01-02", "until": "2026-01-01"}, "after --since"),
        ({"since": "2026-01-01", "until": "2026-02-02"}, "at most 31 days"),
    ],
)
def test_bad_periods_are_refused(kwargs: dict[str, str], words: str) -> None:
    args = {"day": None, "since": None, "until": None, **kwargs}
    with pytest.raises(UsageError, match=words):
        choose_period(**args, zone=UTC, today=None)


@pytest.mark.parametrize(
    ("kwargs", "zone"),
    [
        ({"day": "9999-12-31"}, "UTC"),  # no next midnight
        ({"day": "0001-01-01"}, "Europe/Berlin"),  # its midnight is in year 0 in UTC
        ({"since": "0001-01-01", "until": "0001-01-02"}, "Asia/Tokyo"),
        ({"since": "0001-01-01", "until": "0001-01-02"}, "UTC"),  # its look-back is in year 0
        ({"day": "0001-01-02"}, "UTC"),
        ({"since": "9999-12-31T00:00", "until": "9999-12-31T23:00"}, "America/New_York"),
        ({"since": "9999-12-31T00:00", "until": "9999-12-31T20:00-05:00"}, "UTC"),
    ],
)
def test_dates_at_the_calendars_edge_are_refused_in_one_line(
    kwargs: dict[str, str], zone: str
) -> None:
    args = {"day": None, "since": None, "until": None, **kwargs}
    with pytest.raises(UsageError, match="too near the edge of the calendar") as refused:
        choose_period(**args, zone=zone_named(zone), today=None)
    assert "\n" not in refused.value.message


@pytest.mark.parametrize(
    ("day", "zone"), [("0001-01-03", "UTC"), ("9999-12-30", "America/New_York")]
)
def test_the_days_nearest_the_calendars_edge_are_counted(day: str, zone: str) -> None:
    period = day_period(day, zone_named(zone))
    assert period.duration == timedelta(hours=24)
    # what a close computes of it: the look-back, epoch milliseconds, times in the zone
    assert period.start - timedelta(days=1) < period.start
    assert period.local(period.start_ms - 86_400_000) < period.local(period.end_ms - 1)


@pytest.mark.parametrize(
    "name", ["Mars/Olympus", "../etc/passwd", "Europe/Berlin\x1b[2J", "x" * 99]
)
def test_bad_zones_are_refused(name: str) -> None:
    with pytest.raises(UsageError, match="time zone"):
        zone_named(name)


def test_states_are_classified_from_code_then_label() -> None:
    assert state_of("PAID", "PAID") == "paid"
    assert state_of("PAID", "Paid / Unconfirmed") == "unconfirmed"
    assert state_of("paid-unconfirmed", None) == "unconfirmed"
    assert state_of("COMPLETED", "x") == "confirmed"
    assert state_of("MYSTERY", "Cancelled") == "canceled"
    assert state_of("MYSTERY", "Something new") == "other"
    assert state_of(None, 7) == "other"


ORDER = """{"token": "t1", "id": 1, "createdAtMiliseconds": 1792900000000,
 "status": {"code": "OVERPAID", "label": "Overpaid"}, "companyName": "ACME",
 "coinBaseName": "btc", "currency": {"abbreviation": "EUR"}, "amountFiat": "10.00",
 "amount": 0.000128701234567890123456, "expiresAt": 1792903600000,
 "transactions": [{"id": 5, "createdAtMiliseconds": 1792900100000, "hash": "h",
  "amount": {"base": 0.00020000000000000000001, "total": 0.00020000000000000000001,
   "underPaid": 0, "overPaid": 0.000071298765432109876554},
  "amountFiat": {"base": "15.54", "total": "15.54", "underPaid": "0.00", "overPaid": "5.54"}}]}"""


def test_the_report_keeps_every_digit_and_its_digest_is_of_the_canonical_text() -> None:
    order = read_order(jsontext.loads(ORDER))
    period = span_period("2026-10-25T00:00Z", "2026-10-26T00:00Z", UTC)
    report = build_report([order], period, till="*", closed_at=datetime(2026, 10, 26, tzinfo=UTC))
    assert report["received"]["coins"]["BTC"] == {
        "amount": "0.00020000000000000000001",
        "payments": 1,
    }
    assert report["exceptions"] == [
        {
            "kind": "overpaid",
            "order": "t1",
            "state": "overpaid",
            "coin": "BTC",
            "currency": "EUR",
            "excess": {"coin": "0.000071298765432109876554", "fiat": "5.54"},
            "resolution": None,
        }
    ]
    text = canonical(report)
    assert (
        '"digest"' not in text
        and ", " not in text
        and text.index('"adjustments"') < text.index('"version"')
    )
    assert report["digest"] == digest_of(report) and len(report["digest"]) == 64
    changed = dict(report, till="A")
    assert digest_of(changed) != report["digest"]
    # a payment is counted once: an earlier close that counted it leaves no adjustment
    earlier = EarlierClose.from_report(
        {
            "period": {"from": "2026-10-24T00:00:00+00:00", "until": "2026-10-25T00:00:00+00:00"},
            "payments": [],
        }
    )
    assert earlier.end_ms == period.start_ms
    assert Decimal(report["received"]["fiat"]["EUR"]["amount"]) == Decimal("15.54")


def test_a_payment_after_an_earlier_close_within_its_period_is_an_adjustment() -> None:
    """Closed at 18:00 before the day was over: a payment at 20:00 that day was counted by no
    close, so the next day's close lists it (once: a later close sees it listed)."""
    order = read_order(jsontext.loads(ORDER))  # paid 2026-10-25 03:48 UTC
    day1 = span_period("2026-10-25T00:00Z", "2026-10-26T00:00Z", UTC)
    day2 = span_period("2026-10-26T00:00Z", "2026-10-27T00:00Z", UTC)
    day3 = span_period("2026-10-27T00:00Z", "2026-10-28T00:00Z", UTC)
    when = datetime(2026, 10, 26, tzinfo=UTC)
    early = build_report([], day1, till="*", closed_at=when)  # it saw no payment yet
    second = build_report(
        [order], day2, till="*", closed_at=when, earlier=[EarlierClose.from_report(early)]
    )
    assert [(a["order"], a["id"]) for a in second["adjustments"]] == [("t1", 5)]
    assert second["received"] == {"coins": {}, "fiat": {}}  # not a payment of this period
    third = build_report(
        [order],
        day3,
        till="*",
        closed_at=when,
        earlier=[EarlierClose.from_report(r) for r in (early, second)],
    )
    assert third["adjustments"] == []


def test_the_machines_zone_keeps_its_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    zone = zone_named(None)
    period = choose_period(
        day=None, since=None, until=None, zone=zone, today=datetime(2026, 3, 8).date()
    )
    assert period.duration == timedelta(hours=23)
    monkeypatch.setenv("TZ", "")
    assert zone_named("") is not None


def test_a_frozen_report_read_back_prints_as_it_was_built() -> None:
    """A close is stored as canonical JSON (sorted keys): read back, its text is the same,
    the states in their own order (paid before overpaid before expired), not the alphabet's."""
    import json

    from orderdash.core.books.report import report_lines

    paid = jsontext.loads(ORDER.replace('"t1"', '"t2"').replace('"OVERPAID"', '"PAID"'))
    orders = [read_order(jsontext.loads(ORDER)), read_order(paid)]
    period = span_period("2026-10-25T00:00Z", "2026-10-26T00:00Z", UTC)
    report = build_report(orders, period, till="*", closed_at=datetime(2026, 10, 26, tzinfo=UTC))
    read_back = json.loads(json.dumps(report, sort_keys=True))  # as the ledger gives it back
    assert list(read_back["orders"]["by_state"]) != list(report["orders"]["by_state"])
    built = report_lines(report, closed=True)
    assert report_lines(read_back, closed=True) == built
    assert "  paid 1, overpaid 1" in built
