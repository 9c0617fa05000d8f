"""The orders that need a human (docs/attention.md): those of the last days, read from the
service and the ledger (`orderdash attention`), and what the ledger says of the watched ones
(the dashboard's attention view, kept by `core/watching/attention.py`). An order resolved in
the ledger (`orderdash resolve`, `R`, any till) is no more listed, unless it went wrong again
after its latest resolution. The kinds' words and the figures' text (`kind_words`,
`counts_text`, `figure_text`, `age_text`) are the view's own, for the callers to show."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.books.attention import (
    OrderAttention,
    age_text,
    counts_text,
    figure_text,
    kind_words,
    needing_attention,
    resolution_times,
)
from orderdash.core.books.period import Period, zone_named
from orderdash.core.books.resolve import accepted_at_counter
from orderdash.core.usecases.reads import ReadOptions, read_period

if TYPE_CHECKING:
    from orderdash.core.books.gather import Gate, OrderReader
    from orderdash.core.ledger import Book, ResolutionRecord
    from orderdash.core.settings.model import Settings

__all__ = [
    "AttentionFound",
    "AttentionOptions",
    "attention_period",
    "OrderAttention",
    "Resolved",
    "age_text",
    "counts_text",
    "figure_text",
    "kind_words",
    "needing_attention_in",
    "resolved_in",
]


@dataclass(frozen=True)
class AttentionOptions:
    """What the attention takes from the settings: how it reads, the store's time zone (by
    name: a bad one is told when the period is made), how long an unconfirmed payment may
    wait, and the payment tolerance."""

    reads: ReadOptions
    timezone: str | None
    unconfirmed_after: float
    tolerance: Decimal

    @classmethod
    def from_settings(cls, settings: Settings) -> AttentionOptions:
        return cls(
            ReadOptions.from_settings(settings),
            settings.timezone,
            settings.attention_unconfirmed_after,
            settings.underpaid_tolerance,
        )


@dataclass(frozen=True)
class AttentionFound:
    """The orders that need a human, most recent trouble first; `now_ms`: when their ages are
    counted from; what went wrong reading, and how many orders could not be read."""

    found: list[OrderAttention]
    now_ms: int
    warnings: list[str]
    missing: int


def attention_period(options: AttentionOptions, *, days: int, now: datetime) -> Period:
    """The last `days` days until `now`, in the store's time zone (a bad zone: one line)."""
    return Period(now - timedelta(days=days), now, zone_named(options.timezone))


async def needing_attention_in(
    client: OrderReader,
    book: Book,
    period: Period,
    options: AttentionOptions,
    *,
    now: Callable[[], datetime],
    order_gate: Gate,
    private_gate: Gate,
    progress: Callable[[int, int], None] | None = None,
    pages: Callable[[int], None] | None = None,
) -> AttentionFound:
    """The orders created in `period` that need a human, their ages counted from `now()` once
    read."""
    gathered = await read_period(
        client,
        book,
        period,
        options.reads,
        order_gate=order_gate,
        private_gate=private_gate,
        progress=progress,
        pages=pages,
    )
    # the gathering reads a day before the period too (a close's look-back): only the period
    of_period = [o for o in gathered.orders if o.created_ms >= period.start_ms]
    records = await asyncio.to_thread(book.resolutions_of, [o.token for o in of_period])
    now_ms = int(now().timestamp() * 1000)
    found = needing_attention(
        of_period,
        now_ms=now_ms,
        unconfirmed_after=options.unconfirmed_after,
        tolerance=options.tolerance,
        resolved=resolution_times(records),
        was=gathered.earlier,
    )
    return AttentionFound(found, now_ms, gathered.warnings, gathered.missing)


@dataclass(frozen=True)
class Resolved:
    """What the ledger's resolutions of some orders say: token -> the time of its latest
    resolution (epoch ms), and the orders accepted at the counter (shown paid)."""

    times: dict[str, int]
    accepted: set[str]


def resolved_in(records: Iterable[ResolutionRecord]) -> Resolved:
    """The resolutions the ledger read (oldest first), as the attention view takes them."""
    listed = list(records)
    return Resolved(resolution_times(listed), accepted_at_counter(listed))
