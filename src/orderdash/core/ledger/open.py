"""Which book a till writes: `ledger_url` (PostgreSQL, shared by the shop's tills), else the
`ledger` file, else `ledger.sqlite3` in the user data directory."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from platformdirs import user_data_path

from orderdash.core.ledger import (
    UNLINKED,
    ChargeService,
    CloseRecord,
    LedgerError,
    ResolutionRecord,
)
from orderdash.core.ledger.sqlite import MEMORY, SqliteEngine
from orderdash.core.ledger.store import SqlBook

if TYPE_CHECKING:
    from pydantic import SecretStr

    from orderdash.core.ledger.writer import BookWriter

    # for the type checker only: no class made when the ledger is opened
    class LedgerSettings(Protocol):
        """What the ledger takes from the settings (which sit above it): where the book is, the
        service and account charges are made on, this till's name."""

        @property
        def ledger_url(self) -> SecretStr | None: ...
        @property
        def ledger(self) -> str | None: ...
        @property
        def base_url(self) -> str: ...
        @property
        def customer_id(self) -> str | None: ...
        @property
        def till(self) -> str: ...


LEDGER_FILE = "ledger.sqlite3"
#: `orderdash demo`'s ledger: the simulator's orders never reach the shop's books.
DEMO_LEDGER_FILE = "demo-ledger.sqlite3"


def default_ledger_path() -> Path:
    return user_data_path("orderdash") / LEDGER_FILE


def demo_ledger_path() -> Path:
    return default_ledger_path().with_name(DEMO_LEDGER_FILE)


def open_book(settings: LedgerSettings, *, connect_seconds: float | None = None) -> SqlBook:
    """The settings' book, opened and at this orderdash's schema version (LedgerError, one
    line, when it cannot be); `connect_seconds`: how long a PostgreSQL server is waited for
    (None: `postgres.CONNECT_SECONDS`)."""
    if settings.ledger_url is not None:
        # the postgres extra's engine, with a shop's shared ledger only
        from orderdash.core.ledger.postgres import CONNECT_SECONDS, PostgresEngine

        url = settings.ledger_url.get_secret_value()
        return SqlBook(PostgresEngine(url, connect_seconds=connect_seconds or CONNECT_SECONDS))
    return SqlBook(SqliteEngine(settings.ledger or default_ledger_path()))


class StandInBook(SqlBook):
    """A book in memory, where the shop's could not be opened (`why`): a dry run of the close
    reads through it, and it keeps what it is told until its close, nothing after. A close or a
    resolution is refused: saved here, it would be told as kept while no book holds it."""

    def __init__(self, why: str) -> None:
        super().__init__(SqliteEngine(MEMORY))
        self.why = why

    def save_close(self, record: CloseRecord, *, follows: str | None = UNLINKED) -> CloseRecord:
        raise LedgerError(f"no book to keep the close in: {self.why}")

    def resolution_made(self, record: ResolutionRecord) -> ResolutionRecord:
        raise LedgerError(f"no book to keep the resolution in: {self.why}")


def memory_book(why: str) -> StandInBook:
    """The stand-in for the shop's book, which could not be opened (`why`)."""
    return StandInBook(why)


def service_of(settings: LedgerSettings) -> ChargeService:
    """The service and account the settings point at: written with each charge, and the only
    one an unresolved charge is looked up on."""
    return ChargeService.of(settings.base_url, settings.customer_id)


def writer_for(settings: LedgerSettings) -> BookWriter:
    """The settings' book for code on an event loop: opened in the writer's thread at its
    first call (`core/ledger/writer.py`); its charges are written with the settings'
    service."""
    # the writer runs beside an event loop: never loaded by `get`, which reads without one
    from orderdash.core.ledger.writer import BookWriter

    return BookWriter(lambda: open_book(settings), settings.till, service=service_of(settings))
