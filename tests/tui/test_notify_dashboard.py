"""The dashboard's alerts reach the notification rules: a new payment on a watched order, the
service unreachable and back; each once, through Apprise to a JSON endpoint on loopback, while
the dashboard runs against the simulator."""

from __future__ import annotations

from decimal import Decimal
from importlib.util import find_spec

import pytest

from conftest import make_settings, wait_until
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.factory import make_app
from support.notify_endpoint import Endpoint

pytestmark = pytest.mark.skipif(
    find_spec("apprise") is None,
    reason="Apprise is not installed (pip install 'orderdash[notify]')",
)

OPEN = DEMO_TOKENS[0]  # in progress


async def test_a_payment_and_an_outage_are_sent_once_each(sim_server: SimulatorServer) -> None:
    endpoint = Endpoint()
    settings = make_settings(
        sim_server.base_url,
        poll_interval=0.2,
        refresh_interval=60.0,
        budget_per_minute=1200,
        notify=[
            {"events": ["payment"], "urls": [endpoint.url("pay")]},
            {"events": ["outage", "recovery"], "urls": [endpoint.url("ops")]},
        ],
    )
    app = make_app(settings, tokens=[OPEN])
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: bool(app.state.entries[OPEN].fetched))
            sim_server.sim.add_transaction(OPEN, Decimal("0.0001"))
            await wait_until(pilot, lambda: endpoint.at("pay"), timeout=10)
            sim_server.stop()
            await wait_until(pilot, lambda: endpoint.at("ops"), timeout=10)
            sim_server.start()
            await wait_until(pilot, lambda: len(endpoint.at("ops")) == 2, timeout=15)
            await pilot.pause(0.5)  # more answers: nothing more is sent
        assert app.alarms.notices is not None
        assert app.alarms.notices.notifier.drain(5)
        (paid,) = endpoint.at("pay")
        assert str(paid["title"]).startswith("orderdash: payment 0.0001 ")
        assert OPEN in str(paid["message"])
        titles = [body["title"] for body in endpoint.at("ops")]
        assert titles == ["orderdash: service unreachable", "orderdash: service reachable again"]
    finally:
        if app.alarms.notices is not None:
            app.alarms.notices.notifier.close(2)
        endpoint.close()
