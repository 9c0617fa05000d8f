"""Notifications held while a screen faces the customer (the point of sale): nothing about
another order may reach the customer; the operator gets them back when the screen goes."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from textual.notifications import SeverityLevel

#: Notifications kept for the operator while the customer's screen is up (the alerts log has all).
MAX_HELD = 50
#: Shown one by one when the operator comes back; the rest are summed up in one line.
MAX_REPLAYED = 5


@dataclass(frozen=True, eq=False, repr=False)
class Notice:
    """One notification, as `App.notify` takes it."""

    message: str
    title: str
    severity: SeverityLevel
    timeout: float | None
    markup: bool

    @property
    def alarm(self) -> bool:
        """An error toast (an outage, a payment taken back, ...): replayed whatever else was
        held, never summed up."""
        return self.severity == "error"


class HeldNotices:
    """Shows notices through `show`, or holds them while the customer's screen is up."""

    def __init__(self, show: Callable[[Notice], None], default_timeout: float) -> None:
        self._show = show
        self._default_timeout = default_timeout
        self.customer_facing = False
        #: Notifications held while a customer-facing screen is up, shown when it goes.
        self.held: deque[Notice] = deque(maxlen=MAX_HELD)
        #: How many were held, the ones the bounded deque let go included.
        self._held_count = 0
        #: Alarms held apart: a burst of payments must not push them out.
        self.held_alarms: deque[Notice] = deque(maxlen=MAX_REPLAYED)
        #: Notifications shown lately, with when they expire (monotonic): the ones still on
        #: screen when the customer's screen comes up are taken off and held.
        self._recent: deque[tuple[Notice, float]] = deque(maxlen=MAX_HELD)

    @classmethod
    def through(cls, notify: Callable[..., None], default_timeout: float) -> HeldNotices:
        """Notices shown by `notify` (Textual's `App.notify`, which the App overrides)."""

        def show(notice: Notice) -> None:
            notify(
                notice.message,
                title=notice.title,
                severity=notice.severity,
                timeout=notice.timeout,
                markup=notice.markup,
            )

        return cls(show, default_timeout)

    def tell(
        self,
        message: str,
        title: str,
        severity: SeverityLevel,
        timeout: float | None,
        markup: bool,
    ) -> None:
        """`App.notify`'s arguments: shown, or held while the customer's screen is up."""
        self.notify(Notice(message, title, severity, timeout, markup))

    def notify(self, notice: Notice) -> None:
        if self.customer_facing and notice.alarm:
            self.held_alarms.append(notice)
            return
        if self.customer_facing:
            self.held.append(notice)
            self._held_count += 1
            return
        seconds = self._default_timeout if notice.timeout is None else notice.timeout
        self._recent.append((notice, time.monotonic() + seconds))
        self._show(notice)

    def customer_screen_up(self) -> None:
        """What the operator had on screen goes away from the customer's eyes, and waits (the
        caller clears the toasts)."""
        self.customer_facing = True
        now = time.monotonic()
        still_shown = [n for n, until in self._recent if until > now and not n.alarm]
        self.held.extendleft(reversed(still_shown))
        alarms = [n for n, until in self._recent if until > now and n.alarm]
        self.held_alarms.extendleft(reversed(alarms))
        self._held_count += len(still_shown)
        self._recent.clear()

    def customer_screen_down(self) -> None:
        """The operator is back: the alarms held, the latest other notices, the older ones
        summed up."""
        self.customer_facing = False
        held, count = list(self.held), self._held_count
        self.held.clear()
        self._held_count = 0
        # the important first
        for notice in self.held_alarms:
            self._show(notice)
        self.held_alarms.clear()
        if count > MAX_REPLAYED:
            older = count - MAX_REPLAYED + 1
            self._show(
                Notice(
                    f"{older} more while the point-of-sale screen was up: see the alerts log (l)",
                    "Held notifications",
                    "information",
                    20,
                    False,
                )
            )
            held = held[-(MAX_REPLAYED - 1) :]
        for notice in held:
            self._show(notice)
