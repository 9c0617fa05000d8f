"""The close of day against the simulator over loopback: a day across midnight and a change of
the clocks (Europe/Berlin 2026-10-25 is 25 hours), every exception kind, closed in two time
zones, totals checked against sums the test makes itself from the simulator's own orders; a
close stays frozen after a late payment, which the next day's close lists as an adjustment."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from orderdash.cli import main
from orderdash.core.books.period import day_period
from orderdash.core.books.report import canonical, digest_of
from orderdash.simulator import Simulator, SimulatorServer
from support.books_scene import ACCESS, BERLIN, NEW_YORK, NOW, own_sums
from support.books_scene import scene as _scene
from support.ledger_file import LedgerFile


@pytest.fixture(scope="module")
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=11, clock=lambda: NOW, with_demo_orders=False)
    sim.scene = _scene(sim)  # type: ignore[attr-defined]
    with SimulatorServer(sim, access_token=ACCESS, history_page_cap=7) as server:
        yield server


@pytest.fixture
def book(monkeypatch: pytest.MonkeyPatch, server: SimulatorServer, tmp_path: Path) -> LedgerFile:
    book = LedgerFile(tmp_path / "ledger.sqlite3")
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    return book


def close(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    code = main(["close", *args], open_book=ledger.open)
    out, err = capsys.readouterr()
    return code, out, err


def received(report: dict) -> dict[str, dict[str, Decimal]]:
    return {
        kind: {unit: Decimal(row["amount"]) for unit, row in report["received"][kind].items()}
        for kind in ("coins", "fiat")
    }


def test_a_day_of_25_hours_closed_in_two_zones_matches_the_simulators_own_sums(
    server: SimulatorServer,
    book: LedgerFile,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, scene = server.sim, server.sim.scene  # type: ignore[attr-defined]
    code, out, err = close(book, capsys, "--day", "2026-10-25", "--tz", "Europe/Berlin", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["version"] == 4 and report["resolutions"] == []
    assert report["previous"] is None  # the first close of this book
    assert all(e["resolution"] is None for e in report["exceptions"])
    assert report["period"] == {
        "from": "2026-10-25T00:00:00+02:00",
        "until": "2026-10-26T00:00:00+01:00",
        "zone": "Europe/Berlin",
    }
    assert received(report) == own_sums(sim, BERLIN, "2026-10-25")
    # created that day: all but "eve" (the evening before); "night" (23:40) is in
    assert report["orders"]["total"] == len(scene) - 1
    states = report["orders"]["by_state"]
    # expired: "expired", "exp_paid" (pinned) and "hostile"
    assert states["expired"] == 3 and states["underpaid"] == 1 and states["overpaid"] == 1
    assert states["unconfirmed"] == 1 and states["paid"] == 4
    kinds = {(e["kind"], e["order"]) for e in report["exceptions"]}
    assert kinds == {
        ("underpaid", scene["under"]),
        ("overpaid", scene["over"]),
        ("paid_after_expiry", scene["late"]),
        ("expired_with_payment", scene["exp_paid"]),
        ("unconfirmed", scene["unconf"]),
    }
    under = next(e for e in report["exceptions"] if e["kind"] == "underpaid")
    wire = sim.order_wire(scene["under"], with_qr=False)
    assert Decimal(under["shortfall"]["coin"]) == -wire["transactions"][-1]["amount"]["underPaid"]
    # "eve"'s payment after midnight counts (its order is from the day before); "night"'s not
    paid_orders = {p["order"] for p in report["payments"]}
    assert scene["eve"] in paid_orders and scene["night"] not in paid_orders
    assert scene["twice"] in paid_orders
    assert report["digest"] == digest_of(report)
    assert canonical(report).isascii() and " " not in canonical(report)[:20]

    # the same day in New York overlaps the day closed: refused in this book, closed in another
    ny = ("--day", "2026-10-25", "--tz", "America/New_York", "--json")
    code, out, err = close(book, capsys, *ny)
    assert code == 2 and not out and "overlaps the close of" in err, err
    assert len(err.strip().splitlines()) == 1 and len(book.saved()) == 1
    other_book = LedgerFile(book.path.with_name("other.sqlite3"))
    code, out, err = close(other_book, capsys, *ny)
    assert code == 0, err
    other = json.loads(out)
    assert other["period"]["from"] == "2026-10-25T00:00:00-04:00"
    assert received(other) == own_sums(sim, NEW_YORK, "2026-10-25")
    assert received(other) != received(report)


def test_a_close_is_frozen_and_a_late_payment_is_the_next_days_adjustment(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    sim, scene = server.sim, server.sim.scene  # type: ignore[attr-defined]
    day = ("--day", "2026-10-25", "--tz", "Europe/Berlin")
    code, out, err = close(book, capsys, *day, "--json")
    assert code == 0, err
    first = json.loads(out)
    assert len(book.saved()) == 1
    # the expired order is paid the next morning, through the simulator's control API
    reply = httpx.post(f"{server.root_url}/_sim/orders/{scene['expired']}/transactions", json={})
    assert reply.status_code == 201
    try:
        code, out, err = close(book, capsys, *day, "--json")
        assert code == 0 and "closed already" in err
        assert json.loads(out) == first  # the same report, the same digest
        code, out, _ = close(book, capsys, *day, "--json", "--dry-run")
        shown = json.loads(out)
        # a report built now, not the frozen one, and with no digest to note down
        assert shown["digest"] is None and shown["closed_at"] != first["closed_at"]
        assert len(book.saved()) == 1
        assert received(shown) == received(first)  # the payment is not in that day
        code, out, err = close(
            book, capsys, "--day", "2026-10-26", "--tz", "Europe/Berlin", "--json"
        )
        assert code == 0, err
        nextday = json.loads(out)
        adjustment = [a for a in nextday["adjustments"] if a["order"] == scene["expired"]]
        assert len(adjustment) == 1
        assert adjustment[0]["closed_period"] == {
            "from": first["period"]["from"],
            "until": first["period"]["until"],
        }
        assert adjustment[0]["id"] in {p["id"] for p in nextday["payments"]}
        # "night" (made on the 25th, paid after its midnight) came after that close too
        night = [a for a in nextday["adjustments"] if a["order"] == scene["night"]]
        assert night and night[0]["closed_period"]["from"] == first["period"]["from"]
    finally:
        sim.set_status(scene["expired"], "EXPIRED", "Expired")


def test_a_repeated_dry_run_takes_settled_orders_from_the_ledger(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = server.sim
    day = ("--day", "2026-10-25", "--tz", "Europe/Berlin", "--dry-run", "--json")
    sim.clear_requests()
    code, out, err = close(book, capsys, *day)
    assert code == 0, err
    reads = [r for r in sim.requests if r["endpoint"] == "order"]
    assert reads and book.seen_writes == len(reads)
    sim.clear_requests()
    code, again, err = close(book, capsys, *day)
    assert code == 0, err
    reads = [r for r in sim.requests if r["endpoint"] == "order"]
    settled = {"PAID", "EXPIRED", "UNDERPAID", "OVERPAID", "CANCELED"}
    open_now = [
        t for t in sim.tokens() if sim.order_wire(t, with_qr=False)["status"]["code"] not in settled
    ]
    # only the orders still moving (paid but unconfirmed, open) are read again
    assert sorted(r["token"] for r in reads) == sorted(open_now)
    first, second = json.loads(out), json.loads(again)
    first.pop("closed_at"), second.pop("closed_at"), first.pop("digest"), second.pop("digest")
    assert first == second


def test_the_text_and_csv_reports_are_literal_and_spreadsheet_safe(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    day = ("--day", "2026-10-25", "--tz", "Europe/Berlin", "--dry-run")
    code, out, err = close(book, capsys, *day)
    assert code == 0, err
    assert "Close of day 2026-10-25T00:00:00+02:00 to 2026-10-26T00:00:00+01:00" in out
    assert "Exceptions: " in out and "paid after expiry" in out and "\x1b" not in out
    assert "BTC" in out and "EUR" in out and "dry run" in err
    lines = out.splitlines()  # the coins' sums, then the fiat's, each under its heading
    coin, fiat = lines.index("Received in coin"), lines.index("Received in fiat")
    assert coin < fiat and lines[coin + 1].split()[0] == "BTC"
    assert lines[fiat + 1].split()[0] == "EUR" and "Received" not in lines
    code, out, err = close(book, capsys, *day, "--csv")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "section,name,order,unit,amount,count"
    assert any(line.startswith("received,coins,,BTC,") for line in lines)


def test_bad_periods_are_one_line_usage_errors(
    book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    for args, words in (
        (("--day", "2026-02-30"), "is not a date"),
        (("--day", "2026-10-25", "--tz", "Mars/Olympus"), "unknown time zone"),
        (("--since", "2026-10-25T10:00", "--until", "2026-10-25T09:00"), "after --since"),
        (("--since", "2026-01-01", "--until", "2026-03-01"), "at most 31 days"),
        (("--since", "2026-01-01"), "go together"),
        (("--day", "2026-10-25", "--since", "2026-10-25"), "not both"),
        (("--day", "0001-01-01", "--tz", "Europe/Berlin"), "edge of the calendar"),
        (("--since", "0001-01-01", "--until", "0001-01-02", "--tz", "Asia/Tokyo"), "edge"),
    ):
        code, out, err = close(book, capsys, *args)
        assert code == 2 and not out, args
        assert words in err and len(err.strip().splitlines()) == 1, err


def test_a_day_at_the_calendars_end_is_one_line_in_a_real_process() -> None:
    from conftest import run_cli

    result = run_cli("close", "--dry-run", "--day", "9999-12-31", "--tz", "UTC")
    assert result.returncode == 2 and not result.stdout
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "--day '9999-12-31' is too near the edge of the calendar" in result.stderr


class CountingGate:
    def __init__(self) -> None:
        self.passed = 0

    async def take_turn(self) -> None:
        self.passed += 1


async def test_every_read_goes_through_its_budget_and_a_failed_read_closes_nothing(
    server: SimulatorServer, tmp_path: Path
) -> None:
    from conftest import make_settings
    from orderdash.core.books.close import CloseIncomplete, close_period
    from orderdash.core.service.client import OrderClient
    from orderdash.simulator import Fault

    sim = server.sim
    ledger = LedgerFile(tmp_path / "ledger.sqlite3")
    book = ledger.open()
    period = day_period("2026-10-25", BERLIN)
    settings = make_settings(server.base_url, bearer=None, access_token=ACCESS)
    orders, private = CountingGate(), CountingGate()
    sim.clear_requests()
    sim.add_fault(Fault(endpoint="order", token=sim.scene["late"], status=500, times=1))  # type: ignore[attr-defined]
    try:
        async with OrderClient.from_settings(settings) as client:
            with pytest.raises(CloseIncomplete, match="1 of the period's orders"):
                await close_period(
                    client,
                    book,
                    period,
                    till="*",
                    recorder="A",
                    order_gate=orders,
                    private_gate=private,
                )
            assert ledger.saved() == []
            requests = sim.requests
            assert orders.passed == len([r for r in requests if r["endpoint"] == "order"]) > 0
            assert private.passed == len([r for r in requests if r["endpoint"] == "history"]) > 1
            # the other orders were written to the ledger as read: the retry reads one
            sim.clear_requests()
            result = await close_period(
                client,
                book,
                period,
                till="*",
                recorder="A",
                order_gate=orders,
                private_gate=private,
            )
            assert result.saved and not result.frozen
            reads = [r["token"] for r in sim.requests if r["endpoint"] == "order"]
            assert sim.scene["late"] in reads  # type: ignore[attr-defined]
            assert result.from_ledger > 0 and result.read == len(reads)
    finally:
        sim.clear_faults()
        book.close_connection()


def test_one_tills_shift_keeps_the_orders_that_till_charged(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    from orderdash.core.ledger import ChargeRecord

    scene = server.sim.scene  # type: ignore[attr-defined]
    at = datetime(2026, 10, 25, 9, 0, tzinfo=UTC)
    writer = book.open()  # the tills' charges, written as `n` writes them
    for name, till in (("paid", "A"), ("over", "A"), ("under", "B")):
        writer.charge_started(ChargeRecord(scene[name], Decimal("1"), "EUR", till, at, "made"))
    writer.close_connection()
    day = ("--day", "2026-10-25", "--tz", "Europe/Berlin", "--json")
    code, out, err = close(book, capsys, *day, "--till", "A")
    assert code == 0, err
    shift = json.loads(out)
    assert shift["till"] == "A" and shift["orders"]["total"] == 2
    assert {p["order"] for p in shift["payments"]} == {scene["paid"], scene["over"]}
    assert [e["kind"] for e in shift["exceptions"]] == ["overpaid"]
    code, out, err = close(book, capsys, *day, "--all-tills")
    assert code == 0, err
    shop = json.loads(out)
    assert shop["till"] == "*" and shop["orders"]["total"] > 2
    assert {c.till for c in book.saved()} == {"A", "*"}
    with pytest.raises(SystemExit) as refused:
        close(book, capsys, *day, "--till", "A", "--all-tills")
    assert refused.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_a_dry_run_missing_an_order_shows_the_rest_and_exits_5(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    from orderdash.simulator import Fault

    sim = server.sim
    sim.add_fault(Fault(endpoint="order", token=sim.scene["over"], status=404, times=1))  # type: ignore[attr-defined]
    try:
        code, out, err = close(
            book, capsys, "--day", "2026-10-25", "--tz", "Europe/Berlin", "--dry-run"
        )
    finally:
        sim.clear_faults()
    assert code == 5 and "Close of day" in out
    assert f"warning: order {sim.scene['over']}" in err  # type: ignore[attr-defined]
    code, _, err = close(book, capsys, "--day", "2026-10-24", "--tz", "Europe/Berlin")
    assert code == 0 and len(book.saved()) == 1, err


class HoldingGate(CountingGate):
    def __init__(self) -> None:
        super().__init__()
        self.holds: list[float | None] = []

    def refused_for_limit(self, retry_after: float | None) -> None:
        self.holds.append(retry_after)


async def test_a_refusal_for_the_rate_holds_the_budget_and_the_read_is_tried_again(
    server: SimulatorServer, tmp_path: Path
) -> None:
    from conftest import make_settings
    from orderdash.core.books.close import close_period
    from orderdash.core.service.client import OrderClient
    from orderdash.simulator import Fault

    sim = server.sim
    token = sim.scene["paid"]  # type: ignore[attr-defined]
    sim.add_fault(
        Fault(endpoint="order", token=token, status=429, headers={"Retry-After": "7"}, times=1)
    )
    gate = HoldingGate()
    settings = make_settings(server.base_url, bearer=None, access_token=ACCESS)
    book = LedgerFile(tmp_path / "ledger.sqlite3").open()
    try:
        async with OrderClient.from_settings(settings) as client:
            result = await close_period(
                client,
                book,
                day_period("2026-10-25", BERLIN),
                till="*",
                recorder="A",
                order_gate=gate,
                private_gate=CountingGate(),
                dry_run=True,
            )
    finally:
        sim.clear_faults()
        book.close_connection()
    assert gate.holds == [7.0] and result.missing == 0
    assert token in {p["order"] for p in result.report["payments"]}


def test_a_damaged_close_in_the_ledger_is_one_line_never_a_traceback(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3
    from contextlib import closing

    day = ("--day", "2026-10-25", "--tz", "Europe/Berlin")
    code, _, err = close(book, capsys, *day, "--json")
    assert code == 0, err
    for damage in ("{not json", '{"version": 1}'):
        with closing(sqlite3.connect(book.path)) as connection, connection:
            connection.execute("UPDATE closes SET report_json = ?", (damage,))
        code, out, err = close(book, capsys, *day)
        assert code == 5 and not out, err
        assert "cannot be read" in err and len(err.strip().splitlines()) == 1, err


def test_the_csv_of_a_closed_day_lists_the_states_in_their_own_order(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    import csv
    import io

    from orderdash.core.domain.status import STATES

    day = ("--day", "2026-10-25", "--tz", "Europe/Berlin", "--csv")
    shown = []
    for args in (("--dry-run",), (), ()):  # a dry run, the close, the close read back
        code, out, err = close(book, capsys, *day, *args)
        assert code == 0, err
        rows = list(csv.reader(io.StringIO(out)))
        shown.append([row[1] for row in rows if row[0] == "orders"])
    assert shown[0] == shown[1] == shown[2] == list(STATES)


def test_a_resolution_appears_in_the_next_close_with_its_reason(
    server: SimulatorServer,
    book: LedgerFile,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from orderdash.core.ledger import ResolutionRecord

    scene = server.sim.scene  # type: ignore[attr-defined]
    code = main(
        ["resolve", scene["over"], "--as", "refunded", "--reason", "sent back [b]all[/b]"]
        + ["--refund-at", "payment", "--operator", "anna"],
        open_book=book.open,
    )
    assert code == 0, capsys.readouterr().err
    # another till's word on the underpaid order, made within the day
    other = book.open()
    within = datetime(2026, 10, 25, 15, 0, tzinfo=UTC)
    other.resolution_made(
        ResolutionRecord("r-under", scene["under"], "written-off", "fee", "back", "bob", within)
    )
    other.close_connection()
    capsys.readouterr()
    code, out, err = close(book, capsys, "--day", "2026-10-25", "--tz", "Europe/Berlin", "--json")
    assert code == 0, err
    report = json.loads(out)
    by_kind = {e["kind"]: e for e in report["exceptions"]}
    over = by_kind["overpaid"]["resolution"]
    assert (over["kind"], over["reason"], over["operator"]) == (
        "refunded",
        "sent back [b]all[/b]",
        "anna",
    )
    excess = Decimal(by_kind["overpaid"]["excess"]["coin"])
    assert Decimal(over["refund"]["amount"]) == excess.quantize(Decimal("1E-8"), "ROUND_FLOOR")
    assert over["refund"]["basis"] == "payment" and over["refund"]["coin"] == "BTC"
    assert by_kind["underpaid"]["resolution"]["kind"] == "written-off"
    assert by_kind["unconfirmed"]["resolution"] is None
    # made in the period: the other till's, not the one made today
    assert [(r["order"], r["till"], r["at"]) for r in report["resolutions"]] == [
        (scene["under"], "back", "2026-10-25T16:00:00+01:00")
    ]
    code, out, err = close(book, capsys, "--day", "2026-10-25", "--tz", "Europe/Berlin")
    assert code == 0, err
    assert "resolved: refunded" in out and "sent back [b]all[/b]" in out
    assert "Resolutions: 1" in out


def test_a_close_made_before_resolutions_still_reads_back_against_its_digest(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3
    from contextlib import closing

    day = ("--day", "2026-10-25", "--tz", "Europe/Berlin")
    code, out, err = close(book, capsys, *day, "--json")
    assert code == 0, err
    old = json.loads(out)
    # the report as version 1 wrote it: no resolutions anywhere, its own digest
    old["version"] = 1
    del old["resolutions"], old["previous"]
    for entry in old["exceptions"]:
        del entry["resolution"]
    old["digest"] = digest_of(old)
    text = json.dumps(old, sort_keys=True, separators=(",", ":"))
    with closing(sqlite3.connect(book.path)) as connection, connection:
        connection.execute("UPDATE closes SET report_json = ?, digest = ?", (text, old["digest"]))
    code, out, err = close(book, capsys, *day, "--json")
    assert code == 0 and "closed already" in err, err
    assert json.loads(out) == old
    code, out, err = close(book, capsys, *day)
    assert code == 0 and "report version 1" in out and "Resolutions" not in out
    # altered after the fact: its digest says so
    with closing(sqlite3.connect(book.path)) as connection, connection:
        connection.execute(
            "UPDATE closes SET report_json = ?", (text.replace('"version":1', '"version":2'),)
        )
    code, out, err = close(book, capsys, *day)
    assert code == 5 and "cannot be read" in err, err


def test_close_verify_follows_the_chain_and_names_a_close_edited_with_its_digest(
    server: SimulatorServer,
    book: LedgerFile,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sqlite3
    from contextlib import closing

    from orderdash.core.books.chain import EXIT_CHAIN_BROKEN

    reports = []
    for day in ("2026-10-24", "2026-10-25", "2026-10-26"):
        code, out, err = close(book, capsys, "--day", day, "--tz", "Europe/Berlin", "--json")
        assert code == 0, err
        reports.append(json.loads(out))
    assert [r["previous"] and r["previous"]["digest"] for r in reports] == [
        None,
        reports[0]["digest"],
        reports[1]["digest"],
    ]
    # read-only may check: nothing is written
    monkeypatch.setenv("ORDERDASH_READONLY", "1")
    code, out, err = close(book, capsys, "--verify", "--tz", "Europe/Berlin")
    assert code == 0 and not err, err
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["ok", "ok", "ok"]
    assert all(f"digest {r['digest']}" in out for r in reports)
    monkeypatch.delenv("ORDERDASH_READONLY")
    # the middle day's BTC changed in the ledger's file, its digest computed again
    middle = json.loads(json.dumps(reports[1]))
    btc = middle["received"]["coins"]["BTC"]
    btc["amount"] = str(Decimal(btc["amount"]) - Decimal("0.001"))
    middle["digest"] = digest_of(middle)
    with closing(sqlite3.connect(book.path)) as connection, connection:
        connection.execute(
            "UPDATE closes SET report_json = ?, digest = ? WHERE digest = ?",
            (json.dumps(middle, sort_keys=True), middle["digest"], reports[1]["digest"]),
        )
    code, out, err = close(book, capsys, "--day", "2026-10-25", "--tz", "Europe/Berlin", "--json")
    assert code == 0 and json.loads(out) == middle  # whole by itself: only the chain shows it
    code, out, err = close(book, capsys, "--verify", "--tz", "Europe/Berlin")
    assert code == EXIT_CHAIN_BROKEN == 7
    assert err.startswith(
        "orderdash: the close from 2026-10-25T00:00:00+02:00 to 2026-10-26T00:00:00+01:00 "
        "does not match: changed after the close from 2026-10-26T00:00:00+01:00 was made: "
        f"that close covers the digest {reports[1]['digest'][:16]}"
    ), err
    assert len(err.strip().splitlines()) == 1
    assert [line.split()[0] for line in out.splitlines()[1:] if line[2] != " "] == [
        "ok",
        "NO",
        "ok",
    ]
    code, out, _ = close(book, capsys, "--verify", "--json", "--tz", "Europe/Berlin")
    shown = json.loads(out)
    assert code == 7 and not shown["ok"]
    assert shown["first_mismatch"] == {
        "from": "2026-10-25T00:00:00+02:00",
        "until": "2026-10-26T00:00:00+01:00",
    }
    code, _, err = close(book, capsys, "--verify", "--day", "2026-10-25")
    assert code == 2 and "not with --day" in err


def test_a_long_close_says_how_far_it_is_on_stderr(
    server: SimulatorServer,
    book: LedgerFile,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from orderdash.simulator import Fault

    monkeypatch.setenv("ORDERDASH_PROGRESS_INTERVAL", "0.05")
    monkeypatch.setenv("ORDERDASH_CONCURRENCY", "1")
    server.sim.add_fault(Fault(endpoint="order", delay=0.03))
    try:
        code, out, err = close(
            book, capsys, "--dry-run", "--day", "2026-10-25", "--tz", "Europe/Berlin"
        )
    finally:
        server.sim.clear_faults()
    assert code == 0, err
    assert out.startswith("Close of day 2026-10-25T00:00:00+02:00")  # stdout: the report only
    lines = [line for line in err.splitlines() if line.startswith("orderdash: close: ")]
    assert any(" left, about " in line and " at the budget's pace" in line for line in lines), err
    assert lines[-1].startswith("orderdash: close: ") and " orders read in " in lines[-1]
