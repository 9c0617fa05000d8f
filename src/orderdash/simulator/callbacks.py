"""The callbacks the simulated service POSTs to the merchant's callback URL, sent from one
background thread (`CallbackOutbox`), never on a request's way: the simulator's state only
queues them (a bounded queue; a full one drops the new callback and says so in the log).

Each delivery is logged (simulator time, URL, event, what was sent, the answer's status code or
the error, the fault that bent it), the last `LOG_LIMIT`; the control endpoint serves the log.
A callback carries the order's data only: never the bearer nor the access token.

Faults (`Fault` with endpoint "callback", from the control endpoint; or a standing rotation
from `orderdash simulate --callback-fault`, used when no such fault matches):
  * lost: not sent (logged as lost);
  * duplicate: sent twice, one right after the other;
  * delayed: sent `delay` real seconds later, while later callbacks go on time;
  * out_of_order: held back until the next callback is sent, then sent (or after HOLD_LIMIT s);
  * forged: status and amounts that getOrder does not say (`callback_body.forged_body`);
  * unknown_token: first a callback for a token no order has, then the real one.
"""

from __future__ import annotations

import heapq
import http.client
import itertools
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode, urlsplit

from orderdash.simulator.callback_body import forged_body, stray_body
from orderdash.simulator.faults import CALLBACK_FAULTS, Fault
from orderdash.simulator.reply import json_bytes

#: How many callbacks may wait to be sent; beyond, a new one is dropped (and logged).
QUEUE_LIMIT = 1_000
#: How many deliveries the log keeps (the latest).
LOG_LIMIT = 1_000
#: Seconds a callback waits for its answer (connecting included).
DEFAULT_TIMEOUT = 2.0
#: The longest an out-of-order callback is held when no later callback comes.
HOLD_LIMIT = 30.0
#: The rotation's delay (`--callback-delay`) when none is given.
DEFAULT_DELAY = 5.0
USER_AGENT = "orderdash-simulator"


def check_callback_url(url: str) -> str:
    """`url` if it is an http(s) URL with a host; ValueError otherwise."""
    if not isinstance(url, str) or len(url) > 2000:
        raise ValueError("the callback URL must be text of at most 2000 characters")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("the callback URL must be http:// or https:// with a host")
    return url


class _Item:
    """One callback waiting to be sent."""

    __slots__ = ("due", "seq", "event", "body", "fault")

    def __init__(
        self, due: float, seq: int, event: str, body: dict[str, Any], fault: str | None
    ) -> None:
        self.due, self.seq, self.event, self.body, self.fault = due, seq, event, body, fault

    def __lt__(self, other: _Item) -> bool:
        return (self.due, self.seq) < (other.due, other.seq)


class CallbackOutbox:
    """The callbacks waiting to be sent, their sender thread (started when the first one is
    queued) and the delivery log. `take_fault(token)` is the first callback fault in force,
    `now()` the simulator's clock (for the log), `known(token)` whether an order has a token."""

    def __init__(
        self,
        take_fault: Callable[[str], Fault | None],
        now: Callable[[], float],
        known: Callable[[str], bool],
    ) -> None:
        self._take_fault, self._now, self._known = take_fault, now, known
        self._cv = threading.Condition()
        self._url: str | None = None
        self._form = False
        self._timeout = DEFAULT_TIMEOUT
        self._rotation: tuple[str | None, ...] = ()
        self._turn = itertools.count()
        self._delay = DEFAULT_DELAY
        self._queue: list[_Item] = []
        self._held: _Item | None = None
        self._seq = itertools.count()
        self._log: deque[dict[str, Any]] = deque(maxlen=LOG_LIMIT)
        self._thread: threading.Thread | None = None
        self._closing = False

    # ---------------------------------------------------------------- settings
    def configure(
        self,
        url: str | None,
        *,
        form: bool = False,
        timeout: float | None = None,
        faults: Sequence[str] | None = None,
        delay: float | None = None,
    ) -> None:
        """Where callbacks go (None: nowhere, nothing queued), as JSON or (`form`) form-encoded;
        `timeout`: seconds to wait for an answer; `faults`: kinds taken in turn by the callbacks
        no fault matches, each turn followed by one clean callback; `delay`: their "delayed"
        seconds. What is not given (None) stays as it was."""
        if url is not None:
            check_callback_url(url)
        unknown = [kind for kind in faults or () if kind not in CALLBACK_FAULTS]
        if unknown:
            raise ValueError(f"unknown callback fault(s): {', '.join(unknown)}")
        for value in (timeout, delay):
            if value is not None and not 0 < value <= 3600:
                raise ValueError("the timeout and the delay are 0 to 3600 seconds")
        with self._cv:
            self._url, self._form = url, form
            self._timeout = self._timeout if timeout is None else timeout
            self._delay = self._delay if delay is None else delay
            if faults is not None:
                self._rotation = (*faults, None) if faults else ()
                self._turn = itertools.count()

    @property
    def url(self) -> str | None:
        return self._url

    # ---------------------------------------------------------------- queueing
    def push(self, event: str, body: dict[str, Any]) -> None:
        """Queue the callback for one event ("coin", "payment", "status"), as the fault in force
        bends it; returns at once."""
        if self._url is None:
            return
        token = str(body["order_token"])
        fault = self._take_fault(token)
        delay = self._delay
        if fault is not None:
            kind: str | None = fault.callback
            delay = fault.delay
        else:
            with self._cv:
                rotation = self._rotation
                kind = rotation[next(self._turn) % len(rotation)] if rotation else None
        if kind == "lost":
            self._record(event, body, kind, None, "not sent (fault: lost)")
            return
        if kind == "forged":
            body = forged_body(body)
        stray = stray_body(body, self._unknown_token()) if kind == "unknown_token" else None
        with self._cv:
            now = time.monotonic()
            due = now + delay if kind == "delayed" else now
            items = [] if stray is None else [_Item(now, next(self._seq), event, stray, kind)]
            item = _Item(due, next(self._seq), event, body, kind)
            if kind == "out_of_order":
                previous, self._held = self._held, _Item(now + HOLD_LIMIT, 0, event, body, kind)
                if previous is not None:
                    items.append(previous)
            else:
                items.append(item)
                if kind == "duplicate":
                    items.append(_Item(due, next(self._seq), event, body, kind))
                if self._held is not None:
                    # after this callback, whatever its delay
                    held, self._held = self._held, None
                    held.due, held.seq = due, next(self._seq)
                    items.append(held)
            dropped = self._enqueue(items)
        for lost in dropped:
            self._record(lost.event, lost.body, lost.fault, None, "not sent: the queue is full")

    def _unknown_token(self) -> str:
        while True:
            token = f"unknown-{secrets.token_hex(8)}"
            if not self._known(token):
                return token

    def _enqueue(self, items: list[_Item]) -> list[_Item]:
        """Queue `items` (the caller holds the condition); those beyond QUEUE_LIMIT are
        returned, not queued."""
        dropped = []
        for item in items:
            if len(self._queue) >= QUEUE_LIMIT:
                dropped.append(item)
            else:
                heapq.heappush(self._queue, item)
        self._closing = False
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(
                target=self._run, name="orderdash-simulator-callbacks", daemon=True
            )
            self._thread.start()
        self._cv.notify()
        return dropped

    # ---------------------------------------------------------------- sending
    def _next(self) -> _Item | None:
        """The next callback when it is due (None once closing)."""
        with self._cv:
            while not self._closing:
                now = time.monotonic()
                held = self._held
                if held is not None and held.due <= now:
                    self._held = None
                    held.seq = next(self._seq)
                    heapq.heappush(self._queue, held)
                if self._queue and self._queue[0].due <= now:
                    return heapq.heappop(self._queue)
                waits = [item.due for item in (self._queue[:1] + ([held] if held else []))]
                self._cv.wait(min(waits) - now if waits else None)
            return None

    def _run(self) -> None:
        while (item := self._next()) is not None:
            url, form, timeout = self._url, self._form, self._timeout
            if url is None:
                continue
            status: int | None = None
            error: str | None = None
            try:
                status = _post(url, *_encode(item.body, form), timeout)
            except (OSError, http.client.HTTPException) as exc:
                error = f"{type(exc).__name__}: {exc}"[:300]
            self._record(item.event, item.body, item.fault, status, error, url)

    def _record(
        self,
        event: str,
        body: dict[str, Any],
        fault: str | None,
        status: int | None,
        error: str | None,
        url: str | None = None,
    ) -> None:
        entry = {
            "t": self._now(),
            "url": url if url is not None else self._url,
            "event": event,
            "token": body.get("order_token"),
            "body": body,
            "status": status,
            "error": error,
            "fault": fault,
        }
        with self._cv:
            self._log.append(entry)

    # ---------------------------------------------------------------- the log
    @property
    def deliveries(self) -> list[dict[str, Any]]:
        """The delivery log, oldest first (copies)."""
        with self._cv:
            return [dict(entry) for entry in self._log]

    def clear_log(self) -> None:
        with self._cv:
            self._log.clear()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the sender thread; the callbacks still waiting are dropped."""
        with self._cv:
            self._closing = True
            self._queue.clear()
            self._held = None
            thread = self._thread
            self._cv.notify_all()
        if thread is not None:
            thread.join(timeout)


def _post(url: str, content: bytes, kind: str, timeout: float) -> int:
    """POST `content` to `url` (no redirect followed, no proxy); the answer's status code. The
    stdlib's client: the simulator needs nothing more, and httpx would load rich with it."""
    parts = urlsplit(url)
    connection_class = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    )
    connection = connection_class(parts.hostname or "", parts.port, timeout=timeout)
    try:
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {"Content-Type": kind, "User-Agent": USER_AGENT}
        connection.request("POST", path, body=content, headers=headers)
        response = connection.getresponse()
        response.read(64 * 1024)  # the answer only matters by its status
        return response.status
    finally:
        connection.close()


def _encode(body: dict[str, Any], form: bool) -> tuple[bytes, str]:
    if not form:
        return json_bytes(body), "application/json"
    fields = {name: "" if value is None else _text(value) for name, value in body.items()}
    return urlencode(fields).encode("ascii"), "application/x-www-form-urlencoded"


def _text(value: object) -> str:
    return format(value, "f") if isinstance(value, Decimal) else str(value)
