"""Every till told through the shared book: an order's new read announced by its token, heard
by every process on the same book (docs/books.md, "Every till told").

An announcement carries the token alone: the listener reads the order from the book
(`orders_seen`), as the announcer wrote it. PostgreSQL announces with NOTIFY on one channel
and each listener holds a LISTEN connection of its own; SQLite keeps the newest announcements
in a small table (`announcements`, pruned at each write) that each listener polls, asking the
file first whether anything was committed since (`PRAGMA data_version`: no read of the table
while nothing changed).

A listener is blocking (`wait`) and meant for one thread of its own; `close` from another
thread ends it within one `wait`.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from orderdash.core.ledger import LedgerError
from orderdash.core.safetext import clean
from orderdash.core.service.tokens import MAX_TOKEN_LENGTH

#: The PostgreSQL channel announcements go on.
CHANNEL = "orderdash_orders"
#: Announcements a SQLite book keeps (older ones are pruned at each announcement): a listener
#: that falls this far behind misses some, and its poll finds those orders instead.
KEPT = 1000
#: Most tokens one `wait` hands back (the rest at the next).
MOST_AT_ONCE = 500
#: How often a SQLite listener asks the file whether anything was committed.
SQLITE_INTERVAL = 0.2


def announceable(token: str) -> bool:
    """A token fit to announce: one line, not empty, within the tokens' bound."""
    return 0 < len(token) <= MAX_TOKEN_LENGTH and token.isprintable()


#: The statements of one SQLite announcement: the insert, and the prune that keeps the newest
#: `KEPT` (the newest row is never pruned, so rowids only grow).
SQLITE_ANNOUNCE = (
    "INSERT INTO announcements (token, announced_at) VALUES (%s, %s)",
    f"DELETE FROM announcements WHERE rowid <= (SELECT MAX(rowid) FROM announcements) - {KEPT}",
)
#: A PostgreSQL announcement: sent at once (the book's connection is in autocommit).
POSTGRES_ANNOUNCE = "SELECT pg_notify(%s, %s)"


class SqliteListener:
    """The announcements of one SQLite book, from the moment this listener was made."""

    def __init__(self, path: Path, interval: float = SQLITE_INTERVAL) -> None:
        self._interval = interval
        self._closed = threading.Event()
        self._lock = threading.Lock()
        try:
            self._connection = sqlite3.connect(
                path, timeout=1.0, isolation_level=None, check_same_thread=False
            )
            self._version = self._data_version()
            rows = self._connection.execute("SELECT MAX(rowid) FROM announcements").fetchall()
        except sqlite3.Error as error:
            raise LedgerError(f"the ledger {path}: {clean(str(error), limit=160)}") from None
        self._last = int(rows[0][0] or 0) if rows else 0

    def _data_version(self) -> int:
        return int(self._connection.execute("PRAGMA data_version").fetchone()[0])

    def wait(self, timeout: float) -> list[str]:
        """The tokens announced since the last call, waiting up to `timeout` seconds for one;
        [] when none came (or the listener was closed). A busy or failing file reads as none
        this time: the next call asks again."""
        deadline = time.monotonic() + timeout
        while not self._closed.is_set():
            with self._lock:
                if self._closed.is_set():
                    break
                try:
                    tokens = self._new()
                except sqlite3.Error:
                    tokens = []
            if tokens:
                return tokens
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._closed.wait(min(self._interval, left))
        return []

    def _new(self) -> list[str]:
        version = self._data_version()
        if version == self._version:
            return []  # nothing committed by another connection since the last look
        rows = self._connection.execute(
            f"SELECT rowid, substr(token, 1, {MAX_TOKEN_LENGTH + 1}) FROM announcements"
            f" WHERE rowid > ? ORDER BY rowid LIMIT {MOST_AT_ONCE}",
            (self._last,),
        ).fetchall()
        if len(rows) < MOST_AT_ONCE:
            self._version = version  # all read: the next look starts from this version
        if rows:
            self._last = int(rows[-1][0])
        return list(dict.fromkeys(str(t) for _, t in rows if announceable(str(t))))

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            self._connection.close()


class PostgresListener:
    """The announcements on one PostgreSQL book: a LISTEN connection of its own (autocommit,
    so each notification is delivered as it comes)."""

    def __init__(self, connection: Any, failed: Callable[[Exception], LedgerError]) -> None:
        """`connection`: a new psycopg connection in autocommit; `failed`: the engine's
        error-maker (the URL's password never in a message)."""
        self._connection = connection
        self._failed = failed
        self._closed = threading.Event()
        try:
            connection.execute(f"LISTEN {CHANNEL}")
        except Exception as error:
            connection.close()
            raise failed(error) from None

    def wait(self, timeout: float) -> list[str]:
        """The tokens announced since the last call, waiting up to `timeout` seconds for the
        first (those already delivered come without waiting); [] when none came. A lost
        connection is LedgerError: the caller listens again on a new one."""
        if self._closed.is_set():
            return []
        tokens: list[str] = []
        try:
            for notify in self._connection.notifies(timeout=max(timeout, 0.0), stop_after=1):
                tokens.append(notify.payload)
            if tokens:  # whatever else came with it, without waiting
                for notify in self._connection.notifies(timeout=0.0, stop_after=MOST_AT_ONCE):
                    tokens.append(notify.payload)
        except Exception as error:
            if self._closed.is_set():
                return []
            raise self._failed(error) from None
        return list(dict.fromkeys(t for t in tokens if announceable(t)))

    def close(self) -> None:
        self._closed.set()
        self._connection.close()
