"""Reading a period's orders from the service, within the budgets, joined with the ledger.

1. The account history (private budget, `rate_budget_*`), every page up to `max_pages` (the
   `history_max_pages` setting; a history stopped there leaves the close incomplete): the
   orders created in [from - `LOOK_BACK`, until), so that payments to yesterday's orders count
   today.
2. The ledger's newest read of each (`Book.orders_seen`, written by every getOrder the
   dashboard and these commands make): an order whose state there is settled for the books
   (`orders.SETTLED`) and is still the state the history shows is taken from the ledger, not
   read again. A payment changes the state (an expired order paid late becomes paid or
   underpaid), so it is read again then; this is what keeps a close of a day the dashboard
   watched within a few getOrders.
3. getOrder for the rest, each through the getOrder budget (`budget_per_*`), at most
   `concurrency` at once; every read written to the ledger (`Book.order_seen`).

The Book's calls block: they run in a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from orderdash.core.books.orders import (
    SETTLED,
    BadOrder,
    BookOrder,
    read_order,
    state_of,
    text,
)
from orderdash.core.books.period import Period
from orderdash.core.ledger import Book
from orderdash.core.safetext import clean
from orderdash.core.service import jsontext
from orderdash.core.service.client import MAX_HISTORY_PAGES
from orderdash.core.service.errors import OrderdashError, RateLimited

#: Orders created this long before the period are read too: their payments may fall in it.
LOOK_BACK = timedelta(hours=24)
#: Tries of one getOrder the service refuses for the rate (each after the budget's hold).
LIMITED_TRIES = 3


class Gate(Protocol):
    """A budget's gate: returns once one more request may start, and counts it."""

    async def private_request(self) -> None: ...


@dataclass
class Gathered:
    orders: list[BookOrder] = field(default_factory=list)
    #: getOrder calls made, and orders taken from the ledger.
    read: int = 0
    from_ledger: int = 0
    warnings: list[str] = field(default_factory=list)
    #: Orders that could not be read (a close is refused while any is missing).
    missing: int = 0


async def gather(
    client: Any,
    book: Book,
    period: Period,
    *,
    till: str,
    order_gate: Gate,
    private_gate: Gate,
    concurrency: int = 6,
    max_pages: int = MAX_HISTORY_PAGES,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    progress: Callable[[int, int], None] | None = None,
) -> Gathered:
    """Every order created in [period.start - LOOK_BACK, period.end), as the books see it.
    `progress(done, total)` is told of the getOrder reads: before the first, after each."""
    result = Gathered()
    history = await client.account_orders(
        max_pages=max_pages, before_page=private_gate.private_request
    )
    result.warnings.extend(clean(w, limit=200) for w in history.warnings())
    if history.truncated:
        result.missing += 1
    # an item the history sent but that does not match the API may be an order of the period
    result.missing += history.skipped
    low = int((period.start - LOOK_BACK).timestamp() * 1000)
    wanted = {}
    for item in history.items:
        if low <= item.created_at_ms < period.end_ms:
            wanted[item.token] = item
    seen = await asyncio.to_thread(book.orders_seen, list(wanted))
    by_token = {s.token: s for s in seen}
    to_read: list[str] = []
    for token, item in wanted.items():
        kept = _from_ledger(by_token.get(token), item)
        if kept is None:
            to_read.append(token)
        else:
            result.orders.append(kept)
            result.from_ledger += 1
    limit = asyncio.Semaphore(max(1, concurrency))
    done = 0
    if progress is not None:
        progress(0, len(to_read))

    async def one(token: str) -> None:
        async with limit:
            try:
                fetched = await _read(client, order_gate, token)
            except OrderdashError as exc:
                result.missing += 1
                result.warnings.append(f"order {clean(token, limit=60)}: {exc.message}")
                return
        result.read += 1
        try:
            order = read_order(fetched.raw)
        except BadOrder as exc:
            result.missing += 1
            result.warnings.append(f"order {clean(token, limit=60)}: {exc}")
            return
        await asyncio.to_thread(book.order_seen, token, till, now(), jsontext.dumps(fetched.raw))
        result.orders.append(order)

    async def counted(token: str) -> None:
        nonlocal done
        try:
            await one(token)
        finally:
            done += 1
            if progress is not None:
                progress(done, len(to_read))

    await asyncio.gather(*(counted(token) for token in to_read))
    result.orders.sort(key=lambda o: (o.created_ms, o.id, o.token))
    return result


async def _read(client: Any, gate: Gate, token: str) -> Any:
    """getOrder through the budget's gate; a refusal for the rate holds the budget (every read
    waits it out) and the read is tried again, `LIMITED_TRIES` times in all."""
    for attempt in range(1, LIMITED_TRIES + 1):
        await gate.private_request()
        try:
            return await client.get_order(token)
        except RateLimited as limited:
            if attempt == LIMITED_TRIES or not hasattr(gate, "private_limited"):
                raise
            gate.private_limited(limited.retry_after)
    raise AssertionError("unreachable")  # pragma: no cover


def _from_ledger(seen: Any, item: Any) -> BookOrder | None:
    """The ledger's read, when it can stand for a new one (see the module's docstring)."""
    if seen is None:
        return None
    try:
        order = read_order(jsontext.loads(seen.order_json))
    except (BadOrder, ValueError):
        return None
    if order.state not in SETTLED:
        return None
    if state_of(item.status.code, item.status.label) != order.state:
        return None
    if (text(item.status.code), text(item.status.label)) != (order.status_code, order.status_label):
        return None
    return order
