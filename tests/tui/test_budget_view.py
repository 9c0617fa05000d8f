"""What a person sees of the request budgets: the `b` view, the status line when the rate budget
holds the rate back, and the POS screen taking the rate budget first."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from conftest import BEARER, make_settings, screen_text, wait_until
from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.core.watching.onscreen import Freshness
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.screens.budgets import BudgetsScreen
from orderdash.tui.widgets.status_line import status_text
from support.fast_clock import FastLoop

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
        sim_server.base_url,
        bearer=BEARER,
        poll_interval=0.5,
        budget_per_hour=5000,
        rate_budget_per_hour=1000,
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
        # still on the customer display, which `p` put it on: until that is cleared
        await app.run_action("clear_display")
        await wait_until(pilot, lambda: not app.watcher.scheduler.orders[TOKEN].pos)


@pytest.mark.heavy
def test_an_hourly_budget_of_120_keeps_four_orders_at_two_reads_a_minute(
    sim_server: SimulatorServer,
) -> None:
    from orderdash.core.polling.watcher import OrderWatcher
    from orderdash.core.service.client import OrderClient

    settings = make_settings(
        sim_server.base_url,
        poll_interval=1.0,
        budget_per_hour=120,
        # fake seconds: a loopback answer must not time out at 60x speed
        timeout=600,
        connect_timeout=600,
        read_timeout=600,
    )
    tokens = [sim_server.sim.create_order(token=f"budget-{i}") for i in range(4)]
    loop = FastLoop()
    reads: list[float] = []
    first_reads: dict[str, float] = {}
    failures: list[str] = []
    loop_end: list[float] = []
    in_flight: list[int] = []

    class Events:
        def on_fetched(self, token: str, kind: Kind, fetched: object, change: object) -> None:
            if kind is Kind.ORDER:
                reads.append(loop.time())
                first_reads.setdefault(token, loop.time())

        def on_failure(self, token: str, failure: object) -> None:
            failures.append(f"{token}: {failure}")

        def on_status(self, token: str, status: object) -> None:
            return None

    async def watch() -> None:
        async with OrderClient.from_settings(settings) as client:
            watcher = OrderWatcher(
                client,
                Events(),
                poll_interval=settings.poll_interval,
                refresh_interval=settings.refresh_interval,
                monotonic=loop.time,
                **settings.budgets,
            )
            for token in tokens:
                watcher.add(token)
            watcher.focus({tokens[0]})
            task = asyncio.create_task(watcher.run())
            await asyncio.sleep(12 * 60)  # fake seconds: 12 minutes
            loop_end.append(loop.time())
            # a request the service answered while the end cancels it is served, never read
            in_flight.append(
                sum(
                    getattr(t.get_coro(), "__qualname__", "") == "OrderWatcher._request"
                    for t in asyncio.all_tasks()
                )
            )
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    try:
        loop.run_until_complete(watch())
    finally:
        loop.close()
    assert failures == []
    served = [r for r in sim_server.sim.requests if r["token"] in tokens]
    asked = len(reads) + sum(1 for r in served if r["endpoint"] != "order")
    assert asked <= len(served) <= asked + in_flight[0]
    # the first reads of the four orders are staggered over the first minutes; after them,
    # about two a minute (the service would allow 200), in every minute
    assert len(first_reads) == 4
    start = max(first_reads.values())
    assert start - min(first_reads.values()) < 4 * 60
    later = [t for t in reads if t > start]
    minutes = int((loop_end[0] - start) // 60)
    per_minute = [
        sum(1 for t in later if m * 60 <= t - start < (m + 1) * 60) for m in range(minutes)
    ]
    assert minutes >= 7
    assert sum(per_minute) <= 2 * minutes, per_minute
    assert max(per_minute) <= 3, per_minute
    assert min(per_minute) >= 1, per_minute
