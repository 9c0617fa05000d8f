"""The book for code on an event loop: every call runs in one thread of its own, in order, and
the loop only awaits it. The book is opened there too, at the first call.

Orders seen are batched: `saw` (on the loop) keeps the newest answer of each order and hands
the batch to the thread, which writes in one transaction only the orders whose answer changed
since it last wrote them; an unchanged poll costs the loop a dict update and nothing more.

The close waits for the thread a bounded time only (`CLOSE_SECONDS`; `INTERRUPTED_SECONDS`
after a Ctrl-C) and then says what was not written: a ledger call that never returns (a
server whose backend is stopped) holds neither the quit nor the process's exit, since the
thread is a daemon one.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import Any, TypeVar

from orderdash.core.ledger import (
    Book,
    ChargeRecord,
    ChargeService,
    LedgerError,
    ResolutionRecord,
)
from orderdash.core.model import jsontext

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Fields that change at every answer without anything happening to the order: the
#: milliseconds left (`expirationTime`). Written with the rest, but not a change by themselves.
COUNTDOWN_FIELDS = frozenset({"expirationTime"})


#: How long a close waits for what is queued to be written: past the engines' own bounds on
#: one call (SQLite's busy wait, PostgreSQL's lock and statement timeouts).
CLOSE_SECONDS = 20.0
#: How long a close after Ctrl-C waits: the person asked to stop now.
INTERRUPTED_SECONDS = 0.5


def order_json(raw: dict[str, Any]) -> str:
    """getOrder's `data` object as JSON text, every number with the service's digits."""
    return jsontext.dumps(raw)


class _LedgerThread:
    """One daemon thread running what is submitted, in order, started at the first. Not a
    ThreadPoolExecutor: the interpreter joins that one's threads at exit, so a call stuck in
    the database would hold the process's exit with it."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = (
            queue.SimpleQueue()
        )
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopped = False

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        """`fn` queued (RuntimeError once stopped, as an executor shut down)."""
        future: Future[T] = Future()
        with self._lock:
            if self._stopped:
                raise RuntimeError("the ledger's thread has ended")
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="orderdash-ledger", daemon=True
                )
                self._thread.start()
            self._queue.put((future, fn))
        return future

    def stop(self) -> None:
        """Nothing more is taken; the thread ends after what is queued."""
        with self._lock:
            self._stopped = True
            self._queue.put(None)

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            future, fn = item
            if not future.set_running_or_notify_cancel():
                continue  # cancelled while queued (its caller gone): never run
            try:
                result = fn()
            except BaseException as error:  # handed to the caller, as an executor does
                future.set_exception(error)
            else:
                future.set_result(result)


def _nothing(book: Book) -> None:
    return None


class BookWriter:
    """The book as the event loop uses it, reads as well as writes: every call (`call`, the
    typed charge calls, `unresolved`, `charges`) runs in the one ledger thread, in order, and
    is awaited; `saw` batches orders seen for it (the module's docstring). Named for what the
    loop mostly does through it; nothing reaches the book on the loop by another way."""

    def __init__(
        self,
        open_book: Callable[[], Book],
        till: str,
        *,
        service: ChargeService | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._open = open_book
        self.till = till
        #: Where this till's charges are sent (written with each): None writes none, and such
        #: a charge is never looked up.
        self.service = service
        self._now = now
        self._book: Book | None = None
        self._thread = _LedgerThread()
        self._pending: dict[str, tuple[datetime, dict[str, Any]]] = {}
        self._pending_lock = threading.Lock()
        self._flush_queued = False
        #: The writes asked for and not done yet, each in a few words (what a close that
        #: could not wait for them says was not written), and the orders being written.
        self._unwritten: dict[int, str] = {}
        self._numbers = itertools.count()
        self._flushing: frozenset[str] = frozenset()
        #: Each order's last answer written (a digest), known to the writer's thread only.
        self._written: dict[str, bytes] = {}
        #: Why orders seen are not being written (one line), "" while they are: the last
        #: batch's failure, cleared when a batch is written again.
        self.problem = ""
        #: Told (in the writer's thread) when orders seen stop being written: once, and again
        #: only after a batch was written since.
        self.on_problem: Callable[[str], None] | None = None
        self._closed = False

    def _book_now(self) -> Book:
        """The book (the writer's thread only), opened at the first call; a failed open is
        tried again at the next call."""
        if self._book is None:
            self._book = self._open()
        return self._book

    def _in_thread(self, fn: Callable[[Book], T], number: int | None) -> T:
        try:
            if self._closed and self._book is None:  # queued behind the close: none reopened
                raise LedgerError("the ledger is closed")
            return fn(self._book_now())
        finally:
            self._done(number)

    def _asked(self, what: str) -> int | None:
        if not what:
            return None
        number = next(self._numbers)
        with self._pending_lock:
            self._unwritten[number] = what
        return number

    def _done(self, number: int | None) -> None:
        if number is not None:
            with self._pending_lock:
                self._unwritten.pop(number, None)

    async def written_down(self) -> None:
        """Once everything handed to the writer so far (the orders read among it) is in the
        book: its calls run in order, so an empty one ends after them."""
        await self.call(_nothing)

    async def call(self, fn: Callable[[Book], T], *, writes: str = "") -> T:
        """`fn(book)` in the writer's thread, in order with every other call; LedgerError once
        the writer is closed (the app quitting), even if it closes as this is asked. `writes`:
        what it writes, in a few words, said if a close cannot wait for it."""
        if self._closed:
            raise LedgerError("the ledger is closed")
        number = self._asked(writes)
        try:
            answer = self._thread.submit(partial(self._in_thread, fn, number))
        except RuntimeError:  # the thread ended between the check and the hand-over
            self._done(number)
            raise LedgerError("the ledger is closed") from None
        return await asyncio.wrap_future(answer)

    def later(self, fn: Callable[[Book], T]) -> Future[T]:
        """`fn(book)` in the writer's thread, in order with every other call, not awaited
        (from any thread: a notification's claim); LedgerError once the writer is closed."""
        if self._closed:
            raise LedgerError("the ledger is closed")
        try:
            return self._thread.submit(partial(self._in_thread, fn, None))
        except RuntimeError:
            raise LedgerError("the ledger is closed") from None

    async def open(self) -> Book:
        return await asyncio.wrap_future(self._thread.submit(self._book_now))

    # -- charges ---------------------------------------------------------------------------

    async def charge_started(self, token: str, amount: Decimal, currency: str) -> None:
        """Written, and durable, before the charge's create is sent (LedgerError: not sent),
        with the service it is sent to."""
        record = ChargeRecord(token, amount, currency, self.till, self._now(), service=self.service)
        await self.call(lambda book: book.charge_started(record), writes=f"charge {token}")

    async def charge_ended(
        self, token: str, outcome: str, detail: str = "", *, currency: str = ""
    ) -> str:
        """The outcome written (and the made order's `currency` where the charge had none);
        "" or why it could not be (one line: the charge itself is done, so this never
        raises)."""
        try:
            await self.call(
                lambda book: book.charge_ended(token, outcome, detail, None, currency),
                writes=f"charge {token}'s outcome ({outcome})",
            )
        except LedgerError as error:
            log.warning("charge %s outcome %s not written: %s", token, outcome, error.message)
            return f"the ledger could not write the charge's outcome: {error.message}"
        return ""

    async def charge_resolved(
        self, token: str, outcome: str, detail: str = "", *, currency: str = ""
    ) -> bool:
        """A looked-up outcome, written only over "sending" or "unknown" (True: written)."""
        return await self.call(
            lambda book: book.charge_resolved(token, outcome, detail, None, currency),
            writes=f"charge {token}'s looked-up outcome ({outcome})",
        )

    async def unresolved(self) -> list[ChargeRecord]:
        return list(await self.call(lambda book: book.unresolved_charges(self.till)))

    async def charges(
        self, since: datetime, until: datetime, till: str | None
    ) -> list[ChargeRecord]:
        """Charges started in [since, until), of `till` or (None) of every till."""
        return list(await self.call(lambda book: book.charges(since, until, till)))

    # -- resolutions -------------------------------------------------------------------------

    async def resolution_made(self, record: ResolutionRecord) -> ResolutionRecord:
        """The resolution written, and durable, once this returns (LedgerError: not written)."""
        return await self.call(
            lambda book: book.resolution_made(record), writes=f"the resolution of {record.token}"
        )

    async def resolutions_of(self, tokens: list[str]) -> list[ResolutionRecord]:
        return list(await self.call(lambda book: book.resolutions_of(tokens)))

    # -- orders seen -----------------------------------------------------------------------

    def saw(self, token: str, raw: dict[str, Any]) -> None:
        """An order's answer (getOrder's `data`), from the loop: kept, written off the loop
        if it changed."""
        with self._pending_lock:
            if self._closed:
                return
            self._pending[token] = (self._now(), raw)
            if self._flush_queued:
                return
            self._flush_queued = True
        try:
            self._thread.submit(self._flush)
        except RuntimeError:  # shut down meanwhile: the close wrote what was pending
            pass

    def _flush(self) -> None:
        with self._pending_lock:
            pending, self._pending = self._pending, {}
            self._flush_queued = False
        changed: list[tuple[str, str, datetime, str]] = []
        digests: dict[str, bytes] = {}
        for token, (at, raw) in pending.items():
            try:
                steady = {k: v for k, v in raw.items() if k not in COUNTDOWN_FIELDS}
                digest = hashlib.blake2b(
                    order_json(steady).encode("utf-8"), digest_size=16
                ).digest()
                if self._written.get(token) == digest:
                    continue
                changed.append((token, self.till, at, order_json(raw)))
            except (TypeError, ValueError):  # not JSON the service could have sent: skipped
                continue
            digests[token] = digest
        if not changed:
            return
        with self._pending_lock:
            self._flushing = frozenset(token for token, *_ in changed)
        try:
            self._book_now().order_seen_many(changed)
        except LedgerError as error:
            first = not self.problem
            self.problem = error.message
            log.warning("orders seen not written: %s", error.message)
            if first and self.on_problem is not None:
                self.on_problem(error.message)
            return
        finally:
            with self._pending_lock:
                self._flushing = frozenset()
        self.problem = ""
        self._written.update(digests)

    # -- the end ---------------------------------------------------------------------------

    def _close_in_thread(self) -> None:
        self._flush()
        if self._book is not None:
            self._book.close_connection()
            self._book = None

    def close(self, wait: float = CLOSE_SECONDS) -> str:
        """Write what is pending, close the book and end the thread (blocking), waiting `wait`
        seconds at most: "" once done, else what was left unwritten (one line, logged too; the
        thread is left to end with the process)."""
        with self._pending_lock:
            if self._closed:
                return ""
            self._closed = True
        done = self._thread.submit(self._close_in_thread)
        self._thread.stop()
        try:
            done.result(timeout=wait)
        except FutureTimeout:
            left = self.unwritten()
            said = f"the ledger did not answer within {wait:g} s: " + (
                f"not written down: {left}" if left else "nothing was left unwritten"
            )
            log.warning("%s", said)
            return said
        return ""

    def unwritten(self) -> str:
        """What was asked of the book and is not written yet, in a few words ("" if nothing)."""
        with self._pending_lock:
            parts = list(self._unwritten.values())
            orders = len(self._flushing.union(self._pending))  # an order read again: once
        if orders:
            parts.append(f"{orders} order{'' if orders == 1 else 's'} read")
        return ", ".join(parts)

    async def aclose(self, wait: float | None = None) -> str:
        """`close` off the loop; `wait` None: `INTERRUPTED_SECONDS` when the task closing it
        is being cancelled (a Ctrl-C), else `CLOSE_SECONDS`."""
        if wait is None:
            task = asyncio.current_task()
            cancelled = task is not None and task.cancelling() > 0
            wait = INTERRUPTED_SECONDS if cancelled else CLOSE_SECONDS
        return await asyncio.to_thread(self.close, wait)
