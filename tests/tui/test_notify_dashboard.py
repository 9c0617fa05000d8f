"""The dashboard's alerts reach the notification rules: a new payment on a watched order, the
service unreachable and back, each once; and `c` on the close of day (`Z`) sends the day's
digest once. Through Apprise to a JSON endpoint on loopback, while the dashboard runs against
the simulator."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from importlib.util import find_spec
from pathlib import Path

import pytest
from pydantic import SecretStr

from conftest import make_settings, wait_until
from orderdash.simulator import DEMO_TOKENS, Simulator, SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.screens.close_day import CloseDayScreen
from orderdash.tui.screens.confirm import ConfirmScreen
from support.books_scene import ACCESS, NOW
from support.books_scene import scene as _scene
from support.ledger_file import LedgerFile
from support.notify_endpoint import Endpoint

pytestmark = pytest.mark.skipif(
    find_spec("apprise") is None,
    reason="Apprise is not installed (pip install 'orderdash[notify]')",
)

OPEN = DEMO_TOKENS[0]  # in progress


async def test_a_payment_and_an_outage_are_sent_once_each(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orderdash.core.notify import events

    # an outage is told once it lasted: here its failed reads alone, not also 30 s of them
    monkeypatch.setattr(events, "OUTAGE_SECONDS", 0.0)
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
        assert len(titles) == 2
        assert str(titles[0]).startswith("orderdash: Service unreachable since ")
        assert titles[1] == "orderdash: Service reachable again"
    finally:
        if app.alarms.notices is not None:
            app.alarms.notices.notifier.close(2)
        endpoint.close()


@pytest.fixture(scope="module")
def books_server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=11, clock=lambda: NOW, with_demo_orders=False)
    _scene(sim)
    with SimulatorServer(sim, access_token=ACCESS, history_page_cap=7) as server:
        yield server


async def test_closing_the_day_on_z_sends_its_digest_once(
    books_server: SimulatorServer, tmp_path: Path
) -> None:
    book = LedgerFile(tmp_path / "ledger.sqlite3")
    endpoint = Endpoint()
    settings = make_settings(
        books_server.base_url,
        bearer=None,
        access_token=SecretStr(ACCESS),
        customer_id="4711",
        timezone="Europe/Berlin",
        poll_interval=30.0,
        refresh_interval=60.0,
        notify=[{"events": "close", "urls": endpoint.url("close")}],
    )
    app = make_app(settings, clock=lambda: NOW, open_book=book.open)
    try:
        async with app.run_test(size=(120, 50)) as pilot:
            await pilot.press("escape", "Z")
            await wait_until(pilot, lambda: isinstance(app.screen, CloseDayScreen))
            screen = app.screen
            assert isinstance(screen, CloseDayScreen)
            await wait_until(pilot, lambda: screen.result is not None, timeout=10)
            assert app.alarms.notices is not None
            assert app.alarms.notices.notifier.drain(5)
            assert endpoint.received == []  # the dry run sends nothing
            await pilot.press("c")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await wait_until(pilot, lambda: screen.closed and not screen.reading, timeout=10)
            await pilot.press("c")  # closed already: nothing new
            await pilot.pause()
            assert app.alarms.notices.notifier.drain(5)
            (digest,) = endpoint.at("close")
            report = screen.result.report
            assert digest["title"] == "orderdash: close of day 2026-10-26"
            assert f"Digest: {report['digest'][:16]}" in str(digest["message"])
    finally:
        if app.alarms.notices is not None:
            app.alarms.notices.notifier.close(2)
        endpoint.close()
