"""`orderdash export --table settlement` against the simulator over loopback, on a SQLite book
and on a PostgreSQL one: over the books' day (partial payments, an overpayment, a payment made
after its order's midnight and one before it, the hour that happens twice) with a shortfall the
tolerance absorbs, an order accepted at the counter and a refund, the settlement's payment rows
sum to the `received` of `close --json` and its adjustment rows to its `difference`, exactly,
per currency; before the close its header says "no close", after it the close's digest."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import SecretStr

from orderdash.cli import main
from orderdash.core.books.resolve import ACCEPTED_REASON
from orderdash.core.books.settlement import SETTLEMENT_COLUMNS
from orderdash.core.ledger import Book, ResolutionRecord
from orderdash.core.ledger.open import open_book
from orderdash.core.settings.model import Settings
from orderdash.simulator import Simulator, SimulatorServer
from support.books_scene import ACCESS, NOW, berlin
from support.books_scene import scene as _scene
from support.ledger_file import LedgerFile

DAY = ("--since", "2026-10-25T00:00", "--until", "2026-10-26T00:00", "--tz", "Europe/Berlin")
Opener = Callable[..., Book]


@pytest.fixture(scope="module")
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=11, clock=lambda: NOW, with_demo_orders=False)
    made = _scene(sim)
    # a shortfall of half a percent, within the 1 % tolerance the test sets
    nearly = "bk-nearly"
    sim.create_order(token=nearly, age_s=berlin("2026-10-25T18:00"), lifetime_s=3600,
                     amount_fiat="50.00")  # fmt: skip
    due = Decimal(str(sim.order_wire(nearly, with_qr=False)["amount"]))
    sim.add_transaction(nearly, (due * Decimal("0.995")).quantize(Decimal("0.00000001")),
                        age_s=berlin("2026-10-25T18:05"))  # fmt: skip
    made["nearly"] = nearly
    sim.scene = made  # type: ignore[attr-defined]
    with SimulatorServer(sim, access_token=ACCESS, history_page_cap=7) as server:
        yield server


def _resolve(book: Book, token: str, kind: str, reason: str) -> None:
    at = datetime(2026, 10, 25, 20, tzinfo=UTC)
    book.resolution_made(ResolutionRecord(f"r-{token}", token, kind, reason, "front", "anna", at))


def _run(opener: Opener | None, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(list(args), open_book=opener)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _sums(rows: list[dict[str, str]], kind: str) -> dict[str, Decimal]:
    sums: dict[str, Decimal] = {}
    for row in rows:
        if row["row"] == kind:
            sums[row["currency"]] = sums.get(row["currency"], Decimal(0)) + Decimal(row["fiat"])
    return sums


def _check_against_the_close(
    opener: Opener | None, capsys: pytest.CaptureFixture[str], tmp_path: Path, sim: Simulator
) -> None:
    scene = sim.scene  # type: ignore[attr-defined]
    dry = json.loads(_run(opener, capsys, "close", *DAY, "--dry-run", "--json"))
    lines = _run(opener, capsys, "export", *DAY, "--table", "settlement", "--format", "jsonl")
    head, *rows = (json.loads(line) for line in lines.splitlines())
    assert head["row"] == "settlement" and head["close"] == "no close" and head["agrees"] is None
    assert [tuple(row) for row in rows] == [SETTLEMENT_COLUMNS] * len(rows)
    received = {u: Decimal(s["amount"]) for u, s in dry["received"]["fiat"].items()}
    difference = {u: Decimal(r["difference"]) for u, r in dry["sales"]["fiat"].items()}
    assert received and _sums(rows, "payment") == received  # exactly: Decimal
    assert {u: d for u, d in _sums(rows, "adjustment").items()} == {
        u: d for u, d in difference.items() if d
    }
    assert {u: Decimal(a) for u, a in head["received"].items()} == received
    assert {u: Decimal(a) for u, a in head["difference"].items()} == difference
    # one payment row per payment of the close, with its hash; the named parts are there
    assert [(r["order"], r["payment"]) for r in rows if r["row"] == "payment"] == [
        (p["order"], p["id"]) for p in dry["payments"]
    ]
    assert all(r["hash"] for r in rows if r["row"] == "payment")
    parts = {(r["order"], r["part"], r["note"]) for r in rows if r["row"] == "adjustment"}
    assert (scene["nearly"], "tolerance", "absorbed by tolerance") in parts
    assert (scene["under"], "written_off", ACCEPTED_REASON) in parts
    assert (scene["over"], "refunded", "refunded") in parts
    assert any(p == "paid_outside" and o == scene["night"] for o, p, _ in parts)
    assert any(p == "earlier_orders" and o == scene["eve"] for o, p, _ in parts)

    # closed: the CSV's header beside it names the close, and its cells sum the same
    closed = json.loads(_run(opener, capsys, "close", *DAY, "--json"))
    assert closed["received"] == dry["received"] and closed["sales"] == dry["sales"]
    target = tmp_path / "settlement.csv"
    _run(opener, capsys, "export", *DAY, "--table", "settlement", "--output", str(target))
    side = json.loads((tmp_path / "settlement.csv.digest").read_text())
    assert side["close"] == closed["digest"] and side["agrees"] is True
    table = list(csv.DictReader(io.StringIO(target.read_text(), newline="")))
    assert _sums(table, "payment") == received
    assert sum(_sums(table, "adjustment").values()) == sum(difference.values())


def test_the_settlement_sums_to_the_close_on_a_sqlite_book(
    server: SimulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    monkeypatch.setenv("ORDERDASH_UNDERPAID_TOLERANCE", "1")
    ledger = LedgerFile(tmp_path / "ledger.sqlite3")
    book = ledger.open()
    scene = server.sim.scene  # type: ignore[attr-defined]
    try:
        _resolve(book, scene["under"], "written-off", ACCEPTED_REASON)
        _resolve(book, scene["over"], "refunded", "sent back")
    finally:
        book.close_connection()
    _check_against_the_close(ledger.open, capsys, tmp_path, server.sim)


def test_the_settlement_sums_to_the_close_on_a_postgresql_book(
    server: SimulatorServer,
    pg_server,  # noqa: ANN001
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    url = pg_server.schema_url()  # a new, empty book
    monkeypatch.setenv("ORDERDASH_CONFIG", "/dev/null")
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    monkeypatch.setenv("ORDERDASH_LEDGER_URL", url)
    monkeypatch.setenv("ORDERDASH_UNDERPAID_TOLERANCE", "1")
    book = open_book(Settings(ledger_url=SecretStr(url)))
    scene = server.sim.scene  # type: ignore[attr-defined]
    try:
        _resolve(book, scene["under"], "written-off", ACCEPTED_REASON)
        _resolve(book, scene["over"], "refunded", "sent back")
    finally:
        book.close_connection()
    _check_against_the_close(None, capsys, tmp_path, server.sim)


def test_koinly_through_the_command_and_a_csv_to_stdout_says_its_header_on_stderr(
    server: SimulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    ledger = LedgerFile(tmp_path / "ledger.sqlite3")
    code = main(["export", *DAY, "--table", "settlement"], open_book=ledger.open)
    out, err = capsys.readouterr()
    assert code == 0, err
    said = [line for line in err.splitlines() if line.startswith("orderdash: settlement: ")]
    assert len(said) == 1 and json.loads(said[0].split(": ", 2)[2])["close"] == "no close"
    payments = [r for r in csv.DictReader(io.StringIO(out, newline="")) if r["row"] == "payment"]
    target = tmp_path / "koinly.csv"
    args = ["export", *DAY, "--table", "settlement", "--profile", "koinly", "--output"]
    assert main([*args, str(target)], open_book=ledger.open) == 0
    income = list(csv.DictReader(io.StringIO(target.read_text(), newline="")))
    assert [(r["Received Amount"], r["Net Worth Amount"], r["TxHash"]) for r in income] == [
        (p["amount"], p["fiat"], p["hash"]) for p in payments
    ]
    assert (tmp_path / "koinly.csv.digest").exists()
    # one till's shift: the orders that till charged (none of the day's here)
    code = main(["export", *DAY, "--table", "settlement", "--till", "A", "--format", "jsonl"],
                open_book=ledger.open)  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert code == 0 and len(lines) == 1
    assert json.loads(lines[0]) | {"period": None} == {
        "row": "settlement", "version": 1, "period": None, "till": "A", "close": "no close",
        "agrees": None, "received": {}, "difference": {},
    }  # fmt: skip
    # a file that exists is never written over: refused before anything is read
    assert main([*args, str(target)], open_book=ledger.open) == 2
    assert "exists already" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--table", "orders", "--till", "A"), "--table settlement"),
        (("--table", "payments", "--profile", "koinly"), "--table settlement"),
        (("--table", "settlement", "--profile", "koinly", "--format", "jsonl"), "is CSV"),
    ],
)
def test_the_settlements_options_are_refused_elsewhere_in_one_line(
    extra: tuple[str, ...], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", *DAY, *extra]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.splitlines()) == 1 and "Traceback" not in err
