"""The book on a PostgreSQL server (psycopg 3): one book that every till of a shop shares.

psycopg is imported here only, when a `ledger_url` is set (`pip install 'orderdash[postgres]'`).
Each write is one transaction, committed before the call returns. A call that fails because
the connection was lost is made once more on a new one (`SqlBook`; every write is idempotent).
The URL's password is a secret: `where` and every message show the URL without it.

Every call is bounded on the server: the session's `lock_timeout`, `statement_timeout` and
`idle_in_transaction_session_timeout` (`SessionBounds`) turn a lock another session keeps, or
a statement held up, into the ledger's one-line error; TCP keepalives end a connection to a
server gone silent. A server that stops answering altogether (its backend stopped) still holds
the call: the writer's close waits for it a bounded time only (`core/ledger/writer.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from orderdash.core.ledger import LedgerError
from orderdash.core.ledger.announcements import PostgresListener
from orderdash.core.ledger.url import check_url, public_url, secret_parts, url_secrets
from orderdash.core.safetext import clean, without_secret

#: Seconds to reach the server before the ledger is said to be unreachable.
CONNECT_SECONDS = 10
#: The advisory lock a migration holds (two tills opening a new book at once: one migrates).
_MIGRATION_LOCK = 0x0D_0A_5B_00C5


@dataclass(frozen=True)
class SessionBounds:
    """How long the server lets one of this till's calls wait or run, in seconds; each is set
    on the session at connect, unless the URL's `options` sets it (`-c lock_timeout=2s`)."""

    #: Waiting for a lock another session holds (a table locked, a row being written).
    lock: float = 5.0
    #: One statement, whatever holds it up (ours take milliseconds).
    statement: float = 15.0
    #: A transaction left open with nothing running (this process stopped midway): the server
    #: ends the session and frees what it held.
    idle_in_transaction: float = 30.0


#: The bounds set on each new session; a setting the client's connection request made itself
#: (the URL's `options`: source "client") is kept.
_SET_BOUNDS = (
    "SELECT set_config(b.name, b.value, false) FROM (VALUES ('lock_timeout', %s),"
    " ('statement_timeout', %s), ('idle_in_transaction_session_timeout', %s)) AS b (name, value)"
    " JOIN pg_settings AS s ON s.name = b.name WHERE s.source <> 'client'"
)


def _milliseconds(seconds: float) -> str:
    return f"{max(1, round(seconds * 1000))}ms"  # 0 would mean no bound at all


class _Cursor:
    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = self._connection.execute(sql, tuple(params))
        return cursor.fetchall() if cursor.description is not None else []


class PostgresEngine:
    name = "postgresql"

    def __init__(
        self,
        url: str,
        *,
        connect_seconds: float = CONNECT_SECONDS,
        bounds: SessionBounds = SessionBounds(),
    ) -> None:
        """`connect_seconds`: how long to reach the server (a command that only notes what it
        read waits less); `bounds`: how long a call may wait or run on it."""
        self._secrets = url_secrets(url)
        self.where = public_url(url)
        try:
            # before anything connects: libpq would read such a URL otherwise than we do
            check_url(url)
        except ValueError as error:
            raise LedgerError(str(error)) from None
        try:
            import psycopg
        except ImportError:
            raise LedgerError(
                "ledger_url names a PostgreSQL server, but psycopg is not installed: "
                "pip install 'orderdash[postgres]'"
            ) from None
        self._psycopg = psycopg
        self._url = url
        self._connect_seconds = connect_seconds
        self._bounds = bounds
        # the password as libpq itself reads the URL, should it read it otherwise
        self._secrets = sorted(
            {*self._secrets, *secret_parts(self._libpq_password(url))}, key=len, reverse=True
        )
        self._connection: Any = None
        self._closed = False
        self._connect()

    def _libpq_password(self, url: str) -> str:
        try:
            return str(self._psycopg.conninfo.conninfo_to_dict(url).get("password") or "")
        except self._psycopg.Error:
            return ""  # libpq cannot read it: the connect fails saying so, redacted as it is

    def _failed(self, error: Exception) -> LedgerError:
        text = " ".join(str(error).split()) or type(error).__name__
        for secret in self._secrets:
            text = without_secret(text, secret)
        return LedgerError(f"the ledger {self.where}: {clean(text, limit=200)}")

    def _connect(self) -> Any:
        if self._connection is not None and not self._connection.closed:
            return self._connection
        if self._closed:
            raise LedgerError(f"the ledger {self.where} is closed")
        # no connection while connecting: a failed connect is no lost connection (`lost`)
        self._connection = None
        try:
            # a server gone silent (a network cut) fails a call within about half a minute
            # instead of holding the ledger's thread, and the quit that waits for it
            self._connection = self._open("orderdash", user_timeout_ms=30_000)
        except self._psycopg.Error as error:
            raise self._failed(error) from None
        try:
            self._connection.execute(
                _SET_BOUNDS,
                (
                    _milliseconds(self._bounds.lock),
                    _milliseconds(self._bounds.statement),
                    _milliseconds(self._bounds.idle_in_transaction),
                ),
            )
        except self._psycopg.Error as error:
            self._connection.close()
            raise self._failed(error) from None
        # a transaction's statements each see what was committed before them, whatever the
        # server's default: the closes' overlap check runs after waiting for the till's lock
        # and must see a close committed meanwhile (REPEATABLE READ would hide it)
        self._connection.isolation_level = self._psycopg.IsolationLevel.READ_COMMITTED
        return self._connection

    def _open(self, name: str, *, user_timeout_ms: int = 0) -> Any:
        """A new autocommit connection named `name` (`application_name`), whose peer is known
        gone within a minute of silence (keepalives); `user_timeout_ms`: how long sent data may
        stay unacknowledged (0: the system's default)."""
        return self._psycopg.connect(
            self._url,
            autocommit=True,
            connect_timeout=max(2, round(self._connect_seconds)),  # libpq: whole seconds, 2+
            application_name=name,
            keepalives=1,
            keepalives_idle=10,
            keepalives_interval=5,
            keepalives_count=3,
            tcp_user_timeout=user_timeout_ms,
        )

    @contextmanager
    def transaction(self, *, migrating: bool = False) -> Iterator[_Cursor]:
        connection = self._connect()
        try:
            with connection.transaction():
                cursor = _Cursor(connection)
                if migrating:
                    cursor.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                yield cursor
        except self._psycopg.Error as error:
            raise self._failed(error) from None

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return _Cursor(self._connect()).execute(sql, params)
        except self._psycopg.Error as error:
            raise self._failed(error) from None

    def listen(self) -> PostgresListener:
        """The book's announcements, on a LISTEN connection of their own."""
        try:
            connection = self._open("orderdash listen")
        except self._psycopg.Error as error:
            raise self._failed(error) from None
        return PostgresListener(connection, self._failed)

    def close(self) -> None:
        self._closed = True
        if self._connection is not None:
            self._connection.close()

    def lost(self) -> bool:
        return not self._closed and self._connection is not None and bool(self._connection.closed)
