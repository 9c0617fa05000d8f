"""The close of day as a use case (`core/usecases/close.py`): a close made now is told to
`on_closed` once, a dry run and a close found made already are not; where the shop's book
cannot be opened, a book in memory stands in, keeps nothing past its close and makes no file."""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest

from orderdash.core.ledger import Book
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


async def test_a_close_made_now_is_told_once_a_dry_run_and_a_close_found_are_not(
    stand_in: Book,
) -> None:
    told: list[dict[str, Any]] = []
    period = day_period("2026-11-24", BERLIN)
    gates = {"order_gate": OpenGate(), "private_gate": OpenGate()}

    shown, closed = await day_report(
        NoOrders(), stand_in, period, OPTIONS, dry_run=True, on_closed=told.append, **gates
    )
    assert shown.dry_run and not closed and told == []

    made = await close(
        NoOrders(),
        stand_in,
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
        NoOrders(), stand_in, period, OPTIONS, dry_run=True, on_closed=told.append, **gates
    )
    assert closed and again.frozen and again.report == made.report
    assert len(told) == 1


def test_the_book_in_memory_keeps_nothing_past_its_close_and_makes_no_file(
    stand_in: Book, tmp_path: Path
) -> None:
    from datetime import UTC, datetime

    from orderdash.core.ledger import CloseRecord

    start = datetime(2026, 11, 24, tzinfo=UTC)
    stand_in.save_close(CloseRecord("*", start, start.replace(day=25), start, "{}", "d"))
    assert [c.digest for c in stand_in.closes("*")] == ["d"]
    other, _ = book_or_stand_in(no_ledger)
    try:
        assert other.closes("*") == []
    finally:
        other.close_connection()
    assert os.listdir(tmp_path) == []
