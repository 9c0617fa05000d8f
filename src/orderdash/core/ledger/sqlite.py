"""The book in one SQLite file (stdlib sqlite3): one till's ledger.

WAL, and `synchronous=FULL`: a commit returns once it is on the disk, so a charge written
down survives a crash or a power cut the moment the call returns. Another process (a
command while the dashboard runs) waits for the writer's lock up to `BUSY_SECONDS`, opening
a new file included (two tills making it at once: one makes it, the other waits), in slices
of `_BUSY_SLICE`: SQLite's own wait holds the thread in C, where a Ctrl-C is not seen until
it returns, so a command that writes from its main thread (`get`, `close`) would keep the
user waiting up to the whole bound. The path is never followed through a symbolic link: a
dangling one would create its target.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from orderdash.core.ledger import LedgerError
from orderdash.core.ledger.announcements import SqliteListener
from orderdash.core.safetext import clean

#: How long a write waits for another process's write to end.
BUSY_SECONDS = 10.0
#: Between two tries of what SQLite refuses at once, without waiting, while another
#: connection holds the file (turning a new file to WAL while another makes it).
_BUSY_PAUSE = 0.02
#: How long one try of a transaction's start waits in SQLite (in C) for another's write lock
#: before Python code runs again and a Ctrl-C can end the wait.
_BUSY_SLICE = 0.1
#: The path of a ledger kept in memory (a stand-in for one that could not be opened): no file.
MEMORY = ":memory:"


def _failed(where: str, error: sqlite3.Error) -> LedgerError:
    return LedgerError(f"the ledger {where}: {clean(str(error), limit=160)}")


def _busy(error: sqlite3.Error) -> bool:
    return getattr(error, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_BUSY


def _pause(seconds: float) -> None:
    time.sleep(seconds)


def _own_file(path: Path) -> None:
    """The file at `path`, made (mode 0600) if it is not there: never through a symbolic link
    (OSError, saying so), never anything but a regular file."""
    # O_NOFOLLOW: a symlink at the path (a dangling one too) is refused, never followed to
    # create or open whatever it points at
    flags = os.O_CREAT | os.O_RDWR | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        # the shop's takings: the owner's to read, nobody else's (SQLite gives its -wal and
        # -shm files the same mode)
        descriptor = os.open(path, flags, 0o600)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(error.errno, "it is a symbolic link: give the file's own path") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "it is not a regular file")
    finally:
        os.close(descriptor)


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
            if str(path) != MEMORY:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                _own_file(self.path)
            # one connection, used under the book's lock from whichever thread calls it
            self._connection = sqlite3.connect(
                self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False
            )
        except OSError as error:
            raise LedgerError(f"the ledger {self.where}: {error.strerror}") from None
        except sqlite3.Error as error:
            raise _failed(self.where, error) from None
        try:
            self._to_wal()
            self._connection.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as error:
            self._connection.close()
            raise _failed(self.where, error) from None
        except BaseException:
            self._connection.close()
            raise

    def _to_wal(self) -> None:
        """WAL, waited for as a write is: turning a new file to WAL while another connection
        holds it (another till making it) is refused by SQLite at once, without its busy
        wait, so it is tried again until `BUSY_SECONDS` have passed."""
        self._until_free("PRAGMA journal_mode=WAL")

    def _until_free(self, sql: str) -> None:
        """`sql` run, tried again while another connection holds the file, until
        `BUSY_SECONDS` have passed (then SQLite's "database is locked")."""
        deadline = time.monotonic() + BUSY_SECONDS
        while True:
            try:
                self._connection.execute(sql).fetchall()
                return
            except sqlite3.OperationalError as error:
                if not _busy(error) or time.monotonic() >= deadline:
                    raise
            _pause(_BUSY_PAUSE)

    def _begin(self) -> None:
        """A write transaction begun: its lock waited for in slices (see the module's
        docstring), SQLite's own wait restored for every other statement."""
        connection = self._connection
        connection.execute(f"PRAGMA busy_timeout = {int(_BUSY_SLICE * 1000)}")
        try:
            # IMMEDIATE: the write lock at the start, so two writers never deadlock midway
            self._until_free("BEGIN IMMEDIATE")
        finally:
            connection.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")

    @contextmanager
    def transaction(self, *, migrating: bool = False) -> Iterator[_Cursor]:
        connection = self._connection
        try:
            self._begin()
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

    def listen(self) -> SqliteListener:
        """The book's announcements, on a connection of their own (a book in memory has no
        other process to hear: its listener hears this book's own)."""
        if str(self.path) == MEMORY:
            raise LedgerError("a ledger in memory has no announcements to listen to")
        return SqliteListener(self.path)
