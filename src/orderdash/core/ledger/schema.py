"""The ledger's schema, the same on SQLite and PostgreSQL, as numbered migrations.

Every time is TEXT in UTC, ISO-8601 with a fixed width (`2026-11-27T10:02:00.000000Z`), so
that text order is time order on both engines; every amount is TEXT with the digits it came
with (never a float, never a database's own numeric rounding). docs/books.md lists the tables.
"""

from __future__ import annotations

from orderdash.core.ledger import MAX_ORDER_JSON, MAX_REPORT_JSON, MAX_SERVICE_URL
from orderdash.core.model.jsontext import MAX_NUMBER_TEXT
from orderdash.core.service.tokens import MAX_TOKEN_LENGTH

#: Longest one-line detail and till name written.
MAX_DETAIL = 300
MAX_TILL = 64
#: Longest account written with a charge (and read back).
MAX_ACCOUNT = 64
#: Longest reason and operator's name written (and read back).
MAX_REASON = 300
MAX_OPERATOR = 64

#: The migrations, in order: the book's version is how many have run. Each is a list of
#: statements, run in one transaction.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE charges (
            token TEXT PRIMARY KEY,
            amount TEXT NOT NULL,
            currency TEXT NOT NULL,
            till TEXT NOT NULL,
            started_at TEXT NOT NULL,
            outcome TEXT NOT NULL,
            detail TEXT NOT NULL,
            ended_at TEXT
        )""",
        "CREATE INDEX charges_started ON charges (started_at)",
        "CREATE INDEX charges_till_outcome ON charges (till, outcome)",
        """CREATE TABLE orders_seen (
            token TEXT PRIMARY KEY,
            till TEXT NOT NULL,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL,
            order_json TEXT NOT NULL
        )""",
        """CREATE TABLE closes (
            till TEXT NOT NULL,
            period_from TEXT NOT NULL,
            period_until TEXT NOT NULL,
            closed_at TEXT NOT NULL,
            report_json TEXT NOT NULL,
            digest TEXT NOT NULL,
            PRIMARY KEY (till, period_from, period_until)
        )""",
    ),
    (
        # a person's word on an order: never updated, never deleted (the latest is its state)
        """CREATE TABLE resolutions (
            id TEXT PRIMARY KEY,
            token TEXT NOT NULL,
            kind TEXT NOT NULL,
            reason TEXT NOT NULL,
            till TEXT NOT NULL,
            operator TEXT NOT NULL,
            resolved_at TEXT NOT NULL,
            refund_coin TEXT,
            refund_amount TEXT,
            refund_basis TEXT,
            refund_rate TEXT,
            refund_fee TEXT
        )""",
        "CREATE INDEX resolutions_token ON resolutions (token, resolved_at)",
        "CREATE INDEX resolutions_made ON resolutions (resolved_at)",
    ),
    (
        # where each charge was sent (the service's base URL, the account: never a token) and
        # when its latest create went; null in the rows from before: their service is not
        # known, so they are never looked up
        "ALTER TABLE charges ADD COLUMN service_url TEXT",
        "ALTER TABLE charges ADD COLUMN service_account TEXT",
        "ALTER TABLE charges ADD COLUMN sent_at TEXT",
    ),
    (
        # each notification claimed before it is sent (core/notify/claims.py): the insert that
        # wins sends it, so every process and till on one book sends it once. `token` is ""
        # for the service (an outage); `state` is what makes it a new thing to tell
        """CREATE TABLE notices_sent (
            token TEXT NOT NULL,
            event TEXT NOT NULL,
            state TEXT NOT NULL,
            claimed_by TEXT NOT NULL,
            claimed_at TEXT NOT NULL,
            PRIMARY KEY (token, event, state)
        )""",
    ),
    (
        # the receipts printed (core/ledger/receipts.py): one claim per order's original, the
        # insert that wins prints it, with the text it prints (a retry and a reprint print it
        # again), and one journal row per attempt, original or reprint
        """CREATE TABLE IF NOT EXISTS receipts (
            token TEXT PRIMARY KEY,
            claim TEXT NOT NULL,
            receipt_text TEXT NOT NULL,
            width INTEGER NOT NULL,
            language TEXT NOT NULL,
            digest TEXT NOT NULL,
            state TEXT NOT NULL,
            till TEXT NOT NULL,
            tool TEXT NOT NULL,
            claimed_at TEXT NOT NULL,
            state_at TEXT NOT NULL
        )""",
        """CREATE TABLE IF NOT EXISTS receipt_prints (
            id TEXT PRIMARY KEY,
            token TEXT NOT NULL,
            copy TEXT NOT NULL,
            till TEXT NOT NULL,
            tool TEXT NOT NULL,
            printed_at TEXT NOT NULL,
            digest TEXT NOT NULL,
            outcome TEXT NOT NULL,
            detail TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS receipt_prints_token ON receipt_prints (token, printed_at)",
    ),
    (
        # every callback the receiver was sent (core/ledger/callbacks.py), written before it is
        # acted on; its outcome updated once the order is read
        """CREATE TABLE IF NOT EXISTS callbacks_received (
            id TEXT PRIMARY KEY,
            received_at TEXT NOT NULL,
            source TEXT NOT NULL,
            token TEXT NOT NULL,
            body TEXT NOT NULL,
            outcome TEXT NOT NULL,
            detail TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS callbacks_received_at ON callbacks_received (received_at)",
    ),
    (
        # an order's new read announced to every process on a SQLite book (PostgreSQL
        # announces with NOTIFY instead): read by its rowid, the newest few kept
        # (core/ledger/announcements.py)
        """CREATE TABLE IF NOT EXISTS announcements (
            token TEXT NOT NULL,
            announced_at TEXT NOT NULL
        )""",
    ),
)

#: The version this orderdash writes: a book of a newer version is refused, an older migrated.
SCHEMA_VERSION = len(MIGRATIONS)

#: The one table every version has: one row, the book's version.
VERSION_TABLE = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"


def _read(*columns: tuple[str, int]) -> str:
    """A SELECT's columns, each cut in SQL one character past its bound: whatever a damaged or
    altered ledger holds, a row read back is small (a reader still sees that a text was too
    long), never a text of megabytes read whole into memory."""
    return ", ".join(f"substr({name}, 1, {bound + 1}) AS {name}" for name, bound in columns)


_TIME, _CODE = 32, 12

#: What the reads of each table select: every column, bounded.
CHARGES_READ = _read(
    ("token", MAX_TOKEN_LENGTH),
    ("amount", MAX_NUMBER_TEXT),
    ("currency", _CODE),
    ("till", MAX_TILL),
    ("started_at", _TIME),
    ("outcome", _CODE),
    ("detail", MAX_DETAIL),
    ("ended_at", _TIME),
    ("service_url", MAX_SERVICE_URL),
    ("service_account", MAX_ACCOUNT),
    ("sent_at", _TIME),
)
ORDERS_SEEN_READ = _read(
    ("token", MAX_TOKEN_LENGTH),
    ("till", MAX_TILL),
    ("first_seen", _TIME),
    ("last_seen", _TIME),
    ("order_json", MAX_ORDER_JSON),
)
CLOSES_READ = _read(
    ("till", MAX_TILL),
    ("period_from", _TIME),
    ("period_until", _TIME),
    ("closed_at", _TIME),
    ("report_json", MAX_REPORT_JSON),
    ("digest", 128),
)
RESOLUTIONS_READ = _read(
    ("id", 64),
    ("token", MAX_TOKEN_LENGTH),
    ("kind", 20),
    ("reason", MAX_REASON),
    ("till", MAX_TILL),
    ("operator", MAX_OPERATOR),
    ("resolved_at", _TIME),
    ("refund_coin", _CODE),
    ("refund_amount", MAX_NUMBER_TEXT),
    ("refund_basis", _CODE),
    ("refund_rate", MAX_NUMBER_TEXT),
    ("refund_fee", MAX_NUMBER_TEXT),
)
