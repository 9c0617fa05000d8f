"""A burst of callbacks for one order is one read: a callback for an order whose read is waiting,
running, or started less than `WINDOW` seconds ago joins that read. One that joined after the
read started (running or just done) and whose status differs from what the read found may say
something the read came too early to see: it earns one more read, `WINDOW` after the first (so
an order costs at most about one getOrder a second, whatever is sent).

Bounded: at most `QUEUE_LIMIT` reads wait (beyond, a callback is refused, not queued), and at
most `MAX_ORDERS` orders are remembered (the oldest finished ones forgotten first). Called from
the receiver's threads: one lock. Time is passed in (monotonic seconds)."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orderdash.core.receiver.parse import Callback

#: Seconds after a read starts in which a callback for its order joins it.
WINDOW = 1.0
#: Most reads waiting at once.
QUEUE_LIMIT = 1000
#: Most orders remembered (waiting, running and recently read).
MAX_ORDERS = 10_000
#: Most statuses remembered of the callbacks that joined a running read (those naming none
#: are not: they claim nothing to look again for).
MAX_LATE = 8

QUEUED, COALESCED, FULL = "queued", "coalesced", "full"


class Read:
    """One getOrder to make: its order's token, the callback that asked for it and its journal
    row (none for a second look), when it is due and when it started."""

    __slots__ = ("token", "callback", "journal_id", "due", "started", "finished", "found", "late")

    def __init__(
        self, token: str, callback: Callback | None, journal_id: str | None, due: float
    ) -> None:
        self.token, self.callback, self.journal_id, self.due = token, callback, journal_id, due
        self.started: float | None = None
        self.finished = False
        self.found: str | None = None
        self.late: list[str] = []


class Coalescer:
    """The reads the callbacks ask for, one per order at a time."""

    def __init__(self, *, window: float = WINDOW, queue_limit: int = QUEUE_LIMIT) -> None:
        self._window, self._queue_limit = window, queue_limit
        self._lock = threading.Lock()
        self._orders: OrderedDict[str, Read] = OrderedDict()
        self._heap: list[tuple[float, int, Read]] = []
        self._seq = itertools.count()
        #: Reads queued whose callback's journal row is not written yet.
        self._held = 0

    def offer(self, callback: Callback, journal_id: str, now: float) -> str:
        """A callback: QUEUED (a new read), COALESCED (it joined one) or FULL (too many reads
        wait: nothing queued)."""
        token, status = callback.token, callback.status
        with self._lock:
            read = self._orders.get(token)
            if read is not None and (read.started is None or now - read.started < self._window):
                if read.started is None or status is None:
                    return COALESCED
                if not read.finished:
                    if len(read.late) < MAX_LATE:
                        read.late.append(status)
                elif status != read.found and len(self._heap) < self._queue_limit:
                    self._queue(Read(token, None, None, read.started + self._window))
                return COALESCED
            if len(self._heap) + self._held >= self._queue_limit:
                return FULL
            # held until `release`: not read before its callback's journal row is written
            self._remember(Read(token, callback, journal_id, now))
            self._held += 1
            return QUEUED

    def release(self, token: str, journal_id: str) -> None:
        """The journal row of the callback `journal_id` is written: its read may start."""
        with self._lock:
            read = self._orders.get(token)
            if read is not None and read.journal_id == journal_id and read.started is None:
                self._held -= 1
                heapq.heappush(self._heap, (read.due, next(self._seq), read))

    def withdraw(self, token: str, journal_id: str) -> None:
        """Forget the read `offer` queued for the callback `journal_id`: its journal row could
        not be written, so it is not acted on."""
        with self._lock:
            read = self._orders.get(token)
            if read is not None and read.journal_id == journal_id and read.started is None:
                self._held -= 1
                del self._orders[token]

    def _queue(self, read: Read) -> None:
        self._remember(read)
        heapq.heappush(self._heap, (read.due, next(self._seq), read))

    def _remember(self, read: Read) -> None:
        self._orders.pop(read.token, None)
        self._orders[read.token] = read
        while len(self._orders) > MAX_ORDERS:
            oldest = next(iter(self._orders.values()))
            if not oldest.finished:
                break  # every one remembered is waiting or running: the queue's cap bounds them
            self._orders.popitem(last=False)

    def next_read(self, now: float) -> tuple[Read | None, float | None]:
        """The read to start now (marked started), or None and when the next is due (None:
        none waits)."""
        with self._lock:
            if not self._heap:
                return None, None
            due = self._heap[0][0]
            if due > now:
                return None, due
            read = heapq.heappop(self._heap)[2]
            read.started = now
            return read, None

    def finished(self, read: Read, status: str | None) -> bool:
        """`read` found `status`; True when a callback that joined it late says otherwise, and
        one more read is queued for `WINDOW` after it started."""
        with self._lock:
            read.finished, read.found = True, status
            if all(late == status for late in read.late) or read.started is None:
                return False
            if self._orders.get(read.token) is not read or len(self._heap) >= self._queue_limit:
                return False
            again = Read(read.token, None, None, read.started + self._window)
            self._queue(again)
            return True

    @property
    def waiting(self) -> int:
        with self._lock:
            return len(self._heap) + self._held

    def __len__(self) -> int:
        with self._lock:
            return len(self._orders)
