"""The close of day: gather, build, freeze. A period and till closed once always gives back the
same report (`Book.find_close`, read back checked: `frozen.py`); each close follows the till's
newest before it (`chain.py`); `dry_run` builds without saving. A period that overlaps another
close of the same till is refused. `till` "*" is the whole account (every till); a till's name
keeps the orders that till charged (`Book.charges`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from orderdash.core.books.chain import previous_close
from orderdash.core.books.frozen import find_frozen, prior_closes, read_close
from orderdash.core.books.gather import LOOK_BACK, Gate, Gathered, OrderReader, gather
from orderdash.core.books.period import Period
from orderdash.core.books.report import EarlierClose, build_report
from orderdash.core.books.shape import CloseReport
from orderdash.core.ledger import (
    MAX_RESOLUTIONS,
    Book,
    ChainMoved,
    CloseRecord,
    ResolutionRecord,
)
from orderdash.core.model.errors import OrderdashError
from orderdash.core.service.client import MAX_HISTORY_PAGES

ALL_TILLS = "*"
#: How many times a close is built and saved when another close of its till was saved
#: meanwhile (`chain.py`): each try is cheap (the orders are read once), and a third close at
#: the same moment is beyond any shop.
SAVE_TRIES = 3


class CloseIncomplete(OrderdashError):
    """Some orders of the period could not be read: a close would be wrong forever."""


@dataclass(frozen=True)
class CloseResult:
    report: CloseReport
    #: The close was found in the ledger (closed earlier), not built now.
    frozen: bool
    saved: bool
    dry_run: bool
    read: int = 0
    from_ledger: int = 0
    #: Orders that could not be read (a dry run only: a close is refused then).
    missing: int = 0


async def close_period(
    client: OrderReader,
    book: Book,
    period: Period,
    *,
    till: str,
    recorder: str,
    order_gate: Gate,
    private_gate: Gate,
    dry_run: bool = False,
    concurrency: int = 6,
    max_pages: int = MAX_HISTORY_PAGES,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    progress: Callable[[int, int], None] | None = None,
    pages: Callable[[int], None] | None = None,
    currency: str | None = None,
    tolerance: Decimal = Decimal(0),
) -> CloseResult:
    """Close `period` for `till` (or show it, `dry_run`). `recorder` names the till whose reads
    are written to the ledger; `progress` and `pages` are told of the reads (`gather`);
    `currency` and `tolerance`: the settings the report's `sales` are told (`build_report`)."""
    if not dry_run:
        existing = await asyncio.to_thread(find_frozen, book, till, period)
        if existing is not None:
            return CloseResult(existing, True, False, False)
    prepared = await prepare_close(
        client,
        book,
        period,
        till=till,
        recorder=recorder,
        order_gate=order_gate,
        private_gate=private_gate,
        dry_run=dry_run,
        concurrency=concurrency,
        max_pages=max_pages,
        now=now,
        progress=progress,
        pages=pages,
    )
    gathered = prepared.gathered
    for attempt in range(1, SAVE_TRIES + 1):
        closed_at = now()
        report = await prepared.report(
            book, period, till, closed_at, currency=currency, tolerance=tolerance
        )
        if dry_run:
            return CloseResult(
                report, False, False, True, gathered.read, gathered.from_ledger, gathered.missing
            )
        record = CloseRecord(
            till=till,
            period_from=period.start,
            period_until=period.end,
            closed_at=closed_at,
            report_json=await asyncio.to_thread(
                json.dumps, report, sort_keys=True, separators=(",", ":")
            ),
            digest=report["digest"],
        )
        previous = report["previous"]
        follows = previous["digest"] if previous is not None else None
        try:
            kept = await asyncio.to_thread(book.save_close, record, follows=follows)
            break
        except ChainMoved:
            # another close of the till was saved after `previous` was read: built again on it
            if attempt == SAVE_TRIES:
                raise
    # a close made meanwhile (another till closing the shop's day) is the one kept
    kept_report = (
        report if kept.digest == record.digest else await asyncio.to_thread(read_close, kept)
    )
    return CloseResult(
        kept_report,
        kept.digest != record.digest,
        True,
        False,
        gathered.read,
        gathered.from_ledger,
    )


@dataclass(frozen=True)
class Prepared:
    """What a close is built from: the period's orders, the till's earlier closes, the
    resolutions of its orders and those made in it, and the warnings so far."""

    gathered: Gathered
    earlier: list[EarlierClose]
    warnings: list[str]
    resolutions: list[ResolutionRecord]
    made: list[ResolutionRecord]

    async def report(
        self,
        book: Book,
        period: Period,
        till: str,
        closed_at: datetime,
        *,
        currency: str | None,
        tolerance: Decimal,
    ) -> CloseReport:
        """The close's report as of `closed_at`, following the newest close of the till saved
        by now (`chain.py`); built in a thread (its cost grows with the orders)."""
        previous = await asyncio.to_thread(previous_close, book, till, period.zone)
        return await asyncio.to_thread(
            build_report,
            self.gathered.orders,
            period,
            till=till,
            closed_at=closed_at,
            earlier=self.earlier,
            warnings=self.warnings,
            resolutions=self.resolutions,
            made=self.made,
            previous=previous,
            currency=currency,
            tolerance=tolerance,
        )


async def prepare_close(
    client: OrderReader,
    book: Book,
    period: Period,
    *,
    till: str,
    recorder: str,
    order_gate: Gate,
    private_gate: Gate,
    dry_run: bool,
    concurrency: int = 6,
    max_pages: int = MAX_HISTORY_PAGES,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    progress: Callable[[int, int], None] | None = None,
    pages: Callable[[int], None] | None = None,
) -> Prepared:
    """Everything a close of `period` for `till` is built from, read once (the close and the
    settlement alike). Not `dry_run`: a period overlapping another close of the till is
    refused before any read, and so is a period some of whose orders could not be read."""
    earlier, close_warnings = await asyncio.to_thread(
        prior_closes, book, till, period, look_back=LOOK_BACK, refuse_overlap=not dry_run
    )
    gathered = await gather(
        client,
        book,
        period,
        till=recorder,
        order_gate=order_gate,
        private_gate=private_gate,
        concurrency=concurrency,
        max_pages=max_pages,
        now=now,
        progress=progress,
        pages=pages,
    )
    if gathered.missing and not dry_run:
        raise CloseIncomplete(
            f"{gathered.missing} of the period's orders could not be read, so it is not closed "
            f"({'; '.join(gathered.warnings[:3])}); try again, or --dry-run to see the rest"
        )
    await _only_till(book, period, till, gathered)
    resolutions, made, made_warnings = await asyncio.to_thread(
        _resolutions, book, period, till, gathered
    )
    warnings = close_warnings + gathered.warnings + made_warnings
    return Prepared(gathered, earlier, warnings, resolutions, made)


def _resolutions(
    book: Book, period: Period, till: str, gathered: Gathered
) -> tuple[list[ResolutionRecord], list[ResolutionRecord], list[str]]:
    """In a thread: the resolutions of the orders gathered (an exception shows its latest), and
    those made in the period (at `till`, or at every till for the shop's close: the first
    MAX_RESOLUTIONS, with a warning when there were more)."""
    of_orders = book.resolutions_of([o.token for o in gathered.orders])
    made = book.resolutions_made(
        period.start, period.end, None if till == ALL_TILLS else till, MAX_RESOLUTIONS + 1
    )
    warnings = []
    if len(made) > MAX_RESOLUTIONS:
        made = made[:MAX_RESOLUTIONS]
        warnings.append(
            f"more than {MAX_RESOLUTIONS:,} resolutions were made in the period: the report "
            f"lists the first {MAX_RESOLUTIONS:,}"
        )
    return of_orders, made, warnings


async def _only_till(book: Book, period: Period, till: str, gathered: Gathered) -> None:
    if till == ALL_TILLS:
        return
    charges = await asyncio.to_thread(book.charges, period.start - LOOK_BACK, period.end, till)
    tokens = {c.token for c in charges}
    gathered.orders = [o for o in gathered.orders if o.token in tokens]
