"""What a first use trips over, driven by Pilot against the simulator on loopback: an amount to
be typed says how long it is valid; the till's keys and a first start's lead are on screen."""

from __future__ import annotations

import re

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.simulator import SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.pos import PosScreen


def pos_app(server: SimulatorServer, token: str) -> OrderDashApp:
    settings = make_settings(server.base_url, poll_interval=0.2, refresh_interval=60.0)
    return make_app(settings, token=token, open_pos=True)


async def test_an_amount_to_be_typed_says_how_long_it_is_valid(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin="usdt", currency="EUR", amount_fiat="20.00")
    app = pos_app(sim_server, token)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: "Type the amount in your wallet" in screen_text(app))
        screen = app.screen
        assert isinstance(screen, PosScreen)

        def times() -> str:
            return str(screen.query_one("#pos-times").render())

        # the rate's countdown (once the rate is read), said of the amount the customer types
        await wait_until(pilot, lambda: "valid for" in times() or "Rate renews" in times())
        assert re.search(r"This amount is valid for (1:00|0:[0-5][0-9])", times())
        assert "Rate renews" not in times()


async def test_paid_and_due_that_miss_the_amount_say_which_figure_rules(
    sim_server: SimulatorServer,
) -> None:
    from decimal import Decimal

    from orderdash.tui.widgets.order_detail import OrderDetail

    sim = sim_server.sim
    token = sim.create_order(coin="eth", currency="EUR", amount_fiat="30.00")
    tx = sim.add_transaction(token, Decimal("0.0087"))
    due = -Decimal(str(tx["amount"]["underPaid"]))
    # the amount at a rate renewed since: paid + due no longer make it
    sim.set_fields(token, {"amount": "0.008724658502325121"})
    assert Decimal("0.0087") + due != Decimal("0.008724658502325121")
    settings = make_settings(sim_server.base_url, poll_interval=0.2, refresh_interval=60.0)
    app = make_app(settings, token=token)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        detail = app.dashboard.query_one(OrderDetail)
        await wait_until(pilot, lambda: "still due" in detail.text(200))
        text = " ".join(detail.text(200).split())
        assert f"the service's due figure rules: {due} ETH" in text, text
        assert "0.008724658502325121 ETH" in text
        # figures that add up need no word on them
        sim.set_fields(token, {"amount": str(Decimal("0.0087") + due)})
        await wait_until(pilot, lambda: "figure rules" not in detail.text(200))
        assert "still due" in detail.text(200)


def footer(app: OrderDashApp) -> str:
    return screen_text(app).splitlines()[-1]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_first_start_shows_the_tills_keys_and_how_to_connect_the_account(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    from textual.widgets import Input

    settings = make_settings(sim_server.base_url, poll_interval=0.2, refresh_interval=60.0)
    assert settings.access_token is None
    app = make_app(settings)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: "Enter an order token above" in screen_text(app))
        text = " ".join(screen_text(app).split())
        assert "No account connected: set access_token_file and customer_id" in text, text
        assert "The merchant's account" in text
        token_input = app.dashboard.query_one("#token-input", Input)
        await wait_until(pilot, lambda: token_input.has_focus)
        # the input takes q and ?: Quit and Help by their other keys
        await wait_until(pilot, lambda: "Quit" in footer(app) and "Help" in footer(app))
        assert "^q Quit" in footer(app) and "f1 Help" in footer(app), footer(app)
        await pilot.press("f1")
        await wait_until(pilot, lambda: "Esc closes" in screen_text(app))
        await pilot.press("escape")
        await pilot.press("escape")  # to the table: the dashboard's keys
        await wait_until(pilot, lambda: "q Quit" in footer(app))
        line = footer(app)
        for key in ("n Charge", "! Attention", "Z Close day", "? Help", "q Quit"):
            assert key in line, line
