"""`orderdash attention` against the simulator over loopback: the books' day of every kind of
order (support/books_scene.py), an open order with a shortfall and a token reused for another
order; JSON with every digit, aligned text, the exit codes a script reads; a resolved order
leaves, and comes back with a payment after its resolution."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from orderdash.cli import books, main
from orderdash.core.books.resolve import new_resolution
from orderdash.simulator import Simulator, SimulatorServer
from support.books_scene import ACCESS, NOW
from support.books_scene import scene as _scene
from support.ledger_file import LedgerFile


@pytest.fixture(scope="module")
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=12, clock=lambda: NOW, with_demo_orders=False)
    made = _scene(sim)
    made["open_short"] = sim.create_order(token="bk-open-short", age_s=1800, amount_fiat="50.00")
    sim.add_transaction(made["open_short"], "0.0001", age_s=1200)
    sim.scene = made  # type: ignore[attr-defined]
    with SimulatorServer(sim, access_token=ACCESS) as server:
        yield server


@pytest.fixture
def book(monkeypatch: pytest.MonkeyPatch, server: SimulatorServer, tmp_path: Path) -> LedgerFile:
    book = LedgerFile(tmp_path / "ledger.sqlite3")
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    monkeypatch.setenv("ORDERDASH_CONFIG", "/dev/null")
    monkeypatch.setattr(books, "_now", lambda: datetime.fromtimestamp(NOW, UTC))
    return book


def attention(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    code = main(["attention", *args], open_book=ledger.open)
    out, err = capsys.readouterr()
    return code, out, err


def test_every_kind_in_json_then_a_reused_token_and_the_text(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    sim, scene = server.sim, server.sim.scene  # type: ignore[attr-defined]
    code, out, err = attention(book, capsys, "--json")
    assert code == 1, err
    data = json.loads(out)
    assert data["version"] == 2 and data["count"] == len(data["orders"])
    by_token = {o["token"]: o for o in data["orders"]}
    assert by_token[scene["under"]]["kinds"] == ["underpaid"]
    assert by_token[scene["open_short"]]["kinds"] == ["still_paying"]
    assert by_token[scene["over"]]["kinds"] == ["overpaid"]
    assert by_token[scene["late"]]["kinds"][-1] == "paid_after_expiry"
    assert by_token[scene["exp_paid"]]["kinds"] == ["expired_with_payment"]
    assert by_token[scene["unconf"]]["kinds"] == ["unconfirmed"]  # 17 hours unconfirmed
    for quiet in ("paid", "expired", "twice", "hostile"):
        assert scene[quiet] not in by_token, quiet
    # exact: the shortfall is the simulator's own underPaid, every digit
    wire = sim.order_wire(scene["open_short"], with_qr=False)
    item = by_token[scene["open_short"]]["items"][0]
    assert Decimal(item["amount"]["coin"]) == -wire["transactions"][-1]["amount"]["underPaid"]
    assert item["amount"]["fiat"] == format(
        -Decimal(wire["transactions"][-1]["amountFiat"]["underPaid"]), "f"
    )
    assert item["age_seconds"] == 1200 and item["next_step"]

    # the service reset: a token the ledger saw names another order now
    was = sim.order_wire(scene["paid"], with_qr=False)
    sim.set_fields(scene["paid"], {"id": 9_999, "createdAtMiliseconds": int(NOW * 1000) - 60_000})
    try:
        code, out, err = attention(book, capsys, "--json")
        assert code == 1, err
        reused = next(o for o in json.loads(out)["orders"] if o["token"] == scene["paid"])
        assert reused["kinds"] == ["identity_changed"]
        assert reused["items"][0]["amount"] is None
    finally:
        sim.set_fields(
            scene["paid"],
            {"id": was["id"], "createdAtMiliseconds": was["createdAtMiliseconds"]},
        )

    code, out, err = attention(book, capsys)
    lines = out.splitlines()
    assert code == 1 and lines[0].startswith("ORDER") and "NEXT STEP" in lines[0]
    # put back, the token names the first order again: changed since the last read, again
    assert len(lines) == 1 + len(by_token) + 1 + 1
    # the last line says what is counted, by kind
    n = len(by_token) + 1
    assert lines[-1].startswith(f"{n} of the orders created in the last 7 days need attention: ")
    assert "1 still paying" in lines[-1] and "closed short" in lines[-1], lines[-1]
    assert any(line.startswith(scene["paid"]) and "identity_changed" in line for line in lines)
    assert any(line.startswith(scene["open_short"]) and "shortfall" in line for line in lines)


def test_none_in_the_days_asked_is_exit_0(
    book: LedgerFile, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    later = datetime.fromtimestamp(NOW + 40 * 86400, UTC)
    monkeypatch.setattr(books, "_now", lambda: later)
    code, out, err = attention(book, capsys, "--days", "3")
    assert code == 0 and not out and "no order needs attention" in err
    code, out, _ = attention(book, capsys, "--days", "3", "--json")
    assert code == 0 and json.loads(out)["orders"] == []
    code, _, err = attention(book, capsys, "--days", "40")
    assert code == 2 and "1 to 31" in err


def test_an_order_resolved_leaves_the_list(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every kind, resolved in turn with `orderdash resolve`, leaves the list."""
    scene = server.sim.scene  # type: ignore[attr-defined]
    code, out, err = attention(book, capsys, "--json")
    before = {o["token"] for o in json.loads(out)["orders"]}
    assert code == 1 and scene["over"] in before, err
    kinds = ("under", "open_short", "over", "late", "exp_paid", "unconf")
    for resolved, name in enumerate(kinds, 1):
        token = scene[name]
        resolve = ["resolve", token, "--as", "settled", "--reason", f"{name} seen to"]
        assert main(resolve, open_book=book.open) == 0
        capsys.readouterr()
        code, out, err = attention(book, capsys, "--json")
        after = {o["token"] for o in json.loads(out)["orders"]}
        assert after == before - {scene[k] for k in kinds[:resolved]}, err
    assert code == (1 if after else 0)


def test_a_payment_after_the_resolution_lists_the_order_again(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """Resolved ten minutes ago (the simulator's clock), the customer pays again a minute ago:
    the order is listed again, with the new payment's time."""
    sim = server.sim
    token = sim.create_order(token="bk-again", age_s=1800, amount_fiat="50.00")
    sim.add_transaction(token, "0.0001", age_s=1200)
    resolved = book.open()
    try:
        at = datetime.fromtimestamp(NOW - 600, UTC)
        resolved.resolution_made(
            new_resolution(
                token, "asked-customer", "asked for the rest", till="a", operator="b", now=at
            )
        )
    finally:
        resolved.close_connection()
    code, out, err = attention(book, capsys, "--json")
    assert token not in {o["token"] for o in json.loads(out)["orders"]}, err
    sim.add_transaction(token, "0.00001", age_s=60)
    code, out, err = attention(book, capsys, "--json")
    by_token = {o["token"]: o for o in json.loads(out)["orders"]}
    assert code == 1 and by_token[token]["kinds"] == ["still_paying"], err
    assert by_token[token]["items"][0]["age_seconds"] == 60
