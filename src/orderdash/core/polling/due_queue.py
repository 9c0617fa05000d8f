"""The scheduler's queue (`scheduler.py` plans, this keeps the order): the lanes a waiting
request waits in, the head start each priority gets in them, and the index of due times, so that
the next wake-up never walks the whole watch list.

Pure data: time is passed in (monotonic seconds), nothing here does I/O.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum, IntEnum

from orderdash.core.polling.refresh import Kind


class Priority(IntEnum):
    FOCUSED = 0
    RECENT = 1
    NORMAL = 2
    CLOSED = 3


#: Head start (seconds) a due request gets in the queue by priority: the orders on screen before
#: all, and one-off rate calls by their order's priority. Background getOrders are ordered by when
#: their read is needed instead (due time plus interval, `scheduler.py`), so that no fixed head
#: start lets busy orders hold the quiet ones back.
HEAD_START = {
    Priority.FOCUSED: 1e9,
    Priority.RECENT: 60.0,
    Priority.NORMAL: 0.0,
    Priority.CLOSED: -60.0,
}


class Lane(Enum):
    """Requests that share the same gates (budget, reserve, pacing): the earliest due request
    of each lane is all `next_wakeup` needs, so it never walks the whole list."""

    # members are singletons: identity hashing is exact, and the heaps hash lanes a lot
    __hash__ = object.__hash__

    FOCUSED_ORDER = "focused order"
    BACKGROUND_ORDER = "background order"
    RATES = "rates"
    RATE_ONCE = "one-off rate"


@dataclass(eq=False, repr=False)
class DueIndex:
    """The due time of every waiting request, by lane: heaps with lazy deletion (an entry is
    live while it equals the order's current entry)."""

    heaps: dict[Lane, list[tuple[float, str, Kind]]] = field(
        default_factory=lambda: {lane: [] for lane in Lane}
    )
    entries: dict[str, frozenset[tuple[Lane, float, Kind]]] = field(default_factory=dict)

    def set(self, token: str, entries: frozenset[tuple[Lane, float, Kind]]) -> None:
        old = self.entries.get(token, frozenset())
        if entries == old:
            return
        self.entries[token] = entries
        for lane, due, kind in entries - old:
            heapq.heappush(self.heaps[lane], (due, token, kind))

    def drop(self, token: str) -> None:
        self.entries.pop(token, None)

    def _live(self, lane: Lane, item: tuple[float, str, Kind]) -> bool:
        due, token, kind = item
        return (lane, due, kind) in self.entries.get(token, ())

    def earliest(self, lane: Lane) -> float | None:
        heap = self.heaps[lane]
        while heap and not self._live(lane, heap[0]):
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def pop_due(self, lane: Lane, now: float) -> tuple[float, str, Kind] | None:
        """The earliest live entry of `lane` due at `now` (None: none), taken off its heap with
        its copies: the caller puts it back (`put_back`) when it is done with the lane."""
        heap = self.heaps[lane]
        while heap and heap[0][0] <= now:
            item = heapq.heappop(heap)
            if self._live(lane, item):
                while heap and heap[0] == item:
                    heapq.heappop(heap)
                return item
        return None

    def next_due(self, lane: Lane) -> float:
        """A time no live entry of `lane` left on its heap is due before (inf: none left)."""
        heap = self.heaps[lane]
        return heap[0][0] if heap else float("inf")

    def put_back(self, lane: Lane, items: Iterable[tuple[float, str, Kind]]) -> None:
        for item in items:
            heapq.heappush(self.heaps[lane], item)
