"""One published request limit pair (per minute and per hour), kept in every sliding window.

The service publishes two limits per kind of endpoint: getOrder 200 a minute and 10,000 an hour
per IP; the rate endpoint 200 a minute and 1,000 an hour per API app. A `Budget` keeps both:

- hard caps: never more than `per_minute` starts in any 60 s window, nor `per_hour` in any
  3600 s window (the starts of the last hour are kept to check it);
- even pacing of the hourly cap, so a dashboard left on all day is never silent for the end of
  an hour: a generic cell rate algorithm (a token bucket) lets starts through at
  `per_hour - burst` an hour with a burst of `burst` on top, which keeps every 3600 s window at
  or under `per_hour` while the hard cap is then only a safety net;
- a hold: a 429, or a refusal that names a limit, stops this budget (and not the other one)
  until the hold has passed.

Pure policy: time is passed in (monotonic seconds), nothing here does I/O.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orderdash.core.polling.budget_use import BudgetUse

MINUTE = 60.0
HOUR = 3600.0
#: Share of the hourly budget that may go in a burst (the rest is paced evenly).
BURST_SHARE = 0.05


@dataclass(eq=False, repr=False)
class Budget:
    """One endpoint's request limits, and the starts that count against them."""

    name: str
    per_minute: int
    per_hour: int
    _starts: deque[float] = field(default_factory=deque, init=False)
    #: The bucket's theoretical arrival time (GCRA): a start is allowed from `_tat - _tolerance`.
    _tat: float = field(default=-1e18, init=False)
    hold_until: float = field(default=-1e18, init=False)
    # the limits are fixed for the budget's life: its pace and burst are worked out once, not
    # on each of the scheduler's several checks a step
    burst: int = field(init=False)
    #: Seconds between starts at the hourly pace (the minute cap may be the tighter one).
    emission_interval: float = field(init=False)
    _step: float = field(init=False)
    _tolerance: float = field(init=False)

    def __post_init__(self) -> None:
        self.burst = max(1, int(self.per_hour * BURST_SHARE))
        self._step = HOUR / max(self.per_hour - self.burst, 1)
        self.emission_interval = max(self._step, MINUTE / self.per_minute)
        self._tolerance = (self.burst - 1) * self._step

    @property
    def per_minute_paced(self) -> float:
        """Starts a minute this budget allows in the long run: the plan's capacity."""
        return MINUTE / self.emission_interval

    def _trim(self, now: float) -> None:
        while self._starts and self._starts[0] + HOUR <= now:
            self._starts.popleft()

    def count(self, now: float, window: float) -> int:
        self._trim(now)
        # the newest starts are at the right: count from there
        n = 0
        for start in reversed(self._starts):
            if start + window <= now:
                break
            n += 1
        return n

    def next_free(self, now: float, *, pending: int = 0, reserve: float = 0.0) -> float:
        """The earliest time (>= now) one more start is allowed, after `pending` starts chosen
        at `now` but not spent yet; `reserve` (0-1) keeps that share of the burst for others
        (one-off calls must not eat the tills' share)."""
        self._trim(now)
        step = self._step
        tat = max(self._tat, now) + pending * step if pending else self._tat
        free = max(now, self.hold_until, tat - self._tolerance * (1 - reserve))
        starts = self._starts
        for cap, window in ((self.per_hour, HOUR), (self.per_minute, MINUTE)):
            if pending >= cap:
                free = max(free, now + window)
            elif len(starts) + pending >= cap:
                # the oldest start that must leave the window before one more fits
                free = max(free, starts[-(cap - pending)] + window)
        return free

    def allows(self, now: float, *, pending: int = 0, reserve: float = 0.0) -> bool:
        return self.next_free(now, pending=pending, reserve=reserve) <= now

    def spend(self, now: float) -> None:
        self._starts.append(now)
        self._tat = max(self._tat, now) + self._step

    def hold(self, until: float) -> None:
        self.hold_until = max(self.hold_until, until)

    def use(self, now: float, planned_per_minute: float) -> BudgetUse:
        from orderdash.core.polling.budget_use import BudgetUse  # the budget view (`b`) only

        return BudgetUse(
            name=self.name,
            per_minute=self.per_minute,
            per_hour=self.per_hour,
            last_minute=self.count(now, MINUTE),
            last_hour=self.count(now, HOUR),
            projected_hour=min(self.per_hour, round(planned_per_minute * 60)),
            held_for=max(self.hold_until - now, 0.0),
        )
