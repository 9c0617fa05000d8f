"""A read-only operator (the `readonly` setting, `--readonly`): the dashboard makes nothing and
turns nothing to a customer (no charge, no point of sale, no customer display, nothing removed
from the watch list, no day closed), its keys are gone from the footer and the command palette,
and the footer says READ-ONLY at every width; `orderdash charge` refuses before anything is sent
or written. Driven by Pilot against the simulator over loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_watch_list_pane import all_loaded, list_app

from conftest import run_cli, screen_text, serving, wait_until
from orderdash.cli.options import parse_command_line
from orderdash.core.settings.sources import load_settings
from orderdash.simulator import DEMO_TOKENS, Simulator, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.screens.add_tokens import AddTokensScreen
from orderdash.tui.screens.close_day import CloseDayScreen
from orderdash.tui.screens.dashboard import DashboardScreen
from orderdash.tui.screens.help import HelpScreen
from orderdash.tui.widgets.keys_footer import KeysFooter
from orderdash.tui.widgets.watch_list import WatchTable
from support.scenes import scene, scene_app

OPEN, OTHER = DEMO_TOKENS[0], DEMO_TOKENS[1]
#: The keys a read-only operator does without: charge, point of sale, customer display (show
#: and clear), remove and its undo, resolve.
OFF_KEYS = ("n", "p", "x", "X", "d", "u", "R")
#: The palette's entries for the same actions.
OFF_COMMANDS = (
    "New charge",
    "Point of sale",
    "Show on customer display",
    "Clear customer display",
    "Undo remove",
    "Resolve the order",
)
ACCESS = "access-readonly"


def footer(app: OrderDashApp) -> str:
    return screen_text(app).splitlines()[-1]


def palette_titles(app: OrderDashApp) -> set[str]:
    return {command.title for command in app.get_system_commands(app.screen)}


def test_the_setting_is_off_by_default_and_read_from_the_environment() -> None:
    assert load_settings({}, {})[0].readonly is False
    assert load_settings({}, {"ORDERDASH_READONLY": "1"})[0].readonly is True
    assert load_settings({}, {"ORDERDASH_READONLY": "false"})[0].readonly is False
    # the option, on the commands that open the dashboard
    for line in (["tui", "--readonly"], ["watch", "--readonly"], ["demo", "--readonly"]):
        assert parse_command_line(line).readonly is True
    assert parse_command_line(["tui"]).readonly is None  # not given: the setting decides


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_read_only_is_on_the_footer_and_the_keys_that_change_things_are_not(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    app = list_app(sim_server, [OPEN, OTHER], readonly=True)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        for focus_list in (False, True):  # the table's keys, then the list's
            if focus_list:
                app.dashboard.query_one(WatchTable).focus()
                await pilot.pause()
                await pilot.pause()
            line = footer(app)
            assert line.startswith(" READ-ONLY "), line
            assert "? Help" in line and "q Quit" in line, line
            assert line.rstrip().endswith("^p palette"), line
            for shown in ("Remove", "POS", "Display", "Charge"):
                assert shown not in line, line
            active = app.screen.active_bindings
            assert not set(OFF_KEYS) & set(active), sorted(active)
            assert "a" in active and "Z" in active  # adding orders and the report stay


async def test_without_read_only_the_same_keys_are_there(sim_server: SimulatorServer) -> None:
    """The test above can fail: the same app without the setting has them all."""
    app = list_app(sim_server, [OPEN, OTHER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        assert set(OFF_KEYS) <= set(app.screen.active_bindings)
        assert "READ-ONLY" not in screen_text(app)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "READ-ONLY" not in screen_text(app)
        await pilot.press("escape")
        assert set(OFF_COMMANDS) <= palette_titles(app)


async def test_the_keys_off_do_nothing_and_the_palette_offers_none_of_them(
    sim_server: SimulatorServer,
) -> None:
    app = list_app(sim_server, [OPEN, OTHER], readonly=True)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        app.dashboard.query_one(WatchTable).focus()
        await pilot.pause()
        await pilot.press("d", "u", "p", "x", "X", "n")
        await pilot.pause()
        assert set(app.state.entries) == {OPEN, OTHER}  # nothing removed
        assert isinstance(app.screen, DashboardScreen)  # no POS, no charge dialog
        assert app.state.customer_token is None and app.customer_display == ""
        assert not app._notifications  # quiet: an off key says nothing
        titles = palette_titles(app)
        assert not set(OFF_COMMANDS) & titles, sorted(titles)
        assert {"Close of day", "Add orders", "Copy order token"} <= titles
        # the palette itself: typing a charge's name finds nothing to run
        await pilot.press("ctrl+p", *"New charge")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen), app.screen
        await pilot.press("question_mark")  # the help's first line says what is off
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "READ-ONLY" in screen_text(app) and "nothing is charged" in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen))
        # adding orders is looking at more of them: it stays
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AddTokensScreen))


async def test_the_close_of_day_shows_its_report_and_never_closes() -> None:
    chosen = scene("close-day-80x24")
    with scene_app(chosen, readonly=True) as app:
        async with app.run_test(size=(80, 24)) as pilot:
            await chosen.settle(pilot)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, CloseDayScreen) and screen.result is not None
            line = footer(app)
            assert line.startswith(" READ-ONLY ") and "esc Back" in line, line
            assert "Close day" not in line, line
            assert "Received in coin" in screen_text(app)  # the report itself shows
            await pilot.press("c")
            await pilot.pause()
            await pilot.press("y")  # were a question up, this would answer it
            await pilot.pause()
            assert app.screen is screen and not screen.closed and not screen.reading
            assert "Read-only" in screen_text(app)
            screen.query_one(KeysFooter)


@pytest.fixture(scope="module")
def account_server() -> Iterator[SimulatorServer]:
    with serving(SimulatorServer(Simulator(seed=7), access_token=ACCESS, port=0)) as server:
        yield server


def test_charge_is_refused_before_anything_is_sent_or_written(
    account_server: SimulatorServer, tmp_path: Path
) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    env = {
        "ORDERDASH_ACCESS_TOKEN": ACCESS,
        "ORDERDASH_CUSTOMER_ID": "4711",
        "ORDERDASH_LEDGER": str(ledger),
        "ORDERDASH_READONLY": "true",
    }
    before = len(account_server.sim.requests)
    base = ("--base-url", account_server.base_url)
    charged = run_cli("charge", "5", *base, env=env)
    assert charged.returncode == 2, charged.stderr
    assert charged.stderr.count("\n") == 1 and "read-only" in charged.stderr, charged.stderr
    assert charged.stdout == ""
    # the point of sale and closing the day are refused the same way; a dry run is not
    pos = run_cli("pos", OPEN, *base, env=env)
    closed = run_cli("close", *base, env=env)
    for result in (pos, closed):
        assert result.returncode == 2 and "read-only" in result.stderr, result.stderr
    assert not [r for r in account_server.sim.requests[before:] if r["endpoint"] == "create"]
    assert account_server.sim.requests[before:] == []  # nothing at all was sent
    assert not ledger.exists()  # nor written down


def test_a_site_config_pins_read_only_past_the_environment_and_another_config(
    account_server: SimulatorServer, tmp_path: Path
) -> None:
    """The administrator's site file says `readonly = true`: neither ORDERDASH_READONLY=0 nor
    `--config` naming a file without it makes an order; without the pin both do, as before."""
    site = tmp_path / "site.toml"
    site.write_text("readonly = true\n")
    other = tmp_path / "other.toml"
    other.write_text("readonly = false\n")
    ledger = tmp_path / "ledger.sqlite3"
    env = {
        "ORDERDASH_ACCESS_TOKEN": ACCESS,
        "ORDERDASH_CUSTOMER_ID": "4711",
        "ORDERDASH_LEDGER": str(ledger),
        "ORDERDASH_SITE_CONFIG": str(site),
    }
    sim = account_server.sim
    before, tokens = len(sim.requests), set(sim.tokens())
    base = ("--base-url", account_server.base_url)
    by_env = run_cli("charge", "1", *base, env={**env, "ORDERDASH_READONLY": "0"})
    by_config = run_cli("charge", "1", "--config", str(other), *base, env=env)
    for result, lifter in ((by_env, "ORDERDASH_READONLY"), (by_config, f"the config file {other}")):
        assert result.returncode == 2, result.stderr
        assert result.stdout == ""
        assert f"pins readonly: {lifter} cannot lift it" in result.stderr, result.stderr
        assert "read-only (the readonly setting): charge makes no order" in result.stderr
    assert sim.requests[before:] == [] and set(sim.tokens()) == tokens  # nothing made
    assert not ledger.exists()

    site.write_text("")  # no pin: the charge goes through as it did
    lifted = {**env, "ORDERDASH_READONLY": "0"}
    charged = run_cli("charge", "1", "--config", str(other), *base, env=lifted)
    assert charged.returncode == 0, charged.stderr
    assert len(set(sim.tokens()) - tokens) == 1
