"""`orderdash export`: a period's orders or payments as CSV or JSON lines, against the
simulator over loopback: the rows match the orders, times carry their offset, amounts the
service's digits, and a company name cannot become a spreadsheet formula."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from orderdash.cli import main
from orderdash.core.books.export import ORDER_COLUMNS, PAYMENT_COLUMNS, safe_cell
from orderdash.core.books.period import day_period
from orderdash.simulator import Simulator, SimulatorServer
from support.books_scene import ACCESS, BERLIN, NOW
from support.books_scene import scene as _scene
from support.ledger_file import LedgerFile

DAY = ("--since", "2026-10-25T00:00", "--until", "2026-10-26T00:00", "--tz", "Europe/Berlin")


@pytest.fixture(scope="module")
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=11, clock=lambda: NOW, with_demo_orders=False)
    sim.scene = _scene(sim)  # type: ignore[attr-defined]
    sim.set_fields(sim.scene["paid"], {"amountFiat": "20.000000000000000000000001"})  # type: ignore[attr-defined]
    with SimulatorServer(sim, access_token=ACCESS, history_page_cap=5) as server:
        yield server


@pytest.fixture(autouse=True)
def book(monkeypatch: pytest.MonkeyPatch, server: SimulatorServer, tmp_path: Path) -> LedgerFile:
    book = LedgerFile(tmp_path / "ledger.sqlite3")
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    return book


def export(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    code = main(["export", *DAY, *args], open_book=ledger.open)
    out, err = capsys.readouterr()
    return code, out, err


def test_order_rows_match_the_orders_of_the_period(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = server.sim
    code, out, err = export(book, capsys, "--table", "orders", "--format", "jsonl")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    period = day_period("2026-10-25", BERLIN)
    every = [sim.order_wire(t, with_qr=False) for t in sim.tokens()]
    expected = sorted(
        (o for o in every if period.contains_ms(o["createdAtMiliseconds"])),
        key=lambda o: (o["createdAtMiliseconds"], o["id"]),
    )
    assert [r["token"] for r in rows] == [o["token"] for o in expected]
    assert all(tuple(r) == ORDER_COLUMNS and "version" not in r for r in rows)
    paid = next(r for r in rows if r["token"] == sim.scene["paid"])  # type: ignore[attr-defined]
    assert paid["amount_fiat"] == "20.000000000000000000000001"  # the service's digits
    assert paid["created_at"] == "2026-10-25T10:00:00+01:00"
    for row, order in zip(rows, expected, strict=True):
        assert row["status_code"] == order["status"]["code"]
        assert row["payments"] == len(order["transactions"])
        paid_in = sum((tx["amount"]["base"] for tx in order["transactions"]), Decimal(0))
        assert Decimal(row["received"]) == paid_in
    twice = next(r for r in rows if r["token"] == sim.scene["twice"])  # type: ignore[attr-defined]
    assert twice["created_at"].endswith("+01:00")  # the second 02:30, after the clocks went back


def test_payment_rows_are_the_payments_made_in_the_period(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = server.sim
    code, out, err = export(book, capsys, "--table", "payments", "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert tuple(rows[0]) == PAYMENT_COLUMNS
    period = day_period("2026-10-25", BERLIN)
    expected = {
        (t, str(tx["id"]), format(tx["amount"]["base"], "f"), tx["amountFiat"]["base"])
        for t in sim.tokens()
        for tx in sim.order_wire(t, with_qr=False)["transactions"]
        if period.contains_ms(tx["createdAtMiliseconds"])
    }
    assert {(r["order"], r["id"], r["amount"], r["fiat"]) for r in rows} == expected
    assert all(r["at"].startswith("2026-10-25T") for r in rows)


def test_a_company_name_cannot_become_a_formula(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = server.sim.scene["hostile"]  # type: ignore[attr-defined]
    code, out, err = export(book, capsys, "--table", "orders", "--format", "csv")
    assert code == 0, err
    assert "\x1b" not in out
    row = next(r for r in csv.DictReader(io.StringIO(out)) if r["token"] == hostile)
    assert row["company"] == '\'=HYPERLINK("http://evil.example","x")\ufffd[2J'
    for text in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"):
        assert safe_cell("company", text) == "'" + text
    assert safe_cell("amount", "-0.5") == "-0.5" and safe_cell("company", "ACME") == "ACME"
    code, out, _ = export(book, capsys, "--table", "orders", "--format", "jsonl")
    line = next(line for line in out.splitlines() if hostile in line)
    assert json.loads(line)["company"].startswith("=HYPERLINK") and "\x1b" not in line


def test_export_needs_its_period(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["export", "--table", "orders"])
    assert exc.value.code == 2
    assert "--since" in capsys.readouterr().err


def test_a_long_export_says_how_far_it_is_on_stderr_and_its_rows_stay_the_same(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import re

    from conftest import run_cli
    from orderdash.simulator import Fault

    args = ("--table", "payments", "--format", "jsonl")
    code, quick, err = export(book, capsys, *args)  # in-process, over before any progress line
    assert code == 0 and not err, err
    # the reads take a while (the service answers each getOrder late, one at a time), and a
    # line every 0.1 s: stderr is a pipe here, not a terminal
    server.sim.add_fault(Fault(endpoint="order", delay=0.05))
    try:
        result = run_cli(
            "export",
            *DAY,
            *args,
            env={
                "ORDERDASH_ACCESS_TOKEN": ACCESS,
                "ORDERDASH_BASE_URL": server.base_url,
                "ORDERDASH_LEDGER": str(tmp_path / "fresh.sqlite3"),
                "ORDERDASH_CONCURRENCY": "1",
                "ORDERDASH_PROGRESS_INTERVAL": "0.1",
            },
        )
    finally:
        server.sim.clear_faults()
    assert result.returncode == 0, result.stderr
    assert result.stdout == quick  # the rows, and nothing else
    shown = [
        (int(done), int(total), int(left))
        for done, total, left in re.findall(
            r"^orderdash: export: (\d+) of (\d+) orders read, (\d+) left, about \d+ (?:s|min) "
            r"at the budget's pace$",
            result.stderr,
            re.MULTILINE,
        )
    ]
    assert shown, result.stderr
    total = len(server.sim.tokens())  # a fresh ledger: every order of the day and the one before
    assert all(t == total and d + left == t and d < t for d, t, left in shown), shown
    assert (
        result.stderr.rstrip()
        .splitlines()[-1]
        .startswith(f"orderdash: export: {total} of {total} orders read in ")
    )
