"""The week at a glance (`orderdash stats --week`) is the sum of its seven closes: each day's row
is what `stats --day` (and that day's close) counts for it, an order paid days after it was
made included, and every total of the week is the sum of the seven days' own figures."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from orderdash.cli import main
from orderdash.core.jsontypes import JSONObject
from orderdash.core.ledger import ChargeRecord
from orderdash.core.ledger.sqlite import SqliteEngine
from orderdash.core.ledger.store import SqlBook
from support.glance_book import HOUR, order_text

BERLIN = ZoneInfo("Europe/Berlin")
#: Sunday evening: the week is Monday 2026-11-16 to this Sunday, the week before it 9 to 15.
NOW = datetime(2026, 11, 22, 20, tzinfo=BERLIN)
WEEK = [f"2026-11-{day}" for day in range(16, 23)]


def at(day: int, hour: float) -> datetime:
    """Berlin's `hour` on November `day`, 2026."""
    return (datetime(2026, 11, day, tzinfo=BERLIN) + hour * HOUR).astimezone(UTC)


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Path]:
    """Orders over a fortnight, some paid days after they were made (a close counts a payment
    only to the orders made that day or the day before)."""
    path = tmp_path / "ledger.sqlite3"
    book = SqlBook(SqliteEngine(path))
    paid, short, expired = ("PAID", "Paid"), ("UNDERPAID", "Underpaid"), ("EXPIRED", "Expired")
    # token, made (day, hour), amount, coin, status, payments ((day, hour), fiat), short, till
    rows = [
        ("mon", (16, 10), "10.00", "btc", paid, [((19, 11), "10.00")], "0", "front"),
        ("wed", (18, 15), "5.00", "eth", paid, [((19, 9), "5.00")], "0", "back"),
        ("tue", (17, 9), "20.00", "btc", paid, [((17, 9.5), "8.00"), ((18, 12), "12.00")], "0", ""),
        ("fri", (20, 13), "30.00", "btc", short, [((20, 13.2), "25.00")], "5.00", "front"),
        ("sat", (21, 23.5), "7.10", "eth", paid, [((22, 0.2), "7.10")], "0", "back"),
        ("sun", (22, 10), "9.00", "btc", expired, [], "0", "front"),
        ("eve", (15, 22), "4.00", "btc", paid, [((16, 8), "4.00")], "0", "front"),
        ("old", (14, 12), "6.00", "eth", paid, [((16, 12), "6.00")], "0", "back"),
        ("w1", (12, 10), "3.33", "eth", paid, [((12, 10.5), "3.33")], "0", ""),
        ("w2", (9, 10), "2.00", "btc", paid, [((11, 10), "2.00")], "0", "front"),
    ]
    for token, made, amount, coin, status, paying, shortfall, till in rows:
        payments = [(at(*when), fiat) for when, fiat in paying]
        text = order_text(
            token, at(*made), amount, coin=coin, status=status, paid=payments, short=shortfall
        )
        book.order_seen(token, "front", at(22, 12), text)  # read once all is paid
        if till:
            book.charge_started(
                ChargeRecord(token, Decimal(amount), "EUR", till, at(*made) - timedelta(minutes=1))
            )
    book.close_connection()
    return path


def _stats(
    path: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> JSONObject:
    """`orderdash stats ARGV --tz Europe/Berlin --json` on the ledger at `path`, as of NOW."""
    from orderdash.cli import stats as command

    for name in list(os.environ):
        if name.startswith("ORDERDASH_"):
            monkeypatch.delenv(name)
    monkeypatch.setattr(command, "_now", lambda: NOW.astimezone(UTC))
    argv = ["stats", *argv, "--tz", "Europe/Berlin", "--json"]
    code = main(argv, open_book=lambda settings: SqlBook(SqliteEngine(path)))
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    shown: JSONObject = json.loads(out)
    return shown


def _sum(amounts: list[dict[str, str]]) -> dict[str, str]:
    """Amounts per currency (decimal text) added up, as decimal text."""
    total: dict[str, Decimal] = {}
    for each in amounts:
        for unit, amount in each.items():
            total[unit] = total.get(unit, Decimal(0)) + Decimal(amount)
    return {unit: str(amount) for unit, amount in sorted(total.items())}


def test_an_order_paid_days_after_it_was_made_is_on_no_days_row_its_close_leaves_out(
    ledger: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    week = _stats(ledger, ["--week"], monkeypatch, capsys)
    thursday = _stats(ledger, ["--day", "2026-11-19"], monkeypatch, capsys)
    # Monday's order paid on Thursday: Thursday's close reads Wednesday's and Thursday's
    # orders only, so it counts the 5.00 of Wednesday's order and not the 10.00
    assert thursday["takings"] == {"EUR": "5.00"}
    row = week["buckets"][3]
    assert row["label"] == "Thu 2026-11-19"
    assert (row["takings"], row["payments"]) == (thursday["takings"], thursday["payments"])


def test_each_day_of_the_week_is_that_days_glance(
    ledger: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    week = _stats(ledger, ["--week"], monkeypatch, capsys)
    days = [_stats(ledger, ["--day", day], monkeypatch, capsys) for day in WEEK]
    assert [row["label"][-10:] for row in week["buckets"]] == WEEK
    for row, day in zip(week["buckets"], days, strict=True):
        assert row["takings"] == day["takings"], row["label"]
        assert row["payments"] == day["payments"], row["label"]
        assert row["week_ago"] == day["week_ago"]["takings"], row["label"]
    # Monday counts the order made the evening before, not the one made two days before;
    # the week before, Wednesday counts nothing of Monday's order paid then
    assert week["buckets"][0]["takings"] == {"EUR": "4.00"}
    assert week["buckets"][2]["week_ago"] == {}


def test_the_weeks_totals_are_the_sums_of_its_days(
    ledger: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    week = _stats(ledger, ["--week"], monkeypatch, capsys)
    days = [_stats(ledger, ["--day", day], monkeypatch, capsys) for day in WEEK]
    assert week["takings"] == _sum([d["takings"] for d in days]) == {"EUR": "61.10"}
    assert week["takings"] == _sum([row["takings"] for row in week["buckets"]])
    assert week["week_ago"]["takings"] == _sum([d["week_ago"]["takings"] for d in days])
    assert week["week_ago"]["takings"] == {"EUR": "3.33"}
    payments: dict[str, int] = {}
    for day in days:
        for unit, count in day["payments"].items():
            payments[unit] = payments.get(unit, 0) + count
    assert week["payments"] == payments
    for figure in ("made", "paid", "short"):
        assert week["orders"][figure] == sum(d["orders"][figure] for d in days), figure
    assert week["orders"] == {"made": 6, "paid": 4, "short": 1}
    # the paid orders of the seven days: (10.00 + 5.00 + 20.00 + 7.10) / 4, half to even
    assert week["average_sale"] == {"EUR": "10.52"}
    for part, fields in (("coins", ("payments",)), ("tills", ("payments", "orders"))):
        names = {name for d in days for name in d[part]}
        assert set(week[part]) == names, part
        for name in names:
            mine = [d[part][name] for d in days if name in d[part]]
            for field in fields:
                assert week[part][name][field] == sum(t[field] for t in mine), (part, name)
            assert week[part][name]["takings"] == _sum([t["takings"] for t in mine])
            if part == "coins":
                amount = sum((Decimal(t["amount"]) for t in mine), Decimal(0))
                assert Decimal(week[part][name]["amount"]) == amount, name
