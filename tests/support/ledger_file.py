"""The books' tests' ledger: a real SQLite file in the test's directory (`core/ledger`), opened
anew at each use as the commands and the dashboard open theirs: `LedgerFile.open` is the opener
a test gives `main(..., open_book=...)` and `make_app(..., open_book=...)`. What a test checks it
reads back from the file with a book of its own."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any

from orderdash.core.ledger import CloseRecord
from orderdash.core.ledger.sqlite import SqliteEngine
from orderdash.core.ledger.store import SqlBook


class LedgerFile:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        #: Orders written as seen, by every book opened on the file (what a close asks of it).
        self.seen_writes = 0

    def open(self, settings: Any = None) -> SqlBook:
        """A book on the file, as `ledger_book` gives one (the settings are not needed)."""
        return _CountingBook(self, SqliteEngine(self.path))

    def _wrote_seen(self, count: int) -> None:
        with self._lock:
            self.seen_writes += count

    def saved(self) -> list[CloseRecord]:
        """Every close in the file, whatever its till."""
        book = self.open()  # (the schema made if nothing was written yet)
        try:
            with closing(sqlite3.connect(self.path)) as connection:
                rows = connection.execute("SELECT DISTINCT till FROM closes").fetchall()
            return [close for (till,) in sorted(rows) for close in book.closes(str(till))]
        finally:
            book.close_connection()


class _CountingBook(SqlBook):
    """A real book that tells its file each order written as seen."""

    def __init__(self, ledger: LedgerFile, engine: SqliteEngine) -> None:
        super().__init__(engine)
        self._ledger = ledger

    def order_seen(self, token: str, till: str, seen_at: datetime, order_json: str) -> None:
        super().order_seen(token, till, seen_at, order_json)
        self._ledger._wrote_seen(1)
