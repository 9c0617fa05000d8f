"""`orderdash resolve` against the simulator over loopback: the order is read (an unknown token
refused), the refund worked out, the resolution written to the ledger once, one line printed;
nothing sent to the service but reads; refused in read-only before anything is read."""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import BEARER
from orderdash.cli import main
from orderdash.core.ledger.open import open_book
from orderdash.core.settings.model import Settings
from orderdash.simulator import SimulatorServer


@pytest.fixture
def env(sim_server: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("ORDERDASH_"):
            monkeypatch.delenv(name)
    ledger = tmp_path / "ledger.sqlite3"
    for name, value in {
        "CONFIG": os.devnull,
        "BASE_URL": sim_server.base_url,
        "BEARER_TOKEN": BEARER,
        "LEDGER": str(ledger),
        "TILL": "front",
        "OPERATOR": "anna",
    }.items():
        monkeypatch.setenv("ORDERDASH_" + name, value)
    return ledger


@pytest.fixture
def overpaid(sim_server: SimulatorServer) -> str:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount="0.001")
    sim_server.sim.add_transaction(token, "0.0015")
    return token


def resolutions(ledger: Path, token: str) -> list:
    book = open_book(Settings(ledger=str(ledger)))
    try:
        return book.resolutions_of([token])
    finally:
        book.close_connection()


def test_an_overpaid_order_is_resolved_with_its_refund(
    env: Path, overpaid: str, sim_server: SimulatorServer, capsys: pytest.CaptureFixture[str]
) -> None:
    sim_server.sim.clear_requests()
    code = main(
        [
            "resolve",
            overpaid,
            "--as",
            "refunded",
            "--reason",
            "sent the excess back\x1b[2J",
            "--refund-at",
            "payment",
            "--fee",
            "0.00001",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    (line,) = out.splitlines()
    assert line.startswith(f"order {overpaid} resolved: refunded (0.00049000 BTC")
    assert "by anna at till front" in line and "sent the excess back" in line
    assert "\x1b" not in out
    (record,) = resolutions(env, overpaid)
    assert (record.kind, record.operator, record.till) == ("refunded", "anna", "front")
    assert record.refund.amount == Decimal("0.00049") and record.refund.fee == Decimal("0.00001")
    assert record.refund.basis == "payment" and record.refund.coin == "BTC"
    # the service was only read: it has no endpoint for a resolution
    assert {r["method"] for r in sim_server.sim.requests} == {"GET"}


def test_todays_rate_is_the_orders_rate_as_read_and_json_is_exact(
    env: Path, overpaid: str, sim_server: SimulatorServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["resolve", overpaid, "--as", "refunded", "--reason", "sent"]
        + ["--refund-at", "today", "--json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    shown = json.loads(out)
    rate = Decimal(shown["refund"]["rate"])
    owed_fiat = Decimal(
        sim_server.sim.order_wire(overpaid, with_qr=False)["transactions"][-1]["amountFiat"][
            "overPaid"
        ]
    )
    expected = (owed_fiat / rate).quantize(Decimal("0.00000001"), rounding="ROUND_FLOOR")
    assert Decimal(shown["refund"]["amount"]) == expected > 0
    assert shown["refund"]["basis"] == "today" and shown["kind"] == "refunded"
    # the order's exchangeRate as getOrder gave it, as the dashboard's dialog takes it
    assert rate == sim_server.sim.order_wire(overpaid, with_qr=False)["exchangeRate"]
    assert not any("/rates" in r["path"] for r in sim_server.sim.requests)


def test_unknown_tokens_bad_figures_and_read_only_are_refused(
    env: Path,
    overpaid: str,
    sim_server: SimulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["resolve", "nosuchorder", "--as", "settled", "--reason", "not ours"]) == 3
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    for argv, said in [
        (["--reason", "   "], "needs a reason"),
        (["--reason", "sent", "--fee", "1,5"], "not digits"),
        (["--reason", "sent", "--refund-at", "-3"], "not digits"),
        (["--reason", "sent", "--fee", "1"], "nothing to refund"),
        (["--reason", "r" * 301], "at most 300"),
        # a reason that says nothing: control or invisible characters only, or two letters
        (["--reason", "\x1b" * 300], "at least 3 letters or digits"),
        (["--reason", "\u200b\u200b"], "at least 3 letters or digits"),
        (["--reason", "ab"], "at least 3 letters or digits"),
    ]:
        assert main(["resolve", overpaid, "--as", "settled", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert said in err and len(err.strip().splitlines()) == 1, (argv, err)
    fresh = sim_server.sim.create_order(coin="btc")
    assert main(["resolve", fresh, "--as", "refunded", "--reason", "sent", "--refund-at", "1"]) == 2
    assert "no excess and no payment to give back" in capsys.readouterr().err
    assert resolutions(env, overpaid) == [] and resolutions(env, fresh) == []
    sim_server.sim.clear_requests()
    monkeypatch.setenv("ORDERDASH_READONLY", "1")
    assert main(["resolve", overpaid, "--as", "settled", "--reason", "x"]) == 2
    assert "read-only" in capsys.readouterr().err
    assert sim_server.sim.requests == [] and resolutions(env, overpaid) == []


def test_settled_without_a_refund_and_the_latest_is_the_state(
    env: Path, overpaid: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["resolve", overpaid, "--as", "asked-customer", "--reason", "mailed"]) == 0
    assert main(["resolve", overpaid, "--as", "settled", "--reason", "kept as a tip"]) == 0
    capsys.readouterr()
    records = resolutions(env, overpaid)
    assert [r.kind for r in records] == ["asked-customer", "settled"]
    assert records[-1].refund is None and len({r.id for r in records}) == 2
