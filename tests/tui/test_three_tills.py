""" "Paid" within 2 s on a customer's screen, within the public budgets with three tills behind
one IP: an order on the POS screen or the customer display is read every
`customer_poll_interval` (1.5 s by default), other orders keep their pace, and `tills_per_ip = 3`
gives each till a third of getOrder's 200 a minute and 10,000 an hour (README, "Budgets")."""

from __future__ import annotations

import asyncio
import contextlib
import random
from itertools import pairwise

import pytest

from conftest import make_settings, wait_until
from orderdash.core.polling.budget import HOUR, MINUTE
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.scheduler import Scheduler
from orderdash.core.settings.model import Settings
from orderdash.simulator import SimulatorServer
from orderdash.tui.factory import make_app
from support.fast_clock import FastLoop, max_in_window

pytestmark = pytest.mark.heavy

#: Seconds a simulated request takes (loopback and a busy service).
LATENCY = 0.15
TILLS = 3
ORDERS = 100
PUBLIC_PER_MINUTE, PUBLIC_PER_HOUR = 200, 10_000


def till_settings(**values: object) -> Settings:
    """A till's settings as README says to set them for three tills behind one IP."""
    return Settings.model_validate({"tills_per_ip": TILLS, **values})


def test_a_tills_share_is_a_third_of_the_public_getorder_budget() -> None:
    budgets = till_settings().budgets
    assert budgets["budget_per_minute"] * TILLS <= PUBLIC_PER_MINUTE
    assert budgets["budget_per_hour"] * TILLS <= PUBLIC_PER_HOUR
    assert Settings().budgets["budget_per_hour"] == PUBLIC_PER_HOUR  # one till: all of it


def _scheduler(settings: Settings, seed: int) -> Scheduler:
    return Scheduler(
        poll_interval=settings.poll_interval,
        refresh_interval=settings.refresh_interval,
        rates_enabled=True,
        now=0.0,
        concurrency=settings.concurrency,
        rng=random.Random(seed),
        customer_poll_interval=settings.customer_poll_interval,
        **settings.budgets,
    )


def test_three_tills_with_an_order_on_each_pos_stay_within_the_public_budget() -> None:
    """Three hours of three tills (100 orders each, one on each POS screen) on a simulated
    clock: every 60 s and 3600 s window of the IP's getOrder requests within the public
    limits, each POS order read every customer poll interval all along."""
    settings = till_settings()
    tills = [_scheduler(settings, seed) for seed in range(TILLS)]
    for n, till in enumerate(tills):
        for i in range(ORDERS):
            till.add(f"till{n}-{i:03d}", 0.0)
        till.focus({f"till{n}-000"}, 0.0, pos={f"till{n}-000"})
    starts: list[list[tuple[float, str, Kind]]] = [[] for _ in tills]
    in_flight: list[list[tuple[float, str, Kind]]] = [[] for _ in tills]
    now, end = 0.0, 3 * HOUR
    while now < end:
        wakeups = []
        for till, started, flying in zip(tills, starts, in_flight, strict=True):
            for done in [f for f in flying if f[0] <= now]:
                flying.remove(done)
                till.succeeded(done[1], done[2], now)
            for token, kind in till.due_requests(now):
                till.started(token, kind, now)
                started.append((now, token, kind))
                flying.append((now + LATENCY, token, kind))
            wake = till.next_wakeup(now)
            wakeups += [f[0] for f in flying] + ([wake] if wake is not None else [])
        upcoming = min(wakeups, default=end)
        now = upcoming if upcoming > now else now + 1e-3

    orders = [t for till in starts for t, _, kind in till if kind is Kind.ORDER]
    assert max_in_window(orders, MINUTE) <= PUBLIC_PER_MINUTE
    assert max_in_window(orders, HOUR) <= PUBLIC_PER_HOUR
    for n, till in enumerate(starts):
        mine = [t for t, _, kind in till if kind is Kind.ORDER]
        assert max_in_window(mine, HOUR) <= settings.budgets["budget_per_hour"]
        pos = [t for t, token, kind in till if token == f"till{n}-000" and kind is Kind.ORDER]
        gaps = sorted(b - a for a, b in pairwise(pos))
        # a payment is seen within a poll interval and an answer, all three hours
        assert gaps[-1] <= settings.customer_poll_interval + LATENCY + 0.01, gaps[-1]
        # the other orders are read too, at the pace the share leaves them
        bound = 2 * tills[n].background_interval()
        for i in range(1, ORDERS, 7):
            reads = [t for t, token, kind in till if token == f"till{n}-{i:03d}"]
            assert max(b - a for a, b in pairwise([*reads, end])) <= bound


def test_three_tills_against_one_simulator_read_their_pos_orders_fast_within_the_budget(
    sim_server: SimulatorServer,
) -> None:
    """Three watchers (three tills' schedulers, their settings as documented) against one
    simulator, on an event loop whose clock runs 60 times faster: ten minutes in ten seconds."""
    from orderdash.core.polling.watcher import OrderWatcher
    from orderdash.core.service.client import OrderClient

    settings = make_settings(
        sim_server.base_url,
        tills_per_ip=TILLS,
        # fake seconds: a loopback answer must not time out at 60x speed
        timeout=600,
        connect_timeout=600,
        read_timeout=600,
    )
    sim = sim_server.sim
    tokens = [[sim.create_order(token=f"till{n}-{i}") for i in range(20)] for n in range(TILLS)]
    loop = FastLoop()
    reads: list[tuple[float, str]] = []
    failures: list[str] = []
    intervals: list[float] = []

    class Events:
        def on_fetched(self, token: str, kind: Kind, fetched: object, change: object) -> None:
            if kind is Kind.ORDER:
                reads.append((loop.time(), token))

        def on_failure(self, token: str, failure: object) -> None:
            # a machine busy with other work can make a loopback answer take 10 s of the
            # wall (600 fake seconds): a timeout says nothing of the budgets
            if failure.error_kind != "timeout":  # type: ignore[attr-defined]
                failures.append(f"{token}: {failure.error.message}")  # type: ignore[attr-defined]

        def on_status(self, token: str, status: object) -> None:
            return None

    async def till(own: list[str]) -> None:
        async with OrderClient.from_settings(settings) as client:
            watcher = OrderWatcher(
                client,
                Events(),
                poll_interval=settings.poll_interval,
                refresh_interval=settings.refresh_interval,
                monotonic=loop.time,
                customer_poll_interval=settings.customer_poll_interval,
                **settings.budgets,
            )
            for token in own:
                watcher.add(token)
            watcher.point_of_sale(True)
            watcher.focus({own[0]})
            task = asyncio.create_task(watcher.run())
            await asyncio.sleep(10 * MINUTE)  # fake seconds
            intervals.append(watcher.scheduler.orders[own[0]].policy.tracks[Kind.ORDER].interval)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def three() -> None:
        await asyncio.gather(*(till(own) for own in tokens))

    try:
        loop.run_until_complete(three())
    finally:
        loop.close()
    assert failures == []
    times = [t for t, _ in reads]
    assert max_in_window(times, MINUTE) <= PUBLIC_PER_MINUTE
    assert len(times) <= PUBLIC_PER_HOUR
    for own, planned in zip(tokens, intervals, strict=True):
        assert planned == settings.customer_poll_interval
        # every 1.5 s plus the answer's time, which a busy machine makes long at 60x (the
        # simulated-clock test above times it): more often than any other order, and every
        # order is read
        count = {token: sum(1 for _, read in reads if read == token) for token in own}
        assert count[own[0]] > max(count[token] for token in own[1:]), count
        assert min(count.values()) >= 1, count


async def test_an_order_before_a_customer_is_read_at_the_customers_pace(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    first, other = (sim.create_order(coin="btc", amount_fiat="10.00") for _ in range(2))
    settings = make_settings(sim_server.base_url, display_channel="tills-test")
    app = make_app(settings, token=first, tokens=[other])
    orders = app.watcher.scheduler.orders

    def interval(token: str) -> float:
        return orders[token].policy.tracks[Kind.ORDER].interval

    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.state.entries[first].payment is not None)
        assert interval(first) == settings.poll_interval  # on screen, for the operator
        await pilot.press("p")
        await wait_until(pilot, lambda: interval(first) == settings.customer_poll_interval)
        assert interval(other) >= 3 * settings.poll_interval  # the rest keep their pace
        await pilot.press("escape")
        # still on the customer display (`p` put it there): still at the customer's pace
        await pilot.pause(0.2)
        assert interval(first) == settings.customer_poll_interval
        await app.run_action("clear_display")
        await wait_until(pilot, lambda: interval(first) == settings.poll_interval)
        await pilot.press("x")
        await wait_until(pilot, lambda: interval(first) == settings.customer_poll_interval)
