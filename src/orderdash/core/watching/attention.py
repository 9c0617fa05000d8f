"""The watched orders that need a human, kept up to date for the dashboard's title and its
attention view (`!`, `tui/screens/attention.py`); the classifier is the books'
(`core/books/attention.py`), the same as `orderdash attention`'s.

Each order is read into the books' view (`read_order`) once per answer: an answer is compared
by identity with the last one classified, and at most `PER_TICK` orders are read in one tick,
so that a list of thousands loading at once spreads over a few seconds instead of holding the
event loop. An unconfirmed order is classified again at each tick (its wait crosses the
threshold by itself).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # the books' modules load with the first tick, after the first paint, not at start-up
    from orderdash.core.books.attention import OrderAttention
    from orderdash.core.books.orders import BookOrder
    from orderdash.core.watching.state import DashboardState

log = logging.getLogger(__name__)

#: Orders read into the books' view at most per tick.
PER_TICK = 200


class AttentionKeeper:
    """What needs a human among the watched orders, by token. `changed` is called with the
    count whenever what needs attention changed (the App's `attention` reactive)."""

    def __init__(
        self,
        state: DashboardState,
        *,
        changed: Callable[[int], None],
        unconfirmed_after: float = 3600.0,
    ) -> None:
        """`unconfirmed_after`: the `attention_unconfirmed_after` setting."""
        self._state = state
        self._changed = changed
        self.unconfirmed_after = unconfirmed_after
        self._resolved: Collection[str] = frozenset()
        #: Told the tokens that newly need a human (resolved or not), to ask the ledger which
        #: are resolved (`tui/books.py`); each token is told once while it is watched.
        self.asking: Callable[[list[str]], None] | None = None
        self._asked: set[str] = set()
        #: token -> (the answer read, the books' view of it or None when it could not be read)
        self._read: dict[str, tuple[Any, BookOrder | None]] = {}
        self._found: dict[str, OrderAttention] = {}
        self._shown: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def resolved(self) -> Collection[str]:
        """Tokens resolved in the ledger: they leave the view."""
        return self._resolved

    @resolved.setter
    def resolved(self, tokens: Collection[str]) -> None:
        self._resolved = frozenset(tokens)
        self._tell()

    @property
    def found(self) -> list[OrderAttention]:
        """The orders that need a human, the most recent trouble first."""
        found = [o for t, o in self._found.items() if t not in self._resolved]
        return sorted(found, key=lambda o: (-(o.first.at_ms or 0), o.token))

    def trouble(self, token: str) -> OrderAttention | None:
        """What `token` needs, resolved or not (None: nothing)."""
        return self._found.get(token)

    def update(self) -> None:
        """Bring the view up to date with the watched orders (a tick)."""
        from orderdash.core.books.attention import attention_of

        entries = self._state.entries
        for token in [t for t in self._read if t not in entries]:
            del self._read[token]
            self._found.pop(token, None)
        self._asked.intersection_update(entries)
        now_ms = int(self._state.clock() * 1000)
        budget = PER_TICK
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
                known = self._read[token] = (fetched, _books_view(fetched.raw))
            elif known[1] is None or known[1].state != "unconfirmed":
                continue  # the same answer, classified already
            book = known[1]
            was = entry.was
            found = (
                None
                if book is None
                else attention_of(
                    book,
                    now_ms=now_ms,
                    unconfirmed_after=self.unconfirmed_after,
                    was=None if was is None else (was.id, was.created_at_ms),
                )
            )
            if found is None:
                self._found.pop(token, None)
            else:
                self._found[token] = found
        new = [t for t in self._found if t not in self._asked]
        if new and self.asking is not None:
            self._asked.update(new)
            self.asking(new)
        self._tell()

    def _tell(self) -> None:
        """`changed` with the count, when what needs attention (resolved left out) changed."""
        found = self._found
        shown = tuple(sorted((t, o.kinds) for t, o in found.items() if t not in self._resolved))
        if shown != self._shown:
            self._shown = shown
            self._changed(len(shown))


def _books_view(raw: Any) -> BookOrder | None:
    from orderdash.core.books.orders import BadOrder, read_order

    try:
        return read_order(raw)
    except BadOrder as exc:
        log.info("an order the attention view cannot read: %s", exc)
        return None
