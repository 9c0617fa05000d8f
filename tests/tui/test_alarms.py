"""Alarms: an outage, its end, an order that starts answering 404, a paid order paid no longer
and a token that names another order go to the alerts log as alarms, apart from payments; the
log wraps its lines. The dashboard against the simulator on loopback, with its fault injection."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from conftest import make_settings, screen_text, wait_until
from orderdash.simulator import DEMO_TOKENS, Fault, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.alerts import AlertsScreen
from orderdash.tui.widgets.order_detail import OrderDetail

OPEN, PAID = DEMO_TOKENS[0], DEMO_TOKENS[2]  # in progress; paid in full (PAID)


def alarm_app(server: SimulatorServer, tokens: list[str]) -> OrderDashApp:
    settings = make_settings(
        server.base_url, poll_interval=0.2, refresh_interval=60.0, budget_per_minute=1200
    )
    return make_app(settings, tokens=tokens)


def loaded(app: OrderDashApp) -> bool:
    return bool(app.state.entries) and all(e.fetched for e in app.state.entries.values())


def alarms(app: OrderDashApp) -> list[str]:
    return [alert.text for alert in app.state.alerts if alert.alarm]


async def test_an_outage_and_its_end_raise_one_alarm_each(sim_server: SimulatorServer) -> None:
    app = alarm_app(sim_server, list(DEMO_TOKENS[:4]))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_until(pilot, lambda: loaded(app))
        sim_server.stop()
        await wait_until(pilot, lambda: alarms(app), timeout=10)
        # the order on screen fails again and again (and others with it): still one alarm
        failed = len(sim_server.sim.requests)
        await pilot.pause(3.0)
        assert len(alarms(app)) == 1 and alarms(app)[0].startswith("Service unreachable")
        assert len(sim_server.sim.requests) == failed, "stopped: nothing reached it"
        sim_server.start()
        await wait_until(pilot, lambda: len(alarms(app)) == 2, timeout=15)
        await pilot.pause(1.0)  # more answers: no more alarms
        assert len(alarms(app)) == 2 and alarms(app)[1].startswith("Service reachable again")
        assert not [a for a in app.state.alerts if not a.alarm], "no payment alerts meanwhile"
        await wait_until(pilot, lambda: "Service reachable again" in screen_text(app))


async def test_an_order_that_starts_answering_404_raises_an_alarm(
    sim_server: SimulatorServer,
) -> None:
    app = alarm_app(sim_server, [OPEN, PAID])
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_until(pilot, lambda: loaded(app))
        sim_server.sim.add_fault(Fault(endpoint="order", token=PAID, status=404))
        await wait_until(pilot, lambda: alarms(app), timeout=10)
        await pilot.pause(1.0)  # more 404s for it: still one alarm
        (alert,) = [a for a in app.state.alerts if a.alarm]
        assert alert.token == PAID and alert.text.startswith("Order no longer found")
        assert "40.00 GBP PAID" in alert.text, "what it was, to compare"


async def test_a_paid_order_going_back_to_in_progress_is_a_regression_alarm(
    sim_server: SimulatorServer,
) -> None:
    app = alarm_app(sim_server, [OPEN, PAID])
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_until(pilot, lambda: loaded(app))
        sim_server.sim.set_fields(PAID, {"status": {"code": "IN_PROGRESS", "label": "In progress"}})
        await wait_until(pilot, lambda: alarms(app), timeout=10)
        (text,) = alarms(app)
        assert text.startswith("Payment taken back: a paid order is no longer paid")
        assert "PAID" in text and "IN_PROGRESS" in text
        await wait_until(pilot, lambda: "Payment taken back" in screen_text(app))


async def test_paid_amount_going_down_is_a_regression_alarm(sim_server: SimulatorServer) -> None:
    app = alarm_app(sim_server, [OPEN])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: loaded(app))
        sim_server.sim.set_fields(OPEN, {"transactions": []})  # its one payment gone
        await wait_until(pilot, lambda: alarms(app), timeout=10)
        assert alarms(app)[0].startswith("Payment taken back: the amount paid went down")


async def test_a_token_that_names_another_order_raises_an_alarm_and_keeps_the_old_figures(
    sim_server: SimulatorServer,
) -> None:
    app = alarm_app(sim_server, [PAID])
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        old_id = app.state.order.id
        # the service was reset: the token now names a new order, unpaid
        sim_server.sim.set_fields(
            PAID,
            {
                "id": 7,
                "createdAtMiliseconds": 1_700_000_000_000,
                "amountFiat": "9.90",
                "status": {"code": "IN_PROGRESS", "label": "In progress"},
                "transactions": [],
            },
        )
        await wait_until(pilot, lambda: alarms(app), timeout=10)
        (text,) = alarms(app)
        assert text.startswith("This token now names another order")
        assert f"was 40.00 GBP PAID, order id {old_id}" in text
        assert "now 9.90 GBP IN_PROGRESS, order id 7" in text
        # the order pane keeps the old figures beside the new
        detail = app.dashboard.query_one(OrderDetail)
        await wait_until(pilot, lambda: "another order: 40.00 GBP PAID" in screen_text(app))
        assert detail.has_class("-stale") is False
        await wait_until(pilot, lambda: "Payment taken back" not in screen_text(app))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_alerts_log_wraps_alarms_and_shows_them_apart(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    app = alarm_app(sim_server, [OPEN, PAID])
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: loaded(app))
        sim_server.sim.add_fault(Fault(endpoint="order", token=PAID, status=404))
        await wait_until(pilot, lambda: alarms(app), timeout=10)
        sim_server.sim.add_transaction(OPEN, "0.00001")
        await wait_until(pilot, lambda: len(app.state.alerts) == 2, timeout=10)
        await pilot.press("l")
        assert isinstance(app.screen, AlertsScreen)
        await pilot.pause()
        region = app.screen.query_one(OptionList).content_region
        rows = screen_text(app).splitlines()[region.y : region.bottom]
        log = "".join("".join(row[region.x : region.right].split()) for row in rows)
        # the whole alarm text is there, across lines, nothing cut
        alarm_text = "".join(alarms(app)[0].split())
        assert alarm_text in log, f"{alarm_text!r} not whole in:\n{screen_text(app)}"
        assert "\u26a0" in log, "the alarm is marked"
        assert "Paymentreceived" in log


def test_alarms_held_behind_the_customer_screen_come_back_first_and_whole() -> None:
    """A burst of payments while the point of sale is up neither pushes an alarm out nor sums
    it up: the operator gets every alarm back, before the rest."""
    from orderdash.tui.notices import MAX_HELD, HeldNotices, Notice

    shown: list[Notice] = []
    notices = HeldNotices(shown.append, default_timeout=5)
    notices.customer_screen_up()
    notices.notify(Notice("Service unreachable", "\u26a0", "error", 20, False))
    for n in range(MAX_HELD + 10):
        notices.notify(Notice(f"Payment {n}", "", "information", 8, False))
    assert shown == [], "nothing reaches the customer's screen"
    notices.customer_screen_down()
    assert shown[0].message == "Service unreachable"
    assert [n.message for n in shown].count("Service unreachable") == 1
    assert "more while the point-of-sale screen was up" in shown[1].message
