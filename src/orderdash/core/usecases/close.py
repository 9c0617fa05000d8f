"""The close of day, for `orderdash close` and the dashboard's `Z` alike: a period closed (or
shown, a dry run) through a client the caller owns, within the gates it passes. A close made now
is told to `on_closed` (the notification rules that name "close", where the caller has them):
the close sends nothing itself. `verify_closes` checks a till's closes in the ledger, each
against its digest and the chain of digests (`core/books/chain.py`). The report's text
(`report_lines`) and the note on what changed since a confirmed dry run (`change_note`) are the
close's own words for the callers to show."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.books.chain import EXIT_CHAIN_BROKEN, CloseCheck, first_mismatch
from orderdash.core.books.chain import verify as verify_closes
from orderdash.core.books.close import ALL_TILLS, CloseResult, close_period
from orderdash.core.books.frozen import find_frozen
from orderdash.core.books.report import change_note, figure_of, report_lines
from orderdash.core.books.sales import PARTS, currencies
from orderdash.core.books.shape import CloseReport
from orderdash.core.ledger.open import memory_book
from orderdash.core.model.errors import OrderdashError

if TYPE_CHECKING:
    from orderdash.core.books.gather import Gate, OrderReader
    from orderdash.core.books.period import Period
    from orderdash.core.ledger import Book
    from orderdash.core.settings.model import Settings

__all__ = [
    "PARTS",
    "currencies",
    "figure_of",
    "ALL_TILLS",
    "EXIT_CHAIN_BROKEN",
    "CloseCheck",
    "first_mismatch",
    "verify_closes",
    "CloseOptions",
    "CloseReport",
    "CloseResult",
    "book_or_stand_in",
    "change_note",
    "close",
    "closed_notice",
    "day_report",
    "report_lines",
]

log = logging.getLogger(__name__)

#: Told of each close made now (not one found closed already): its report.
OnClosed = Callable[["CloseReport"], object]


@dataclass(frozen=True)
class CloseOptions:
    """What a close takes from the settings: `recorder` names this till (whose reads are
    written to the ledger), the reads' `concurrency` and `max_pages`, and the `currency` and
    `tolerance` the report's sales are told."""

    recorder: str
    concurrency: int
    max_pages: int
    currency: str | None
    tolerance: Decimal

    @classmethod
    def from_settings(cls, settings: Settings) -> CloseOptions:
        return cls(
            recorder=str(settings.till),
            concurrency=settings.concurrency,
            max_pages=settings.history_max_pages,
            currency=settings.currency,
            tolerance=settings.underpaid_tolerance,
        )


def closed_notice(settings: Settings) -> OnClosed | None:
    """The day's digest to the settings' notification rules, for `on_closed`; None without
    rules. The notifications are loaded once a close is made, not before."""
    if not settings.notify:
        return None

    def tell(report: CloseReport) -> None:
        from orderdash.core.notify.events import notices_for

        notices = notices_for(settings)
        if notices is not None:
            notices.closed(report)

    return tell


async def close(
    client: OrderReader,
    book: Book,
    period: Period,
    options: CloseOptions,
    *,
    till: str,
    dry_run: bool,
    order_gate: Gate,
    private_gate: Gate,
    progress: Callable[[int, int], None] | None = None,
    pages: Callable[[int], None] | None = None,
    on_closed: OnClosed | None = None,
) -> CloseResult:
    """Close (or show, `dry_run`) `period` for `till` through `client`, within the gates
    (`core/books/close.py`); a close made now is told to `on_closed`."""
    result = await close_period(
        client,
        book,
        period,
        till=till,
        recorder=options.recorder,
        order_gate=order_gate,
        private_gate=private_gate,
        dry_run=dry_run,
        concurrency=options.concurrency,
        max_pages=options.max_pages,
        progress=progress,
        pages=pages,
        currency=options.currency,
        tolerance=options.tolerance,
    )
    if result.saved and not result.frozen and on_closed is not None:
        on_closed(result.report)
    return result


async def day_report(
    client: OrderReader,
    book: Book,
    period: Period,
    options: CloseOptions,
    *,
    dry_run: bool,
    order_gate: Gate,
    private_gate: Gate,
    progress: Callable[[int, int], None] | None = None,
    on_closed: OnClosed | None = None,
) -> tuple[CloseResult, bool]:
    """The shop's report of `period` and whether the period is closed: a dry run shows a
    closed period as it was closed (read back checked: a damaged close is an error, never
    shown as it is), else the period is read (and closed, unless `dry_run`)."""
    if dry_run:
        found = await asyncio.to_thread(find_frozen, book, ALL_TILLS, period)
        if found is not None:
            return CloseResult(found, True, False, False), True
    result = await close(
        client,
        book,
        period,
        options,
        till=ALL_TILLS,
        dry_run=dry_run,
        order_gate=order_gate,
        private_gate=private_gate,
        progress=progress,
        on_closed=on_closed,
    )
    return result, not result.dry_run


def book_or_stand_in(open_book: Callable[[], Book]) -> tuple[Book, str]:
    """The shop's book, or a book in memory and why the shop's could not be opened (blocking:
    opening may wait for a server). The book in memory keeps nothing past its close: a dry run
    shows; a close saved in it fails, naming why."""
    try:
        return open_book(), ""
    except OrderdashError as error:
        return memory_book(error.message), error.message
    except Exception as error:  # a book's storage error: told, never a crash
        log.warning("no book: %s", error, exc_info=True)
        why = f"{type(error).__name__}: {error}"
        return memory_book(why), why
