"""Which order to read next, for a whole watch list, within the service's request budgets.

The service publishes two limits per kind of endpoint (getOrder: 200 a minute and 10,000 an
hour; the rate endpoint: 200 a minute and 1,000 an hour); an operator may watch hundreds of
orders. Each order keeps its own `RefreshPolicy` (one request per kind in flight, backoff,
Retry-After); this scheduler decides which of the due requests may start now:

- two budgets, one per endpoint (`budget.py`), each kept in every 60 s and 3600 s window and
  paced evenly over the hour; at most `concurrency` requests in flight;
- pacing: background getOrder requests start at least one budget step apart, so a long list is
  swept smoothly instead of in bursts (and the first sweep is staggered);
- priority as a head start in time, not a strict order, so nothing starves: the orders on screen
  first (polled every poll interval, rate every refresh interval; those a customer is looking at,
  on a point-of-sale screen or the customer display, every customer poll interval, so that a
  payment shows within seconds), then orders with recent
  activity, then the rest round-robin, closed orders (paid, expired, canceled) rarely;
- an order that closed unpaid (expired, canceled, underpaid) is watched for a late payment for
  `late_window` after it closed (its expiry, else when first seen closed) at the pace of
  `late.py`; after the window it is no longer read unless it is on screen;
- the rate call runs for the orders on a point-of-sale screen and on screen, and once for any
  order right after a new transaction; when the rate budget is short it goes first to the POS
  orders, then to the order on screen, and the one-off calls stop (getOrder goes on);
- a 429 (or a refusal naming a limit) holds the budget of the endpoint that was refused, not
  the other one, for its Retry-After (a minute when it gives none).

Pure policy: time is passed in (monotonic seconds), nothing here does I/O.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from orderdash.core.polling.budget import Budget
from orderdash.core.polling.due_queue import HEAD_START, DueIndex, Lane, Priority
from orderdash.core.polling.late import DEFAULT_LATE_WINDOW, LATE_INTERVAL, late_interval
from orderdash.core.polling.refresh import Kind, RefreshPolicy, TrackStatus

if TYPE_CHECKING:
    from collections.abc import Set

    from orderdash.core.polling.budget_use import BudgetUse

WINDOW = 60.0
#: A 429 without Retry-After holds its budget this long (the per-minute window).
DEFAULT_LIMIT_HOLD = 60.0
#: Share of the rate budget's burst that one-off rate calls leave to the orders on screen.
RATE_ONCE_RESERVE = 0.5
#: An order with a new transaction or status change within this many seconds is "recent".
RECENT_SECONDS = 300.0
#: Closed orders are still read now and then: a refund or a confirmation can arrive.
CLOSED_INTERVAL = 600.0
#: A background order that keeps failing waits up to this many times its interval.
MAX_BACKGROUND_BACKOFF = 8
#: Share of the budget kept free for the orders on screen and for one-off rate calls.
HEADROOM = 0.1
#: A recent order is read this many times as often as a quiet one.
RECENT_SPEEDUP = 3
#: The whole list's intervals are planned again at least this often (recent activity fades).
RETUNE_EVERY = 30.0
#: A time before any other: a plan made then is due for a retune.
NEVER = -1e18


@dataclass(eq=False, repr=False)
class Watched:
    """One order of the watch list as the scheduler sees it."""

    token: str
    policy: RefreshPolicy
    focused: bool = False
    #: On a point-of-sale screen / customer display: its rate comes first.
    pos: bool = False
    closed: bool = False
    #: Closed unpaid: watched for a late payment until this (monotonic) time; None: not such
    #: an order (open, or closed paid).
    late_until: float | None = None
    last_activity: float | None = None
    #: A one-off rate call is wanted (new transaction on an order not on screen).
    rate_once: bool = False
    #: When the one-off rate call was asked for (its place in the queue).
    rate_once_since: float = 0.0
    rate_in_flight: bool = False

    def late_over(self, now: float) -> bool:
        """Closed unpaid and its late window has passed: no longer read unless on screen."""
        return self.late_until is not None and now >= self.late_until

    def priority(self, now: float) -> Priority:
        if self.focused:
            return Priority.FOCUSED
        if self.last_activity is not None and now - self.last_activity < RECENT_SECONDS:
            return Priority.RECENT
        if self.closed:
            return Priority.CLOSED
        return Priority.NORMAL


@dataclass(eq=False, repr=False)
class Scheduler:
    """The whole watch list's requests under both budgets (see the module's docstring)."""

    poll_interval: float
    refresh_interval: float
    rates_enabled: bool
    now: float
    budget_per_minute: int = 200
    concurrency: int = 6
    rng: random.Random = field(default_factory=random.Random)
    budget_per_hour: int = 10_000
    rate_budget_per_minute: int = 200
    rate_budget_per_hour: int = 1_000
    #: getOrder interval of the orders before a customer (None: `poll_interval`).
    customer_poll_interval: float | None = None
    #: Seconds an order closed unpaid stays watched for a late payment after it closed.
    late_window: float = DEFAULT_LATE_WINDOW
    orders: dict[str, Watched] = field(default_factory=dict, init=False)
    budgets: dict[Kind, Budget] = field(init=False)
    _last_background_start: float = field(default=-1e18, init=False)
    _in_flight: int = field(default=0, init=False)
    #: One-off rate calls may run: the rate budget has room beyond the orders on screen.
    _rate_once_allowed: bool = field(default=True, init=False)
    _index: DueIndex = field(default_factory=DueIndex, init=False)
    #: The plan of the last full retune: (background, focused, POS rate, screen rate, customer)
    #: intervals.
    _plan: tuple[float, float, float, float, float] = field(
        default=(0.0, 0.0, 0.0, 0.0, 0.0), init=False
    )
    _retuned_at: float = field(default=NEVER, init=False)
    #: Seconds between background starts that leave the orders on screen their share of each
    #: minute (0: none on screen, the budget's even pace alone), from the last retune.
    _background_step: float = field(default=0.0, init=False)
    #: How often an order within its late window is read, from the last retune.
    _late_interval: float = field(default=LATE_INTERVAL, init=False)
    #: Orders not read successfully yet (their first reads are staggered).
    _unread: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.budgets = {
            Kind.ORDER: Budget("getOrder", self.budget_per_minute, self.budget_per_hour),
            Kind.RATES: Budget("rate", self.rate_budget_per_minute, self.rate_budget_per_hour),
        }

    # -- the list ----------------------------------------------------------------------------

    def add(self, token: str, now: float) -> bool:
        """Watch `token`; False if it is watched already."""
        if token in self.orders:
            return False
        policy = RefreshPolicy(
            # a start: `_tune` gives it its interval from the plan
            poll_interval=max(self._plan[0], self.poll_interval),
            refresh_interval=self.refresh_interval,
            rates_enabled=False,
            now=now,
            rng=self.rng,
        )
        # staggered first reads: spread over one pacing step per order already waiting
        policy.tracks[Kind.ORDER].next_due = now + self.pacing * self._unread
        self._unread += 1
        watched = self.orders[token] = Watched(token, policy)
        if not self._plan[0]:
            self._retune(now)  # the first plan
        else:
            # this order from the plan as it is; the whole list is planned again before the
            # next request (a full retune per order made adding 5,000 quadratic)
            self._tune(watched, now)
            self._retuned_at = NEVER
        return True

    def remove(self, token: str, now: float) -> None:
        watched = self.orders.pop(token, None)
        if watched is not None and watched.policy.tracks[Kind.ORDER].last_success is None:
            self._unread -= 1
        self._index.drop(token)
        self._retuned_at = NEVER

    def focus(self, tokens: Set[str], now: float, *, pos: Set[str] = frozenset()) -> None:
        """The orders on screen (the detail pane, the POS screen): read them first and often.
        `pos`: those on a point-of-sale screen, whose rate comes first when the budget is short."""
        tokens = tokens | pos
        for token, watched in self.orders.items():
            was = watched.focused
            watched.focused = token in tokens
            watched.pos = token in pos
            if watched.focused and not was:
                watched.policy.request_now(Kind.ORDER, now)
        self._retune(now)
        for token in tokens:
            shown = self.orders.get(token)
            if shown is not None:
                shown.policy.request_now(Kind.RATES, now)
                self._reindex(shown)

    def note_result(
        self,
        token: str,
        now: float,
        *,
        activity: bool,
        closed: bool,
        closed_unpaid_for: float | None = None,
    ) -> None:
        """After a successful read: `activity` = new transaction or status change;
        `closed_unpaid_for` = seconds since the order closed unpaid (expired, canceled), None
        when it did not (its late window runs from then, set once)."""
        watched = self.orders.get(token)
        if watched is None:
            return
        was_closed = watched.closed
        watched.closed = closed
        if closed_unpaid_for is None:
            late_changed = watched.late_until is not None
            watched.late_until = None
        else:
            late_changed = watched.late_until is None
            if late_changed:
                watched.late_until = now - max(closed_unpaid_for, 0.0) + self.late_window
        if activity:
            watched.last_activity = now
            if watched.focused:
                watched.policy.request_now(Kind.RATES, now)
            elif self.rates_enabled and not watched.rate_once:
                watched.rate_once = True
                watched.rate_once_since = now
        if activity or closed != was_closed or late_changed:
            # this order's interval now; the list's share at the next full retune
            self._tune(watched, now)
        self._reindex(watched)

    def refresh_now(self, token: str, now: float) -> None:
        watched = self.orders.get(token)
        if watched is not None:
            for kind in Kind:
                watched.policy.request_now(kind, now)
            self._reindex(watched)

    # -- budget ------------------------------------------------------------------------------

    @property
    def pacing(self) -> float:
        """Seconds between background getOrder starts: the order budget's even pace, slower
        while orders on screen take their share (a customer's, read every second or two,
        would otherwise wait for the minute's cap)."""
        return max(self.budgets[Kind.ORDER].emission_interval, self._background_step)

    def _focused_poll_intervals(self) -> tuple[float, float]:
        """The poll intervals of the orders before a customer and of the other orders on
        screen, stretched when they alone would spend more than the order budget's planned
        share (the customer's first: a payment must show at once where it is looked at)."""
        customer = sum(1 for w in self.orders.values() if w.focused and w.pos)
        screen = sum(1 for w in self.orders.values() if w.focused and not w.pos)
        capacity = self.budgets[Kind.ORDER].per_minute_paced * (1 - HEADROOM)
        # never slower than the other orders on screen (a poll_interval set under it)
        wanted = min(self.customer_poll_interval or self.poll_interval, self.poll_interval)
        customer_interval = max(wanted, WINDOW * customer / capacity) if customer else wanted
        left = max(capacity - customer * WINDOW / customer_interval, capacity * HEADROOM)
        screen_interval = self.poll_interval
        if screen:
            screen_interval = max(self.poll_interval, WINDOW * screen / left)
        return customer_interval, screen_interval

    def _focused_cost(self) -> float:
        """getOrder requests a minute the orders on screen take from the plan."""
        customer_interval, screen_interval = self._focused_poll_intervals()
        return sum(
            WINDOW / (customer_interval if w.pos else screen_interval)
            for w in self.orders.values()
            if w.focused
        )

    def _rate_intervals(self) -> tuple[float, float, bool]:
        """(POS orders' rate interval, other focused orders' rate interval, one-off calls
        allowed): the rate budget goes to the POS orders first, then to the order on screen."""
        capacity = self.budgets[Kind.RATES].per_minute_paced * (1 - HEADROOM)
        pos = sum(1 for w in self.orders.values() if w.pos)
        screen = sum(1 for w in self.orders.values() if w.focused and not w.pos)
        per_order = WINDOW / self.refresh_interval
        pos_interval = self.refresh_interval
        if pos and pos * per_order > capacity:
            pos_interval = WINDOW * pos / capacity
        left = capacity - min(pos * per_order, capacity)
        screen_interval = self.refresh_interval
        if screen and screen * per_order > left:
            # what is left, or else the headroom the plan keeps
            share = left if left > 0 else self.budgets[Kind.RATES].per_minute_paced * HEADROOM
            screen_interval = WINDOW * screen / share
        return pos_interval, screen_interval, left - screen * per_order > 0

    def background_interval(self, extra: int = 0, now: float | None = None) -> float:
        """How often a background order can be read, all of them sharing what the budget leaves
        (a recent order counts `RECENT_SPEEDUP` times, a closed one at its own slow pace)."""
        capacity = self.budgets[Kind.ORDER].per_minute_paced
        focused = recent = closed = late = over = 0
        for watched in self.orders.values():
            if watched.focused:
                focused += 1
            elif now is not None and watched.priority(now) is Priority.RECENT:
                recent += 1
            elif watched.closed and watched.late_until is None:
                closed += 1
            elif watched.closed:
                # within its late window it costs its pace; after it, nothing (not read
                # unless on screen)
                closed += 1
                if now is None or not watched.late_over(now):
                    late += 1
                else:
                    over += 1
        closed_cost = (closed - late - over) * WINDOW / CLOSED_INTERVAL
        if late:
            closed_cost += late * WINDOW / self.late_interval(now)
        spare = capacity * (1 - HEADROOM) - self._focused_cost() - closed_cost
        spare = max(spare, capacity * HEADROOM)
        shares = len(self.orders) - focused - closed + extra + (RECENT_SPEEDUP - 1) * recent
        return max(self.poll_interval * 3, WINDOW * shares / spare)

    def late_interval(self, now: float | None = None) -> float:
        """How often an order within its late window is read (`late.py`): never less often
        than an ordinary closed order, however many share the window."""
        late = sum(
            1
            for w in self.orders.values()
            if w.late_until is not None and not w.focused and (now is None or not w.late_over(now))
        )
        return min(late_interval(late, self.budgets[Kind.ORDER].per_minute_paced), CLOSED_INTERVAL)

    def sweep_bound(self) -> float:
        """Seconds within which every background order is read at least once (the round robin)."""
        return self.background_interval() + self.pacing * max(len(self.orders), 1)

    def planned_per_minute(self, kind: Kind) -> float:
        """Requests a minute of `kind` the current plan makes (for the budget view)."""
        total = 0.0
        for watched in self.orders.values():
            track = watched.policy.tracks[kind]
            if track.enabled:
                total += WINDOW / track.interval
        return min(total, self.budgets[kind].per_minute_paced)

    def budget_use(self, now: float) -> list[BudgetUse]:
        """Each budget's use now (last minute, last hour) and the plan's projection."""
        kinds = [Kind.ORDER, Kind.RATES] if self.rates_enabled else [Kind.ORDER]
        return [self.budgets[k].use(now, self.planned_per_minute(k)) for k in kinds]

    def rate_held_by_budget(self, token: str, now: float) -> bool:
        """The rate of `token`, an order on screen, is refreshed less often than the service
        renews it (every minute) because the rate budget is short or held."""
        watched = self.orders.get(token)
        if watched is None or not watched.focused or not self.rates_enabled:
            return False
        track = watched.policy.tracks[Kind.RATES]
        if track.interval > self.refresh_interval and track.interval > WINDOW:
            return True
        # older than the service's minute, and the budget (its pace or a hold) is why
        last = track.last_success
        old = last is not None and now - last > self.refresh_interval + 1.0
        return old and not track.in_flight and not self.budgets[Kind.RATES].allows(now)

    def status(self, token: str, now: float) -> dict[Kind, TrackStatus]:
        watched = self.orders.get(token)
        if watched is None:
            return {}
        statuses = watched.policy.status(now)
        if self.rate_held_by_budget(token, now):
            rates = statuses[Kind.RATES]
            statuses[Kind.RATES] = TrackStatus(
                rates.enabled, rates.in_flight, rates.failures, rates.next_in, budget_held=True
            )
        return statuses

    def _retune(self, now: float) -> None:
        """Plan the list's intervals again and give each order those of its priority."""
        pos_rate, screen_rate, self._rate_once_allowed = self._rate_intervals()
        customer_interval, screen_interval = self._focused_poll_intervals()
        self._background_step = 0.0
        if customer_interval < self.poll_interval and any(
            w.pos and w.focused for w in self.orders.values()
        ):
            # a customer's order read every second or two must never wait for the minute's
            # cap or the hour's pace: the background takes what the orders on screen leave
            capacity = self.budgets[Kind.ORDER].per_minute_paced
            spare = capacity * (1 - HEADROOM) - self._focused_cost()
            self._background_step = WINDOW / max(spare, capacity * HEADROOM)
        self._late_interval = self.late_interval(now)
        self._plan = (
            self.background_interval(now=now),
            screen_interval,
            pos_rate,
            screen_rate,
            customer_interval,
        )
        self._retuned_at = now
        for watched in self.orders.values():
            self._tune(watched, now)

    def _tune(self, watched: Watched, now: float) -> None:
        """Give one order the intervals of its priority, from the last plan."""
        background, focused_interval, pos_rate, screen_rate, customer_interval = self._plan
        order_track = watched.policy.tracks[Kind.ORDER]
        rates_track = watched.policy.tracks[Kind.RATES]
        priority = watched.priority(now)
        if priority is Priority.FOCUSED:
            interval = customer_interval if watched.pos else focused_interval
        elif priority is Priority.RECENT:
            interval = max(self.poll_interval * 2, background / RECENT_SPEEDUP)
        elif priority is Priority.CLOSED and watched.late_until is not None:
            interval = self._late_interval
        elif priority is Priority.CLOSED:
            interval = max(CLOSED_INTERVAL, background)
        else:
            interval = background
        # an order closed unpaid whose late window is over is read only while on screen
        order_track.enabled = watched.focused or not watched.late_over(now)
        if interval < order_track.interval and order_track.failures == 0:
            order_track.next_due = min(order_track.next_due, now + interval)
        order_track.interval = interval
        rates_track.enabled = watched.focused and self.rates_enabled
        rate_interval = pos_rate if watched.pos else screen_rate
        if rate_interval < rates_track.interval and rates_track.failures == 0:
            rates_track.next_due = min(rates_track.next_due, now + rate_interval)
        rates_track.interval = rate_interval
        self._reindex(watched)

    def _reindex(self, watched: Watched) -> None:
        """Record what `watched` waits for, after anything that may have changed it."""
        entries = set()
        for kind, track in watched.policy.tracks.items():
            if track.enabled and not track.in_flight:
                if kind is Kind.RATES:
                    lane = Lane.RATES
                elif watched.focused:
                    lane = Lane.FOCUSED_ORDER
                else:
                    lane = Lane.BACKGROUND_ORDER
                entries.add((lane, track.next_due, kind))
        if self._rate_once_waiting(watched):
            entries.add((Lane.RATE_ONCE, watched.rate_once_since, Kind.RATES))
        self._index.set(watched.token, frozenset(entries))

    # -- what to run -------------------------------------------------------------------------

    def _head_start(self, watched: Watched, kind: Kind, now: float) -> float:
        if kind is Kind.RATES and watched.pos:
            return 2 * HEAD_START[Priority.FOCUSED]
        return HEAD_START[watched.priority(now)]

    def _lane_gate(self, lane: Lane, now: float) -> float:
        """When the gates of `lane` (its budget, its reserve, the background pace) next open."""
        kind = Kind.ORDER if lane in (Lane.FOCUSED_ORDER, Lane.BACKGROUND_ORDER) else Kind.RATES
        reserve = RATE_ONCE_RESERVE if lane is Lane.RATE_ONCE else 0.0
        gate = self.budgets[kind].next_free(now, reserve=reserve)
        if lane is Lane.BACKGROUND_ORDER:
            gate = max(gate, self._last_background_start + self.pacing)
        if lane is Lane.RATE_ONCE and not self._rate_once_allowed:
            gate = float("inf")
        return gate

    def _candidates(self, now: float) -> list[tuple[float, str, Kind]]:
        # a lane whose gate is shut adds nothing: its backlog is not even looked at
        lanes = {lane for lane in Lane if self._lane_gate(lane, now) <= now}
        queue = []
        for lane, due, token, kind in self._index.due(now, lanes):
            watched = self.orders[token]
            head_start = (
                HEAD_START[watched.priority(now)]
                if lane is Lane.RATE_ONCE
                else self._head_start(watched, kind, now)
            )
            queue.append((due - head_start, token, kind))
        queue.sort(key=lambda item: (item[0], item[1], item[2].value))
        return queue

    @staticmethod
    def _rate_once_waiting(watched: Watched) -> bool:
        return watched.rate_once and not watched.rate_in_flight and not watched.focused

    def _reserve(self, watched: Watched, kind: Kind) -> float:
        """One-off rate calls leave part of the rate budget's burst to the orders on screen."""
        return RATE_ONCE_RESERVE if kind is Kind.RATES and not watched.focused else 0.0

    def due_requests(self, now: float) -> list[tuple[str, Kind]]:
        """Requests to start now; call `started` for each one actually started."""
        if now - self._retuned_at >= RETUNE_EVERY:
            self._retune(now)
        chosen: list[tuple[str, Kind]] = []
        if self._in_flight >= self.concurrency:
            return chosen
        in_flight = self._in_flight
        pending = dict.fromkeys(Kind, 0)
        #: gates found shut in this call stay shut in it (pending starts only add up)
        shut: set[tuple[Kind, float]] = set()
        background_shut = False
        for _, token, kind in self._candidates(now):
            if in_flight >= self.concurrency:
                break
            watched = self.orders[token]
            background_order = kind is Kind.ORDER and not watched.focused
            if background_order and background_shut:
                continue
            gate = (kind, self._reserve(watched, kind))
            if gate in shut:
                continue
            if not self.budgets[kind].allows(now, pending=pending[kind], reserve=gate[1]):
                shut.add(gate)
                continue
            chosen.append((token, kind))
            in_flight += 1
            pending[kind] += 1
            if background_order:
                # the next background start is one pacing step away
                background_shut = True
        return chosen

    def spent_extra(self, kind: Kind, now: float) -> None:
        """A request of `kind`'s endpoint family that no plan started (the client's log-in)."""
        self.budgets[kind].spend(now)

    def started(self, token: str, kind: Kind, now: float) -> None:
        watched = self.orders[token]
        self.budgets[kind].spend(now)
        self._in_flight += 1
        if kind is Kind.ORDER and not watched.focused:
            self._last_background_start = now
        if kind is Kind.RATES and not watched.focused:
            watched.rate_once = False
            watched.rate_in_flight = True
        else:
            watched.policy.started(kind, now)
        self._reindex(watched)

    def succeeded(self, token: str, kind: Kind, now: float) -> None:
        self._in_flight -= 1
        watched = self.orders.get(token)
        if watched is None:
            return
        if watched.rate_in_flight and kind is Kind.RATES:
            watched.rate_in_flight = False
        else:
            if kind is Kind.ORDER and watched.policy.tracks[kind].last_success is None:
                self._unread -= 1
            watched.policy.succeeded(kind, now)
        self._reindex(watched)

    def failed(
        self,
        token: str,
        kind: Kind,
        now: float,
        *,
        retry_after: float | None = None,
        persistent: bool = False,
        rate_limited: bool = False,
    ) -> float:
        """Record a failure; returns the delay before this order's next try of `kind`."""
        self._in_flight -= 1
        if rate_limited:
            # the endpoint that refused names the budget: the other one goes on
            hold = DEFAULT_LIMIT_HOLD if retry_after is None else retry_after
            self.budgets[kind].hold(now + hold)
        watched = self.orders.get(token)
        if watched is None:
            return 0.0
        if watched.rate_in_flight and kind is Kind.RATES:
            watched.rate_in_flight = False
            self._reindex(watched)
            return 0.0
        delay = watched.policy.failed(kind, now, retry_after=retry_after, persistent=persistent)
        if not watched.focused:
            # off screen, a failing order must not cost more than a healthy one: at least its
            # interval, growing while it keeps failing
            track = watched.policy.tracks[kind]
            growth = min(2 ** (track.failures - 1), MAX_BACKGROUND_BACKOFF)
            delay = max(delay, track.interval * growth * (0.75 + 0.25 * self.rng.random()))
            track.next_due = now + delay
        self._reindex(watched)
        return delay

    def next_wakeup(self, now: float) -> float | None:
        """When `due_requests` may next return something; None: only after a request ends.

        Never `now` unless a request can start at once, so a loop driven by it cannot spin.
        """
        earliest: float | None = None
        for lane in Lane:
            due = self._index.earliest(lane)
            if due is None:
                continue
            start = max(due, self._lane_gate(lane, now))
            if start == float("inf"):
                continue
            earliest = start if earliest is None else min(earliest, start)
        if earliest is None:
            return None
        if earliest <= now:
            if self._in_flight >= self.concurrency:
                return None
            return now
        return earliest
