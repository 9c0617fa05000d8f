"""A payment into an expired order, 3 hours after its expiry by the service's clock, is a late
payment in the dashboard: an alarm of kind `late-payment` with the bell, a toast and a line in the
alerts log (`l`). The dashboard against the simulator on loopback; the simulator's clock and the
dashboard's wall clock are pushed forward together, never waited for."""

from __future__ import annotations

import time

import pytest
from textual.app import App

from conftest import make_settings, screen_text, serving, wait_until
from orderdash.core.watching.alert import LATE_PAYMENT
from orderdash.simulator import Simulator, SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.screens.alerts import AlertsScreen

HOUR = 3600.0


class Offset:
    """The wall clock, pushed forward by the test."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


async def test_a_payment_3_hours_after_expiry_raises_the_late_payment_alarm(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rings: list[None] = []
    monkeypatch.setattr(App, "bell", lambda self: rings.append(None))
    clock = Offset()
    sim = Simulator(seed=5, clock=clock, with_demo_orders=False)
    token = sim.create_order(token="late-tui-1", lifetime_s=600, amount_fiat="19.90")
    other = sim.create_order(token="paid-tui-2", lifetime_s=4 * HOUR, amount_fiat="5.00")
    expiry = sim.order_wire(token, with_qr=False)["expiresAt"] / 1000
    clock.offset += 601
    with serving(SimulatorServer(sim, port=0)) as server:
        settings = make_settings(server.base_url, bearer=None, poll_interval=0.2, bell=True)
        app = make_app(settings, tokens=[token, other], clock=clock)
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await wait_until(pilot, lambda: all(e.fetched for e in app.state.entries.values()))
            assert app.state.entries[token].order.status.code == "EXPIRED"
            # an order paid on time is an ordinary payment, not a late one
            sim.add_transaction(other)
            await wait_until(pilot, lambda: any(a.token == other for a in app.state.alerts))
            assert not [a for a in app.state.alerts if a.kind == LATE_PAYMENT]

            clock.offset = expiry + 3 * HOUR + 5 - time.time()
            tx = sim.add_transaction(token, "0.0001")
            late = lambda: [a for a in app.state.alerts if a.kind == LATE_PAYMENT]  # noqa: E731
            await wait_until(pilot, late, timeout=10)
            (alert,) = late()
            assert alert.alarm and alert.token == token
            assert alert.late_ids == (tx["id"],)  # which payment was late (notifications)
            # the service's digits, and how long after expiry by its clock
            paid = f"{tx['amount']['base']} BTC ({tx['amountFiat']['base']} EUR)"
            assert alert.text.startswith(f"Late payment into a closed order: {paid}, 3:00:0")
            assert "after expiry" in alert.text and "EXPIRED \u2192 UNDERPAID" in alert.text
            assert rings, "the bell rang"
            await wait_until(pilot, lambda: "Late payment into a closed order" in screen_text(app))

            await pilot.press("l")
            await wait_until(pilot, lambda: isinstance(app.screen, AlertsScreen))
            log = screen_text(app)
            assert "Late payment into a closed order" in log and "after expiry" in log
