"""One book for a shop's tills, on a real PostgreSQL server: two tills charge at the same time
against the simulator, each into the shared book under its own name; one till's close keeps
the orders it charged, the shop's close all of them, and each close, made again, is the same
report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from pydantic import SecretStr

from orderdash.cli import main
from orderdash.core.ledger.open import open_book
from orderdash.core.settings.model import Settings
from orderdash.simulator import Simulator, SimulatorServer

ACCESS = "access-Pg-two-tills-3"
AMOUNTS = ("5.00", "7.50", "12.25")


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=3, with_demo_orders=False)
    with SimulatorServer(sim, access_token=ACCESS, create_prefix="/listener") as server:
        yield server


def _charge(server: SimulatorServer, url: str, till: str, amount: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    env |= {
        "ORDERDASH_CONFIG": os.devnull,
        "ORDERDASH_ACCESS_TOKEN": ACCESS,
        "ORDERDASH_CUSTOMER_ID": "4711",
        "ORDERDASH_LEDGER_URL": url,
        "ORDERDASH_TILL": till,
    }
    where = ("--base-url", server.base_url, "--create-url", server.root_url + "/listener")
    return subprocess.Popen(
        [sys.executable, "-m", "orderdash", "charge", amount, "--coin", "btc", "--json", *where],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_two_tills_charge_into_one_book_and_close_their_shifts_and_the_shop(
    server: SimulatorServer,
    pg_server,  # noqa: ANN001
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = pg_server.schema_url()  # a new, empty book
    started = datetime.now(UTC)
    tills = [(till, _charge(server, url, till, amount)) for till in "AB" for amount in AMOUNTS]
    tokens: dict[str, list[str]] = {"A": [], "B": []}
    for till, process in tills:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        tokens[till].append(json.loads(out)["token"])
    sim = server.sim
    paid = tokens["A"][0]
    sim.add_transaction(paid, None)  # the first of till A's orders is paid in full

    book = open_book(Settings(ledger_url=SecretStr(url)))
    try:
        charges = book.charges(started - timedelta(minutes=1), datetime.now(UTC), None)
    finally:
        book.close_connection()
    assert sorted((c.till, c.token) for c in charges) == sorted(
        (till, token) for till, made in tokens.items() for token in made
    )
    assert {c.outcome for c in charges} == {"made"}

    monkeypatch.setenv("ORDERDASH_CONFIG", os.devnull)
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    monkeypatch.setenv("ORDERDASH_LEDGER_URL", url)
    since = (started - timedelta(hours=1)).isoformat()
    until = (started + timedelta(hours=1)).isoformat()

    def close(*args: str) -> dict:
        code = main(["close", "--since", since, "--until", until, "--json", *args])
        out, err = capsys.readouterr()
        assert code == 0, err
        return json.loads(out)

    shift = close("--till", "A")
    assert shift["till"] == "A" and shift["orders"]["total"] == len(AMOUNTS)
    assert [p["order"] for p in shift["payments"]] == [paid]
    due = sim.order_wire(paid, with_qr=False)["amount"]
    assert Decimal(shift["received"]["coins"]["BTC"]["amount"]) == due
    other = close("--till", "B")
    assert other["orders"]["total"] == len(AMOUNTS) and other["payments"] == []
    shop = close("--all-tills")
    assert shop["till"] == "*" and shop["orders"]["total"] == 2 * len(AMOUNTS)
    assert shop["received"] == shift["received"]

    sim.add_transaction(tokens["B"][0], None)  # paid after the close: the closes stay as made
    assert close("--till", "A") == shift and close("--all-tills") == shop
    book = open_book(Settings(ledger_url=SecretStr(url)))
    try:
        assert [c.digest for c in book.closes("*")] == [shop["digest"]]
        assert [c.digest for c in book.closes("A")] == [shift["digest"]]
    finally:
        book.close_connection()
