"""The sender: messages go out from one background thread, never from the caller's.

`Notifier.submit` only puts a message on a bounded queue (a full queue drops it, counted and
logged): the till and the event loop never wait on a notification service. The thread sends
each message to every URL of every rule that names its event; a URL that failed is tried again
after its wait (`backoff`) while the others' messages go on (a new message's first tries go
before any retry), each try waiting at most `delivery.SEND_TIMEOUT` to connect and for each
read. What comes during the quiet hours is held, a retry that falls in them too, and summed up
in one message per URL when they end. `attention` messages beyond a few a minute are gathered
into one digest (`digest.py`). The thread is closed with a bounded wait: by the command that
ends (`events.close_all`), else at exit; what became of each message is kept (`told`) for the
command to tell.

Apprise is imported in that thread, on the first message: a start with rules pays nothing for
it (it takes ~140 ms to import), a start without rules never loads it. One send through it:
`delivery.py`.
"""

from __future__ import annotations

import atexit
import heapq
import itertools
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

from orderdash.core.notify import messages
from orderdash.core.notify.delivery import AppriseDelivery, Delivery, log_outcome, where
from orderdash.core.notify.digest import PER_MINUTE, AttentionDigest
from orderdash.core.notify.messages import Message
from orderdash.core.notify.rules import NotifyRule, QuietHours, scheme_of

log = logging.getLogger(__name__)

#: Seconds between a URL's tries after a failure (one try more than there are waits).
BACKOFF = (2.0, 10.0, 30.0)
#: Messages waiting at most; more are dropped (counted and logged), never waited for.
MAX_QUEUE = 200
#: Messages the quiet hours hold at most in full (the rest are counted).
MAX_HELD = 50
#: Retries waiting at most (a URL down for long with many messages): a failure beyond them is
#: not tried again, a message for a URL that is down then not tried at all.
MAX_RETRIES = 400
#: Seconds the thread sleeps when idle before it looks whether the quiet hours have ended.
IDLE_CHECK = 30.0
#: Seconds the exit waits for what is queued to go out.
CLOSE_WAIT = 5.0
#: Outcomes kept for the command to tell (the latest; a long run's earlier ones are in the log).
MAX_OUTCOMES = 200
#: Why a message still waiting for its retry at the exit was not sent (after its last reason).
NOT_BEFORE_EXIT = "not sent before the exit"
_STOP = object()
_TICK = object()


@dataclass(frozen=True, eq=False)
class Outcome:
    """What became of one message to one URL: `reason` None when it was sent."""

    #: The URL as a line may name it (`delivery.where`): never any part of the URL.
    place: str
    event: str
    reason: str | None


@dataclass(frozen=True, eq=False)
class Told:
    """What became of a sender's messages, for the command that ends to tell."""

    outcomes: tuple[Outcome, ...] = ()
    #: Messages the full queue turned away.
    dropped: int = 0
    #: Sends still under way, or messages still queued, when the bounded wait ended (not
    #: known to have gone).
    unfinished: bool = False


@dataclass(eq=False)
class _Try:
    """One message to one URL of one rule, and how many times it went out already."""

    rule: int
    url: int
    message: Message
    #: Which submission of the message it is (the same message may be submitted twice).
    origin: int
    tries: int = 0
    #: Why its last try failed (None: not tried yet).
    reason: str | None = None


class Notifier:
    """The rules' sender: one thread, a bounded queue, retries per URL, quiet hours."""

    def __init__(
        self,
        rules: Sequence[NotifyRule],
        *,
        quiet: QuietHours | None = None,
        zone: tzinfo | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        delivery: Callable[[], Delivery] = AppriseDelivery,
        backoff: Sequence[float] = BACKOFF,
        max_queue: int = MAX_QUEUE,
        idle_check: float = IDLE_CHECK,
        attention_per_minute: int = PER_MINUTE,
    ) -> None:
        self.rules = tuple(rules)
        self.quiet, self._zone, self._clock, self._monotonic = quiet, zone, clock, monotonic
        self._make_delivery, self._backoff, self._idle = delivery, tuple(backoff), idle_check
        self._events = {event for rule in self.rules for event in rule.events}
        self._queue: queue.Queue[object] = queue.Queue(max_queue)
        self._stop = threading.Event()
        #: The thread took the stop: what is left goes once, then it ends.
        self._stopping = False
        self._delivery: Delivery | None = None
        #: First tries, in the order their messages came: they go before any retry, so a URL
        #: that keeps failing never holds another's news.
        self._first: deque[_Try] = deque()
        #: Retries by when they are due (monotonic seconds), then by when they were made.
        self._retries: list[tuple[float, int, _Try]] = []
        #: The (rule, URL) pairs whose last try failed, and when they are tried next: a new
        #: message for one waits for then, so a URL that is down costs a try per wait, not one
        #: per message.
        self._down: dict[tuple[int, int], float] = {}
        self._made = itertools.count()
        #: Tries made and not yet over (sent, held or given up); `drain` waits for them.
        self._open = 0
        self._settled = threading.Condition()
        #: Held during the quiet hours: (local time, message, the (rule, URL) pairs it is for,
        #: its submission), and how many more.
        self._held: list[tuple[str, Message, set[tuple[int, int]], int]] = []
        self._held_more = 0
        #: Messages the full queue turned away.
        self.dropped = 0
        #: Sends that failed for good (every try), per rule index.
        self.failed: dict[int, int] = {}
        #: What became of the latest messages, per URL (`told`).
        self._outcomes: deque[Outcome] = deque(maxlen=MAX_OUTCOMES)
        self._outcomes_lock = threading.Lock()
        self._digest = AttentionDigest(monotonic, per_minute=attention_per_minute)
        self._thread = threading.Thread(target=self._run, name="orderdash-notify", daemon=True)
        self._thread.start()
        atexit.register(self.close)

    def wants(self, event: str) -> bool:
        """Some rule names `event`."""
        return event in self._events

    def submit(self, message: Message) -> bool:
        """Queue `message` if a rule names its event; never blocks (a full queue drops it). An
        `attention` message beyond the minute's few is gathered for the next digest instead."""
        if not self.wants(message.event) or self._stop.is_set():
            return False
        if message.event == "attention":
            gathered = self._digest.gather(message)
            if gathered == 1:
                self.wake()  # the thread's sleep ends by when the digest is due
            if gathered:
                return True
        try:
            self._queue.put_nowait(message)
        except queue.Full:
            self.dropped += 1
            log.warning("notification dropped (%d queued): %s", self._queue.maxsize, message.event)
            return False
        return True

    def wake(self) -> None:
        """Look now whether the quiet hours have ended and which retries are due (else the
        idle check does, in time)."""
        try:
            self._queue.put_nowait(_TICK)
        except queue.Full:
            pass

    def drain(self, timeout: float) -> bool:
        """Wait until everything queued was handled (sent, held or given up after its last
        try); False on time."""
        with self._settled:
            return self._settled.wait_for(
                lambda: not self._queue.unfinished_tasks and not self._open, timeout
            )

    def told(self) -> Told:
        """What became of the latest messages (at most `MAX_OUTCOMES`), oldest first; after
        `close`, everything it left undone is among them or counted."""
        with self._outcomes_lock:
            outcomes = tuple(self._outcomes)
        with self._settled:
            unfinished = bool(self._open or self._queue.unfinished_tasks)
        return Told(outcomes, self.dropped, unfinished)

    def close(self, timeout: float = CLOSE_WAIT) -> None:
        """Send what is queued within `timeout` (the gathered digest too), each once more at
        most, then stop (the retries not yet due are given up); what the quiet hours hold is
        not sent. Each of those is an outcome."""
        atexit.unregister(self.close)
        if not self._thread.is_alive():
            return
        deadline = time.monotonic() + timeout
        try:
            self._queue.put(_STOP, timeout=timeout)
        except queue.Full:
            pass
        self._thread.join(max(0.0, deadline - time.monotonic()))
        self._stop.set()  # the tries left are given up; a send under way is left to finish
        self._thread.join(0.5)

    # -- the thread -------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping:
            try:
                item = self._queue.get(timeout=self._wait())
            except queue.Empty:
                pass
            else:
                self._take(item)
            try:
                self._work()
            except Exception as error:  # never the thread's end: the next message may go
                log.warning("notification not sent: %s", type(error).__name__)
        self._finish()

    def _wait(self) -> float:
        """Seconds the thread may sleep: until the next retry or the digest is due, or the
        idle check."""
        if self._first:
            return 0.001
        due = [when for when in (self._digest.due(),) if when is not None]
        if self._retries:
            due.append(self._retries[0][0])
        if not due:
            return self._idle
        return min(self._idle, max(0.001, min(due) - self._monotonic()))

    def _take(self, item: object) -> None:
        """A queue's item taken: a message's first tries are made ready (or it is held); the
        quiet hours' summaries first if they ended (before the item counts as handled)."""
        try:
            if not self._quiet_now() and (self._held or self._held_more):
                self._send_summaries()
            if item is _STOP:
                self._stopping = True
            elif isinstance(item, Message):
                self._accept(item)
        except Exception as error:
            log.warning("notification not sent: %s", type(error).__name__)
        finally:
            self._queue.task_done()
            self._settle(0)

    def _accept(self, message: Message) -> None:
        """A message's first tries made ready (or it is held), one per URL of each rule that
        names its event; a URL that is down waits for its retry."""
        origin = next(self._made)
        if self._quiet_now():
            self._hold(message, self._targets(message), origin)
            return
        if not self._ready():
            for rule, url in sorted(self._targets(message)):
                self._outcome(_Try(rule, url, message, origin), "the notify extra is missing")
            return
        for rule, url in sorted(self._targets(message)):
            attempt = _Try(rule, url, message, origin)
            due = self._down.get((rule, url))
            if due is None:
                self._add_first(attempt)
            elif len(self._retries) < MAX_RETRIES:
                self._settle(+1)
                self._retry_at(due, attempt)
            else:
                self._outcome(attempt, "its URL keeps failing")

    def _work(self) -> None:
        """Every try that can go now, first tries before retries."""
        while not self._stopping and not self._stop.is_set():
            if not self._quiet_now() and (self._held or self._held_more):
                self._send_summaries()
            digest = self._digest.take()
            if digest is not None:
                self._accept(digest)
            # a message queued meanwhile goes before the retries due, but only once the first
            # tries of those before it went (so the queue's bound is what waits)
            item: object = None
            if not self._first:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    pass
            if item is not None:
                self._take(item)
                continue
            attempt = self._next_try()
            if attempt is None:
                return
            self._attempt(attempt)

    def _finish(self) -> None:
        """Told to stop: the gathered digest is made, the first tries left go out (once each,
        in the bounded wait `close` gives), the retries are given up, the held are told."""
        try:
            digest = self._digest.take(now=True)
            if digest is not None:
                self._accept(digest)
        except Exception as error:
            log.warning("notification not sent: %s", type(error).__name__)
        while self._first and not self._stop.is_set():
            self._attempt(self._first.popleft())
        left = list(self._first) + [attempt for _, _, attempt in self._retries]
        self._first.clear()
        self._retries.clear()
        for attempt in left:
            why = NOT_BEFORE_EXIT
            if attempt.reason is not None:
                why = f"{attempt.reason}; {NOT_BEFORE_EXIT}"
            self._outcome(attempt, why)
            self._settle(-1)
        quiet = f"held for the quiet hours ({self.quiet}): {NOT_BEFORE_EXIT}"
        for _, message, targets, origin in self._held:
            for rule, url in sorted(targets):
                self._outcome(_Try(rule, url, message, origin), quiet, failed=False)

    def _next_try(self) -> _Try | None:
        if self._first:
            return self._first.popleft()
        if self._retries and self._retries[0][0] <= self._monotonic():
            return heapq.heappop(self._retries)[2]
        return None

    def _add_first(self, attempt: _Try) -> None:
        self._first.append(attempt)
        self._settle(+1)

    def _settle(self, change: int) -> None:
        with self._settled:
            self._open += change
            self._settled.notify_all()

    def _targets(self, message: Message) -> set[tuple[int, int]]:
        return {
            (index, url)
            for index, rule in enumerate(self.rules)
            if message.event in rule.events
            for url in range(len(rule.urls))
        }

    def _ready(self) -> bool:
        """The delivery is made (Apprise imported) or can be: else the message is not sent."""
        if self._delivery is None:
            try:
                self._delivery = self._make_delivery()
            except ImportError:
                log.warning("notifications need the notify extra: pip install 'orderdash[notify]'")
                return False
        return True

    def _attempt(self, attempt: _Try) -> None:
        """One try of one URL, unless the quiet hours began: then it is held as a new message
        is. After a failure it is due again after its wait, unless it was the last try."""
        again = False
        try:
            due = self._down.get((attempt.rule, attempt.url))
            if due is not None and due > self._monotonic() and not self._stopping:
                # its URL failed meanwhile: it waits with that URL's retry, no try counted
                self._retry_at(due, attempt)
                again = True
            elif self._quiet_now():
                self._hold(attempt.message, {(attempt.rule, attempt.url)}, attempt.origin)
            elif self._ready():
                again = self._send(attempt)
        finally:
            if not again:
                self._settle(-1)

    def _send(self, attempt: _Try) -> bool:
        """Send; True when it failed and is to be tried again (due in the retries)."""
        assert self._delivery is not None
        plain = self.rules[attempt.rule].urls[attempt.url].get_secret_value()
        try:
            reason = self._delivery.send(plain, attempt.message)
        except Exception as error:  # a delivery's bug: its class only (its text may hold the URL)
            reason = f"failed ({type(error).__name__})"
        attempt.tries += 1
        attempt.reason = reason
        key = (attempt.rule, attempt.url)
        if (
            reason is not None
            and attempt.tries <= len(self._backoff)
            and not self._stopping
            and len(self._retries) < MAX_RETRIES
        ):
            due = self._down[key] = self._monotonic() + self._backoff[attempt.tries - 1]
            self._retry_at(due, attempt)
            return True
        self._down.pop(key, None)  # sent, or given up: the next message tries it afresh
        self._outcome(attempt, reason)
        return False

    def _retry_at(self, due: float, attempt: _Try) -> None:
        heapq.heappush(self._retries, (due, next(self._made), attempt))

    def _outcome(self, attempt: _Try, reason: str | None, *, failed: bool = True) -> None:
        """Sent (`reason` None) or not: logged and kept; a failure (not a message the quiet
        hours hold) counted in `failed`."""
        urls = self.rules[attempt.rule].urls
        place = where(
            attempt.rule, attempt.url, len(urls), scheme_of(urls[attempt.url].get_secret_value())
        )
        outcome = Outcome(place, attempt.message.event, reason)
        with self._outcomes_lock:
            self._outcomes.append(outcome)
        if reason is not None and failed:
            self.failed[attempt.rule] = self.failed.get(attempt.rule, 0) + 1
        log_outcome(place, outcome.event, reason)

    def _local(self) -> datetime:
        return datetime.fromtimestamp(self._clock(), self._zone)

    def _quiet_now(self) -> bool:
        return self.quiet is not None and self.quiet.holds(self._local())

    def _hold(self, message: Message, targets: set[tuple[int, int]], origin: int) -> None:
        """Hold `message` for these (rule, URL) pairs until the quiet hours end (a message held
        already for other URLs is held once)."""
        for _, _, already, held in self._held:
            if held == origin:
                already.update(targets)
                return
        if len(self._held) < MAX_HELD:
            self._held.append((self._local().strftime("%H:%M"), message, set(targets), origin))
        else:
            self._held_more += 1

    def _send_summaries(self) -> None:
        """The quiet hours are over: to each URL, one message listing what was held for it."""
        held, more = self._held, self._held_more
        self._held, self._held_more = [], 0
        if not self._ready():
            return
        for index, rule in enumerate(self.rules):
            for url in range(len(rule.urls)):
                mine = [(at, m) for at, m, targets, _ in held if (index, url) in targets]
                if mine:
                    summary = messages.held_summary(str(self.quiet), mine, more)
                    self._add_first(_Try(index, url, summary, next(self._made)))
