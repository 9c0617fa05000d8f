"""The day at a glance (`orderdash stats`): from the ledger alone, its takings hour by hour are
the sums of the ledger's payments, on a day the clocks go back too (25 hours), beside the same
hours a week earlier; the orders made, paid and short, per coin and per till; the hour of "now"
in progress. Every figure is checked against a sum the test makes from the ledger's rows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from orderdash.cli import main
from orderdash.core.ledger.sqlite import SqliteEngine
from orderdash.core.ledger.store import SqlBook
from support.glance_book import HOUR, a_day, ms, order_text, seen

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture
def book(tmp_path: Path) -> Iterator[SqlBook]:
    opened = SqlBook(SqliteEngine(tmp_path / "ledger.sqlite3"))
    yield opened
    opened.close_connection()


def _stats(
    path: Path,
    argv: list[str],
    now: datetime,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str, str]:
    """`orderdash stats ARGV` on the book at `path`, as of `now`; its exit code and output."""
    import os

    from orderdash.cli import stats as command

    for name in list(os.environ):
        if name.startswith("ORDERDASH_"):
            monkeypatch.delenv(name)
    monkeypatch.setattr(command, "_now", lambda: now)
    # the ledger only: no client is made, no request sent
    import httpx

    def no_client(*args: object, **kwargs: object) -> None:
        raise AssertionError("stats made a client of the service")

    monkeypatch.setattr(httpx.AsyncClient, "__init__", no_client)
    monkeypatch.setattr(httpx.Client, "__init__", no_client)
    code = main(["stats", *argv], open_book=lambda settings: SqlBook(SqliteEngine(path)))
    out, err = capsys.readouterr()
    return code, out, err


def _ledger_payments(book: SqlBook) -> list[tuple[int, str, str, Decimal]]:
    """Every payment the ledger's rows hold: (epoch ms, order token, coin, fiat), read from
    the rows' JSON by the test's own parsing."""
    found = []
    for row in book.orders_seen():
        data = json.loads(row.order_json, parse_float=Decimal)
        for tx in data["transactions"]:
            fiat = Decimal(str(tx["amountFiat"]["base"]))
            found.append((tx["createdAtMiliseconds"], data["token"], data["coinBaseName"], fiat))
    return found


def _hour_sums(
    payments: list[tuple[int, str, str, Decimal]], start: datetime, hours: int
) -> list[Decimal]:
    """The payments summed per hour of elapsed time from `start` (the test's own buckets)."""
    sums = [Decimal(0)] * hours
    low = ms(start)
    for at, _, _, fiat in payments:
        index = (at - low) // 3_600_000
        if 0 <= index < hours:
            sums[index] += fiat
    return sums


def test_stats_json_is_the_ledgers_sums_hour_by_hour(
    book: SqlBook,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    midnight = datetime(2026, 11, 21, tzinfo=BERLIN)
    a_day(book, midnight)
    now = midnight + 15.5 * HOUR
    code, out, err = _stats(
        tmp_path / "ledger.sqlite3",
        ["--day", "2026-11-21", "--tz", "Europe/Berlin", "--json"],
        now,
        monkeypatch,
        capsys,
    )
    assert (code, err) == (0, "")
    shown = json.loads(out)
    payments = _ledger_payments(book)
    today = _hour_sums(payments, midnight, 24)
    before = _hour_sums(payments, midnight - timedelta(days=7), 24)
    assert len(shown["buckets"]) == 24
    for hour, bucket in enumerate(shown["buckets"]):
        assert bucket["label"] == f"{hour:02d}:00" and bucket["offset"] == "+01:00"
        assert Decimal(bucket["takings"].get("EUR", "0")) == today[hour], hour
        assert Decimal(bucket["week_ago"].get("EUR", "0")) == before[hour], hour
    # a bucket's payments per currency: 09:06 and 09:36, then 10:12
    assert [b["payments"] for b in shown["buckets"][9:12]] == [{"EUR": 2}, {"EUR": 1}, {"EUR": 1}]
    in_day = [p for p in payments if ms(midnight) <= p[0] < ms(midnight + 24 * HOUR)]
    assert shown["takings"] == {"EUR": str(sum((p[3] for p in in_day), Decimal(0)))}
    assert shown["takings"]["EUR"] == "64.60"
    assert shown["payments"] == {"EUR": len(in_day)} == {"EUR": 5}
    assert shown["week_ago"]["takings"] == {"EUR": "7.33"}
    assert shown["orders"] == {"made": 5, "paid": 3, "short": 1}
    # the paid orders' amounts over their count, to the cent: (12.50 + 20.00 + 7.10) / 3
    assert shown["average_sale"] == {"EUR": "13.20"}
    for coin in ("BTC", "ETH"):
        mine = [p for p in in_day if p[2].upper() == coin]
        assert shown["coins"][coin]["payments"] == len(mine)
        assert Decimal(shown["coins"][coin]["takings"]["EUR"]) == sum(p[3] for p in mine)
        assert Decimal(shown["coins"][coin]["amount"]) == Decimal("0.001") * len(mine)
    tills = {"a1": "front", "a3": "front", "a5": "front", "a2": "back", "a4": "back"}
    for till in ("front", "back"):
        mine = [p for p in in_day if tills[p[1]] == till]
        assert Decimal(shown["tills"][till]["takings"]["EUR"]) == sum(p[3] for p in mine)
        assert shown["tills"][till]["orders"] == sum(1 for t in tills.values() if t == till)
    states = [b["state"] for b in shown["buckets"]]
    assert states == ["done"] * 15 + ["in_progress"] + ["to_come"] * 8
    # every amount is decimal text, never a JSON number
    assert all(isinstance(v, str) for v in shown["takings"].values())


def test_a_day_the_clocks_go_back_has_25_hours_each_with_its_offset(
    book: SqlBook,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    midnight = datetime(2026, 10, 25, tzinfo=BERLIN)
    m = midnight.astimezone(UTC)
    # a payment in each of the two 02:00 hours, and one at 02:30 a week earlier
    for n, hours in enumerate((2.5, 3.5, 5.2)):
        at = m + hours * HOUR
        seen(book, f"d{n}", order_text(f"d{n}", at, f"1{n}.00", paid=[(at, f"1{n}.00")]), at + HOUR)
    earlier = datetime(2026, 10, 18, 2, 30, tzinfo=BERLIN).astimezone(UTC)
    seen(book, "w", order_text("w", earlier, "4.00", paid=[(earlier, "4.00")]), earlier + HOUR)
    code, out, _ = _stats(
        tmp_path / "ledger.sqlite3",
        ["--day", "2026-10-25", "--tz", "Europe/Berlin", "--json"],
        datetime(2026, 10, 26, 12, tzinfo=UTC),
        monkeypatch,
        capsys,
    )
    assert code == 0
    shown = json.loads(out)
    buckets = shown["buckets"]
    assert len(buckets) == 25
    assert [(b["label"], b["offset"]) for b in buckets[1:5]] == [
        ("01:00", "+02:00"),
        ("02:00", "+02:00"),
        ("02:00", "+01:00"),
        ("03:00", "+01:00"),
    ]
    assert buckets[-1]["label"] == "23:00" and buckets[-1]["until"] == "2026-10-26T00:00:00+01:00"
    sums = _hour_sums(_ledger_payments(book), midnight, 25)
    assert [Decimal(b["takings"].get("EUR", "0")) for b in buckets] == sums
    assert [b["takings"] for b in buckets[2:4]] == [{"EUR": "10.00"}, {"EUR": "11.00"}]
    # a week earlier by the wall clock: the first 02:00 beside that day's 02:00, the second
    # (on this day only) beside nothing
    assert buckets[2]["week_ago"] == {"EUR": "4.00"}
    assert buckets[3]["week_ago"] is None
    assert {b["state"] for b in buckets} == {"done"}


def test_the_hour_of_now_is_in_progress_in_the_text_within_80_columns(
    book: SqlBook,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    midnight = datetime(2026, 11, 21, tzinfo=BERLIN)
    a_day(book, midnight)
    code, out, _ = _stats(
        tmp_path / "ledger.sqlite3",
        ["--tz", "Europe/Berlin"],
        midnight + 14.5 * HOUR,  # today, by the injected clock
        monkeypatch,
        capsys,
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "The day at a glance: 2026-11-21, Europe/Berlin, in EUR"
    assert max(len(line) for line in lines) <= 80
    progress = [line for line in lines if line.endswith("in progress")]
    assert len(progress) == 1 and progress[0].startswith("14:00 +01:00")
    assert progress[0].split()[2:4] == ["0.00", "0"]
    assert sum(1 for line in lines if line.endswith("to come")) == 9
    # the hour before: its payment of 13:54, and beside it the 3.33 of a week earlier
    assert [line.split() for line in lines if line.startswith("13:00")] == [
        ["13:00", "+01:00", "7.10", "1", "3.33"]
    ]
    assert "Orders: 5 made, 3 paid, 1 short; average sale 13.20 EUR" in lines
    assert "Takings 64.60 EUR in 5 payments; a week earlier 7.33 EUR" in lines


def test_a_week_is_seven_days_beside_the_week_before(
    book: SqlBook,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    midnight = datetime(2026, 11, 21, tzinfo=BERLIN)
    a_day(book, midnight)
    code, out, _ = _stats(
        tmp_path / "ledger.sqlite3",
        ["--week", "--tz", "Europe/Berlin", "--json"],
        midnight + 20 * HOUR,
        monkeypatch,
        capsys,
    )
    assert code == 0
    shown = json.loads(out)
    assert [b["label"][-10:] for b in shown["buckets"]] == [
        f"2026-11-{day}" for day in range(15, 22)
    ]
    assert shown["buckets"][-1]["takings"] == {"EUR": "64.60"}
    assert shown["buckets"][-1]["week_ago"] == {"EUR": "7.33"}
    assert shown["buckets"][-1]["state"] == "in_progress"
    assert shown["takings"] == {"EUR": "64.60"}


@pytest.mark.parametrize(
    "argv",
    [
        ["--day", "2026-13-01"],
        ["--day", "yesterday"],
        ["--tz", "Nowhere/City"],
        ["--day", "0001-01-05"],  # no day a week before it
        ["--day", "9999-12-31"],  # no next midnight
    ],
)
def test_a_bad_day_or_zone_is_one_line_and_exit_2(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _stats(
        tmp_path / "ledger.sqlite3", argv, datetime(2026, 11, 21, tzinfo=UTC), monkeypatch, capsys
    )
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("orderdash: ")


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_the_ledger_gives_the_reads_made_since_a_time_within_a_bound(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    from pydantic import SecretStr

    from orderdash.core.ledger.open import open_book
    from orderdash.core.settings.model import Settings

    if engine == "sqlite":
        settings = Settings(ledger=str(tmp_path / "ledger.sqlite3"))
    else:
        server = request.getfixturevalue("pg_server")
        settings = Settings(ledger_url=SecretStr(server.schema_url()))
    book = open_book(settings)
    try:
        t0 = datetime(2026, 11, 21, 9, tzinfo=UTC)
        for n in range(5):
            book.order_seen(f"o{n}", "front", t0 + n * HOUR, "{}")
        book.order_seen("o0", "front", t0 + 9 * HOUR, "{}")  # read again later: its last read
        since = t0 + 2 * HOUR
        assert [s.token for s in book.orders_seen_since(since, 10)] == ["o0", "o2", "o3", "o4"]
        assert [s.token for s in book.orders_seen_since(since, 2)] == ["o0", "o2"]
        assert book.orders_seen_since(t0 + 10 * HOUR, 10) == []
    finally:
        book.close_connection()
