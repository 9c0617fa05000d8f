"""The journal of the callbacks the receiver was sent (table `callbacks_received`,
docs/receiver.md#the-delivery-journal): one row per callback, written before anything is done
about it (when it came, from where, the body as sent, cut to `MAX_CALLBACK_BODY`), its outcome
written then and updated once its order is read.

Everything in a row came from outside: each text is cut and made one printable line on the way
in (the body apart: kept as sent, its bytes that are not UTF-8 escaped) and again on the way out.
"""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol, TypeVar

from orderdash.core.ledger import ReceivedCallback
from orderdash.core.ledger.rows import parse_time, time_text
from orderdash.core.ledger.schema import MAX_DETAIL
from orderdash.core.safetext import clean

#: Longest body kept (the receiver refuses a longer one, and keeps its start).
MAX_CALLBACK_BODY = 16 << 10
#: Longest source address and token written.
MAX_SOURCE = 64
MAX_CALLBACK_TOKEN = 200
#: What became of a callback: the last four are refusals, answered before any read.
OUTCOMES = (
    "received",
    "pulled",
    "coalesced",
    "unknown token",
    "refused",
    "malformed",
    "oversized",
    "rate-limited",
    "outside allow-list",
)
#: Most rows one read of the journal returns.
MAX_ROWS_READ = 1000
#: Rows the journal keeps: the oldest beyond are deleted, now and then as rows are written
#: (a busy shop's few hundred callbacks a day, for a year; a flood cannot fill the disk).
MAX_JOURNAL_ROWS = 100_000
#: One write in this many also deletes what is beyond `MAX_JOURNAL_ROWS`.
PRUNE_EVERY = 256


class Cursor(Protocol):
    """The book's cursor (`store.Cursor`): statements with `%s` placeholders."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...


#: The rows older than the newest N deleted (OFFSET N - 1; none while there are fewer: the
#: subquery is then empty, and nothing is older than nothing).
PRUNE = (
    "DELETE FROM callbacks_received WHERE received_at < (SELECT received_at FROM"
    " callbacks_received ORDER BY received_at DESC LIMIT 1 OFFSET %s)"
)


def body_text(raw: bytes) -> str:
    """The body as it is kept: at most `MAX_CALLBACK_BODY` bytes, as text, each byte that is not
    UTF-8 written as `\\xNN`."""
    return raw[:MAX_CALLBACK_BODY].decode("utf-8", errors="backslashreplace")


def _outcome(outcome: str) -> str:
    if outcome not in OUTCOMES:
        raise ValueError(f"a callback's outcome is one of {', '.join(OUTCOMES)}, not {outcome!r}")
    return outcome


T = TypeVar("T")


class CallbackJournal:
    """The callbacks' calls of a book (`SqlBook`): each in one write transaction of its own
    (`written`), made once more on a new connection if the first was lost (the id makes the
    second insert a no-op)."""

    def written(self, fn: Callable[[Cursor], T]) -> T:
        raise NotImplementedError

    def callback_received(
        self,
        at: datetime,
        source: str,
        token: str,
        raw: bytes,
        outcome: str = "received",
        detail: str = "",
        *,
        row_id: str | None = None,
    ) -> str:
        """Journal one callback as it came (`raw`: its body, cut); its id (`row_id`, or a new
        one), for `callback_outcome`."""
        row = (
            clean(row_id, limit=40) if row_id else uuid.uuid4().hex,
            time_text(at),
            clean(source, limit=MAX_SOURCE),
            clean(token, limit=MAX_CALLBACK_TOKEN),
            body_text(raw).replace("\x00", "\\x00"),  # PostgreSQL's text holds no NUL
            _outcome(outcome),
            clean(detail, limit=MAX_DETAIL),
        )
        # about one write in PRUNE_EVERY, the same one when a lost write is made again
        prune = zlib.crc32(row[0].encode()) % PRUNE_EVERY == 0

        def write(cursor: Cursor) -> None:
            cursor.execute(
                "INSERT INTO callbacks_received (id, received_at, source, token, body, outcome,"
                " detail) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                row,
            )
            if prune:
                cursor.execute(PRUNE, (MAX_JOURNAL_ROWS - 1,))

        self.written(write)
        return row[0]

    def callback_outcome(self, ids: Sequence[str], outcome: str, detail: str = "") -> None:
        """What became of the callbacks `ids` (one read answers several)."""
        params = [(_outcome(outcome), clean(detail, limit=MAX_DETAIL), one) for one in ids]

        def write(cursor: Cursor) -> None:
            for values in params:
                cursor.execute(
                    "UPDATE callbacks_received SET outcome = %s, detail = %s WHERE id = %s", values
                )

        if params:
            self.written(write)

    def callbacks_received(self, limit: int = 100) -> list[ReceivedCallback]:
        """The latest `limit` callbacks journaled (at most MAX_ROWS_READ), oldest first."""
        count = max(0, min(limit, MAX_ROWS_READ))
        rows = self.written(
            lambda cursor: cursor.execute(
                "SELECT substr(id, 1, 40), substr(received_at, 1, 40), substr(source, 1, %s),"
                " substr(token, 1, %s), substr(body, 1, %s), substr(outcome, 1, 40),"
                " substr(detail, 1, %s) FROM callbacks_received"
                " ORDER BY received_at DESC, id DESC LIMIT %s",
                (
                    MAX_SOURCE + 1,
                    MAX_CALLBACK_TOKEN + 1,
                    4 * MAX_CALLBACK_BODY,
                    MAX_DETAIL + 1,
                    count,
                ),
            )
        )
        return [
            ReceivedCallback(
                id=clean(id_, limit=40),
                received_at=parse_time(at),
                source=clean(source, limit=MAX_SOURCE),
                token=clean(token, limit=MAX_CALLBACK_TOKEN),
                body=str(body)[: 4 * MAX_CALLBACK_BODY],
                outcome=clean(outcome, limit=40),
                detail=clean(detail, limit=MAX_DETAIL),
            )
            for id_, at, source, token, body, outcome, detail in reversed(rows)
        ]
