"""Which order to read next, for a whole watch list, within the service's request budgets.

The service publishes two limits per kind of endpoint (getOrder: 200 a minute and 10,000 an
hour; the rate endpoint: 200 a minute and 1,000 an hour); an operator may watch hundreds of
orders. Each order keeps its own `RefreshPolicy` (one request per kind in flight, backoff,
Retry-After); this scheduler decides which of the due requests may start now:

- two budgets, one per endpoint (`budget.py`), each kept in every 60 s and 3600 s window and
  paced evenly over the hour; at most `concurrency` requests in flight;
- pacing: background getOrder requests start at least one budget step apart, so a long list is
  swept smoothly instead of in bursts (and the first sweep is staggered);
- priority as a head start in time, not a strict order: the orders on screen first (polled
  every poll interval, rate every refresh interval; those a customer is looking at, on a
  point-of-sale screen or the customer display, every customer poll interval, so that a
  payment shows within seconds), then every other order by when its read is needed (its due
  time plus its interval, `plan.py`): one with recent activity, planned three times as often,
  goes before a quiet one due at the same time, and a quiet one that has waited longer than
  that difference goes before it; closed orders (paid, expired, canceled) are read rarely;
- fairness, the bound: every open order not on screen is read again within `FAIR_BOUND` (2)
  times its planned interval of its last read, however busy the others are, while its reads
  succeed and no 429 holds the budget (a failing order backs off, a hold stops every read). A
  payment storm into some orders stretches everyone's interval, as a busy order counts three
  shares, but starves none: with 20 orders at a 1 s poll interval, 15 of them paid into every
  second, the busy ones are read about every 7 s and the quiet ones every 21 s. It holds because
  the plan never asks more than the background pace (it is made again within a second of an
  order turning busy, `plan.py`) and the read needed first goes first;
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
from orderdash.core.polling.late import DEFAULT_LATE_WINDOW
from orderdash.core.polling.plan import NEVER, WINDOW, Plan
from orderdash.core.polling.refresh import Kind, RefreshPolicy, TrackStatus
from orderdash.core.polling.watched import Watched

if TYPE_CHECKING:
    from collections.abc import Set

    from orderdash.core.polling.budget_use import BudgetUse

#: A 429 without Retry-After holds its budget this long (the per-minute window).
DEFAULT_LIMIT_HOLD = 60.0
#: Share of the rate budget's burst that one-off rate calls leave to the orders on screen.
RATE_ONCE_RESERVE = 0.5
#: A background order that keeps failing waits up to this many times its interval.
MAX_BACKGROUND_BACKOFF = 8
#: Every order not on screen is read again within this many times its planned interval.
FAIR_BOUND = 2
#: The longest head start a request of an order off screen gets (`due_queue.HEAD_START`).
OFF_SCREEN_HEAD_START = max(v for p, v in HEAD_START.items() if p is not Priority.FOCUSED)


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
    _index: DueIndex = field(default_factory=DueIndex, init=False)
    #: How often each order is read (`plan.py`).
    _plan: Plan = field(init=False)
    #: Orders not read successfully yet (their first reads are staggered).
    _unread: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.budgets = {
            Kind.ORDER: Budget("getOrder", self.budget_per_minute, self.budget_per_hour),
            Kind.RATES: Budget("rate", self.rate_budget_per_minute, self.rate_budget_per_hour),
        }
        self._plan = Plan(
            poll_interval=self.poll_interval,
            refresh_interval=self.refresh_interval,
            rates_enabled=self.rates_enabled,
            customer_poll_interval=self.customer_poll_interval,
            orders=self.orders,
            budgets=self.budgets,
        )

    # -- the list ----------------------------------------------------------------------------

    def add(self, token: str, now: float) -> bool:
        """Watch `token`; False if it is watched already."""
        if token in self.orders:
            return False
        policy = RefreshPolicy(
            # a start: `_tune` gives it its interval from the plan
            poll_interval=max(self._plan.intervals[0], self.poll_interval),
            refresh_interval=self.refresh_interval,
            rates_enabled=False,
            now=now,
            rng=self.rng,
        )
        # staggered first reads: spread over one pacing step per order already waiting
        policy.tracks[Kind.ORDER].next_due = now + self.pacing * self._unread
        self._unread += 1
        watched = self.orders[token] = Watched(token, policy)
        if not self._plan.intervals[0]:
            self._retune(now)  # the first plan
        else:
            # this order from the plan as it is; the whole list is planned again before the
            # next request (a full retune per order made adding 5,000 quadratic)
            self._tune(watched, now)
            self._plan.made_at = NEVER
        return True

    def remove(self, token: str, now: float) -> None:
        watched = self.orders.pop(token, None)
        if watched is not None and watched.policy.tracks[Kind.ORDER].last_success is None:
            self._unread -= 1
        self._index.drop(token)
        self._plan.made_at = NEVER

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
        was = watched.priority(now)
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
            # this order's interval now, from the plan as it is; the list's share soon after a
            # change of priority (an order turned busy costs three shares: planned at the old
            # share, a storm into many orders asks more than the pace and starves the rest)
            self._tune(watched, now)
            if late_changed or watched.priority(now) is not was:
                self._plan.stale = True
        self._reindex(watched)

    def refresh_now(self, token: str, now: float) -> None:
        watched = self.orders.get(token)
        if watched is not None:
            for kind in Kind:
                watched.policy.request_now(kind, now)
            self._reindex(watched)

    def fallback(self, pace: float, now: float) -> None:
        """Poll each order not before a customer at most every `pace` seconds (the service's
        callbacks tell payments meanwhile); 0: full polling again."""
        self._plan.fallback = pace
        self._retune(now)

    def pushed(self, token: str, now: float) -> None:
        """An answer for `token` came without a request (announced on the book): it counts as
        its read, so its next poll waits a whole interval from now."""
        watched = self.orders.get(token)
        if watched is None:
            return
        track = watched.policy.tracks[Kind.ORDER]
        if track.last_success is not None and not track.in_flight and not track.pending:
            track.next_due = max(track.next_due, now + track.interval)
            self._reindex(watched)

    # -- budget ------------------------------------------------------------------------------

    @property
    def pacing(self) -> float:
        """Seconds between background getOrder starts (`Plan.pacing`)."""
        return self._plan.pacing

    def background_interval(self, extra: int = 0, now: float | None = None) -> float:
        """How often a background order can be read (`Plan.background_interval`)."""
        return self._plan.background_interval(extra, now)

    def late_interval(self, now: float | None = None) -> float:
        """How often an order within its late window is read (`Plan.late_interval`)."""
        return self._plan.late_interval(now)

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
        self._plan.make(now)
        for watched in self.orders.values():
            self._reindex(watched)

    def _tune(self, watched: Watched, now: float) -> None:
        """Give one order the intervals of its priority, from the last plan."""
        self._plan.tune(watched, now)
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
        if lane is Lane.RATE_ONCE and not self._plan.rate_once_allowed:
            gate = float("inf")
        return gate

    def _open_lanes(self, now: float) -> list[Lane]:
        """The lanes whose gates are open at `now` (`_lane_gate`, each budget asked once)."""
        lanes = []
        if self.budgets[Kind.ORDER].next_free(now) <= now:
            lanes.append(Lane.FOCUSED_ORDER)
            if self._last_background_start + self.pacing <= now:
                lanes.append(Lane.BACKGROUND_ORDER)
        rates = self.budgets[Kind.RATES]
        if rates.next_free(now) <= now:
            lanes.append(Lane.RATES)
        once = rates.next_free(now, reserve=RATE_ONCE_RESERVE)
        if once <= now and self._plan.rate_once_allowed:
            lanes.append(Lane.RATE_ONCE)
        return lanes

    def _candidates(self, now: float) -> list[tuple[float, str, str, Kind]]:
        """The due requests of the open lanes, first to start first: (key, order, kind's name
        to break ties, kind)."""
        # a lane whose gate is shut adds nothing: its backlog is not even looked at
        room = self.concurrency - self._in_flight
        queue = []
        for lane in self._open_lanes(now):
            queue += self._lane_candidates(lane, now, room)
        queue.sort()
        return queue

    def _key(self, lane: Lane, due: float, watched: Watched, kind: Kind, now: float) -> float:
        """A waiting request's place in the queue: the smallest key goes first."""
        if lane is Lane.BACKGROUND_ORDER:
            # by when the read is needed, its due time plus its interval: a busy order (a third
            # of a quiet one's interval) goes first among those due together, yet its head
            # start is that difference, not a fixed time, and a quiet order that has waited
            # longer goes before it (a fixed minute starved the quiet orders for a minute
            # whenever the busy ones asked more than the pace)
            return due + watched.policy.tracks[Kind.ORDER].interval
        if lane is Lane.RATE_ONCE:
            return due - HEAD_START[watched.priority(now)]
        return due - self._head_start(watched, kind, now)

    def _lane_candidates(
        self, lane: Lane, now: float, room: int
    ) -> list[tuple[float, str, str, Kind]]:
        """The due requests of `lane` that may start now, as `_candidates` gives them.

        Of the background reads one at most starts in a call, of the one-off rate calls at
        most `room` (each that starts takes a place, the first refused shuts their budget for
        the call): a backlog of hundreds is read, earliest due first, only until no later
        request can come before those (a key is never more than `slack` before its due time).
        The other lanes, the orders on screen, are read whole."""
        index = self._index
        if lane is Lane.BACKGROUND_ORDER:
            keep, slack = 1, 0.0
        elif lane is Lane.RATE_ONCE:
            keep, slack = room, OFF_SCREEN_HEAD_START
        else:
            keep, slack = 0, 0.0
        taken = []
        found: list[tuple[float, str, str, Kind]] = []
        while (item := index.pop_due(lane, now)) is not None:
            taken.append(item)
            due, token, kind = item
            watched = self.orders[token]
            key = self._key(lane, due, watched, kind, now)
            if watched.focused or key < due - slack:
                # not what the bound counts on (`focus` indexes every order again, so an order
                # on screen waits in no background lane): the lane is read whole
                keep = 0
            found.append((key, token, kind.value, kind))
            if keep and len(found) >= keep:
                found.sort()
                del found[keep:]
                if found[-1][0] < index.next_due(lane) - slack:
                    break
        index.put_back(lane, taken)
        return found

    @staticmethod
    def _rate_once_waiting(watched: Watched) -> bool:
        return watched.rate_once and not watched.rate_in_flight and not watched.focused

    def _reserve(self, watched: Watched, kind: Kind) -> float:
        """One-off rate calls leave part of the rate budget's burst to the orders on screen."""
        return RATE_ONCE_RESERVE if kind is Kind.RATES and not watched.focused else 0.0

    def due_requests(self, now: float) -> list[tuple[str, Kind]]:
        """Requests to start now; call `started` for each one actually started."""
        if self._plan.due(now):
            self._retune(now)
        chosen: list[tuple[str, Kind]] = []
        if self._in_flight >= self.concurrency:
            return chosen
        in_flight = self._in_flight
        pending = dict.fromkeys(Kind, 0)
        #: gates found shut in this call stay shut in it (pending starts only add up)
        shut: set[tuple[Kind, float]] = set()
        background_shut = False
        for _, token, _, kind in self._candidates(now):
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
