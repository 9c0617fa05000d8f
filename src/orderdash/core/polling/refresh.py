"""When to call which endpoint for one watched order. Pure policy: time is passed in.

Two tracks, one per kind of request: the getOrder poll (how new transactions are seen) and the
rate refresh (the service renews the rate every minute and after each new transaction). Each
track has at most one request in flight. A failure backs off exponentially with jitter: quick
first retries (a blip heals in a second or two), then never faster than the healthy interval,
growing to `BACKOFF_GROWTH` intervals in a long outage; a Retry-After from the server is
honoured. Times are monotonic seconds so a wall-clock jump can neither stall nor flood the
schedule.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import Enum

#: First retry step after a failure; doubles per failure.
MIN_BACKOFF = 1.0
#: In a long outage the step stops at this many intervals (and at `MAX_BACKOFF` seconds, unless
#: the interval itself is longer): fewer requests at a server that is down, recovery still seen
#: within two intervals.
BACKOFF_GROWTH = 2
MAX_BACKOFF = 300.0


def backoff_step(interval: float, failures: int) -> float:
    """The retry step after `failures` failures in a row; the delay is 0.5-1x of it, and never
    below `interval` once the step has reached it."""
    ceiling = max(interval, min(interval * BACKOFF_GROWTH, MAX_BACKOFF))
    return min(ceiling, MIN_BACKOFF * 2.0 ** min(failures - 1, 32))


class Kind(Enum):
    # members are singletons: identity hashing is exact (Enum's hashes the name in Python, and
    # the scheduler's index hashes kinds on every step)
    __hash__ = object.__hash__

    ORDER = "order"
    RATES = "rates"


@dataclass(eq=False, repr=False)
class Track:
    """One kind of request of one order: its pace, what is in flight, its failures."""

    interval: float
    enabled: bool
    next_due: float
    in_flight: bool = False
    #: A request was asked for while one was in flight: run again as soon as it ends.
    pending: bool = False
    failures: int = 0
    last_success: float | None = None
    last_attempt: float | None = None


@dataclass(frozen=True, repr=False)
class TrackStatus:
    """A track as the status line shows it."""

    enabled: bool
    in_flight: bool
    failures: int
    #: Seconds until the next request of this kind (0 while one is due or in flight).
    next_in: float
    #: Refreshed less often than the service renews it because a request budget is short.
    budget_held: bool = False


@dataclass(eq=False, repr=False)
class RefreshPolicy:
    """When each kind of request of one order is due (see the module's docstring)."""

    poll_interval: float
    refresh_interval: float
    rates_enabled: bool
    now: float
    rng: random.Random = field(default_factory=random.Random)
    tracks: dict[Kind, Track] = field(init=False)

    def __post_init__(self) -> None:
        # on load: both reads at once
        self.tracks = {
            Kind.ORDER: Track(self.poll_interval, True, self.now),
            Kind.RATES: Track(self.refresh_interval, self.rates_enabled, self.now),
        }

    def due(self, now: float) -> list[Kind]:
        return [
            kind
            for kind, track in self.tracks.items()
            if track.enabled and not track.in_flight and track.next_due <= now
        ]

    def next_wakeup(self) -> float | None:
        """The monotonic time of the next due request, or None when nothing is waiting."""
        times = [t.next_due for t in self.tracks.values() if t.enabled and not t.in_flight]
        return min(times) if times else None

    def started(self, kind: Kind, now: float) -> None:
        track = self.tracks[kind]
        track.in_flight = True
        track.pending = False
        track.last_attempt = now

    def succeeded(self, kind: Kind, now: float) -> None:
        track = self.tracks[kind]
        track.in_flight = False
        track.failures = 0
        track.last_success = now
        track.next_due = now if track.pending else now + track.interval

    def failed(
        self, kind: Kind, now: float, *, retry_after: float | None = None, persistent: bool = False
    ) -> float:
        """Record a failure; returns the delay before the next try.

        `persistent` failures (refused token, unknown order) will not heal in a second: they
        wait a full interval instead of the short first steps of the backoff.
        """
        track = self.tracks[kind]
        track.in_flight = False
        track.pending = False
        track.failures += 1
        if persistent:
            delay = track.interval
        else:
            step = backoff_step(track.interval, track.failures)
            delay = step * (0.5 + 0.5 * self.rng.random())
            if step >= track.interval:
                # an outage must not cost more requests than healthy polling
                delay = max(delay, track.interval)
        if retry_after is not None:
            delay = max(delay, retry_after)
        track.next_due = now + delay
        return delay

    def request_now(self, kind: Kind, now: float) -> None:
        """Make `kind` due at once (new transaction, user pressed refresh)."""
        track = self.tracks[kind]
        if not track.enabled:
            return
        if track.in_flight:
            track.pending = True
            return
        # while failing, at most one try per MIN_BACKOFF: held-down keys must not become a storm
        last = track.last_attempt
        if track.failures and last is not None and now - last < MIN_BACKOFF:
            track.next_due = min(track.next_due, last + MIN_BACKOFF)
        else:
            track.next_due = min(track.next_due, now)

    def status(self, now: float) -> dict[Kind, TrackStatus]:
        return {
            kind: TrackStatus(
                enabled=track.enabled,
                in_flight=track.in_flight,
                failures=track.failures,
                next_in=0.0 if track.in_flight else max(track.next_due - now, 0.0),
            )
            for kind, track in self.tracks.items()
        }
