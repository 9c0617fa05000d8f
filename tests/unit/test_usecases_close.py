"""The close of day as a use case (`core/usecases/close.py`): a close made now is told to
`on_closed` once, a dry run and a close found made already are not; where the shop's book
cannot be opened, a book in memory stands in for the dry run, refuses a close (and tells no
one) and makes no file."""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest

from orderdash.core.ledger import Book, LedgerError
from orderdash.core.ledger.sqlite import MEMORY, SqliteEngine
from orderdash.core.ledger.store import SqlBook
from orderdash.core.model.errors import ConfigError
from orderdash.core.usecases.close import CloseOptions, book_or_stand_in, close, day_report
from orderdash.core.usecases.reads import day_period, zone_named

BERLIN = zone_named("Europe/Berlin")
OPTIONS = CloseOptions(
    recorder="front", concurrency=2, max_pages=3, currency="EUR", tolerance=Decimal(0)
)


class NoOrders:
    """A service whose history is empty: a close is made of the ledger alone."""

    async def account_orders(self, max_pages: int, before_page: Any = None) -> Any:
        return NS(items=[], truncated=False, skipped=0, warnings=lambda: [])

    async def get_order(self, token: str) -> Any:
        raise AssertionError("nothing to read")


class OpenGate:
    async def take_turn(self) -> None:
        pass


def no_ledger() -> Book:
    raise ConfigError("this orderdash has no ledger storage to keep the books in")


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(tmp_path)
    book, why = book_or_stand_in(no_ledger)
    assert why == "this orderdash has no ledger storage to keep the books in"
    yield book
    book.close_connection()


@pytest.fixture
def memory() -> Any:
    """A shop's book in memory (a real one: it keeps a close)."""
    book = SqlBook(SqliteEngine(MEMORY))
    yield book
    book.close_connection()


async def test_a_close_made_now_is_told_once_a_dry_run_and_a_close_found_are_not(
    memory: Book,
) -> None:
    told: list[dict[str, Any]] = []
    period = day_period("2026-11-24", BERLIN)
    gates = {"order_gate": OpenGate(), "private_gate": OpenGate()}

    shown, closed = await day_report(
        NoOrders(), memory, period, OPTIONS, dry_run=True, on_closed=told.append, **gates
    )
    assert shown.dry_run and not closed and told == []

    made = await close(
        NoOrders(),
        memory,
        period,
        OPTIONS,
        till="*",
        dry_run=False,
        on_closed=told.append,
        **gates,
    )
    assert made.saved and not made.frozen
    assert told == [made.report] and made.report["sales"]["currency"] == "EUR"

    again, closed = await day_report(
        NoOrders(), memory, period, OPTIONS, dry_run=True, on_closed=told.append, **gates
    )
    assert closed and again.frozen and again.report == made.report
    assert len(told) == 1


async def test_the_stand_in_shows_a_dry_run_refuses_a_close_and_tells_no_one(
    stand_in: Book, tmp_path: Path
) -> None:
    """The book opened for the dry run and gone when the close is asked: the close fails,
    naming why, and no notification says the day was closed."""
    told: list[dict[str, Any]] = []
    period = day_period("2026-11-24", BERLIN)
    gates = {"order_gate": OpenGate(), "private_gate": OpenGate()}
    shown, closed = await day_report(
        NoOrders(), stand_in, period, OPTIONS, dry_run=True, on_closed=told.append, **gates
    )
    assert shown.dry_run and not closed
    with pytest.raises(LedgerError, match="no book to keep the close in: this orderdash has no"):
        await day_report(
            NoOrders(), stand_in, period, OPTIONS, dry_run=False, on_closed=told.append, **gates
        )
    assert told == [] and stand_in.closes("*") == []
    assert os.listdir(tmp_path) == []
