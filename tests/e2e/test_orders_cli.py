"""`orderdash orders [--open] [--json]`: the account's orders from the history, through the
real command against the simulator over loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from conftest import run_cli, serving
from orderdash.core.domain.status import is_open
from orderdash.core.model import jsontext
from orderdash.simulator import Simulator, SimulatorServer

ACCESS = "access-Pp2-orders-cli"


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with serving(
        SimulatorServer(Simulator(seed=7), access_token=ACCESS, history_page_cap=3)
    ) as server:
        yield server


def orders(server: SimulatorServer, *args: str, access: str = ACCESS):  # noqa: ANN201
    env = {"ORDERDASH_ACCESS_TOKEN": access} if access else {}
    return run_cli("orders", *args, "--base-url", server.base_url, env=env)


def test_open_json_lists_exactly_the_open_orders_with_the_digits_received(server) -> None:
    sim = server.sim
    sim.create_order(token="token 1", currency="USD", amount_fiat="5.00")
    sim.set_fields("token 1", {"amountFiat": "5.000000000000000000000001"})
    sim.set_status("demo-nocoin-eur", "MYSTERY", "Something new")
    result = orders(server, "--open", "--json")
    assert result.returncode == 0, result.stderr
    items = jsontext.loads(result.stdout)
    expected = {o["token"] for o in sim.list_orders() if is_open(o["status"], None)}
    assert {item["token"] for item in items} == expected
    assert len(items) == len(expected) < len(sim.tokens())
    assert '"amount": "5.000000000000000000000001"' in result.stdout
    every = jsontext.loads(orders(server, "--json").stdout)
    assert sorted(item["token"] for item in every) == sorted(sim.tokens())
    # 3 a page whatever was asked: every page was read
    history = [r for r in sim.requests if r["endpoint"] == "history"]
    assert len(history) == 2 * -(-len(sim.tokens()) // 3)


def test_the_table_shows_token_created_amount_and_state_as_literal_text(server) -> None:
    sim = server.sim
    sim.create_order(token="token 1", currency="USD", amount_fiat="1234.50")
    sim.set_status("token 1", "IN_PROGRESS", "In\x1b[2J-progress")
    result = orders(server)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["TOKEN", "CREATED", "AMOUNT", "STATE"]
    assert len(lines) == 1 + len(sim.tokens())
    row = next(line for line in lines if line.startswith("token 1 "))
    assert "1,234.50 USD" in row and "UTC" in row
    assert "\x1b" not in result.stdout and "In\ufffd[2J-progress" in row


def test_a_refused_log_in_is_exit_4_with_one_line(server) -> None:
    result = orders(server, access="not-the-access-token")
    assert result.returncode == 4
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("orderdash: the service refused the access token (HTTP 401")
    assert [r["endpoint"] for r in server.sim.requests] == ["login"]


def test_no_credential_is_exit_4_and_no_service_is_exit_5(server) -> None:
    missing = orders(server, access="")
    assert missing.returncode == 4 and len(missing.stderr.splitlines()) == 1
    assert "access token" in missing.stderr
    server.stop()
    down = orders(server)
    assert down.returncode == 5 and len(down.stderr.splitlines()) == 1


def test_a_reader_that_goes_away_ends_it_quietly(server) -> None:
    """`orderdash orders | head -1`: the pipe closes under it; no traceback, the SIGPIPE status."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before the first line is written
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    env |= {"ORDERDASH_CONFIG": os.devnull, "ORDERDASH_ACCESS_TOKEN": ACCESS}
    try:
        result = subprocess.run(
            [sys.executable, "-m", "orderdash", "orders", "--base-url", server.base_url],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            env=env,
        )
    finally:
        os.close(write_end)
    assert result.returncode == 141
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr
