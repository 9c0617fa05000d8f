"""Notifications held while a screen faces the customer (the point of sale): nothing about
another order may reach the customer; the operator gets them back when the screen goes. Held
too while a question or a dialog is up (the close's question, the resolve and charge dialogs),
so that no toast covers it: they come back as one summary when it goes ("5 new orders, 2
payments"). In account mode, where orders pour in, at most `crowd` toasts are on screen: the
newest, and one that counts the others ("+5 new orders")."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from textual.app import App
from textual.notifications import SeverityLevel

#: Notifications kept for the operator while the customer's screen is up (the alerts log has all).
MAX_HELD = 50
#: Shown one by one when the operator comes back; the rest are summed up in one line.
MAX_REPLAYED = 5
#: What a notice is news of, by how its text begins (`core/watching/state.py` words them): the
#: summaries count them by these names, one and many.
KINDS = (("New order", "new order", "new orders"), ("Payment received", "payment", "payments"))
#: How long a summary stays (seconds).
SUMMARY_SECONDS = 12.0


class Holder(Protocol):
    def notices(self) -> HeldNotices: ...


@runtime_checkable
class HoldsNotices(Protocol):
    """An App whose counter holds its notices (the orderdash App: `tui/counter.py`)."""

    @property
    def counter(self) -> Holder: ...


def answer(app: object, message: str, title: str, severity: SeverityLevel) -> None:
    """A dialog's own answer (a step it could not take), shown over it at once on `app`:
    notices that are news wait while it is up."""
    if isinstance(app, HoldsNotices):
        app.counter.notices().show_now(Notice(message, title, severity, None, False))
    elif isinstance(app, App):
        app.notify(message, title=title, severity=severity, markup=False)


def quit_held(app: App[None]) -> bool:
    """The screen on top holds the quit (a charge's order being made: the charge dialog's
    `quit_held` says why, in one line): said over it, its own word, and True; else False."""
    held = getattr(app.screen, "quit_held", None)
    reason = held() if callable(held) else ""
    if reason:
        answer(app, reason, "Quit", "warning")
    return bool(reason)


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


def tally(notices: Iterable[Notice], uncounted: int = 0) -> str:
    """ "3 new orders, 2 payments, 1 more": the notices by kind, the others (and `uncounted`)
    as more; "4 notifications" when none is of a kind named."""
    counts = [0] * len(KINDS)
    for notice in notices:
        for index, (start, _, _) in enumerate(KINDS):
            if notice.message.startswith(start):
                counts[index] += 1
                break
        else:
            uncounted += 1
    parts = [
        f"{n} {one if n == 1 else many}"
        for n, (_, one, many) in zip(counts, KINDS, strict=True)
        if n
    ]
    if uncounted and parts:
        parts.append(f"{uncounted} more")
    elif uncounted:
        parts.append(f"{uncounted} notification{'s' if uncounted > 1 else ''}")
    return ", ".join(parts)


class HeldNotices:
    """Shows notices through `show`, or holds them while the customer's screen or a question
    is up; `clear` takes every toast off the screen (Textual's `App.clear_notifications`)."""

    def __init__(
        self,
        show: Callable[[Notice], None],
        default_timeout: float,
        clear: Callable[[], None] = lambda: None,
        *,
        crowd: int | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """`crowd`: at most this many toasts at once, the newest and one counting the rest
        (None: no limit)."""
        self._show, self._clear = show, clear
        self._default_timeout = default_timeout
        #: At most this many toasts at once (None: no limit).
        self.crowd = crowd
        self._monotonic = monotonic
        self.customer_facing = False
        #: A question or a dialog is up (a modal screen).
        self.question = False
        #: Notifications held while a customer-facing screen is up, shown when it goes.
        self.held: deque[Notice] = deque(maxlen=MAX_HELD)
        #: How many were held, the ones the bounded deque let go included.
        self._held_count = 0
        #: Alarms held apart: a burst of payments must not push them out.
        self.held_alarms: deque[Notice] = deque(maxlen=MAX_REPLAYED)
        #: Notifications shown lately, with when they expire (monotonic): the ones still on
        #: screen when the customer's screen comes up are taken off and held.
        self._recent: deque[tuple[Notice, float]] = deque(maxlen=MAX_HELD)
        #: The toast that counts the others while the screen is crowded, and what it counts.
        self._counter: Notice | None = None
        self._counted: list[Notice] = []

    @classmethod
    def through(
        cls,
        notify: Callable[..., None],
        default_timeout: float,
        clear: Callable[[], None] = lambda: None,
        *,
        crowd: int | None = None,
    ) -> HeldNotices:
        """Notices shown by `notify` (Textual's `App.notify`, which the App overrides)."""

        def show(notice: Notice) -> None:
            notify(
                notice.message,
                title=notice.title,
                severity=notice.severity,
                timeout=notice.timeout,
                markup=notice.markup,
            )

        return cls(show, default_timeout, clear, crowd=crowd)

    @property
    def holding(self) -> bool:
        return self.customer_facing or self.question

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
        if self.holding and notice.alarm:
            self.held_alarms.append(notice)
            return
        if self.holding:
            self.held.append(notice)
            self._held_count += 1
            return
        now = self._monotonic()
        on_screen = [(n, until) for n, until in self._recent if until > now]
        if self.crowd is not None and not notice.alarm and len(on_screen) >= self.crowd:
            self._crowded(notice, on_screen, now)
            return
        self._put(notice, now)

    def show_now(self, notice: Notice) -> None:
        """Shown over a question (its own answer: why quitting waits), held only from the
        customer's eyes."""
        if self.customer_facing:
            self.notify(notice)
            return
        self._put(notice, self._monotonic())

    def _put(self, notice: Notice, now: float) -> None:
        seconds = self._default_timeout if notice.timeout is None else notice.timeout
        self._recent.append((notice, now + seconds))
        self._show(notice)

    def _crowded(self, notice: Notice, on_screen: list[tuple[Notice, float]], now: float) -> None:
        """The screen holds its `crowd` already: the newest shown, the others counted in one
        toast (the alarms stay as they are: never counted)."""
        counter = self._counter
        counting = any(n is counter for n, _ in on_screen)
        displaced = [n for n, _ in on_screen if not n.alarm and n is not counter]
        if not counting and not displaced:
            self._put(notice, now)  # alarms alone fill it: they are never counted
            return
        if not counting:
            self._counted = []  # the last count has gone from the screen: a new one
        self._counted += displaced
        self._clear()
        self._recent.clear()
        for alarm, until in on_screen:
            if alarm.alarm:
                self._put(Notice(alarm.message, alarm.title, "error", until - now, False), now)
        self._counter = Notice(
            f"+{tally(self._counted)}", "", "information", SUMMARY_SECONDS, False
        )
        self._put(self._counter, now)
        self._put(notice, now)

    def _take_off_screen(self) -> None:
        """The toasts still on screen wait with the held ones (the caller clears them)."""
        now = self._monotonic()
        still_shown = [
            n for n, until in self._recent if until > now and not n.alarm and n is not self._counter
        ]
        self.held.extendleft(reversed(still_shown))
        alarms = [n for n, until in self._recent if until > now and n.alarm]
        self.held_alarms.extendleft(reversed(alarms))
        self._held_count += len(still_shown)
        if self._counter is not None and any(
            n is self._counter for n, u in self._recent if u > now
        ):
            # what the count stood for waits too
            self.held.extendleft(reversed(self._counted))
            self._held_count += len(self._counted)
        self._counter, self._counted = None, []
        self._recent.clear()

    def customer_screen_up(self) -> None:
        """What the operator had on screen goes away from the customer's eyes, and waits (the
        caller clears the toasts)."""
        if not self.holding:
            self._take_off_screen()
        self.customer_facing = True

    def customer_screen_down(self) -> None:
        """The operator is back: the alarms held, the latest other notices, the older ones
        summed up (after the question, if one is up)."""
        self.customer_facing = False
        if self.question:
            return
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

    def question_up(self) -> None:
        """A question or a dialog is up: no toast over it (the caller clears them)."""
        if not self.holding:
            self._take_off_screen()
        self.question = True

    def question_down(self) -> None:
        """The question is gone: the alarms held, and the rest in one summary (one alone as
        itself); still held while the customer's screen is up."""
        self.question = False
        if self.customer_facing:
            return
        held, count = list(self.held), self._held_count
        self.held.clear()
        self._held_count = 0
        now = self._monotonic()
        for notice in self.held_alarms:
            self._put(notice, now)
        self.held_alarms.clear()
        if count == 1 and held:
            self._put(held[0], now)
        elif count:
            text = f"{tally(held, count - len(held))} while the question was up"
            self._put(
                Notice(text, "Held notifications", "information", SUMMARY_SECONDS, False), now
            )
