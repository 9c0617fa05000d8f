"""The books as the commands and the dashboard run them: the book (`open_book`), the budgets'
gates, this till's name, and one close through a client the caller owns (`orderdash close`
makes its own; the dashboard passes the App's). `NoBook` stands in where no ledger can be
opened: a dry run still shows."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from orderdash.core.books.close import CloseResult, close_period
from orderdash.core.books.gather import Gate
from orderdash.core.books.period import Period
from orderdash.core.ledger import (
    UNLINKED,
    Book,
    ChargeRecord,
    CloseRecord,
    ResolutionRecord,
    SeenOrder,
)


def gates(settings: Any) -> tuple[Any, Any]:
    """The getOrder budget and the private budget, as every command paces them."""
    from orderdash.core.polling.account import CommandBudget

    share = settings.budgets
    orders = CommandBudget(share["budget_per_minute"], share["budget_per_hour"])
    private = CommandBudget(settings.rate_budget_per_minute, settings.rate_budget_per_hour)
    return orders, private


def till_name(settings: Any) -> str:
    """This till's name (the `till` setting: the host name unless set)."""
    return str(settings.till)


#: Tests put their own book here; None: the ledger of the settings (`core/ledger/open.py`).
BOOK_FACTORY: Callable[[Any], Book] | None = None


def open_book(settings: Any) -> Book:
    """The shop's book for these settings, for the commands and the dashboard alike; blocking
    (the dashboard calls it in a thread)."""
    if BOOK_FACTORY is not None:
        return BOOK_FACTORY(settings)
    from orderdash.core.ledger.open import open_book as open_ledger

    return open_ledger(settings)


async def close_with(
    client: Any,
    book: Book,
    settings: Any,
    period: Period,
    *,
    till: str,
    dry_run: bool,
    order_gate: Gate,
    private_gate: Gate,
    progress: Callable[[int, int], None] | None = None,
    pages: Callable[[int], None] | None = None,
) -> CloseResult:
    """Close (or show, `dry_run`) `period` for `till` through `client`, within the settings'
    budgets (`core/books/close.py`). A close made now is the day's digest to the notification
    rules that name "close" (`core/notify`)."""
    result = await close_period(
        client,
        book,
        period,
        till=till,
        recorder=till_name(settings),
        order_gate=order_gate,
        private_gate=private_gate,
        dry_run=dry_run,
        concurrency=settings.concurrency,
        max_pages=settings.history_max_pages,
        progress=progress,
        pages=pages,
        currency=getattr(settings, "currency", None),
        tolerance=getattr(settings, "underpaid_tolerance", Decimal(0)),
    )
    if result.saved and not result.frozen and getattr(settings, "notify", None):
        from orderdash.core.notify.events import notices_for

        notices = notices_for(settings)
        if notices is not None:
            notices.closed(result.report)
    return result


class BudgetGate:
    """A gate (`gather.Gate`) on a budget someone else spends too (the dashboard's getOrder
    budget, which its watcher keeps): the close's reads and the charge lookups take their turn
    in it and leave `reserve` of its burst to the orders on screen, and a refusal for the
    service's limit holds it for everyone."""

    def __init__(
        self, budget: Any, *, reserve: float = 0.5, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._budget = budget
        self._reserve = reserve
        self._monotonic = monotonic

    async def take_turn(self) -> None:
        """Return once the budget, `reserve` kept back, lets one more request start; count it."""
        while True:
            now = self._monotonic()
            free = self._budget.next_free(now, reserve=self._reserve)
            if free <= now:
                self._budget.spend(now)
                return
            await asyncio.sleep(min(free - now, 60.0))

    def refused_for_limit(self, retry_after: float | None) -> None:
        """The service refused a request for its limit: hold the budget for everyone."""
        from orderdash.core.polling.scheduler import DEFAULT_LIMIT_HOLD

        hold = DEFAULT_LIMIT_HOLD if retry_after is None else retry_after
        self._budget.hold(self._monotonic() + hold)


class NoBook:
    """A book that keeps nothing: every order is read from the service, no close is found or
    saved (a close needs a real book; a dry run does not)."""

    def charge_started(self, record: ChargeRecord) -> None:
        pass

    def charge_ended(
        self,
        token: str,
        outcome: str,
        detail: str = "",
        at: datetime | None = None,
        currency: str = "",
    ) -> None:
        pass

    def charge_resolved(
        self,
        token: str,
        outcome: str,
        detail: str = "",
        at: datetime | None = None,
        currency: str = "",
    ) -> bool:
        return False

    def charge(self, token: str) -> ChargeRecord | None:
        return None

    def unresolved_charges(self, till: str) -> list[ChargeRecord]:
        return []

    def charges(self, since: datetime, until: datetime, till: str | None) -> list[ChargeRecord]:
        return []

    def order_seen(self, token: str, till: str, seen_at: datetime, order_json: str) -> None:
        pass

    def order_seen_many(self, reads: Iterable[tuple[str, str, datetime, str]]) -> None:
        pass

    def orders_seen(self, tokens: list[str] | None = None) -> list[SeenOrder]:
        return []

    def find_close(
        self, till: str, period_from: datetime, period_until: datetime
    ) -> CloseRecord | None:
        return None

    def save_close(self, record: CloseRecord, *, follows: str | None = UNLINKED) -> CloseRecord:
        raise RuntimeError("no book to keep the close in")

    def closes(self, till: str) -> list[CloseRecord]:
        return []

    def newest_close(self, till: str) -> CloseRecord | None:
        return None

    def resolution_made(self, record: ResolutionRecord) -> ResolutionRecord:
        raise RuntimeError("no book to keep the resolution in")

    def resolutions_of(self, tokens: list[str]) -> list[ResolutionRecord]:
        return []

    def resolutions_made(
        self, since: datetime, until: datetime, till: str | None, limit: int = 0
    ) -> list[ResolutionRecord]:
        return []

    def claim_notice(self, token: str, event: str, state: str, by: str, at: datetime) -> bool:
        return True  # nothing is kept: every notification is this process's to send

    def claim_outage(self, by: str, at: datetime, began: datetime) -> tuple[str, bool]:
        return "", True

    def close_connection(self) -> None:
        pass
