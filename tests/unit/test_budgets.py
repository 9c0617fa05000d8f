"""The two published budgets (getOrder 200/min + 10,000/h, rates 200/min + 1,000/h) with a
fake clock: every sliding window, even pacing over the hour, the rate budget's order of
precedence (POS, then the order on screen, then one-off calls) and holds per budget."""

from __future__ import annotations

import random
from collections import defaultdict
from itertools import pairwise

import pytest
from test_scheduler import LATENCY, Harness

from orderdash.core.polling.budget import HOUR, MINUTE, Budget
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.scheduler import Scheduler
from support.fast_clock import max_in_window


class BudgetHarness(Harness):
    """The scheduler harness with all four budgets and orders on point-of-sale screens."""

    def __init__(
        self,
        orders: int,
        *,
        pos: set[str] = frozenset(),
        focused: set[str] = frozenset(),
        poll_interval: float = 10,
        budget_per_hour: int = 10_000,
        rate_budget_per_hour: int = 1_000,
        seed: int = 1,
    ) -> None:
        self.now = 0.0
        self.s = Scheduler(
            poll_interval=poll_interval,
            refresh_interval=60,
            rates_enabled=True,
            now=0.0,
            budget_per_minute=200,
            budget_per_hour=budget_per_hour,
            rate_budget_per_minute=200,
            rate_budget_per_hour=rate_budget_per_hour,
            rng=random.Random(seed),
        )
        self.tokens = [f"order-{i:03d}" for i in range(orders)]
        for token in self.tokens:
            self.s.add(token, self.now)
        self.s.focus(set(focused), self.now, pos=set(pos))
        self.starts = []
        self.starts_by_order = defaultdict(list)
        self.in_flight = []
        self.outcome = lambda token, kind, now: "ok"
        self.max_in_flight = 0

    def of(self, kind: Kind) -> list[float]:
        return [t for t, _, k in self.starts if k is kind]


POS = {"order-001", "order-002", "order-003"}


#: Simulated hours: four hourly windows of each budget (eight cost twice the CPU, same checks).
HOURS = 4


@pytest.mark.heavy
def test_four_hours_500_orders_3_pos_screens_within_every_window() -> None:
    h = BudgetHarness(500, pos=POS, focused={"order-004"})
    rng = random.Random(7)
    #: the longest interval each order was planned at (the plan moves with recent activity)
    planned: dict[str, float] = {}
    # payments keep arriving on background orders: each asks for a one-off rate call, 30 a
    # minute, more than the rate budget's even pace (about 15.8 a minute) can give
    for _ in range(HOURS * 60):
        h.run(MINUTE)
        for token in rng.sample(h.tokens[5:], 30):
            h.s.note_result(token, h.now, activity=True, closed=False)
        for token, watched in h.s.orders.items():
            interval = watched.policy.tracks[Kind.ORDER].interval
            planned[token] = max(planned.get(token, 0.0), interval)
    end = h.now
    orders, rates = h.of(Kind.ORDER), h.of(Kind.RATES)

    assert max_in_window(orders, MINUTE) <= 200
    assert max_in_window(rates, MINUTE) <= 200
    assert max_in_window(orders, HOUR) <= 10_000
    assert max_in_window(rates, HOUR) <= 1_000
    # the budgets are used, not merely respected
    assert len(orders) > 0.8 * 10_000 * HOURS
    assert len(rates) > 0.8 * 1_000 * HOURS

    # the tills' rates every minute, all day, although one-off calls want more than the budget
    for token in POS:
        gaps = [b - a for a, b in pairwise(h.starts_of(token, Kind.RATES))]
        assert len(gaps) >= HOURS * 60 - 2
        assert max(gaps) <= MINUTE + 1.0, token
    # and the order on screen next
    screen = h.starts_of("order-004", Kind.RATES)
    assert max(b - a for a, b in pairwise(screen)) <= MINUTE + 1.0

    # no order goes silent for longer than twice its paced interval, at any hour
    for token in h.tokens:
        polls = h.starts_of(token)
        interval = planned[token]
        # the first read of every order lands within the staggered first sweep
        assert polls[0] <= h.s.pacing * 500 * 1.05
        silent = max(b - a for a, b in pairwise([*polls, end]))
        assert silent <= 2 * interval, (token, silent, interval)


def test_an_hourly_budget_is_paced_evenly_not_spent_first() -> None:
    # 4 orders at a 1 s poll want 14,400 an hour; 120 are allowed
    h = BudgetHarness(4, focused={"order-000"}, poll_interval=1, budget_per_hour=120)
    h.run(3 * HOUR)
    orders = h.of(Kind.ORDER)
    assert max_in_window(orders, HOUR) <= 120
    # after the first reads, about two a minute in every minute of every hour: never a silent
    # end of the hour
    later = [t for t in orders if t > 10 * MINUTE]
    assert max_in_window(later, MINUTE) <= 4
    gaps = [b - a for a, b in pairwise(later)]
    assert max(gaps) <= 2 * h.s.budgets[Kind.ORDER].emission_interval
    for start in range(10, 170, 10):
        ten = [t for t in later if start * MINUTE <= t < (start + 10) * MINUTE]
        assert 15 <= len(ten) <= 21, (start, len(ten))


def test_a_short_rate_budget_goes_to_the_pos_orders_then_the_screen_then_nobody() -> None:
    # 100 rates an hour: about 1.6 a minute for three tills that want three
    h = BudgetHarness(20, pos=POS, focused={"order-010"}, rate_budget_per_hour=100)
    h.run(MINUTE)
    for token in h.tokens[11:]:
        h.s.note_result(token, h.now, activity=True, closed=False)
    h.run(2 * HOUR)
    rates = h.of(Kind.RATES)
    assert max_in_window(rates, HOUR) <= 100
    pos_rates = [t for t, tok, k in h.starts if k is Kind.RATES and tok in POS]
    screen_rates = h.starts_of("order-010", Kind.RATES)
    one_off = [t for t, tok, k in h.starts if k is Kind.RATES and tok in h.tokens[11:]]
    assert len(pos_rates) > 0.8 * len(rates)
    assert len(screen_rates) < len(pos_rates) / 3
    assert one_off == [], "other orders keep getOrder only"
    assert all(h.starts_of(token) for token in h.tokens[11:])
    # the screen says why the rate is older than the service's minute
    assert h.s.status("order-010", h.now)[Kind.RATES].budget_held
    assert h.s.status("order-001", h.now)[Kind.RATES].budget_held
    roomy = BudgetHarness(20, pos=POS, focused={"order-010"})
    roomy.run(10 * MINUTE)
    assert not roomy.s.status("order-010", roomy.now)[Kind.RATES].budget_held


def test_a_429_holds_the_budget_of_its_endpoint_not_the_other() -> None:
    h = BudgetHarness(10, pos={"order-001"})
    h.run(MINUTE)

    refusals = []

    def limited_rates(token: str, kind: Kind, now: float) -> str:
        if kind is Kind.RATES and not refusals:
            refusals.append(now)
            return "429"
        return "ok"

    h.outcome = limited_rates
    before = len(h.of(Kind.RATES))
    while not refusals:
        h.run(1)
    refused_at = h.of(Kind.RATES)[before]
    held_until = h.s.budgets[Kind.RATES].hold_until
    assert refusals == [refused_at + LATENCY]
    assert held_until == refusals[0] + 30.0
    assert h.s.budgets[Kind.ORDER].hold_until < 0
    h.run(15)
    # the till's rate is now older than a minute, and the screen is told why
    assert h.s.status("order-001", h.now)[Kind.RATES].budget_held
    h.run(MINUTE)
    assert not h.s.status("order-001", h.now)[Kind.RATES].budget_held
    assert [t for t in h.of(Kind.RATES) if refused_at < t < held_until] == []
    assert [t for t in h.of(Kind.ORDER) if refused_at < t < held_until], "getOrder goes on"

    # a 429 without Retry-After holds for the minute window
    s = Scheduler(poll_interval=10, refresh_interval=60, rates_enabled=True, now=0.0)
    s.add("a", 0.0)
    s.focus({"a"}, 0.0)
    s.started("a", Kind.ORDER, 0.0)
    s.failed("a", Kind.ORDER, 1.0, rate_limited=True)
    assert s.budgets[Kind.ORDER].hold_until == 61.0
    assert s.due_requests(2.0) == [("a", Kind.RATES)]


def test_budget_caps_every_window_even_when_spent_greedily() -> None:
    budget = Budget("getOrder", per_minute=20, per_hour=300)
    now, starts = 0.0, []
    while now < 5 * HOUR:
        if budget.allows(now):
            budget.spend(now)
            starts.append(now)
        now = max(budget.next_free(now), now + 0.01)
    assert max_in_window(starts, MINUTE) <= 20
    assert max_in_window(starts, HOUR) <= 300
    # the burst is 5 % of the hour; then an even pace, so no window of ten minutes is empty
    assert max(b - a for a, b in pairwise(starts)) <= budget.emission_interval + 0.02
    # a per-minute cap tighter than the hourly pace (3 a minute, 1000 an hour) is kept too
    tight = Budget("rate", per_minute=3, per_hour=1000)
    now, starts = 0.0, []
    while now < 10 * MINUTE:
        if tight.allows(now):
            tight.spend(now)
            starts.append(now)
        now = max(tight.next_free(now), now + 0.01)
    assert max_in_window(starts, MINUTE) == 3 and len(starts) >= 29
    # pending starts (chosen at one instant, not spent yet) count
    fresh = Budget("rate", per_minute=3, per_hour=1000)
    assert fresh.allows(0.0, pending=2) and not fresh.allows(0.0, pending=3)


def test_budget_use_reports_now_and_the_hours_projection() -> None:
    h = BudgetHarness(100, pos=POS)
    h.run(10 * MINUTE)
    order_use, rate_use = h.s.budget_use(h.now)
    assert (order_use.name, order_use.per_minute, order_use.per_hour) == ("getOrder", 200, 10_000)
    assert order_use.last_minute == len([t for t in h.of(Kind.ORDER) if t > h.now - MINUTE])
    assert order_use.last_hour == len(h.of(Kind.ORDER))
    assert 0.8 * 9_500 <= order_use.projected_hour <= 10_000
    assert rate_use.per_hour == 1_000 and rate_use.projected_hour == 3 * 60
    assert rate_use.last_minute == len([t for t in h.of(Kind.RATES) if t > h.now - MINUTE])
    assert rate_use.last_hour == len(h.of(Kind.RATES)) >= 30


def test_the_plan_fits_the_budget_with_many_recent_orders() -> None:
    """Recent orders are read three times as often: the plan counts them so, and what it asks
    for stays within the budget's planned share."""
    h = BudgetHarness(500, pos=POS)
    h.run(MINUTE)
    for token in h.tokens[10:160]:
        h.s.note_result(token, h.now, activity=True, closed=False)
    h.run(40)  # a full retune
    asked = sum(MINUTE / w.policy.tracks[Kind.ORDER].interval for w in h.s.orders.values())
    assert asked <= h.s.budgets[Kind.ORDER].per_minute_paced * 0.9 + 1e-6
