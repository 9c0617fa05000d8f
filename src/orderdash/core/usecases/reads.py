"""What the books' use cases share: how a period's orders are read (`ReadOptions`, from the
settings), the gates the reads are paced with (a command's own budgets, or a budget the
dashboard's watcher spends too), the shop's book, and the period they read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from orderdash.core.books.gather import Gate, Gathered, OrderReader, gather
from orderdash.core.books.period import Period, choose_period, day_period, iso, zone_named
from orderdash.core.books.run import BookOpener, BudgetGate, ledger_book
from orderdash.core.books.run import gates as command_gates

if TYPE_CHECKING:
    from collections.abc import Callable

    from orderdash.core.ledger import Book
    from orderdash.core.settings.model import Settings

__all__ = [
    "BookOpener",
    "BudgetGate",
    "Gate",
    "Gathered",
    "OrderReader",
    "Period",
    "ReadOptions",
    "choose_period",
    "command_gates",
    "day_period",
    "iso",
    "ledger_book",
    "read_period",
    "zone_named",
]


@dataclass(frozen=True)
class ReadOptions:
    """How the books read: `till` names whose reads are written to the ledger, at most
    `concurrency` getOrders at once, at most `max_pages` pages of the history."""

    till: str
    concurrency: int
    max_pages: int

    @classmethod
    def from_settings(cls, settings: Settings) -> ReadOptions:
        return cls(str(settings.till), settings.concurrency, settings.history_max_pages)


async def read_period(
    client: OrderReader,
    book: Book,
    period: Period,
    options: ReadOptions,
    *,
    order_gate: Gate,
    private_gate: Gate,
    progress: Callable[[int, int], None] | None = None,
    pages: Callable[[int], None] | None = None,
) -> Gathered:
    """The period's orders from the history and getOrder, the ledger's reads first, within the
    gates (`core/books/gather.py`); `progress` and `pages` are told how far it is."""
    return await gather(
        client,
        book,
        period,
        till=options.till,
        order_gate=order_gate,
        private_gate=private_gate,
        concurrency=options.concurrency,
        max_pages=options.max_pages,
        progress=progress,
        pages=pages,
    )
