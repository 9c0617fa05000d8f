"""The watched orders that need a human, kept up to date for the dashboard's title and its
attention view (`!`, `tui/screens/attention.py`); the classifier is the books'
(`core/books/attention.py`), the same as `orderdash attention`'s.

A tick goes in three steps, so that nothing whose cost grows with an answer runs on the event
loop: `take` (on the loop, cheap) picks the orders whose answer changed since it was classified
(compared by identity; at most `PER_TICK`, so that a list of thousands loading at once spreads
over a few seconds) and the unconfirmed ones not yet counted as such (their wait crosses the
threshold by itself);
`classify` reads each into the books' view and classifies it, in any thread (the dashboard's:
`tui/books.py`); `apply` (on the loop) keeps the results whose answer is still the one on
the watch list. `update` does the three at once (pictures, tests).

An order is shown unless its latest resolution in the ledger is as new as its newest trouble
(`resolved_by`). The ledger is asked about each order when it first needs a human, and about
every order found (resolved or not) again every `recheck_every` seconds, so that a resolution
made at another till or by `orderdash resolve` takes it out within a minute.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # the books' modules load with the first tick, after the first paint, not at start-up
    from orderdash.core.books.attention import OrderAttention
    from orderdash.core.books.orders import BookOrder
    from orderdash.core.watching.state import DashboardState

log = logging.getLogger(__name__)

#: Orders read into the books' view at most per tick.
PER_TICK = 200
#: Seconds between two questions to the ledger about every order found.
RECHECK_SECONDS = 60.0
#: Tokens per question to the ledger.
ASK_CHUNK = 500


@dataclass(frozen=True)
class Item:
    """One order to classify: its answer, its books' view when read already (an unconfirmed
    order classified again), and the identity its token named at an earlier read."""

    token: str
    fetched: Any
    book: BookOrder | None
    was: tuple[int, int] | None


@dataclass(frozen=True)
class Batch:
    """What one tick classifies (`AttentionKeeper.take`)."""

    now_ms: int
    unconfirmed_after: float
    items: tuple[Item, ...]
    #: The payment tolerance in percent (`underpaid_tolerance`).
    tolerance: Decimal = Decimal(0)


#: One classified order: token, the answer, its books' view (None: unreadable), what it needs.
Result = tuple[str, Any, "BookOrder | None", "OrderAttention | None"]


def classify(batch: Batch) -> list[Result]:
    """Each order of `batch` read (unless read already) and classified: pure, for any thread."""
    from orderdash.core.books.attention import attention_of  # the books: after the first paint

    results: list[Result] = []
    for item in batch.items:
        book = item.book if item.book is not None else _books_view(item.fetched.raw)
        found = (
            None
            if book is None
            else attention_of(
                book,
                now_ms=batch.now_ms,
                unconfirmed_after=batch.unconfirmed_after,
                tolerance=batch.tolerance,
                was=item.was,
            )
        )
        results.append((item.token, item.fetched, book, found))
    return results


class AttentionKeeper:
    """What needs a human among the watched orders, by token. `changed` is called with the
    count whenever what needs attention changed (the App's `attention` reactive)."""

    def __init__(
        self,
        state: DashboardState,
        *,
        changed: Callable[[int], None],
        unconfirmed_after: float = 3600.0,
        tolerance: Decimal = Decimal(0),
    ) -> None:
        """`unconfirmed_after`: the `attention_unconfirmed_after` setting; `tolerance`: the
        `underpaid_tolerance` setting (an order closed short within it needs nobody)."""
        self._state = state
        self._changed = changed
        self.unconfirmed_after = unconfirmed_after
        self.tolerance = tolerance
        self.recheck_every = RECHECK_SECONDS
        #: token -> the time of its latest resolution known (epoch ms)
        self._resolved: dict[str, int] = {}
        #: Told tokens (at most `ASK_CHUNK` at a time) to ask the ledger about their
        #: resolutions (`tui/books.py`), which answers through `answered`.
        self.asking: Callable[[list[str]], None] | None = None
        #: Told each order that newly needs a human once the ledger answered about it (again
        #: after it left the view and came back: a payment after its resolution).
        self.needs_human: Callable[[OrderAttention], object] | None = None
        self._asked: set[str] = set()
        self._answered: set[str] = set()
        self._told: set[str] = set()
        self._checked_ms: int | None = None
        #: token -> (the answer read, the books' view of it or None when it could not be read)
        self._read: dict[str, tuple[Any, BookOrder | None]] = {}
        self._found: dict[str, OrderAttention] = {}
        self._shown: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def resolved(self) -> Mapping[str, int]:
        """Token -> the time of its latest resolution in the ledger (epoch ms): an order
        leaves the view unless it went wrong again after it."""
        return dict(self._resolved)

    @resolved.setter
    def resolved(self, times: Mapping[str, int]) -> None:
        self._resolved = dict(times)
        self._tell()

    def resolve(self, times: Mapping[str, int]) -> None:
        """Resolutions learned (the dialog's, the ledger's): the latest of each token kept."""
        for token, at in times.items():
            if at > self._resolved.get(token, -1):
                self._resolved[token] = at
        self._answered.update(t for t in times if t in self._state.entries)
        self._tell()

    def answered(self, tokens: list[str], times: Mapping[str, int]) -> None:
        """The ledger's answer about `tokens`: `times`, the latest resolution of those it holds
        resolved (empty when it could not be read: the orders stay)."""
        self._answered.update(t for t in tokens if t in self._state.entries)
        self.resolve(times)

    @property
    def found(self) -> list[OrderAttention]:
        """The orders that need a human, the most recent trouble first."""
        from orderdash.core.books.attention import resolved_by  # the books: after the first paint

        found = [o for o in self._found.values() if not resolved_by(o, self._resolved)]
        return sorted(found, key=lambda o: (-(o.first.at_ms or 0), o.token))

    def trouble(self, token: str) -> OrderAttention | None:
        """What `token` needs, resolved or not (None: nothing)."""
        return self._found.get(token)

    def update(self) -> None:
        """Bring the view up to date with the watched orders at once, on this thread (for a
        picture or a test; the dashboard's tick classifies in a thread)."""
        batch = self.take()
        self.apply(batch, classify(batch))

    def take(self) -> Batch:
        """On the loop: what to classify now (orders gone from the watch list leave)."""
        entries = self._state.entries
        for token in [t for t in self._read if t not in entries]:
            del self._read[token]
            self._found.pop(token, None)
        for kept in (self._asked, self._answered):
            kept.intersection_update(entries)
        for token in [t for t in self._resolved if t not in entries]:
            del self._resolved[token]
        budget = PER_TICK
        items: list[Item] = []
        for token, entry in entries.items():
            fetched = entry.fetched
            known = self._read.get(token)
            if fetched is None:
                if known is not None:
                    del self._read[token]
                    self._found.pop(token, None)
                continue
            if known is None or known[0] is not fetched:
                if budget <= 0:
                    continue
                budget -= 1
                book = None
            elif _waiting(known[1], self._found.get(token)):
                book = known[1]  # its wait crosses the threshold by itself
            else:
                continue  # the same answer, classified already
            was = entry.was
            items.append(
                Item(token, fetched, book, None if was is None else (was.id, was.created_at_ms))
            )
        now_ms = int(self._state.clock() * 1000)
        return Batch(now_ms, self.unconfirmed_after, tuple(items), self.tolerance)

    def apply(self, batch: Batch, results: list[Result]) -> None:
        """On the loop: `classify`'s results kept, those whose order has another answer now
        (or left the list) dropped (it is taken again); the ledger asked; the count told."""
        entries = self._state.entries
        for token, fetched, book, found in results:
            entry = entries.get(token)
            if entry is None or entry.fetched is not fetched:
                continue
            self._read[token] = (fetched, book)
            if found is None:
                self._found.pop(token, None)
            else:
                self._found[token] = found
        new = [t for t in self._found if t not in self._asked]
        if new and self.asking is not None:
            self._asked.update(new)
            self._ask(new)
        if self._checked_ms is None:
            self._checked_ms = batch.now_ms
        elif batch.now_ms - self._checked_ms >= self.recheck_every * 1000:
            self.recheck()
        self._tell()

    def recheck(self) -> None:
        """Ask the ledger again about every order found, resolved or not (a resolution made
        elsewhere since)."""
        self._checked_ms = int(self._state.clock() * 1000)
        tokens = list(self._found)
        if tokens and self.asking is not None:
            self._asked.update(tokens)
            self._ask(tokens)

    def _ask(self, tokens: list[str]) -> None:
        assert self.asking is not None
        for start in range(0, len(tokens), ASK_CHUNK):
            self.asking(tokens[start : start + ASK_CHUNK])

    def _tell(self) -> None:
        """`changed` with the count, when what needs attention (resolved left out) changed;
        `needs_human` with each order newly shown that the ledger answered about."""
        from orderdash.core.books.attention import resolved_by  # the books: after the first paint

        shown = {t: o for t, o in self._found.items() if not resolved_by(o, self._resolved)}
        key = tuple(sorted((t, o.kinds) for t, o in shown.items()))
        if key != self._shown:
            self._shown = key
            self._changed(len(key))
        told = {t for t in shown if t in self._answered}
        if self.needs_human is not None:
            for token in sorted(told - self._told):
                self.needs_human(shown[token])
        self._told = told


def _waiting(book: BookOrder | None, found: OrderAttention | None) -> bool:
    """An unconfirmed order not yet counted as such: classified again at each tick."""
    return (
        book is not None
        and book.state == "unconfirmed"
        and (found is None or "unconfirmed" not in found.kinds)
    )


def _books_view(raw: Any) -> BookOrder | None:
    from orderdash.core.books.orders import BadOrder, read_order  # the books: after the first paint

    try:
        return read_order(raw)
    except BadOrder as exc:
        log.info("an order the attention view cannot read: %s", exc)
        return None
