"""What a first use trips over, driven by Pilot against the simulator on loopback: an amount to
be typed says how long it is valid; the till's keys and a first start's lead are on screen."""

from __future__ import annotations

import re

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
        assert re.search(r"This amount is valid for (1:00|0:[0-5][0-9])", times()) and "Rate renews" not in times()


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
