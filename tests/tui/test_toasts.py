"""Toasts never cover a question or the order's figures, driven by Pilot against the simulator
over loopback in account mode (orders and payments pour in): while a dialog is up the news
waits and comes back as one summary when it goes; on the dashboard at most two toasts show,
the newest and one counting the others."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conftest import screen_text, serving, wait_until
from orderdash.simulator import Simulator, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.screens.charge import ChargeScreen
from orderdash.tui.screens.dashboard import DashboardScreen
from support.account_dashboard import ACCESS, account_app

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with serving(
        SimulatorServer(Simulator(seed=7, with_demo_orders=False), access_token=ACCESS)
    ) as server:
        yield server


def toasts(app: OrderDashApp) -> list[str]:
    return [notification.message for notification in app._notifications]


def words(app: OrderDashApp) -> str:
    return " ".join(screen_text(app).split())


def new_orders(server: SimulatorServer, count: int) -> set[str]:
    return {
        server.sim.create_order(coin="btc", currency="EUR", amount_fiat=f"{n + 1}.00")
        for n in range(count)
    }


@pytest.mark.parametrize("size", SIZES)
async def test_two_toasts_at_most_and_none_over_a_dialog_the_news_summed_up_after(
    server: SimulatorServer, size: tuple[int, int]
) -> None:
    paying = new_orders(server, 2)
    app = account_app(server)
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_until(pilot, lambda: set(app.state.entries) == paying)
        # on the dashboard: the newest and one counting the others
        seen: list[int] = []
        made = new_orders(server, 5)

        def arrived(tokens: set[str]) -> bool:
            seen.append(len(toasts(app)))
            return tokens <= set(app.state.entries)

        await wait_until(pilot, lambda: arrived(made), timeout=10)
        await pilot.pause(0.1)
        assert max(seen) <= 2 and len(toasts(app)) == 2, seen
        counting, newest = toasts(app)
        assert counting == "+4 new orders" and newest.startswith("New order: ")
        assert "+4 new orders" in words(app)

        # a dialog: the toasts on screen are taken off it, and the news waits
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, ChargeScreen))
        await pilot.pause()
        assert toasts(app) == []
        more = new_orders(server, 3)
        for token in paying:
            server.sim.add_transaction(token, "0.00000001")
        await wait_until(pilot, lambda: arrived(more), timeout=10)
        await wait_until(
            pilot,
            lambda: sum(a.text.startswith("Payment received") for a in app.state.alerts) >= 2,
            timeout=10,  # two poll rounds, as the orders' arrival above: slower on a loaded machine
        )
        await pilot.pause(0.1)
        assert toasts(app) == [] and "New order" not in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen))
        await wait_until(pilot, lambda: toasts(app) != [])
        await pilot.pause(0.1)
        # the five taken off the dialog, the three made behind it, the two payments
        assert toasts(app) == ["8 new orders, 2 payments while the question was up"]
        assert "8 new orders, 2 payments" in screen_text(app), screen_text(app)
