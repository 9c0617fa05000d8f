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
