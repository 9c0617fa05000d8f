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
   `concurrency` at once; every read written to the ledger (`Book.order_seen`). A read that
   fails for something other than the service (a bug, a storage error) stops the others: the
   close fails at once. A read the ledger could not write down is a warning only.

The Book's calls block, and the ledger's rows are parsed (their cost grows with them): both run
in a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from orderdash.core.books.orders import BadOrder, BookOrder, read_order, text
from orderdash.core.books.period import Period
from orderdash.core.domain.status import SETTLED, state_of
from orderdash.core.ledger import MAX_ORDER_JSON, Book, LedgerError
from orderdash.core.model import jsontext
from orderdash.core.model.errors import OrderdashError, RateLimited
from orderdash.core.safetext import clean
from orderdash.core.service.client import MAX_HISTORY_PAGES

if TYPE_CHECKING:
    from orderdash.core.jsontypes import JSONValue
    from orderdash.core.ledger import SeenOrder
    from orderdash.core.model.account import HistoryItem
    from orderdash.core.model.results import Fetched
    from orderdash.core.service.account_answers import AccountOrders

#: Orders created this long before the period are read too: their payments may fall in it.
LOOK_BACK = timedelta(hours=24)
#: Tries of one getOrder the service refuses for the rate (each after the budget's hold).
LIMITED_TRIES = 3
#: A ledger row's order longer than this is not parsed (an order is a few kilobytes): it is
#: read from the service again.
MAX_SEEN_JSON = MAX_ORDER_JSON


class Gate(Protocol):
    """A budget's gate, the getOrder budget's and the private budget's alike (`order_gate`,
    `private_gate`). A gate may also have `refused_for_limit(retry_after)`: the service
    refused a request for its limit, the budget holds for that long."""

    async def take_turn(self) -> None:
        """Return once the budget lets one more request start, counting it."""
        ...


class OrderReader(Protocol):
    """What the books read through: the account's history and getOrder (`OrderClient`)."""

    async def account_orders(
        self, *, max_pages: int, before_page: Callable[[], Awaitable[None]] | None = None
    ) -> AccountOrders: ...

    async def get_order(self, token: str) -> Fetched: ...


@dataclass
class Gathered:
    orders: list[BookOrder] = field(default_factory=list)
    #: getOrder calls made, and orders taken from the ledger.
    read: int = 0
    from_ledger: int = 0
    warnings: list[str] = field(default_factory=list)
    #: Orders that could not be read (a close is refused while any is missing).
    missing: int = 0
    #: The identity (id, creation in epoch ms) each token named at the ledger's newest read
    #: before this gathering: a token that names another order now was reset and reused.
    earlier: dict[str, tuple[int, int]] = field(default_factory=dict)


async def gather(
    client: OrderReader,
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
    pages: Callable[[int], None] | None = None,
) -> Gathered:
    """Every order created in [period.start - LOOK_BACK, period.end), as the books see it.
    `progress(done, total)` is told of the getOrder reads: before the first, after each;
    `pages(n)` of the history's pages, as the nth is asked for (a long history is minutes of
    the private budget before the first getOrder)."""
    result = Gathered()
    asked = 0

    async def page_turn() -> None:
        nonlocal asked
        await private_gate.take_turn()
        asked += 1
        if pages is not None:
            pages(asked)

    history = await client.account_orders(max_pages=max_pages, before_page=page_turn)
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
    kept, ledger_warnings, result.earlier = await asyncio.to_thread(_ledger_reads, book, wanted)
    result.warnings.extend(ledger_warnings)
    to_read: list[str] = []
    for token in wanted:
        if token in kept:
            result.orders.append(kept[token])
            result.from_ledger += 1
        else:
            to_read.append(token)
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
        result.orders.append(order)
        try:
            await asyncio.to_thread(
                book.order_seen, token, till, now(), jsontext.dumps(fetched.raw)
            )
        except LedgerError as exc:  # the read itself stands: only the next close reads again
            result.warnings.append(f"order {clean(token, limit=60)}: not written down: {exc}")

    async def counted(token: str) -> None:
        nonlocal done
        try:
            await one(token)
        finally:
            done += 1
            if progress is not None:
                progress(done, len(to_read))

    try:
        # one failure cancels the reads still waiting or under way (no read goes on unheard)
        async with asyncio.TaskGroup() as group:
            for token in to_read:
                group.create_task(counted(token))
    except BaseExceptionGroup as failed:
        raise _first(failed) from None
    result.orders.sort(key=lambda o: (o.created_ms, o.id, o.token))
    return result


async def _read(client: OrderReader, gate: Gate, token: str) -> Fetched:
    """getOrder through the budget's gate; a refusal for the rate holds the budget (every read
    waits it out) and the read is tried again, `LIMITED_TRIES` times in all."""
    for attempt in range(1, LIMITED_TRIES + 1):
        await gate.take_turn()
        try:
            return await client.get_order(token)
        except RateLimited as limited:
            refused = getattr(gate, "refused_for_limit", None)
            if attempt == LIMITED_TRIES or refused is None:
                raise
            refused(limited.retry_after)
    raise AssertionError("unreachable")  # pragma: no cover


def _first(failed: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first failure of a task group, out of its (nested) groups."""
    first: BaseException = failed
    while isinstance(first, BaseExceptionGroup):
        first = first.exceptions[0]
    return first


def _ledger_reads(
    book: Book, wanted: dict[str, HistoryItem]
) -> tuple[dict[str, BookOrder], list[str], dict[str, tuple[int, int]]]:
    """In a thread: the ledger's reads of `wanted` that can stand for new ones, by token, a
    warning for each row too long to be read, and the identity each read names."""
    kept: dict[str, BookOrder] = {}
    warnings: list[str] = []
    identities: dict[str, tuple[int, int]] = {}
    for seen in book.orders_seen(list(wanted)):
        item = wanted.get(seen.token)
        if item is None:
            continue
        if len(seen.order_json) > MAX_SEEN_JSON:
            warnings.append(
                f"order {clean(seen.token, limit=60)}: the ledger's read of it is over "
                f"{MAX_SEEN_JSON >> 20} MiB: read from the service instead"
            )
            continue
        try:
            data = jsontext.loads(seen.order_json)
        except ValueError:
            continue
        if isinstance(data, dict):
            found, created = data.get("id"), data.get("createdAtMiliseconds")
            if type(found) is int and type(created) is int:
                identities[seen.token] = (found, created)
        order = _from_ledger(seen, item, data)
        if order is not None:
            kept[seen.token] = order
    return kept, warnings, identities


def _from_ledger(seen: SeenOrder, item: HistoryItem, data: JSONValue) -> BookOrder | None:
    """The ledger's read (`data`, parsed), when it can stand for a new one (see the module's
    docstring)."""
    try:
        order = read_order(data)
    except BadOrder:
        return None
    if order.token != seen.token or seen.token != item.token:
        return None  # a row filed under another order's token
    if order.created_ms != item.created_at_ms:
        return None  # the token names another order now (reset and reused): read it again
    if order.state not in SETTLED:
        return None
    if state_of(item.status.code, item.status.label) != order.state:
        return None
    if (text(item.status.code), text(item.status.label)) != (order.status_code, order.status_label):
        return None
    return order
