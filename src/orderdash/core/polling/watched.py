"""One order of the watch list as the scheduler (`scheduler.py`) and its plan (`plan.py`) see
it: on screen or not, closed, watched for a late payment, recently active.

Pure data: time is passed in (monotonic seconds), nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from orderdash.core.polling.due_queue import Priority
from orderdash.core.polling.refresh import RefreshPolicy

#: An order with a new transaction or status change within this many seconds is "recent".
RECENT_SECONDS = 300.0


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
