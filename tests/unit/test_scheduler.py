"""The watch-list scheduler with a fake clock: budget, priorities, backoff, fairness."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable
from itertools import pairwise

from orderdash.core.polling.due_queue import Lane
from orderdash.core.polling.plan import CLOSED_INTERVAL, WINDOW
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.scheduler import FAIR_BOUND, Scheduler

LATENCY = 0.08
STEP = 0.05


class Harness:
    """Drives a scheduler like the runner does: start what is due, finish it after LATENCY."""

    #: Whether a good read of an order sees a change, as the watcher tells the scheduler (None:
    #: nothing is told).
    changed: Callable[[str, float], bool] | None = None

    def __init__(
        self,
        orders: int,
        *,
        focused: set[str] = frozenset(),
        budget: int = 200,
        seed: int = 1,
        outcome: Callable[[str, Kind, float], str] | None = None,
        poll_interval: float = 10,
        changed: Callable[[str, float], bool] | None = None,
        scheduler: type[Scheduler] = Scheduler,
    ) -> None:
        self.now = 0.0
        self.s = scheduler(
            poll_interval=poll_interval,
            refresh_interval=60,
            rates_enabled=True,
            now=0.0,
            budget_per_minute=budget,
            rng=random.Random(seed),
        )
        self.tokens = [f"order-{i:03d}" for i in range(orders)]
        for token in self.tokens:
            self.s.add(token, self.now)
        self.s.focus(set(focused), self.now)
        self.starts: list[tuple[float, str, Kind]] = []
        #: The same starts by (order, kind): `starts_of` for each of 500 orders would otherwise
        #: go through every start of a simulated day each time.
        self.starts_by_order: defaultdict[tuple[str, Kind], list[float]] = defaultdict(list)
        self.in_flight: list[tuple[float, str, Kind]] = []
        self.outcome = outcome or (lambda token, kind, now: "ok")
        self.changed = changed
        self.max_in_flight = 0

    def run(self, seconds: float) -> None:
        end = self.now + seconds
        while self.now < end:
            for done in [f for f in self.in_flight if f[0] <= self.now]:
                self.in_flight.remove(done)
                _, token, kind = done
                result = self.outcome(token, kind, self.now)
                if result == "ok":
                    self.s.succeeded(token, kind, self.now)
                    if kind is Kind.ORDER and self.changed is not None:
                        activity = self.changed(token, self.now)
                        self.s.note_result(token, self.now, activity=activity, closed=False)
                elif result == "429":
                    self.s.failed(token, kind, self.now, retry_after=30.0, rate_limited=True)
                else:
                    self.s.failed(token, kind, self.now)
            started = self.s.due_requests(self.now)
            for token, kind in started:
                self.s.started(token, kind, self.now)
                self.starts.append((self.now, token, kind))
                self.starts_by_order[token, kind].append(self.now)
                self.in_flight.append((self.now + LATENCY, token, kind))
            self.max_in_flight = max(self.max_in_flight, len(self.in_flight))
            wakeup = self.s.next_wakeup(self.now)
            assert wakeup is None or wakeup >= self.now
            if wakeup == self.now and not started:
                # "runnable now" yet nothing started: the real loop would spin
                assert self.s.due_requests(self.now) == [], "due work was left unstarted"
                raise AssertionError(f"next_wakeup says now at {self.now} but nothing can start")
            # jump to the next event, as the runner sleeps until then
            events = [f[0] for f in self.in_flight] + ([wakeup] if wakeup is not None else [])
            upcoming = min(events, default=end)
            self.now = max(upcoming, self.now + 1e-6) if upcoming > self.now else self.now + STEP

    def starts_of(self, token: str, kind: Kind = Kind.ORDER) -> list[float]:
        return list(self.starts_by_order.get((token, kind), ()))


def max_in_any_window(times: list[float]) -> int:
    times = sorted(times)
    best, left = 0, 0
    for right, t in enumerate(times):
        while times[left] + WINDOW <= t:  # half-open window [t - 60 s, t], as the scheduler counts
            left += 1
        best = max(best, right - left + 1)
    return best


def test_budget_is_never_exceeded_over_a_simulated_hour_with_500_orders() -> None:
    h = Harness(500, focused={"order-000"})
    h.run(3600)
    orders = [t for t, _, k in h.starts if k is Kind.ORDER]
    assert max_in_any_window(orders) <= 200
    assert max_in_any_window([t for t, _, k in h.starts if k is Kind.RATES]) <= 200
    assert len(orders) <= 10_000
    assert len(orders) > 0.8 * 10_000, "and the hourly budget is actually used"
    assert h.max_in_flight <= h.s.concurrency


def test_the_order_on_screen_keeps_its_intervals_under_load() -> None:
    h = Harness(500, focused={"order-007"})
    h.run(600)
    polls = h.starts_of("order-007")
    gaps = [b - a for a, b in pairwise(polls)]
    assert max(gaps) <= 10 + 0.5
    rates = h.starts_of("order-007", Kind.RATES)
    assert len(rates) >= 10 and max(b - a for a, b in pairwise(rates)) <= 60 + 0.5


def test_no_starvation_every_order_is_read_within_the_sweep_bound() -> None:
    h = Harness(500, focused={"order-000"})
    h.run(1200)
    bound = h.s.sweep_bound()
    for token in h.tokens[1:]:
        polls = h.starts_of(token)
        assert polls, f"{token} never read"
        assert polls[0] <= bound
        assert all(b - a <= bound for a, b in pairwise(polls)), token


def test_a_payment_storm_into_most_orders_starves_none_of_them() -> None:
    """20 orders at a 1 s poll interval, 15 of them paid into every second for five simulated
    minutes: the busy ones are read more often, and every order, busy or quiet, is read again
    within FAIR_BOUND times the longest interval it was planned at (quiet orders had waited a
    minute while the busy ones, planned at a quiet order's share, were read every 3 s)."""
    storm_from = 6.0
    busy = {f"order-{i:03d}" for i in range(5, 20)}
    last_read: dict[str, float] = {}

    def changed(token: str, now: float) -> bool:
        # a payment lands in each busy order every second from `storm_from`: a read sees one
        # whenever a whole second has struck since its last read
        before = last_read.get(token)
        last_read[token] = now
        if token not in busy or before is None or now < storm_from:
            return False
        return math.floor(now) > math.floor(max(before, storm_from - 1))

    h = Harness(20, poll_interval=1, changed=changed)
    planned: dict[str, float] = {}
    for _ in range(300):
        h.run(1)
        for token, watched in h.s.orders.items():
            interval = watched.policy.tracks[Kind.ORDER].interval
            planned[token] = max(planned.get(token, 0.0), interval)

    reads = {token: h.starts_of(token) for token in h.tokens}
    quiet = set(h.tokens) - busy
    assert min(len(reads[t]) for t in busy) >= 2 * max(len(reads[t]) for t in quiet)
    for token in h.tokens:
        silent = max(b - a for a, b in pairwise([*reads[token], h.now]))
        assert silent <= FAIR_BOUND * planned[token], (token, silent, planned[token])


def test_first_reads_are_staggered_not_a_thundering_herd() -> None:
    h = Harness(100)
    h.run(5)
    first_second = [t for t, _, _ in h.starts if t < 1.0]
    assert len(first_second) <= 4
    gaps = [b[0] - a[0] for a, b in pairwise(h.starts)]
    assert min(gaps) >= h.s.pacing - 1e-9


def test_recent_activity_is_read_more_often_than_the_rest() -> None:
    h = Harness(300)
    h.run(60)
    h.s.note_result("order-050", h.now, activity=True, closed=False)
    start = h.now
    h.run(240)
    active = [t for t in h.starts_of("order-050") if t > start]
    quiet = [t for t in h.starts_of("order-051") if t > start]
    assert len(active) >= 2 * len(quiet) >= 2


def test_closed_orders_are_read_rarely() -> None:
    h = Harness(20)
    h.run(1)
    h.run(30)
    h.s.note_result("order-003", h.now, activity=False, closed=True)
    start = h.now
    h.run(1800)
    closed = [t for t in h.starts_of("order-003") if t > start]
    open_ = [t for t in h.starts_of("order-004") if t > start]
    assert len(closed) <= 1800 / CLOSED_INTERVAL + 1
    assert len(open_) > 3 * len(closed)


def test_a_failing_order_backs_off_and_the_others_go_on() -> None:
    h = Harness(30, outcome=lambda token, kind, now: "fail" if token == "order-009" else "ok")
    h.run(600)
    failing = h.starts_of("order-009")
    healthy = h.starts_of("order-010")
    assert len(failing) <= len(healthy) + 1, "a failing order costs no more than a healthy one"
    assert len(healthy) >= 600 / h.s.background_interval() - 2


def test_retry_after_holds_every_order_request() -> None:
    limited = {"done": False}

    def outcome(token: str, kind: Kind, now: float) -> str:
        if token == "order-002" and not limited["done"] and now > 20:
            limited["done"] = True
            return "429"
        return "ok"

    h = Harness(50, focused={"order-000"}, outcome=outcome)
    h.run(120)
    assert limited["done"]
    held_until = h.s.budgets[Kind.ORDER].hold_until
    hold_started = held_until - 30.0
    during = [t for t, _, k in h.starts if hold_started < t < held_until and k is Kind.ORDER]
    assert during == []
    assert any(t >= held_until for t, _, _ in h.starts), "resumes after the hold"


def test_new_transaction_on_a_background_order_gets_one_rate_call() -> None:
    h = Harness(10, focused={"order-000"})
    h.run(30)
    assert h.starts_of("order-005", Kind.RATES) == []
    h.s.note_result("order-005", h.now, activity=True, closed=False)
    h.run(10)
    assert len(h.starts_of("order-005", Kind.RATES)) == 1
    h.run(120)
    assert len(h.starts_of("order-005", Kind.RATES)) == 1, "no periodic rate calls off screen"


def test_rate_calls_only_for_the_orders_on_screen() -> None:
    h = Harness(40, focused={"order-001"})
    h.run(300)
    rate_tokens = {tok for _, tok, k in h.starts if k is Kind.RATES}
    assert rate_tokens == {"order-001"}


def test_focus_moves_reads_at_once() -> None:
    h = Harness(200, focused={"order-000"})
    h.run(30)
    h.s.focus({"order-150"}, h.now)
    moved = h.now
    h.run(1)
    assert any(moved <= t <= moved + 0.2 for t in h.starts_of("order-150"))
    assert any(moved <= t <= moved + 0.2 for t in h.starts_of("order-150", Kind.RATES))


def test_add_and_remove() -> None:
    s = Scheduler(poll_interval=10, refresh_interval=60, rates_enabled=False, now=0.0)
    assert s.add("a", 0.0) and not s.add("a", 0.0)
    s.remove("a", 0.0)
    assert s.orders == {} and s.due_requests(0.0) == [] and s.next_wakeup(0.0) is None


def test_fair_share_grows_with_the_list() -> None:
    counts = defaultdict(float)
    for n in (10, 100, 500):
        h = Harness(n)
        counts[n] = h.s.background_interval()
    assert counts[10] == 30.0  # three poll intervals at least
    assert counts[500] > counts[100] > counts[10]
    # the hourly budget (10,000, 5 % of it as a burst) is the tighter pace: 9,500 an hour
    assert counts[500] <= 500 * 60 / (9500 / 60 * 0.9) + 1e-9


def test_adding_a_long_list_plans_it_once_not_once_per_order(monkeypatch) -> None:  # noqa: ANN001
    """Adding 5,000 orders (the list's cap) must not plan the whole list per order: that was
    quadratic, seconds of a frozen screen. The plan is made again before the next request."""
    s = Scheduler(poll_interval=10, refresh_interval=60, rates_enabled=True, now=0.0)
    retunes = []
    retune = Scheduler._retune
    monkeypatch.setattr(
        Scheduler, "_retune", lambda self, now: (retunes.append(now), retune(self, now))
    )
    for i in range(5000):
        s.add(f"t{i}", 0.0)
    assert len(retunes) == 1, "the first order makes the first plan"
    s.due_requests(0.0)
    assert len(retunes) == 2, "and the whole list is planned once before reading"
    background = s.orders["t4999"].policy.tracks[Kind.ORDER].interval
    assert background == s.background_interval()
    # first reads stay staggered, one pacing step apart
    assert s.orders["t10"].policy.tracks[Kind.ORDER].next_due == 10 * s.pacing


class WholeQueueScheduler(Scheduler):
    """The scheduler taking every due request of each open lane from the index's live entries:
    the reference that the scheduler's early stop in a long backlog is compared with."""

    def _lane_candidates(
        self, lane: Lane, now: float, room: int
    ) -> list[tuple[float, str, str, Kind]]:
        return [
            (self._key(lane, due, self.orders[token], kind, now), token, kind.value, kind)
            for token, entries in self._index.entries.items()
            for entry_lane, due, kind in entries
            if entry_lane is lane and due <= now
        ]


def test_the_queue_read_in_part_chooses_as_the_whole_queue_read() -> None:
    """A short budget, hundreds of orders paid into at random (one-off rate calls pile up),
    failures, 429s, closes, late windows, focus moving: the same requests start at the same
    times as when every due request is looked at."""

    def workload(scheduler: type[Scheduler], seed: int) -> tuple[list, int]:
        rng = random.Random(seed)
        outcomes = ["ok"] * 12 + ["fail", "429"]
        h = Harness(
            200,
            focused={"order-000"},
            budget=60,
            seed=seed,
            outcome=lambda token, kind, now: rng.choice(outcomes),
            changed=lambda token, now: rng.random() < 0.2,
            scheduler=scheduler,
        )
        backlog = 0
        for _ in range(30):
            h.run(rng.choice([10, 30, 60]))
            for token in rng.sample(h.tokens, 40):
                h.s.note_result(
                    token,
                    h.now,
                    activity=rng.random() < 0.7,
                    closed=rng.random() < 0.1,
                    closed_unpaid_for=rng.choice([None, None, 30.0]),
                )
            if rng.random() < 0.3:
                shown = set(rng.sample(h.tokens, 2))
                h.s.focus(shown, h.now, pos=set(rng.sample(sorted(shown), 1)))
            if rng.random() < 0.2:
                h.s.refresh_now(rng.choice(h.tokens), h.now)
            waiting = [e for entries in h.s._index.entries.values() for e in entries]
            backlog = max(backlog, sum(lane is Lane.RATE_ONCE for lane, _, _ in waiting))
        return h.starts, backlog

    starts, backlog = workload(Scheduler, seed=1)
    assert backlog > 50  # one-off rate calls did pile up
    assert len(starts) > 500
    assert starts == workload(WholeQueueScheduler, seed=1)[0]
