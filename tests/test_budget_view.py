"""What a person sees of the request budgets: the `b` view, the status line when the rate budget
holds the rate back, and the POS screen taking the rate budget first."""

from __future__ import annotations

from conftest import BEARER, make_settings, screen_text, wait_until
from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.core.watching.state import Freshness
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.app import make_app
from orderdash.tui.screens.budgets import BudgetsScreen
from orderdash.tui.widgets.status_line import status_text

TOKEN = DEMO_TOKENS[0]


def test_the_status_line_says_when_the_rate_budget_holds_the_rate_back() -> None:
    held = TrackStatus(enabled=True, in_flight=False, failures=0, next_in=30.0, budget_held=True)
    line = status_text(
        Freshness(last_update=0.0, next_rate_at=100.0, statuses={Kind.RATES: held}), 50.0
    ).plain
    assert "rate older than a minute: the rate budget is short (b)" in line
    assert "next rate in" not in line
    fine = TrackStatus(enabled=True, in_flight=False, failures=0, next_in=30.0)
    line = status_text(
        Freshness(last_update=0.0, next_rate_at=100.0, statuses={Kind.RATES: fine}), 50.0
    ).plain
    assert "next rate in 0:50" in line
    assert "budget" not in line


async def test_b_shows_the_budgets_and_the_pos_screen_takes_the_rate_first(
    sim_server: SimulatorServer,
) -> None:
    settings = make_settings(
        sim_server.base_url, bearer=BEARER, poll_interval=0.5, budget_per_hour=5000
    )
    app = make_app(settings, token=TOKEN)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("b")
        await wait_until(pilot, lambda: isinstance(app.screen, BudgetsScreen))
        text = screen_text(app)
        assert "Request budgets" in text
        assert "getOrder" in text and "of 5,000" in text and "of 200" in text
        assert "rate" in text and "of 1,000" in text
        assert "planned, paced evenly" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, BudgetsScreen))
        watched = app.watcher.scheduler.orders[TOKEN]
        assert watched.focused and not watched.pos
        await pilot.press("p")
        await wait_until(pilot, lambda: app.watcher.scheduler.orders[TOKEN].pos)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.watcher.scheduler.orders[TOKEN].pos)
