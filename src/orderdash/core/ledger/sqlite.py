"""The book in one SQLite file (stdlib sqlite3): one till's ledger.

WAL, and `synchronous=FULL`: a commit returns once it is on the disk, so a charge written
down survives a crash or a power cut the moment the call returns. Another process (a
command while the dashboard runs) waits for the writer's lock up to `BUSY_SECONDS`.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from orderdash.core.ledger import LedgerError
from orderdash.core.safetext import clean

#: How long a write waits for another process's write to end.
BUSY_SECONDS = 10.0


def _failed(where: str, error: sqlite3.Error) -> LedgerError:
    return LedgerError(f"the ledger {where}: {clean(str(error), limit=160)}")


class _Cursor:
    def __init__(self, connection: sqlite3.Connection, where: str) -> None:
        self._connection, self._where = connection, where

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._connection.execute(sql.replace("%s", "?"), tuple(params)).fetchall()


class SqliteEngine:
    name = "sqlite"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.where = str(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # the shop's takings: the owner's to read, nobody else's (SQLite gives its -wal and
            # -shm files the same mode)
            os.close(os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600))
            # one connection, used under the book's lock from whichever thread calls it
            self._connection = sqlite3.connect(
                self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False
            )
        except OSError as error:
            raise LedgerError(f"the ledger {self.where}: {error.strerror}") from None
        except sqlite3.Error as error:
            raise _failed(self.where, error) from None
        try:
            self._connection.execute("PRAGMA journal_mode=WAL").fetchall()
            self._connection.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as error:
            self._connection.close()
            raise _failed(self.where, error) from None

    @contextmanager
    def transaction(self, *, migrating: bool = False) -> Iterator[_Cursor]:
        connection = self._connection
        try:
            # IMMEDIATE: the write lock at the start, so two writers never deadlock midway
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise _failed(self.where, error) from None
        try:
            yield _Cursor(connection, self.where)
        except sqlite3.Error as error:
            self._rollback()
            raise _failed(self.where, error) from None
        except BaseException:
            self._rollback()
            raise
        try:
            connection.execute("COMMIT")
        except sqlite3.Error as error:
            self._rollback()
            raise _failed(self.where, error) from None

    def _rollback(self) -> None:
        """Undo the open transaction, if SQLite has not undone it already (some errors, a
        full disk or a corrupt page, end it themselves); a failing rollback is the error
        already being raised, said once."""
        try:
            if self._connection.in_transaction:
                self._connection.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return _Cursor(self._connection, self.where).execute(sql, params)
        except sqlite3.Error as error:
            raise _failed(self.where, error) from None

    def close(self) -> None:
        self._connection.close()

    def lost(self) -> bool:
        return False  # a file: nothing to reconnect to
