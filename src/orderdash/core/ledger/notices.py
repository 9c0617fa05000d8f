"""Notifications claimed in the book before they are sent (table `notices_sent`, docs/books.md):
one atomic insert per (order token, event, state); the process whose insert wins sends, every
other process and till on the book (and this one after a restart) sends nothing.

An outage has no state of its own that every process sees alike (each notices it at its own
moment): its state is the episode's number, the next one only once the last was recovered from
before this process saw the outage begin (or is older than `STALE_OUTAGE_HOURS`: a process that
ended while the service was out left it open).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from orderdash.core.ledger.rows import time_text
from orderdash.core.safetext import clean

#: The token of what is about the service, not one order.
SERVICE = ""
#: An outage claimed this long ago and never recovered from is over (its teller ended).
STALE_OUTAGE_HOURS = 6


class Cursor(Protocol):
    """The book's cursor (`store.Cursor`): statements with `%s` placeholders."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...


#: Longest token, event, state and claimer written.
_BOUNDS = (200, 32, 200, 64)


def claim(cursor: Cursor, token: str, event: str, state: str, by: str, at: str) -> bool:
    """Claim (token, event, state) for `by` at `at` (the book's time text): True if `by`
    holds it (won now, or before: a retry whose commit's answer was lost)."""
    key = [
        clean(part, limit=bound)
        for part, bound in zip((token, event, state, by), _BOUNDS, strict=True)
    ]
    cursor.execute(
        "INSERT INTO notices_sent (token, event, state, claimed_by, claimed_at)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (token, event, state) DO NOTHING",
        (*key, at),
    )
    rows = cursor.execute(
        "SELECT claimed_by FROM notices_sent WHERE token = %s AND event = %s AND state = %s",
        key[:3],
    )
    return bool(rows) and str(rows[0][0]) == key[3]


def claim_outage(cursor: Cursor, by: str, at: str, began: str, stale: str) -> tuple[str, bool]:
    """The outage that `by` saw begin at `began`: its episode and whether `by` tells it (it
    claimed it now). An episode told and not recovered from (and claimed after `stale`) is
    the one going on, and one recovered from after `began` is the same outage seen late:
    joined, not told again. Times are the book's fixed-width text: text order is time
    order."""
    rows = cursor.execute(
        "SELECT state, claimed_at, claimed_by FROM notices_sent WHERE token = %s AND event = %s"
        " ORDER BY state DESC LIMIT 1",
        (SERVICE, "outage"),
    )
    number = 0
    if rows:
        episode = str(rows[0][0])
        number = int(episode) if episode.isdigit() else 0
        recovered = cursor.execute(
            "SELECT claimed_at FROM notices_sent WHERE token = %s AND event = %s AND state = %s",
            (SERVICE, "recovery", episode),
        )
        if recovered:
            if str(recovered[0][0]) >= began:
                return episode, False
        elif str(rows[0][1]) > stale:
            return episode, str(rows[0][2]) == by
    episode = f"{number + 1:012d}"
    return episode, claim(cursor, SERVICE, "outage", episode, by, at)


T = TypeVar("T")


class NoticeClaims:
    """The claims of a book (`SqlBook`): each in one write transaction of its own (`written`),
    made once more on a new connection if the first was lost (a claim is idempotent: its
    claimer's row is its own)."""

    def written(self, fn: Callable[[Cursor], T]) -> T:
        raise NotImplementedError

    def claim_notice(self, token: str, event: str, state: str, by: str, at: datetime) -> bool:
        return self.written(lambda cursor: claim(cursor, token, event, state, by, time_text(at)))

    def claim_outage(self, by: str, at: datetime, began: datetime) -> tuple[str, bool]:
        stale = time_text(at - timedelta(hours=STALE_OUTAGE_HOURS))
        return self.written(
            lambda cursor: claim_outage(cursor, by, time_text(at), time_text(began), stale)
        )
