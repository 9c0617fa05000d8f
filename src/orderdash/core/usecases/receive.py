"""The receiver of the service's callbacks (`orderdash receive`, docs/receiver.md): each callback
journaled in the shop's book before anything else is done, then taken as a hint only: one
getOrder for its order (a burst of callbacks for one order is one read), inside the getOrder
budget, the answer written to the book as the dashboard writes its reads and announced on it
(every till on the book applies it), then `on_pulled`. What the order is, is getOrder's word;
the body is only compared with it.

`CallbackDesk.receive` answers one request (the journal written in a thread); `CallbackDesk.run`
makes the reads, on the caller's loop, until cancelled. The web server around them is
`callback_server/server.py`: nothing here knows HTTP beyond the status code to answer.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple, Protocol

from orderdash.core.ledger import LedgerError
from orderdash.core.model.errors import ApiError, NotFound, RateLimited
from orderdash.core.model.jsontext import dumps
from orderdash.core.receiver import MAX_BODY_BYTES
from orderdash.core.receiver.coalesce import COALESCED, FULL, QUEUED, Coalescer, Read
from orderdash.core.receiver.compare import differences
from orderdash.core.receiver.guard import IPNetwork, SourceBuckets, allowed, networks, source_of
from orderdash.core.receiver.parse import Callback, Malformed, parse_callback
from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.books.gather import Gate
    from orderdash.core.ledger import Book
    from orderdash.core.model.results import Fetched
    from orderdash.core.settings.model import Settings

__all__ = [
    "MAX_ADMITTING",
    "MAX_BODY_BYTES",
    "RECEIVER_LOGGER",
    "Answer",
    "Arrival",
    "CallbackDesk",
    "OrderGetter",
    "ReceiveOptions",
]

#: The receiver's logger: its alarms and refusals are warnings.
RECEIVER_LOGGER = "orderdash.receiver"
log = logging.getLogger(RECEIVER_LOGGER)

#: Callbacks being journaled at once; beyond, a callback is answered 503 unjournaled (its
#: journal would wait behind the others: a flood must not queue threads without end).
MAX_ADMITTING = 64
#: getOrders running at once.
WORKERS = 4


class OrderGetter(Protocol):
    """What the receiver reads through: getOrder (`OrderClient`)."""

    async def get_order(self, token: str) -> Fetched: ...


class ReceiveOptions(NamedTuple):
    """The receiver's settings: the till its reads are written as, the networks let in (empty:
    every one) and the reverse proxies trusted to name the sender (`X-Forwarded-For`)."""

    till: str
    allow: tuple[IPNetwork, ...] = ()
    trusted_hops: int = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> ReceiveOptions:
        return cls(
            till=str(settings.till),
            allow=networks(settings.callback_allow),
            trusted_hops=settings.callback_trusted_hops,
        )


class Arrival(NamedTuple):
    """One request as it came: its body (at most the cap and one byte more: `oversized` when it
    was longer), its Content-Type, the socket's peer and its `X-Forwarded-For` lines."""

    raw: bytes
    oversized: bool
    content_type: str | None
    peer: str | None
    forwarded: tuple[str, ...] = ()


class Answer(NamedTuple):
    """What to answer: the HTTP status and the callback's outcome (the journal's word)."""

    status: int
    outcome: str


#: The start of a refused sender's body that is journaled (outside the allow-list, or past
#: its rate bound): enough to tell what it was, too little to fill the book.
REFUSED_BODY_KEPT = 512


def _nothing(token: str) -> None:
    return None


class CallbackDesk:
    """Takes the callbacks and makes their reads. `book`: the shop's book (the journal and the
    orders read); `client`: getOrder; `gate`: the getOrder budget's; `on_pulled(token)`: called
    once an order read for a callback is written to the book and announced on it (from the
    loop: it must return at once)."""

    def __init__(
        self,
        book: Book,
        client: OrderGetter,
        gate: Gate,
        options: ReceiveOptions,
        *,
        on_pulled: Callable[[str], None] = _nothing,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._book, self._client, self._gate, self._options = book, client, gate, options
        self._on_pulled, self._now, self._monotonic = on_pulled, now, monotonic
        self._buckets = SourceBuckets()
        self._buckets_lock = threading.Lock()
        self._said_at, self._unsaid = float("-inf"), 0
        self.reads = Coalescer()
        self._wake = asyncio.Event()
        self._admitting = 0
        #: Callbacks answered 503 without a journal row (more than MAX_ADMITTING at once).
        self.shed = 0

    # ---------------------------------------------------------------- taking a callback
    async def receive(self, arrival: Arrival) -> Answer:
        """Journal `arrival` (in a thread) and answer it; a read it asks for is queued."""
        if self._admitting >= MAX_ADMITTING:
            self.shed += 1
            return Answer(503, "rate-limited")
        self._admitting += 1
        try:
            answer = await asyncio.to_thread(self.admit, arrival)
        finally:
            self._admitting -= 1
        self._wake.set()
        return answer

    def admit(self, arrival: Arrival) -> Answer:
        """Journal `arrival`, then queue its read or join it to one (blocking)."""
        source = source_of(arrival.peer, arrival.forwarded, self._options.trusted_hops)
        callback: Callback | None = None
        detail = ""
        # the rate bound first: a sender outside the allow-list floods the journal no faster
        # than one inside it
        if not self._take(source):
            answer = Answer(429, "rate-limited")
        elif not allowed(source, self._options.allow):
            answer = Answer(403, "outside allow-list")
        elif arrival.oversized:
            answer = Answer(413, "oversized")
        else:
            try:
                callback = parse_callback(arrival.raw, arrival.content_type)
                answer = Answer(200, "received")
            except Malformed as exc:
                answer, detail = Answer(400, "malformed"), str(exc)
        token, row, decision = "", uuid.uuid4().hex, ""
        if callback is not None:
            # decided before the row is written, so that the row is one write; the read is
            # held until the row is written (taken back if it cannot be)
            token, decision = callback.token, self.reads.offer(callback, row, self._monotonic())
            if decision == COALESCED:
                answer = Answer(200, "coalesced")
            elif decision == FULL:
                answer, detail = Answer(503, "rate-limited"), "too many reads wait"
        raw = arrival.raw
        if answer.status in (403, 429) and len(raw) > REFUSED_BODY_KEPT:
            # a refused sender's body is not a callback of the service's: its start is enough
            raw = raw[:REFUSED_BODY_KEPT]
            detail = f"body cut to its first {REFUSED_BODY_KEPT} bytes"
        try:
            self._book.callback_received(
                self._now(), source, token, raw, answer.outcome, detail, row_id=row
            )
        except LedgerError as exc:
            if decision == QUEUED:
                self.reads.withdraw(token, row)
            log.error("a callback from %s was not journaled: %s", source, exc.message)
            return Answer(503, answer.outcome)
        if decision == QUEUED:
            self.reads.release(token, row)
        if callback is None:
            self._say_refused(source, answer.outcome, detail)
        return answer

    def _say_refused(self, source: str, outcome: str, detail: str) -> None:
        """A refusal in the log, at most one line a second (a flood is journaled, row by row,
        but not logged line by line): the lines left out are counted on the next."""
        now = self._monotonic()
        with self._buckets_lock:
            if now - self._said_at < 1.0:
                self._unsaid += 1
                return
            unsaid, self._unsaid, self._said_at = self._unsaid, 0, now
        more = f" ({unsaid} more refused since the last line)" if unsaid else ""
        log.warning("callback from %s refused: %s %s%s", source, outcome, detail, more)

    def _take(self, source: str) -> bool:
        with self._buckets_lock:
            return self._buckets.take(source, self._monotonic())

    def _outcome(self, row: str, outcome: str, detail: str = "") -> None:
        try:
            self._book.callback_outcome([row], outcome, detail)
        except LedgerError as exc:
            log.error("a callback's outcome was not journaled: %s", exc.message)

    # ---------------------------------------------------------------- the reads
    async def run(self, workers: int = WORKERS) -> None:
        """Make the reads the callbacks ask for, `workers` at once, until cancelled."""
        async with asyncio.TaskGroup() as group:
            for _ in range(max(1, workers)):
                group.create_task(self._work())

    async def _work(self) -> None:
        while True:
            read, due = self.reads.next_read(self._monotonic())
            if read is None:
                self._wake.clear()
                wait = None if due is None else max(0.0, due - self._monotonic())
                try:
                    await asyncio.wait_for(self._wake.wait(), wait)
                except TimeoutError:
                    pass
                continue
            try:
                await self.pull(read)
            except Exception:  # a bug must not stop the reads; the reason is in the log
                log.exception("a callback's read failed")

    async def pull(self, read: Read) -> None:
        """One read: getOrder within the budget, written to the book, `on_pulled` told; the
        callback's journal row gets the outcome."""
        token = read.token
        shown = clean(token, limit=80)
        await self._gate.take_turn()
        status: str | None = None
        detail = ""
        try:
            fetched = await self._client.get_order(token)
        except NotFound:
            outcome = "unknown token"
            detail = "callback for a token this account does not know"
            log.warning("alarm: %s: %s", detail, shown)
        except ApiError as exc:
            if isinstance(exc, RateLimited):
                refused = getattr(self._gate, "refused_for_limit", None)
                if refused is not None:
                    refused(exc.retry_after)
            outcome, detail = "refused", f"getOrder failed: {exc.message}"
            log.warning("the read of %s for a callback failed: %s", shown, exc.message)
        except Exception as exc:  # a bug: the read is finished all the same (else kept for ever)
            outcome, detail = self._bug(shown, exc)
        else:
            status = fetched.order.status.code
            try:
                outcome, detail = await self._written(read, fetched)
            except Exception as exc:
                outcome, detail = self._bug(shown, exc)
        if self.reads.finished(read, status):
            self._wake.set()
        if read.journal_id is not None:
            await asyncio.to_thread(self._outcome, read.journal_id, outcome, detail)

    @staticmethod
    def _bug(shown: str, exc: Exception) -> tuple[str, str]:
        """A read that failed on a bug: logged with its trace; its outcome and detail."""
        log.exception("the read of %s for a callback failed", shown)
        return "refused", f"internal error: {type(exc).__name__}"

    def _write_and_announce(self, fetched: Fetched) -> None:
        """The order read, written to the book as any till writes it, then announced on it:
        every till on the book applies it without a read of its own (docs/books.md "Every till
        told"). An announcement that fails costs the tills nothing but speed: they still poll."""
        token = fetched.order.token
        self._book.order_seen(token, self._options.till, self._now(), dumps(fetched.raw))
        try:
            self._book.announce(token)
        except LedgerError as exc:
            log.warning("the order %s was not announced: %s", clean(token, limit=80), exc.message)

    async def _written(self, read: Read, fetched: Fetched) -> tuple[str, str]:
        """The read written to the book and told; its outcome and detail for the journal."""
        shown = clean(read.token, limit=80)
        detail = ""
        found = differences(read.callback, fetched.order) if read.callback is not None else []
        if found:
            detail = "callback body disagrees with getOrder: " + "; ".join(found)
            log.warning("alarm: %s: %s", shown, detail)
        try:
            await asyncio.to_thread(self._write_and_announce, fetched)
        except LedgerError as exc:
            log.error("the order %s read for a callback was not written: %s", shown, exc.message)
            return "refused", f"not written to the book: {exc.message}"
        try:
            self._on_pulled(fetched.order.token)
        except Exception:  # whoever listens must not stop the reads
            log.exception("on_pulled failed")
        return "pulled", detail
