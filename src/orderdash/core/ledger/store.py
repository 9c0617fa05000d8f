"""The book on a database: the same statements on SQLite and PostgreSQL (`Engine`), and the
schema brought to this orderdash's version when a book is opened.

`SqlBook` is safe to call from any thread (one lock around its one connection); every write
is one transaction, and a call returns once it is committed.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from orderdash.core.ledger import (
    CHARGE_OUTCOMES,
    MAX_RESOLUTIONS,
    MAX_RESOLUTIONS_PER_ORDER,
    MAX_SERVICE_URL,
    REFUND_BASES,
    RESOLUTION_KINDS,
    UNLINKED,
    Announcements,
    ChainMoved,
    ChargeRecord,
    CloseRecord,
    LedgerError,
    OverlappingClose,
    ResolutionRecord,
    SeenOrder,
)
from orderdash.core.ledger.announcements import (
    CHANNEL,
    POSTGRES_ANNOUNCE,
    SQLITE_ANNOUNCE,
    announceable,
)
from orderdash.core.ledger.callbacks import CallbackJournal
from orderdash.core.ledger.notices import NoticeClaims
from orderdash.core.ledger.receipts import ReceiptJournal
from orderdash.core.ledger.rows import (
    charge_row,
    close_row,
    one_line,
    parse_time,
    resolution_row,
    time_text,
    version_of,
)
from orderdash.core.ledger.schema import (
    CHARGES_READ,
    CLOSES_READ,
    MAX_ACCOUNT,
    MAX_OPERATOR,
    MAX_REASON,
    MAX_TILL,
    MIGRATIONS,
    ORDERS_SEEN_READ,
    RESOLUTIONS_READ,
    SCHEMA_VERSION,
    VERSION_TABLE,
)

#: Tokens asked for in one `IN (...)` (SQLite's oldest bound on parameters is 999).
_CHUNK = 500
#: The first key of PostgreSQL's advisory lock on one till's closes (the second: the till's
#: hash); the two-key locks are apart from the migration's one-key lock.
_CLOSES_LOCK = 0x0D0A

T = TypeVar("T")


class Cursor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...


class Engine(Protocol):
    """One connection to one engine; statements use `%s` placeholders."""

    #: "sqlite" or "postgresql".
    name: str
    #: Where the book is, fit to show (a path, or the URL without its password).
    where: str

    def transaction(self, *, migrating: bool = False) -> AbstractContextManager[Cursor]:
        """A write transaction, committed when the block ends; `migrating`: no other
        connection migrates or writes meanwhile."""
        ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def close(self) -> None: ...

    def lost(self) -> bool:
        """The last call failed because the connection was lost (the next makes it again)."""
        ...

    def listen(self) -> Announcements: ...


def _once_again(method: Callable[..., T]) -> Callable[..., T]:
    """A call that failed because the connection was lost is made once more, on a new one.
    Safe because every write of the book is idempotent (an upsert, an update to the same
    values, an insert that keeps what is there): a commit whose answer was lost, made again,
    changes nothing."""

    @functools.wraps(method)
    def call(self: SqlBook, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except LedgerError:
            if not self._engine.lost():
                raise
        return method(self, *args, **kwargs)

    return call


class SqlBook(NoticeClaims, ReceiptJournal, CallbackJournal):
    """The `Book` on one engine (see orderdash.core.ledger.Book)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        try:
            with self._lock:
                self.version = self._migrate()
        except BaseException:
            engine.close()
            raise

    @property
    def engine(self) -> str:
        return self._engine.name

    @property
    def where(self) -> str:
        return self._engine.where

    def __repr__(self) -> str:
        return f"SqlBook({self._engine.name}, {self._engine.where!r})"

    def _migrate(self) -> int:
        with self._engine.transaction(migrating=True) as cursor:
            cursor.execute(VERSION_TABLE)
            rows = cursor.execute("SELECT version FROM schema_version")
            version = version_of(rows[0][0]) if rows else 0
            if version > SCHEMA_VERSION:
                raise LedgerError(
                    f"the ledger {self.where} is version {version}, newer than this orderdash "
                    f"knows ({SCHEMA_VERSION}): upgrade orderdash to use it"
                )
            for statements in MIGRATIONS[version:]:
                for statement in statements:
                    cursor.execute(statement)
            if not rows:
                cursor.execute(
                    "INSERT INTO schema_version (version) VALUES (%s)", (SCHEMA_VERSION,)
                )
            elif version < SCHEMA_VERSION:
                cursor.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION,))
        return SCHEMA_VERSION

    def _write(self) -> AbstractContextManager[Cursor]:
        return self._engine.transaction()

    # -- charges ---------------------------------------------------------------------------

    @_once_again
    def charge_started(self, record: ChargeRecord) -> None:
        """Written before the create is sent, with the service it is sent to. The same token
        again (a retry of that charge) keeps its first time, amount and service, and is
        "sending" again, sent now."""
        service = record.service
        sent = time_text(record.last_sent)
        with self._lock, self._write() as cursor:
            cursor.execute(
                "INSERT INTO charges (token, amount, currency, till, started_at, outcome, detail,"
                " service_url, service_account, sent_at)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (token) DO UPDATE SET outcome = %s, detail = '', ended_at = NULL,"
                " sent_at = %s",
                (
                    record.token,
                    format(record.amount, "f"),
                    record.currency,
                    one_line(record.till, MAX_TILL),
                    time_text(record.started_at),
                    "sending",
                    "",
                    None if service is None else one_line(service.base_url, MAX_SERVICE_URL),
                    None if service is None else one_line(service.account, MAX_ACCOUNT),
                    sent,
                    "sending",
                    sent,
                ),
            )

    @_once_again
    def charge_ended(
        self,
        token: str,
        outcome: str,
        detail: str = "",
        at: datetime | None = None,
        currency: str = "",
    ) -> None:
        """The charge's outcome; `currency`: the made order's, written where the charge had
        none (a till whose currency the first order told)."""
        if outcome not in CHARGE_OUTCOMES:
            raise ValueError(f"not a charge outcome: {outcome!r}")
        ended = time_text(at or datetime.now(UTC))
        with self._lock, self._write() as cursor:
            cursor.execute(
                "UPDATE charges SET outcome = %s, detail = %s, ended_at = %s,"
                " currency = CASE WHEN currency = '' THEN %s ELSE currency END WHERE token = %s",
                (outcome, one_line(detail), ended, one_line(currency, 12), token),
            )

    @_once_again
    def charge_resolved(
        self,
        token: str,
        outcome: str,
        detail: str = "",
        at: datetime | None = None,
        currency: str = "",
    ) -> bool:
        """A looked-up outcome, written only while the charge is still "sending" or "unknown":
        a final outcome (the charge's own, written meanwhile) is never overwritten. True if
        written."""
        if outcome not in CHARGE_OUTCOMES:
            raise ValueError(f"not a charge outcome: {outcome!r}")
        ended = time_text(at or datetime.now(UTC))
        # the row is held from the check to the write (SQLite: the file, from BEGIN IMMEDIATE;
        # PostgreSQL: FOR UPDATE); no UPDATE ... RETURNING, which SQLite has only from 3.35
        held = " FOR UPDATE" if self._engine.name == "postgresql" else ""
        with self._lock, self._write() as cursor:
            still_open = cursor.execute(
                "SELECT token FROM charges WHERE token = %s"
                " AND outcome IN ('sending', 'unknown')" + held,
                (token,),
            )
            if not still_open:
                return False
            cursor.execute(
                "UPDATE charges SET outcome = %s, detail = %s, ended_at = %s,"
                " currency = CASE WHEN currency = '' THEN %s ELSE currency END"
                " WHERE token = %s",
                (outcome, one_line(detail), ended, one_line(currency, 12), token),
            )
        return True

    @_once_again
    def unresolved_charges(self, till: str) -> list[ChargeRecord]:
        """This till's charges still "sending" or "unknown", oldest first."""
        with self._lock:
            rows = self._engine.query(
                f"SELECT {CHARGES_READ} FROM charges WHERE till = %s"
                " AND outcome IN ('sending', 'unknown') ORDER BY started_at, token",
                (till,),
            )
        return [charge_row(row) for row in rows]

    @_once_again
    def charges(self, since: datetime, until: datetime, till: str | None) -> list[ChargeRecord]:
        sql = f"SELECT {CHARGES_READ} FROM charges WHERE started_at >= %s AND started_at < %s"
        params: list[Any] = [time_text(since), time_text(until)]
        if till is not None:
            sql += " AND till = %s"
            params.append(till)
        with self._lock:
            rows = self._engine.query(sql + " ORDER BY started_at, token", params)
        return [charge_row(row) for row in rows]

    @_once_again
    def charge(self, token: str) -> ChargeRecord | None:
        with self._lock:
            rows = self._engine.query(
                f"SELECT {CHARGES_READ} FROM charges WHERE token = %s", (token,)
            )
        return charge_row(rows[0]) if rows else None

    # -- orders seen -----------------------------------------------------------------------

    #: The newest read wins: a read older than the one written (a till's batch written after
    #: the callback receiver's newer read of the order) leaves it as it is. Times are
    #: fixed-width text: text order is time order.
    _SEEN = (
        "INSERT INTO orders_seen (token, till, first_seen, last_seen, order_json)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (token) DO UPDATE SET till = excluded.till,"
        " last_seen = excluded.last_seen, order_json = excluded.order_json"
        " WHERE excluded.last_seen >= orders_seen.last_seen"
    )

    def order_seen(self, token: str, till: str, seen_at: datetime, order_json: str) -> None:
        self.order_seen_many([(token, till, seen_at, order_json)])

    @_once_again
    def order_seen_many(self, reads: Iterable[tuple[str, str, datetime, str]]) -> None:
        """Several reads in one transaction (a batch of the dashboard's polls)."""
        rows = [
            (token, one_line(till, MAX_TILL), time_text(at), time_text(at), text)
            for token, till, at, text in reads
        ]
        if not rows:
            return
        with self._lock, self._write() as cursor:
            for row in rows:
                cursor.execute(self._SEEN, row)

    @_once_again
    def orders_seen(self, tokens: list[str] | None = None) -> list[SeenOrder]:
        select = f"SELECT {ORDERS_SEEN_READ} FROM orders_seen"
        rows: list[tuple[Any, ...]] = []
        with self._lock:
            if tokens is None:
                rows = self._engine.query(select + " ORDER BY first_seen, token")
            else:
                for chunk in _chunks(list(dict.fromkeys(tokens))):
                    marks = ", ".join(["%s"] * len(chunk))
                    rows += self._engine.query(f"{select} WHERE token IN ({marks})", chunk)
                rows.sort(key=lambda row: (str(row[2]), str(row[0])))
        return [
            SeenOrder(str(token), str(till), parse_time(first), parse_time(last), str(text))
            for token, till, first, last, text in rows
        ]

    @_once_again
    def orders_seen_since(self, since: datetime, limit: int) -> list[SeenOrder]:
        """The newest reads made at or after `since`, the first `limit` by first seen."""
        with self._lock:
            rows = self._engine.query(
                f"SELECT {ORDERS_SEEN_READ} FROM orders_seen WHERE last_seen >= %s"
                " ORDER BY first_seen, token LIMIT %s",
                (time_text(since), max(0, limit)),
            )
        return [
            SeenOrder(str(token), str(till), parse_time(first), parse_time(last), str(text))
            for token, till, first, last, text in rows
        ]

    @_once_again
    def announce(self, token: str) -> None:
        """PostgreSQL: a NOTIFY on `CHANNEL`; SQLite: a row in `announcements`, the oldest
        pruned (`core/ledger/announcements.py`)."""
        if not announceable(token):
            return
        with self._lock:
            if self._engine.name == "postgresql":
                self._engine.query(POSTGRES_ANNOUNCE, (CHANNEL, token))
                return
            with self._write() as cursor:
                cursor.execute(SQLITE_ANNOUNCE[0], (token, time_text(datetime.now(UTC))))
                cursor.execute(SQLITE_ANNOUNCE[1])

    def listen(self) -> Announcements:
        return self._engine.listen()

    # -- closes ----------------------------------------------------------------------------

    _CLOSE_COLUMNS = "till, period_from, period_until, closed_at, report_json, digest"

    @_once_again
    def find_close(
        self, till: str, period_from: datetime, period_until: datetime
    ) -> CloseRecord | None:
        with self._lock:
            rows = self._engine.query(
                f"SELECT {CLOSES_READ} FROM closes WHERE till = %s"
                " AND period_from = %s AND period_until = %s",
                (till, time_text(period_from), time_text(period_until)),
            )
        return close_row(rows[0]) if rows else None

    #: The chain's order of a till's closes, newest first (`core/books/chain.py`).
    _NEWEST_FIRST = " ORDER BY closed_at DESC, period_from DESC, period_until DESC LIMIT 1"

    @_once_again
    def save_close(self, record: CloseRecord, *, follows: str | None = UNLINKED) -> CloseRecord:
        """The overlap check, the chain's check and the insert in one transaction, which holds
        the till's closes (SQLite: the whole file, from BEGIN IMMEDIATE; PostgreSQL: an
        advisory lock on the till): of two overlapping closes saved at once, the second sees
        the first; of two closes following one, the second is refused (ChainMoved)."""
        key = (record.till, time_text(record.period_from), time_text(record.period_until))
        with self._lock, self._write() as cursor:
            if self._engine.name == "postgresql":
                cursor.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_CLOSES_LOCK, record.till)
                )
            same = cursor.execute(
                f"SELECT {CLOSES_READ} FROM closes WHERE till = %s"
                " AND period_from = %s AND period_until = %s",
                key,
            )
            if same:  # closed already: that close is kept, whatever this one follows
                return close_row(same[0])
            if follows != UNLINKED:
                rows = cursor.execute(
                    f"SELECT {CLOSES_READ} FROM closes WHERE till = %s" + self._NEWEST_FIRST,
                    (record.till,),
                )
                newest = close_row(rows[0]) if rows else None
                if (newest.digest if newest else None) != follows:
                    raise ChainMoved(
                        "another close of this till was saved meanwhile: it is the one this "
                        "close must follow, so close again"
                    )
                if newest is not None and newest.closed_at >= record.closed_at:
                    raise ChainMoved(
                        f"this till's newest close was made at {newest.closed_at.isoformat()}, "
                        "not before this machine's clock says it is now: check the clocks of "
                        "the tills that share this ledger"
                    )
            # times are fixed-width UTC text: text order is time order
            over = cursor.execute(
                f"SELECT {CLOSES_READ} FROM closes WHERE till = %s"
                " AND period_from < %s AND period_until > %s"
                " AND NOT (period_from = %s AND period_until = %s)"
                " ORDER BY period_from, period_until LIMIT 1",
                (key[0], key[2], key[1], key[1], key[2]),
            )
            if over:
                raise OverlappingClose.of(close_row(over[0]))
            cursor.execute(
                f"INSERT INTO closes ({self._CLOSE_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (till, period_from, period_until) DO NOTHING",
                (*key, time_text(record.closed_at), record.report_json, record.digest),
            )
            rows = cursor.execute(
                f"SELECT {CLOSES_READ} FROM closes WHERE till = %s"
                " AND period_from = %s AND period_until = %s",
                key,
            )
        return close_row(rows[0])

    @_once_again
    def closes(self, till: str) -> list[CloseRecord]:
        with self._lock:
            rows = self._engine.query(
                f"SELECT {CLOSES_READ} FROM closes WHERE till = %s"
                " ORDER BY period_from, period_until",
                (till,),
            )
        return [close_row(row) for row in rows]

    @_once_again
    def newest_close(self, till: str) -> CloseRecord | None:
        with self._lock:
            rows = self._engine.query(
                f"SELECT {CLOSES_READ} FROM closes WHERE till = %s" + self._NEWEST_FIRST, (till,)
            )
        return close_row(rows[0]) if rows else None

    # -- resolutions -------------------------------------------------------------------------

    _RESOLUTION_COLUMNS = (
        "id, token, kind, reason, till, operator, resolved_at,"
        " refund_coin, refund_amount, refund_basis, refund_rate, refund_fee"
    )

    @_once_again
    def resolution_made(self, record: ResolutionRecord) -> ResolutionRecord:
        """Written once: the same `id` again (a retry whose commit's answer was lost) keeps
        the first and returns it."""
        refund = record.refund
        if record.kind not in RESOLUTION_KINDS:
            raise ValueError(f"not a resolution: {record.kind!r}")
        if refund is not None and refund.basis not in REFUND_BASES:
            raise ValueError(f"not a refund's basis: {refund.basis!r}")
        with self._lock, self._write() as cursor:
            cursor.execute(
                f"INSERT INTO resolutions ({self._RESOLUTION_COLUMNS})"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (id) DO NOTHING",
                (
                    record.id,
                    record.token,
                    record.kind,
                    one_line(record.reason, MAX_REASON),
                    one_line(record.till, MAX_TILL),
                    one_line(record.operator, MAX_OPERATOR),
                    time_text(record.at),
                    None if refund is None else one_line(refund.coin, 12),
                    None if refund is None else format(refund.amount, "f"),
                    None if refund is None else refund.basis,
                    None if refund is None or refund.rate is None else format(refund.rate, "f"),
                    None if refund is None else format(refund.fee, "f"),
                ),
            )
            rows = cursor.execute(
                f"SELECT {RESOLUTIONS_READ} FROM resolutions WHERE id = %s", (record.id,)
            )
        return resolution_row(rows[0])

    @_once_again
    def resolutions_of(self, tokens: list[str]) -> list[ResolutionRecord]:
        """The newest MAX_RESOLUTIONS_PER_ORDER of each token (its latest is what matters), so
        that one call reads at most that many rows a token, however many a ledger holds."""
        columns = self._RESOLUTION_COLUMNS
        rows: list[tuple[Any, ...]] = []
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(tokens))):
                marks = ", ".join(["%s"] * len(chunk))
                rows += self._engine.query(
                    f"SELECT {RESOLUTIONS_READ} FROM (SELECT {columns}, ROW_NUMBER() OVER"
                    " (PARTITION BY token ORDER BY resolved_at DESC, id DESC) AS newest"
                    f" FROM resolutions WHERE token IN ({marks})) AS latest"
                    " WHERE newest <= %s",
                    [*chunk, MAX_RESOLUTIONS_PER_ORDER],
                )
        rows.sort(key=lambda row: (str(row[6]), str(row[0])))
        return [resolution_row(row) for row in rows]

    @_once_again
    def resolutions_made(
        self, since: datetime, until: datetime, till: str | None, limit: int = MAX_RESOLUTIONS
    ) -> list[ResolutionRecord]:
        sql = (
            f"SELECT {RESOLUTIONS_READ} FROM resolutions"
            " WHERE resolved_at >= %s AND resolved_at < %s"
        )
        params: list[Any] = [time_text(since), time_text(until)]
        if till is not None:
            sql += " AND till = %s"
            params.append(till)
        sql += " ORDER BY resolved_at, id LIMIT %s"
        params.append(max(0, min(int(limit), MAX_RESOLUTIONS + 1)))
        with self._lock:
            rows = self._engine.query(sql, params)
        return [resolution_row(row) for row in rows]

    @_once_again
    def written(self, fn: Callable[[Cursor], T]) -> T:
        """`fn(cursor)` in one write transaction (the notifications' claims: `notices.py`; the
        receipts' journal: `receipts.py`; the callbacks' journal: `callbacks.py`)."""
        with self._lock, self._write() as cursor:
            return fn(cursor)

    def close_connection(self) -> None:
        with self._lock:
            self._engine.close()


def _chunks(items: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]
