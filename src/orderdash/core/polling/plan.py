"""How often each order of the watch list is read: the plan the scheduler (`scheduler.py`)
follows, made from the two budgets and the list as it is (docs/limits.md#our-budgets).

- the orders on screen every poll interval (those before a customer every customer poll
  interval), stretched when they alone would spend more than the getOrder budget's share;
- the rest share what the budget leaves, `HEADROOM` kept back: an order with recent activity
  counts `RECENT_SPEEDUP` shares and is read that many times as often, a closed order costs its
  own slow pace (`CLOSED_INTERVAL`, or the late watch's, `late.py`);
- the rate budget goes to the orders on a point-of-sale screen, then to those on screen, and
  what is left to one-off rate calls.

The whole list is planned again every `RETUNE_EVERY` seconds (recent activity fades) and, at
most once every `REPLAN_GAP` seconds, soon after an order's priority changes: an order that
turns busy counts three shares from then, so the plan never asks more of the pace than it has
(the scheduler's fairness bound rests on that).

Pure policy: time is passed in (monotonic seconds), nothing here does I/O.
"""

from __future__ import annotations

from orderdash.core.polling.budget import Budget
from orderdash.core.polling.due_queue import Priority
from orderdash.core.polling.late import LATE_INTERVAL, late_interval
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.watched import Watched

WINDOW = 60.0
#: Closed orders are still read now and then: a refund or a confirmation can arrive.
CLOSED_INTERVAL = 600.0
#: Share of the budget kept free for the orders on screen and for one-off rate calls.
HEADROOM = 0.1
#: A recent order is read this many times as often as a quiet one.
RECENT_SPEEDUP = 3
#: The whole list's intervals are planned again at least this often (recent activity fades).
RETUNE_EVERY = 30.0
#: After an order's priority changes the list is planned again, but not more often than this:
#: a plan of 5,000 orders costs about 10 ms, and a payment storm changes a priority per read.
REPLAN_GAP = 1.0
#: While the service's callbacks reach the book, an order is read this many times less often
#: than its plan says (and never more often than the fallback pace): polling alone reads a
#: long list somewhat ahead of its plan, so twice the interval would not halve its cost.
FALLBACK_SLOWDOWN = 3
#: A time before any other: a plan made then is due again.
NEVER = -1e18


class Plan:
    """The list's intervals (see the module's docstring); `make` plans the whole list, `tune`
    gives one order the intervals of its priority from the last plan."""

    def __init__(
        self,
        *,
        poll_interval: float,
        refresh_interval: float,
        rates_enabled: bool,
        customer_poll_interval: float | None,
        orders: dict[str, Watched],
        budgets: dict[Kind, Budget],
    ) -> None:
        self.poll_interval = poll_interval
        self.refresh_interval = refresh_interval
        self.rates_enabled = rates_enabled
        #: While the service's callbacks reach the book, the shortest getOrder interval of an
        #: order not before a customer (`push.py`); 0: none.
        self.fallback = 0.0
        #: getOrder interval of the orders before a customer (None: `poll_interval`).
        self.customer_poll_interval = customer_poll_interval
        #: The scheduler's own list and budgets (shared, not copied).
        self.orders = orders
        self.budgets = budgets
        #: (background, focused, POS rate, screen rate, customer) intervals of the last plan.
        self.intervals: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)
        self.made_at = NEVER
        #: An order's priority changed since the last plan.
        self.stale = False
        #: Seconds between background starts that leave the orders on screen their share of
        #: each minute (0: none on screen, the budget's even pace alone).
        self.background_step = 0.0
        #: How often an order within its late window is read.
        self.late_interval_now = LATE_INTERVAL
        #: One-off rate calls may run: the rate budget has room beyond the orders on screen.
        self.rate_once_allowed = True

    def due(self, now: float) -> bool:
        """The whole list is to be planned again before the next request."""
        age = now - self.made_at
        return age >= RETUNE_EVERY or (self.stale and age >= REPLAN_GAP)

    @property
    def pacing(self) -> float:
        """Seconds between background getOrder starts: the order budget's even pace, slower
        while orders on screen take their share (a customer's, read every second or two,
        would otherwise wait for the minute's cap)."""
        return max(self.budgets[Kind.ORDER].emission_interval, self.background_step)

    def focused_poll_intervals(self) -> tuple[float, float]:
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

    def focused_cost(self) -> float:
        """getOrder requests a minute the orders on screen take from the plan."""
        customer_interval, screen_interval = self.focused_poll_intervals()
        return sum(
            WINDOW / (customer_interval if w.pos else screen_interval)
            for w in self.orders.values()
            if w.focused
        )

    def rate_intervals(self) -> tuple[float, float, bool]:
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
        spare = capacity * (1 - HEADROOM) - self.focused_cost() - closed_cost
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

    def make(self, now: float) -> None:
        """Plan the list's intervals again and give each order those of its priority."""
        pos_rate, screen_rate, self.rate_once_allowed = self.rate_intervals()
        customer_interval, screen_interval = self.focused_poll_intervals()
        self.background_step = 0.0
        if customer_interval < self.poll_interval and any(
            w.pos and w.focused for w in self.orders.values()
        ):
            # a customer's order read every second or two must never wait for the minute's
            # cap or the hour's pace: the background takes what the orders on screen leave
            capacity = self.budgets[Kind.ORDER].per_minute_paced
            spare = capacity * (1 - HEADROOM) - self.focused_cost()
            self.background_step = WINDOW / max(spare, capacity * HEADROOM)
        self.late_interval_now = self.late_interval(now)
        self.intervals = (
            self.background_interval(now=now),
            screen_interval,
            pos_rate,
            screen_rate,
            customer_interval,
        )
        self.made_at = now
        self.stale = False
        for watched in self.orders.values():
            self.tune(watched, now)

    def tune(self, watched: Watched, now: float) -> None:
        """Give one order the intervals of its priority, from the last plan."""
        background, focused_interval, pos_rate, screen_rate, customer_interval = self.intervals
        order_track = watched.policy.tracks[Kind.ORDER]
        rates_track = watched.policy.tracks[Kind.RATES]
        priority = watched.priority(now)
        if priority is Priority.FOCUSED:
            interval = customer_interval if watched.pos else focused_interval
        elif priority is Priority.RECENT:
            interval = max(self.poll_interval * 2, background / RECENT_SPEEDUP)
        elif priority is Priority.CLOSED and watched.late_until is not None:
            interval = self.late_interval_now
        elif priority is Priority.CLOSED:
            interval = max(CLOSED_INTERVAL, background)
        else:
            interval = background
        if self.fallback and not (watched.focused and watched.pos):
            # the push tells payments: the poll is the fallback, FALLBACK_SLOWDOWN times less
            # often than polling alone (the customer's order is still read at its pace: what
            # a broken push shows first)
            interval = max(interval * FALLBACK_SLOWDOWN, self.fallback)
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
