"""The late watch in the scheduler, with a fake clock: an order closed unpaid is read every
minute for `late_window` after it closed (its expiry), within its share of the getOrder budget,
and no more after it unless it is on screen."""

from __future__ import annotations

import random
from collections import Counter

from orderdash.core.polling.late import LATE_INTERVAL, LATE_SHARE, late_interval
from orderdash.core.polling.plan import CLOSED_INTERVAL
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.scheduler import Scheduler

HOUR = 3600.0
WINDOW = 24 * HOUR
LATENCY = 0.05


class Harness:
    """Drives a scheduler like the runner does; `closed` names the orders that answer closed
    and, for those closed unpaid, how long ago they closed (None: closed paid)."""

    def __init__(
        self, tokens: list[str], closed: dict[str, float | None], *, per_hour: int = 10_000
    ) -> None:
        self.now = 0.0
        self.s = Scheduler(
            poll_interval=10,
            refresh_interval=60,
            rates_enabled=False,
            now=0.0,
            budget_per_hour=per_hour,
            rng=random.Random(3),
            late_window=WINDOW,
        )
        self.closed = closed
        for token in tokens:
            self.s.add(token, 0.0)
        self.reads: list[tuple[float, str]] = []
        self.in_flight: list[tuple[float, str, Kind]] = []

    def run(self, seconds: float) -> None:
        end = self.now + seconds
        while self.now < end:
            for done in [f for f in self.in_flight if f[0] <= self.now]:
                self.in_flight.remove(done)
                _, token, kind = done
                self.s.succeeded(token, kind, self.now)
                closed = token in self.closed
                self.s.note_result(
                    token,
                    self.now,
                    activity=False,
                    closed=closed,
                    closed_unpaid_for=self.closed.get(token),
                )
            for token, kind in self.s.due_requests(self.now):
                self.s.started(token, kind, self.now)
                if kind is Kind.ORDER:
                    self.reads.append((self.now, token))
                self.in_flight.append((self.now + LATENCY, token, kind))
            wakeup = self.s.next_wakeup(self.now)
            events = [f[0] for f in self.in_flight] + ([wakeup] if wakeup is not None else [])
            upcoming = min(events, default=end)
            self.now = max(upcoming, self.now + 1e-6)

    def reads_of(self, token: str, start: float, end: float) -> int:
        return sum(1 for at, t in self.reads if t == token and start <= at < end)


def test_an_expired_order_is_read_every_minute_within_its_window() -> None:
    tokens = [f"open-{i}" for i in range(10)] + ["expired", "paid"]
    h = Harness(tokens, {"expired": 0.0, "paid": None})
    h.run(2 * HOUR)
    # 60 getOrders an hour (the cost docs/limits.md states), against 6 for a closed paid order
    assert 58 <= h.reads_of("expired", HOUR, 2 * HOUR) <= 61
    assert h.reads_of("paid", HOUR, 2 * HOUR) <= HOUR / CLOSED_INTERVAL + 1
    assert h.s.orders["expired"].policy.tracks[Kind.ORDER].interval == LATE_INTERVAL


def test_the_window_runs_from_the_expiry_and_then_the_order_is_not_read() -> None:
    # first seen 23.5 hours after its expiry: half an hour of its window is left
    h = Harness(["open", "expired"], {"expired": WINDOW - HOUR / 2})
    h.run(HOUR / 2)
    assert 28 <= h.reads_of("expired", 0, HOUR / 2) <= 31
    h.run(3 * HOUR)
    # at most the one read that was due as the window closed
    assert h.reads_of("expired", HOUR / 2 + 1, 3.5 * HOUR) <= 1
    assert h.reads_of("expired", HOUR, 3.5 * HOUR) == 0
    assert h.reads_of("open", HOUR, 3.5 * HOUR) > 100  # the rest goes on
    assert not h.s.orders["expired"].policy.tracks[Kind.ORDER].enabled

    # on screen it is read again (the operator opened it), and off screen no more
    h.s.focus({"expired"}, h.now)
    start = h.now
    h.run(60)
    assert h.reads_of("expired", start, h.now) >= 5
    h.s.focus(set(), h.now)
    h.run(60)
    start = h.now
    h.run(HOUR)
    assert h.reads_of("expired", start, h.now) == 0


def test_orders_in_their_window_take_no_more_than_their_share_of_the_budget() -> None:
    late = [f"late-{i}" for i in range(300)]
    tokens = [f"open-{i}" for i in range(20)] + late
    h = Harness(tokens, dict.fromkeys(late, 0.0), per_hour=10_000)
    h.run(2 * HOUR)
    capacity = h.s.budgets[Kind.ORDER].per_minute_paced
    interval = late_interval(300, capacity)
    assert interval > LATE_INTERVAL  # stretched: 300 a minute would take the whole budget
    counts = Counter(t for at, t in h.reads if at >= HOUR and t.startswith("late-"))
    total = sum(counts.values())
    assert total <= LATE_SHARE * capacity * 60 * 1.05, (total, capacity)
    # every one of them still read within its stretched interval
    assert min(counts[t] for t in late) >= int(HOUR / interval) - 1
    # and the open orders keep their pace
    assert min(h.reads_of(f"open-{i}", HOUR, 2 * HOUR) for i in range(20)) >= 60


def test_late_interval() -> None:
    assert late_interval(1, 158.0) == LATE_INTERVAL
    assert late_interval(100, 158.0) == 60.0 * 100 / (158.0 * LATE_SHARE)


def test_a_late_payment_turning_the_order_paid_ends_its_late_watch() -> None:
    h = Harness(["expired"], {"expired": 0.0})
    h.run(600)
    assert h.s.orders["expired"].late_until is not None
    h.closed["expired"] = None  # paid in full late: closed paid, read as the paid ones
    h.run(600)
    watched = h.s.orders["expired"]
    assert watched.late_until is None
    assert watched.policy.tracks[Kind.ORDER].interval >= CLOSED_INTERVAL


def _scheduler(open_orders: int) -> Scheduler:
    s = Scheduler(
        poll_interval=10, refresh_interval=60, rates_enabled=False, now=0.0, late_window=WINDOW
    )
    for i in range(open_orders):
        s.add(f"open-{i}", 0.0)
    return s


def test_orders_past_their_window_cost_the_background_nothing() -> None:
    # enough open orders that the budget, not the poll interval, sets their pace
    alone, past, closed_paid = _scheduler(1000), _scheduler(1000), _scheduler(1000)
    now = 10 * HOUR
    for i in range(2000):
        past.add(f"past-{i}", 0.0)
        past.note_result(f"past-{i}", now, activity=False, closed=True, closed_unpaid_for=WINDOW)
        closed_paid.add(f"paid-{i}", 0.0)
        closed_paid.note_result(f"paid-{i}", now, activity=False, closed=True)
    assert past.orders["past-0"].late_over(now)
    assert past.background_interval(now=now) == alone.background_interval(now=now)
    # as many ordinary closed orders, read every 10 minutes, do cost the open ones their pace
    assert closed_paid.background_interval(now=now) > 1.5 * alone.background_interval(now=now)


def test_an_order_in_its_window_is_read_at_least_as_often_as_a_closed_one() -> None:
    s = _scheduler(5)
    many = 3000  # their quarter of the budget alone would read each every ~75 minutes
    assert late_interval(many, s.budgets[Kind.ORDER].per_minute_paced) > CLOSED_INTERVAL
    for i in range(many):
        s.add(f"late-{i}", 0.0)
        s.note_result(f"late-{i}", 60.0, activity=False, closed=True, closed_unpaid_for=0.0)
    s.add("paid", 0.0)
    s.note_result("paid", 60.0, activity=False, closed=True)
    assert s.late_interval(60.0) == CLOSED_INTERVAL
    s.due_requests(120.0)  # a full retune
    late = s.orders["late-0"].policy.tracks[Kind.ORDER].interval
    assert late <= s.orders["paid"].policy.tracks[Kind.ORDER].interval
    assert late == CLOSED_INTERVAL
