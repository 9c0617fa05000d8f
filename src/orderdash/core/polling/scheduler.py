"""Which order to read next, for a whole watch list, within the service's request budget.

The service allows 200 requests a minute per endpoint; an operator may watch hundreds of orders.
Each order keeps its own `RefreshPolicy` (one request per kind in flight, backoff, Retry-After);
this scheduler decides which of the due requests may start now:

- a hard budget: never more than `budget_per_minute` request starts in any 60 s window, all
  orders and both endpoints together, and at most `concurrency` requests in flight;
- pacing: background requests start at least 60/budget s apart, so a long list is swept
  smoothly instead of in bursts (and the first sweep is staggered);
- priority as a head start in time, not a strict order, so nothing starves: the orders on screen
  first (polled every poll interval, rate every refresh interval), then orders with recent
  activity, then the rest round-robin, closed orders (paid, expired, canceled) rarely;
- the rate call runs for the orders on screen, and once for any order right after a new
  transaction;
- a Retry-After from the service holds every request until it has passed.

Pure policy: time is passed in (monotonic seconds), nothing here does I/O.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from enum import IntEnum

from orderdash.core.polling.refresh import Kind, RefreshPolicy

WINDOW = 60.0
#: An order with a new transaction or status change within this many seconds is "recent".
RECENT_SECONDS = 300.0
#: Closed orders are still read now and then: a late payment or a refund can arrive.
CLOSED_INTERVAL = 600.0
#: A background order that keeps failing waits up to this many times its interval.
MAX_BACKGROUND_BACKOFF = 8
#: Share of the budget kept free for the orders on screen and for one-off rate calls.
HEADROOM = 0.1


class Priority(IntEnum):
    FOCUSED = 0
    RECENT = 1
    NORMAL = 2
    CLOSED = 3


#: Head start (seconds) a due request gets in the queue by priority.
HEAD_START = {
    Priority.FOCUSED: 1e9,
    Priority.RECENT: 60.0,
    Priority.NORMAL: 0.0,
    Priority.CLOSED: -60.0,
}


@dataclass
class Watched:
    token: str
    policy: RefreshPolicy
    focused: bool = False
    closed: bool = False
    last_activity: float | None = None
    #: A one-off rate call is wanted (new transaction on an order not on screen).
    rate_once: bool = False
    rate_in_flight: bool = False

    def priority(self, now: float) -> Priority:
        if self.focused:
            return Priority.FOCUSED
        if self.last_activity is not None and now - self.last_activity < RECENT_SECONDS:
            return Priority.RECENT
        if self.closed:
            return Priority.CLOSED
        return Priority.NORMAL


@dataclass
class Scheduler:
    poll_interval: float
    refresh_interval: float
    rates_enabled: bool
    now: float
    budget_per_minute: int = 200
    concurrency: int = 6
    rng: random.Random = field(default_factory=random.Random)
    orders: dict[str, Watched] = field(default_factory=dict, init=False)
    _starts: deque[float] = field(default_factory=deque, init=False)
    _last_background_start: float = field(default=-1e18, init=False)
    _in_flight: int = field(default=0, init=False)
    hold_until: float = field(default=-1e18, init=False)

    # -- the list ----------------------------------------------------------------------------

    def add(self, token: str, now: float) -> bool:
        """Watch `token`; False if it is watched already."""
        if token in self.orders:
            return False
        policy = RefreshPolicy(
            poll_interval=self.background_interval(extra=1),
            refresh_interval=self.refresh_interval,
            rates_enabled=False,
            now=now,
            rng=self.rng,
        )
        # staggered first reads: spread over one pacing step per order already waiting
        policy.tracks[Kind.ORDER].next_due = now + self.pacing * self._waiting_first_reads()
        self.orders[token] = Watched(token, policy)
        self._retune(now)
        return True

    def remove(self, token: str, now: float) -> None:
        self.orders.pop(token, None)
        self._retune(now)

    def focus(self, tokens: set[str], now: float) -> None:
        """The orders on screen (the detail pane, the POS screen): read them first and often."""
        for token, watched in self.orders.items():
            was = watched.focused
            watched.focused = token in tokens
            if watched.focused and not was:
                watched.policy.request_now(Kind.ORDER, now)
        self._retune(now)
        for token in tokens:
            watched = self.orders.get(token)
            if watched is not None:
                watched.policy.request_now(Kind.RATES, now)

    def note_result(self, token: str, now: float, *, activity: bool, closed: bool) -> None:
        """After a successful read: `activity` = new transaction or status change."""
        watched = self.orders.get(token)
        if watched is None:
            return
        was_closed = watched.closed
        watched.closed = closed
        if activity:
            watched.last_activity = now
            if watched.focused:
                watched.policy.request_now(Kind.RATES, now)
            elif self.rates_enabled:
                watched.rate_once = True
        if activity or closed != was_closed:
            self._retune(now)

    def refresh_now(self, token: str, now: float) -> None:
        watched = self.orders.get(token)
        if watched is not None:
            for kind in Kind:
                watched.policy.request_now(kind, now)

    # -- budget ------------------------------------------------------------------------------

    @property
    def pacing(self) -> float:
        """Seconds between background request starts."""
        return WINDOW / self.budget_per_minute

    def background_interval(self, extra: int = 0) -> float:
        """How often a background order can be read, all of them sharing what the budget leaves."""
        focused = [w for w in self.orders.values() if w.focused]
        per_focused = WINDOW / self.poll_interval + (
            WINDOW / self.refresh_interval if self.rates_enabled else 0
        )
        spare = self.budget_per_minute * (1 - HEADROOM) - per_focused * len(focused)
        spare = max(spare, self.budget_per_minute * HEADROOM)
        background = len(self.orders) - len(focused) + extra
        return max(self.poll_interval * 3, WINDOW * background / spare)

    def sweep_bound(self) -> float:
        """Seconds within which every background order is read at least once (the round robin)."""
        return self.background_interval() + self.pacing * max(len(self.orders), 1)

    def _budget_free(self, now: float) -> bool:
        # `start + WINDOW` as in next_wakeup's blocker, so both agree to the last bit
        while self._starts and self._starts[0] + WINDOW <= now:
            self._starts.popleft()
        return len(self._starts) < self.budget_per_minute

    def _waiting_first_reads(self) -> int:
        tracks = (w.policy.tracks[Kind.ORDER] for w in self.orders.values())
        return sum(1 for track in tracks if track.last_success is None)

    def _retune(self, now: float) -> None:
        """Give each order the intervals of its priority."""
        background = self.background_interval()
        for watched in self.orders.values():
            order_track = watched.policy.tracks[Kind.ORDER]
            rates_track = watched.policy.tracks[Kind.RATES]
            priority = watched.priority(now)
            if priority is Priority.FOCUSED:
                interval = self.poll_interval
            elif priority is Priority.RECENT:
                interval = max(self.poll_interval * 2, background / 3)
            elif priority is Priority.CLOSED:
                interval = max(CLOSED_INTERVAL, background)
            else:
                interval = background
            if interval < order_track.interval and order_track.failures == 0:
                order_track.next_due = min(order_track.next_due, now + interval)
            order_track.interval = interval
            rates_track.enabled = watched.focused and self.rates_enabled

    # -- what to run -------------------------------------------------------------------------

    def _candidates(self, now: float) -> list[tuple[float, str, Kind]]:
        queue = []
        for token, watched in self.orders.items():
            head_start = HEAD_START[watched.priority(now)]
            for kind in watched.policy.due(now):
                queue.append((watched.policy.tracks[kind].next_due - head_start, token, kind))
            if watched.rate_once and not watched.rate_in_flight and not watched.focused:
                queue.append((now - head_start, token, Kind.RATES))
        queue.sort(key=lambda item: (item[0], item[1], item[2].value))
        return queue

    def due_requests(self, now: float) -> list[tuple[str, Kind]]:
        """Requests to start now; call `started` for each one actually started."""
        if now < self.hold_until:
            return []
        chosen: list[tuple[str, Kind]] = []
        in_flight = self._in_flight
        starts = len(self._starts) if self._budget_free(now) else self.budget_per_minute
        last_background = self._last_background_start
        for _, token, kind in self._candidates(now):
            if in_flight >= self.concurrency or starts >= self.budget_per_minute:
                break
            focused = self.orders[token].focused
            # same comparison as in next_wakeup, so both agree to the last bit
            if not focused and now < last_background + self.pacing:
                continue
            chosen.append((token, kind))
            in_flight += 1
            starts += 1
            if not focused:
                last_background = now
        return chosen

    def started(self, token: str, kind: Kind, now: float) -> None:
        watched = self.orders[token]
        self._starts.append(now)
        self._in_flight += 1
        if not watched.focused:
            self._last_background_start = now
        if kind is Kind.RATES and not watched.focused:
            watched.rate_once = False
            watched.rate_in_flight = True
        else:
            watched.policy.started(kind, now)

    def succeeded(self, token: str, kind: Kind, now: float) -> None:
        self._in_flight -= 1
        watched = self.orders.get(token)
        if watched is None:
            return
        if watched.rate_in_flight and kind is Kind.RATES:
            watched.rate_in_flight = False
            return
        watched.policy.succeeded(kind, now)

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
        if rate_limited and retry_after is not None:
            self.hold_until = max(self.hold_until, now + retry_after)
        watched = self.orders.get(token)
        if watched is None:
            return 0.0
        if watched.rate_in_flight and kind is Kind.RATES:
            watched.rate_in_flight = False
            return 0.0
        delay = watched.policy.failed(kind, now, retry_after=retry_after, persistent=persistent)
        if not watched.focused:
            # off screen, a failing order must not cost more than a healthy one: at least its
            # interval, growing while it keeps failing
            track = watched.policy.tracks[kind]
            growth = min(2 ** (track.failures - 1), MAX_BACKGROUND_BACKOFF)
            delay = max(delay, track.interval * growth * (0.75 + 0.25 * self.rng.random()))
            track.next_due = now + delay
        return delay

    def next_wakeup(self, now: float) -> float | None:
        """When `due_requests` may next return something; None: only after a request ends.

        Never `now` unless a request can start at once, so a loop driven by it cannot spin.
        """
        earliest: float | None = None
        focused_due = False
        for watched in self.orders.values():
            wakeup = watched.policy.next_wakeup()
            if watched.rate_once and not watched.rate_in_flight:
                wakeup = now if wakeup is None else min(wakeup, now)
            if wakeup is None:
                continue
            earliest = wakeup if earliest is None else min(earliest, wakeup)
            focused_due = focused_due or (watched.focused and wakeup <= now)
        if earliest is None:
            return None
        if earliest > now:
            return max(earliest, self.hold_until)
        if self._in_flight >= self.concurrency:
            return None
        blockers = []
        if now < self.hold_until:
            blockers.append(self.hold_until)
        if not self._budget_free(now):
            blockers.append(self._starts[0] + WINDOW)
        if not focused_due and now < self._last_background_start + self.pacing:
            blockers.append(self._last_background_start + self.pacing)
        return max(blockers) if blockers else now

    def window_count(self, now: float) -> int:
        self._budget_free(now)
        return len(self._starts)
