"""The command line's account options and exit codes, the same in every command: the bare
`orderdash` takes the dashboard's options, `--customer-id` names the account wherever the
access token may be given, and missing credentials are exit 4 in `charge` as in `orders`.
In this process (`main`), against the simulator over loopback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import serving
from orderdash.cli import main
from orderdash.cli.options import parse_command_line
from orderdash.core.model import jsontext
from orderdash.simulator import Simulator, SimulatorServer

ACCESS = "access-Kq7-account-options"


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=7, with_demo_orders=False)
    with serving(SimulatorServer(sim, access_token=ACCESS, port=0)) as s:
        yield s


@pytest.fixture
def till_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A till with the access token and a ledger of its own, and no customer id set."""
    for name in os.environ:
        if name.startswith("ORDERDASH_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ORDERDASH_CONFIG", os.devnull)
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_LEDGER", str(tmp_path / "ledger.sqlite3"))
    monkeypatch.setenv("ORDERDASH_CURRENCY", "EUR")


def test_the_bare_command_takes_the_dashboards_options() -> None:
    for line in (["--readonly"], ["--poll-interval", "5", "--readonly", "some-token"]):
        args = parse_command_line(line)
        assert args.command == "tui" and args.readonly is True
    assert parse_command_line(["--poll-interval", "5"]).poll_interval == 5.0
    assert parse_command_line([]).command == "tui"


def test_the_bare_command_keeps_the_whole_lines_help_and_version(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        parse_command_line(["--help"])
    assert done.value.code == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "charge" in said and "simulate" in said and "orderdash --readonly" in said
    with pytest.raises(SystemExit) as done:
        parse_command_line(["--nonsense"])
    assert done.value.code == 2
    assert "unrecognized arguments: --nonsense" in capsys.readouterr().err


def test_customer_id_is_an_option_wherever_the_access_token_is() -> None:
    for line in (
        ["charge", "5"],
        ["charges"],
        ["orders"],
        ["close", "--dry-run"],
        ["tui"],
        ["watch", "--account"],
        ["--readonly"],
    ):
        assert parse_command_line([*line, "--customer-id", "4711"]).customer_id == "4711"


def test_charge_without_credentials_is_exit_4_and_customer_id_makes_the_charge(
    server, till_env, capsys, monkeypatch
) -> None:
    where = ["--base-url", server.base_url]
    assert main(["charge", "5", *where]) == 4
    assert "customer_id" in capsys.readouterr().err
    assert server.sim.requests == []
    assert main(["charge", "5", "--customer-id", "4711", "--json", *where]) == 0
    assert len(server.sim.tokens()) == 1
    # the same exit code as the account's other commands when the access token is missing
    monkeypatch.delenv("ORDERDASH_ACCESS_TOKEN")
    assert main(["charge", "5", "--customer-id", "4711", *where]) == 4
    assert main(["orders", *where]) == 4


def test_orders_spells_each_state_one_way_whatever_the_service_sent(
    server, till_env, capsys
) -> None:
    sim = server.sim
    spellings = {
        "expired": [("EXPIRED", "Expired"), ("EXPIRED", "EXPIRED"), ("expired", "expired")],
        "canceled": [("CANCELED", "Canceled"), ("CANCELLED", "CANCELLED")],
        "paid": [("PAID", "PAID"), ("PAID", "Paid")],
        "in progress": [("IN_PROGRESS", "In-progress"), ("IN_PROGRESS", "IN_PROGRESS")],
    }
    wanted = {}
    for word, pairs in spellings.items():
        for n, (code, label) in enumerate(pairs):
            token = f"{word.replace(' ', '-')}-{n}"
            sim.create_order(token=token, currency="EUR", amount_fiat="5.00")
            sim.set_status(token, code, label)
            wanted[token] = word
    capsys.readouterr()
    assert main(["orders", "--base-url", server.base_url]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    states = {row.split()[0]: row.split("EUR", 1)[1].strip() for row in rows}
    assert states == wanted


def test_charges_shows_each_orders_state_and_where_it_was_read(
    server, till_env, capsys, monkeypatch
) -> None:
    """A paid, a partly paid and an unpaid charge: each row says its order's state beside its
    outcome, looked up the first time; the second time the paid order is as the ledger saw
    it (settled: not asked again) and the others are asked again. Amounts have the
    currency's minor digits, whatever was typed."""
    monkeypatch.setenv("ORDERDASH_CUSTOMER_ID", "4711")
    where = ["--base-url", server.base_url]
    sim = server.sim
    tokens = {}
    for typed in ("5", "12.5", "3"):
        assert main(["charge", typed, "--coin", "btc", "--json", *where]) == 0
        tokens[typed] = jsontext.loads(capsys.readouterr().out)["token"]
    sim.add_transaction(tokens["5"])  # what remains: paid in full
    sim.add_transaction(tokens["12.5"], "0.00001")
    assert main(["charges", "--json", *where]) == 0
    rows = {r["token"]: r for r in jsontext.loads(capsys.readouterr().out)}
    assert {
        t: (rows[tokens[t]]["order_state"], rows[tokens[t]]["order_state_from"]) for t in tokens
    } == {
        "5": ("paid", "service"),
        "12.5": ("partly paid", "service"),
        "3": ("open", "service"),
    }
    assert {t: str(rows[tokens[t]]["amount"]) for t in tokens} == {
        "5": "5.00",
        "12.5": "12.50",
        "3": "3.00",
    }
    sim.set_status(tokens["3"], "EXPIRED", "Expired")
    asked_before = len(sim.requests)
    assert main(["charges", *where]) == 0
    lines = capsys.readouterr().out.splitlines()
    by_amount = {typed: next(line for line in lines if tokens[typed] in line) for typed in tokens}
    assert "5.00 EUR  made" in by_amount["5"] and " paid (ledger, " in by_amount["5"]
    assert "12.50 EUR  made" in by_amount["12.5"]
    assert "partly paid (service, now)" in by_amount["12.5"]
    assert "expired (service, now)" in by_amount["3"]
    asked = [r.get("token") for r in sim.requests[asked_before:] if r["endpoint"] == "order"]
    assert sorted(asked) == sorted([tokens["12.5"], tokens["3"]])
