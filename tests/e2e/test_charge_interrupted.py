"""A charge stopped by Ctrl-C, or whose outcome is unknown, still names its order and the one
command that reads it from the same service (the base URL from a config file too); the `n`
dialog names the order from its first second and keeps the app open while it is being made.
Against the simulator over loopback (the CLI as a child process; the dialog with Pilot)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import run_cli, screen_text, serving, wait_until
from orderdash.core.model import jsontext
from orderdash.simulator import Fault, Simulator, SimulatorServer

ACCESS = "access-Kk5-interrupted"
ENV = {"ORDERDASH_ACCESS_TOKEN": ACCESS, "ORDERDASH_CUSTOMER_ID": "4711"}


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with serving(
        SimulatorServer(Simulator(seed=7), access_token=ACCESS, create_prefix="/listener")
    ) as s:
        yield s


def charge_interrupted(server: SimulatorServer, *extra: str) -> subprocess.CompletedProcess[str]:
    """`orderdash charge 5` whose create answer drips forever, SIGINT once the simulator has
    made the order (a new token, not the request log, which is written before the body is read:
    a SIGINT between the two leaves no order; and not after a fixed sleep)."""
    before = set(server.sim.tokens())
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    env.update(ENV, ORDERDASH_CONFIG=os.devnull)
    argv = [sys.executable, "-m", "orderdash", "charge", "5", *extra]
    argv += ["--base-url", server.base_url, "--create-url", server.root_url + "/listener"]
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        deadline = time.monotonic() + 30
        while not set(server.sim.tokens()) - before:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the order was never made"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()  # fail without leaving it running
            process.communicate()
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def test_ctrl_c_during_the_create_names_the_order_and_the_check(server) -> None:
    server.sim.add_fault(Fault(endpoint="create", drip_delay=2, drip_chunk=1))
    before = set(server.sim.tokens())
    result = charge_interrupted(server)
    assert result.returncode == 130
    (token,) = set(server.sim.tokens()) - before  # the order exists ...
    assert token in result.stderr and "may exist" in result.stderr  # ... and is named
    assert result.stdout == ""
    check = next(line for line in result.stderr.splitlines() if "orderdash get" in line)
    command = check[check.index("orderdash get") :].split()
    assert command[-1] == token and ACCESS not in result.stderr
    server.sim.clear_faults()
    looked = run_cli(*command[1:], env=ENV)
    assert looked.returncode == 0 and "5" in looked.stdout


def test_ctrl_c_during_the_create_with_json_prints_the_unknown_outcome(server) -> None:
    server.sim.add_fault(Fault(endpoint="create", drip_delay=2, drip_chunk=1))
    before = set(server.sim.tokens())
    result = charge_interrupted(server, "--json")
    assert result.returncode == 130
    (token,) = set(server.sim.tokens()) - before
    answer = jsontext.loads(result.stdout)
    assert answer["token"] == token and answer["outcome"] == "unknown"
    assert "interrupted" in answer["reason"] and answer["check"].endswith(token)


def test_the_check_command_names_the_service_of_a_config_file(server, tmp_path: Path) -> None:
    """base_url from `--config`: the printed check asks that service (not the default one),
    and running it finds the order."""
    config = tmp_path / "till.toml"
    config.write_text(
        f'base_url = "{server.base_url}"\ncreate_url = "{server.root_url}/listener"\n'
    )
    server.sim.add_fault(Fault(endpoint="create", reset_after=0))
    before = set(server.sim.tokens())
    result = run_cli("charge", "7.25", "--config", str(config), env=ENV)
    assert result.returncode == 5, result.stderr
    (token,) = set(server.sim.tokens()) - before
    check = next(line for line in result.stderr.splitlines() if "orderdash get" in line)
    command = check[check.index("orderdash get") :].split()
    assert command[-1] == token
    assert command[command.index("--base-url") + 1] == server.base_url
    assert command[command.index("--config") + 1] == str(config)
    server.sim.clear_faults()
    looked = run_cli(*command[1:], env=ENV)
    assert looked.returncode == 0 and "7.25" in looked.stdout


@pytest.fixture
def account_server() -> Iterator[SimulatorServer]:
    from support.account_dashboard import ACCESS as DASHBOARD_ACCESS

    with serving(SimulatorServer(Simulator(seed=7), access_token=DASHBOARD_ACCESS)) as s:
        yield s


async def test_the_dialog_names_the_order_and_quitting_waits_while_it_is_made(
    account_server,
) -> None:
    """From the first second the progress line names the order's token; q and Ctrl+Q while it
    is being made leave the app running with one line saying why, then the charge goes on."""
    from orderdash.tui.screens.charge import ChargeScreen
    from support.account_dashboard import account_app, ask_to_charge

    server = account_server
    server.sim.add_fault(Fault(endpoint="create", delay=3.0, times=1))
    app = account_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_to_charge(pilot, app, server, "4.00")
        await pilot.press("y")
        screen = app.screen
        assert isinstance(screen, ChargeScreen)
        token = screen._token
        assert token
        named = f"Making order {token}\u2026 attempt 1 of 3 \u00b7 0 s"
        await wait_until(pilot, lambda: named in screen_text(app))
        refused = (
            f"Not quitting: order {token} is being made; quit once the dialog says how it went"
        )
        await pilot.press("q")  # the dialog is modal: the app's q is not its key
        assert app.is_running and refused not in [n.message for n in app._notifications]
        await pilot.press("ctrl+q")
        await pilot.pause(0.2)
        assert [n.message for n in app._notifications] == [refused]
        assert app.is_running and app.screen is screen
        await wait_until(pilot, lambda: "Which coin" in screen_text(app), timeout=15)
        assert app.is_running
    assert token in server.sim.tokens()
