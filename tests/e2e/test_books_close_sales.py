"""Sales against received in a close, against the simulator over loopback: a sale paid in two
parts across a rate renewal (the simulator's clock moved by `POST /_sim/clock`), a shortfall
within the payment tolerance, a written-off shortfall, a refunded overpayment and a customer
still paying. The close shows sales, received and each part, and they add up to the digit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from orderdash.cli import main
from orderdash.core.books.resolve import new_resolution
from orderdash.simulator import Simulator, SimulatorServer
from support.ledger_file import LedgerFile

ACCESS = "access-Books-sales-3"
NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC).timestamp()
SATOSHI = Decimal("0.00000001")


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=5, clock=lambda: NOW, with_demo_orders=False)
    with SimulatorServer(sim, access_token=ACCESS) as server:
        yield server


@pytest.fixture
def book(monkeypatch: pytest.MonkeyPatch, server: SimulatorServer, tmp_path: Path) -> LedgerFile:
    book = LedgerFile(tmp_path / "ledger.sqlite3")
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    monkeypatch.setenv("ORDERDASH_CURRENCY", "EUR")
    monkeypatch.setenv("ORDERDASH_UNDERPAID_TOLERANCE", "1")
    return book


def close(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    code = main(["close", "--day", "2026-11-28", "--tz", "UTC", *args], open_book=ledger.open)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_close_names_every_part_between_sales_and_received(
    server: SimulatorServer, book: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = server.sim
    http = httpx.Client(base_url=server.base_url, timeout=5)

    def order(token: str, fiat: str, lifetime: int = 3600) -> str:
        body = {"token": token, "amountFiat": fiat, "lifetimeS": lifetime}
        assert http.post("/_sim/orders", json=body).status_code == 201
        return token

    def pay(token: str, share: str | None = None) -> None:
        body = {}
        if share is not None:
            due = Decimal(str(sim.order_wire(token, with_qr=False)["amount"]))
            body = {"amount": str((due * Decimal(share)).quantize(SATOSHI))}
        assert http.post(f"/_sim/orders/{token}/transactions", json=body).status_code == 201

    two = order("two-parts", "22.00")
    pay(two, "0.5")
    near = order("near", "30.00", lifetime=120)
    pay(near, "0.996")  # short by 0.4 %: within the 1 % tolerance once closed
    short = order("short", "10.00", lifetime=120)
    pay(short, "0.5")
    over = order("over", "10.00")
    pay(over, "1.2")
    # the rate renews, and the two short orders expire
    assert http.post("/_sim/clock", json={"advance": 300}).status_code == 200
    pay(two)  # the rest, at the new rate
    paying = order("paying", "8.00")
    pay(paying, "0.25")
    for token, kind in ((short, "written-off"), (over, "refunded")):
        ledger = book.open()
        ledger.resolution_made(
            new_resolution(token, kind, "agreed with the customer", till="t", operator="anna")
        )
        ledger.close_connection()

    code, out, err = close(book, capsys, "--dry-run")
    assert code == 0, err
    head = out.splitlines()[:3]
    assert "NOT CLOSED" in head[1] and "closed at" not in out and "Digest" not in out
    code, out, err = close(book, capsys, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["version"] == 4
    eur = report["sales"]["fiat"]["EUR"]
    parts = {name: Decimal(p["amount"]) for name, p in eur["parts"].items()}
    wire = {t: sim.order_wire(t, with_qr=False) for t in (two, near, short, over, paying)}
    assert Decimal(eur["sales"]) == Decimal("80.00") and eur["orders"] == 5
    paid = sum(Decimal(tx["amountFiat"]["base"]) for w in wire.values() for tx in w["transactions"])
    assert Decimal(eur["received"]) == paid and eur["payments"] == 6
    assert Decimal(eur["sales"]) - sum(parts.values()) == Decimal(eur["received"])

    def last(token: str, figure: str) -> Decimal:
        return abs(Decimal(wire[token]["transactions"][-1]["amountFiat"][figure]))

    assert parts["tolerance"] == last(near, "underPaid") > 0
    assert parts["written_off"] == last(short, "underPaid") > 0
    assert parts["refunded"] == -last(over, "overPaid") < 0
    assert parts["still_paying"] == last(paying, "underPaid") > 0
    assert parts["closed_short"] == parts["excess"] == parts["unpaid_closed"] == 0
    two_paid = sum(Decimal(tx["amountFiat"]["base"]) for tx in wire[two]["transactions"])
    assert two_paid != Decimal("22.00")  # the rate did move between the two parts
    rate_moved = [Decimal("22.00") - two_paid] + [
        Decimal(w["amountFiat"])
        - sum(Decimal(tx["amountFiat"]["base"]) for tx in w["transactions"])
        - last(t, "underPaid")
        + last(t, "overPaid")
        for t, w in wire.items()
        if t != two
    ]
    assert parts["rate_moved"] == sum(rate_moved)

    code, out, err = close(book, capsys)  # closed already: the frozen report, read back checked
    assert code == 0, err
    lines = out.splitlines()
    assert "Digest: " in out and "NOT CLOSED" not in out
    headline = next(line for line in lines if line.startswith("Sales "))
    assert headline.startswith(
        f"Sales 80.00 EUR \u00b7 Received {eur['received']} EUR \u00b7 "
        f"Difference {eur['difference']} EUR: "
    )
    for words in ("absorbed by tolerance", "written off", "refunded", "still paying"):
        assert words in headline
    assert any(line.startswith("Exceptions: ") and "orders of the period" in line for line in lines)
    code, out, err = close(book, capsys, "--csv")
    rows = {(r.split(",")[1], r.split(",")[3]): r.split(",")[4] for r in out.splitlines()[1:]}
    assert rows["tolerance", "EUR"] == eur["parts"]["tolerance"]["amount"]
    assert rows["sales", "EUR"] == "80.00" and rows["tolerance", "%"] == "1"
