"""The sender: messages go out from one background thread, never from the caller's.

`Notifier.submit` only puts a message on a bounded queue (a full queue drops it, counted and
logged): the till and the event loop never wait on a notification service. The thread sends
each message to every URL of every rule that names its event, trying a URL again after a
failure (`backoff`), holds what comes during the quiet hours and sums it up in one message per
rule when they end, and is closed at exit with a bounded wait.

Apprise is imported in that thread, on the first message: a start with rules pays nothing for
it (it takes ~140 ms to import), a start without rules never loads it. Its logger is kept to
itself: its records never reach our log or the terminal; a failure's reason is taken from them
with every part of the URL cut out (`redact`).
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo
from typing import Protocol
from urllib.parse import quote, unquote, urlsplit

from orderdash.core.notify import messages
from orderdash.core.notify.messages import Message
from orderdash.core.notify.rules import NotifyRule, QuietHours, scheme_of
from orderdash.core.safetext import clean

log = logging.getLogger(__name__)

#: Seconds between a URL's tries after a failure (one try more than there are waits).
BACKOFF = (2.0, 10.0, 30.0)
#: Messages waiting at most; more are dropped (counted and logged), never waited for.
MAX_QUEUE = 200
#: Messages the quiet hours hold at most in full (the rest are counted).
MAX_HELD = 50
#: Seconds the thread sleeps when idle before it looks whether the quiet hours have ended.
IDLE_CHECK = 30.0
#: Seconds the exit waits for what is queued to go out.
CLOSE_WAIT = 5.0
_STOP = object()
_TICK = object()


def redact(text: str, url: str) -> str:
    """`text` without any part of `url` (scheme aside): host, user, password, port, each path
    segment and query value, plain and percent-encoded; one clean line."""
    parts = urlsplit(url)
    pieces = {url, url.split("://", 1)[-1], parts.netloc}
    for part in (parts.hostname, parts.username, parts.password, parts.path, parts.query):
        if part:
            pieces.add(part)
    if parts.netloc.rpartition(":")[2].isdigit():
        pieces.add(parts.netloc.rpartition(":")[2])
    pieces.update(segment for segment in parts.path.split("/") if segment)
    for pair in parts.query.split("&"):
        pieces.update(piece for piece in pair.split("=") if piece)
    forms = {form for piece in pieces for form in (piece, unquote(piece), quote(piece, safe=""))}
    # a piece of one or two characters ("/", a short port) is no secret and would mangle text
    for form in sorted((f for f in forms if len(f) > 2), key=len, reverse=True):
        text = text.replace(form, "\u2026")
    return clean(text, limit=160)


class Delivery(Protocol):
    def send(self, url: str, message: Message) -> str | None:
        """Send `message` to `url`: None when it went, else why not (no part of the URL)."""


class _Captured(logging.Handler):
    """Apprise's records while one send runs (else dropped), whichever thread Apprise makes
    them in: the reason a send failed, which goes nowhere before `redact` took the URL out of
    it. One send at a time (`sending`), so a record is always the running send's."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.sending = threading.Lock()
        self._lines: list[str] | None = None

    def start(self) -> list[str]:
        self._lines = []
        return self._lines

    def stop(self) -> None:
        self._lines = None

    def emit(self, record: logging.LogRecord) -> None:
        lines = self._lines
        if lines is not None and len(lines) < 20:
            try:
                lines.append(record.getMessage())
            except Exception:  # a record that cannot be formatted tells nothing
                lines.append("")


_captured = _Captured()


#: The loggers of Apprise and of the HTTP library under it (its records name the URL's host and
#: path): kept to themselves.
_THEIR_LOGGERS = ("apprise", "urllib3", "requests")


def _quiet_their_loggers() -> None:
    """Apprise's records (and those of the HTTP library it sends with) name the URL's host
    and path: kept out of the root logger (our log file) and the last-resort handler (the
    terminal); below a warning they are not even made (a debug record holds the payload)."""
    for name in _THEIR_LOGGERS:
        logger = logging.getLogger(name)
        logger.propagate = False
        logger.setLevel(logging.WARNING)
        if _captured not in logger.handlers:
            logger.addHandler(_captured)


class AppriseDelivery:
    """Sends through Apprise (the `notify` extra); built in the sender's thread."""

    def __init__(self, timeout: float = 10.0) -> None:
        _quiet_their_loggers()  # before the import: Apprise logs as it loads
        import apprise  # the extra: ImportError when absent, said by the caller

        self._apprise = apprise
        # memory only: Apprise writes nothing to disk for us; no plugin paths (no code loaded
        # from the user's directories)
        self._asset = apprise.AppriseAsset(storage_mode="memory")
        self._timeout = timeout

    def send(self, url: str, message: Message) -> str | None:
        with _captured.sending:
            return self._send(url, message)

    def _send(self, url: str, message: Message) -> str | None:
        apprise = self._apprise
        lines = _captured.start()
        try:
            target = apprise.Apprise(asset=self._asset)
            if not target.add(url):
                return "the URL is not one Apprise can use"
            sent = target.notify(
                body=message.body,
                title=message.title,
                body_format=apprise.NotifyFormat.TEXT,
            )
        except Exception as error:  # a plugin's bug: its class only (its text may hold the URL)
            return f"Apprise failed ({type(error).__name__})"
        finally:
            _captured.stop()
        if bool(sent):
            return None
        reason = next((line for line in reversed(lines) if line), "not delivered")
        return redact(reason, url)


class Notifier:
    """The rules' sender: one thread, a bounded queue, retries, quiet hours."""

    def __init__(
        self,
        rules: Sequence[NotifyRule],
        *,
        quiet: QuietHours | None = None,
        zone: tzinfo | None = None,
        clock: Callable[[], float] = time.time,
        delivery: Callable[[], Delivery] = AppriseDelivery,
        backoff: Sequence[float] = BACKOFF,
        max_queue: int = MAX_QUEUE,
        idle_check: float = IDLE_CHECK,
    ) -> None:
        self.rules = tuple(rules)
        self.quiet, self._zone, self._clock = quiet, zone, clock
        self._make_delivery, self._backoff, self._idle = delivery, tuple(backoff), idle_check
        self._events = {event for rule in self.rules for event in rule.events}
        self._queue: queue.Queue[object] = queue.Queue(max_queue)
        self._stop = threading.Event()
        #: Held during the quiet hours: (local time, message), and how many more.
        self._held: list[tuple[str, Message]] = []
        self._held_more = 0
        #: Messages the full queue turned away.
        self.dropped = 0
        #: Sends that failed for good (every try), per rule index.
        self.failed: dict[int, int] = {}
        self._thread = threading.Thread(target=self._run, name="orderdash-notify", daemon=True)
        self._thread.start()
        atexit.register(self.close)

    def wants(self, event: str) -> bool:
        """Some rule names `event`."""
        return event in self._events

    def submit(self, message: Message) -> bool:
        """Queue `message` if a rule names its event; never blocks (a full queue drops it)."""
        if not self.wants(message.event) or self._stop.is_set():
            return False
        try:
            self._queue.put_nowait(message)
        except queue.Full:
            self.dropped += 1
            log.warning("notification dropped (%d queued): %s", self._queue.maxsize, message.event)
            return False
        return True

    def wake(self) -> None:
        """Look now whether the quiet hours have ended (else the idle check does, in time)."""
        try:
            self._queue.put_nowait(_TICK)
        except queue.Full:
            pass

    def drain(self, timeout: float) -> bool:
        """Wait until everything queued was handled (sent, held or given up); False on time."""
        with self._queue.all_tasks_done:
            return self._queue.all_tasks_done.wait_for(
                lambda: not self._queue.unfinished_tasks, timeout
            )

    def close(self, timeout: float = CLOSE_WAIT) -> None:
        """Send what is queued within `timeout`, then stop (retries' waits cut short); what the
        quiet hours hold is not sent."""
        atexit.unregister(self.close)
        if not self._thread.is_alive():
            return
        deadline = time.monotonic() + timeout
        try:
            self._queue.put(_STOP, timeout=timeout)
        except queue.Full:
            pass
        self._thread.join(max(0.0, deadline - time.monotonic()))
        self._stop.set()  # a retry's wait ends now; a send under way is left to finish alone
        self._thread.join(0.5)

    # -- the thread -------------------------------------------------------------------------------

    def _run(self) -> None:
        delivery: Delivery | None = None
        while True:
            try:
                item = self._queue.get(timeout=self._idle)
            except queue.Empty:
                item, taken = _TICK, False
            else:
                taken = True
            try:
                if item is _STOP:
                    return
                quiet = self._quiet_now()
                if not quiet and (self._held or self._held_more):
                    delivery = delivery or self._delivery()
                    self._send_summaries(delivery)
                if isinstance(item, Message):
                    if quiet:
                        self._hold(item)
                    else:
                        delivery = delivery or self._delivery()
                        self._send(delivery, item)
            except Exception as error:  # never the thread's end: the next message may go
                log.warning("notification not sent: %s", type(error).__name__)
            finally:
                if taken:
                    self._queue.task_done()

    def _delivery(self) -> Delivery:
        try:
            return self._make_delivery()
        except ImportError:
            log.warning("notifications need the notify extra: pip install 'orderdash[notify]'")
            raise

    def _local(self) -> datetime:
        return datetime.fromtimestamp(self._clock(), self._zone)

    def _quiet_now(self) -> bool:
        return self.quiet is not None and self.quiet.holds(self._local())

    def _hold(self, message: Message) -> None:
        if len(self._held) < MAX_HELD:
            self._held.append((self._local().strftime("%H:%M"), message))
        else:
            self._held_more += 1

    def _send_summaries(self, delivery: Delivery) -> None:
        held, more = self._held, self._held_more
        self._held, self._held_more = [], 0
        for index, rule in enumerate(self.rules):
            mine = [(at, m) for at, m in held if m.event in rule.events]
            if mine:
                summary = messages.held_summary(str(self.quiet), mine, more)
                self._to_rule(delivery, index, rule, summary)

    def _send(self, delivery: Delivery, message: Message) -> None:
        for index, rule in enumerate(self.rules):
            if message.event in rule.events:
                self._to_rule(delivery, index, rule, message)

    def _to_rule(self, delivery: Delivery, index: int, rule: NotifyRule, message: Message) -> None:
        for url in rule.urls:
            plain = url.get_secret_value()
            reason = self._with_retries(delivery, plain, message)
            scheme = scheme_of(plain)
            if reason is None:
                log.info("notification sent: rule %d (%s), %s", index, scheme, message.event)
            else:
                self.failed[index] = self.failed.get(index, 0) + 1
                log.warning(
                    "notification failed: rule %d (%s), %s: %s",
                    index,
                    scheme,
                    message.event,
                    reason,
                )

    def _with_retries(self, delivery: Delivery, url: str, message: Message) -> str | None:
        reason = delivery.send(url, message)
        for wait in self._backoff:
            if reason is None or self._stop.wait(wait):
                break
            reason = delivery.send(url, message)
        return reason


def send_test(
    rules: Sequence[NotifyRule], delivery: Delivery | None = None
) -> list[tuple[int, str, str | None]]:
    """`notify --test`: one test message through each rule, now, in this thread, tried once.
    Per rule: its index, its URLs' schemes and None (sent) or why not (no part of a URL)."""
    delivery = delivery or AppriseDelivery()
    test = messages.test()
    outcomes = []
    for index, rule in enumerate(rules):
        reasons = [delivery.send(url.get_secret_value(), test) for url in rule.urls]
        failed = [r for r in reasons if r is not None]
        schemes = ", ".join(rule.schemes())
        outcomes.append((index, schemes, "; ".join(failed) if failed else None))
    return outcomes
