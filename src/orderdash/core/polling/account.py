"""The account's orders as they appear: the order history read every `account_interval`.

The first read is the baseline: its open orders are the ones to watch, and none of them is
"new". Every later read reports the orders it lists for the first time. A failed read is
reported once per failure streak and retried at the next interval; the orders already known
stay known. A read is bounded (`max_pages` pages, each through the private budget) and says
so when it is incomplete: stopped at the page bound, or items left out that do not match the
API; that warning is reported once, again only when it changes. Paced by the budget, a long
history takes minutes (50 pages at the rate budget's even pace: a minute and a half): a read
still going after `PROGRESS_AFTER` seconds says how many pages it has read (`on_progress`), and
again every `PROGRESS_EVERY` seconds until it ends.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from orderdash.core.domain.status import is_open
from orderdash.core.model.account import HistoryItem
from orderdash.core.model.errors import OrderdashError, RateLimited
from orderdash.core.runtime.bulk import let_go
from orderdash.core.service.account_answers import AccountOrders
from orderdash.core.service.client import MAX_HISTORY_PAGES, OrderClient

log = logging.getLogger(__name__)

#: A reading listing more orders than this is turned into `AccountOrder`s in a worker thread:
#: 50,000 of them (a service that ignores the page size) took ~0.1 s on the event loop.
LARGE_LISTING = 5_000
#: Seconds into a history read before it says how far it is, and between its later reports.
PROGRESS_AFTER = 5.0
PROGRESS_EVERY = 15.0


@dataclass(frozen=True, eq=False, repr=False)
class AccountOrder:
    """One order of the account's history: typed, and as it came."""

    item: HistoryItem
    #: The wire object as received (numbers with their digits).
    raw: dict[str, Any]
    #: In progress, paid but unconfirmed, or a state not known (worked out once, as it is made).
    open: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "open", is_open(self.item.status.code, self.item.status.label))


def _listed(orders: AccountOrders) -> list[AccountOrder]:
    return [AccountOrder(i, r) for i, r in zip(orders.items, orders.raw, strict=True)]


class AccountEvents(Protocol):
    def on_baseline(self, orders: list[AccountOrder]) -> None:
        """The first reading's orders. The list is emptied after this returns (a large one is
        let go of in a worker thread): keep a copy of it, not the list."""
        ...

    def on_new_order(self, order: AccountOrder) -> None: ...

    def on_account_failure(self, error: OrderdashError) -> None: ...

    def on_account_recovered(self) -> None: ...

    def on_account_warning(self, text: str) -> None:
        """The read was incomplete (see `AccountOrders.warnings`): the orders it found were
        reported as usual."""
        ...


class PrivateBudget(Protocol):
    """The private budget the history reads share with the rate refreshes (the watcher)."""

    async def take_turn(self) -> None:
        """Return once the budget lets one more request start, counting it."""
        ...

    def refused_for_limit(self, retry_after: float | None) -> None:
        """The service refused a request for its limit: hold the budget `retry_after` s."""
        ...


class CommandBudget:
    """A command's own budget, paced with the gate's calls (`take_turn`, `refused_for_limit`).
    As the private budget of a command that reads the history (`orderdash orders`, `close`):
    the same limits and pacing as the dashboard's rate budget (`rate_budget_per_minute`,
    `rate_budget_per_hour`: the service counts the history with the rate refreshes, per API
    app), its log-ins counted too. `close` and `export` pace their getOrders with another
    (`core/books/run.py` `gates`). No tills run beside it, so it keeps no share back for them."""

    def __init__(
        self,
        per_minute: int,
        per_hour: int,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        from orderdash.core.polling.budget import Budget

        self.budget = Budget("private", per_minute, per_hour)
        self._monotonic = monotonic
        self._sleep = sleep

    async def take_turn(self) -> None:
        while True:
            now = self._monotonic()
            free = self.budget.next_free(now)
            if free <= now:
                self.budget.spend(now)
                return
            await self._sleep(min(free - now, 60.0))

    def spent(self) -> None:
        """A private request that does not wait for the budget (a log-in) is counted."""
        self.budget.spend(self._monotonic())

    def refused_for_limit(self, retry_after: float | None) -> None:
        from orderdash.core.polling.scheduler import DEFAULT_LIMIT_HOLD

        hold = DEFAULT_LIMIT_HOLD if retry_after is None else retry_after
        self.budget.hold(self._monotonic() + hold)


class AccountFeed:
    """Reads the history every `interval` seconds and reports what is new."""

    def __init__(
        self,
        client: OrderClient,
        events: AccountEvents,
        *,
        interval: float,
        budget: PrivateBudget | None = None,
        max_pages: int = MAX_HISTORY_PAGES,
        sleep: Callable[[float], Any] = asyncio.sleep,
        on_progress: Callable[[int, float], None] | None = None,
        progress_after: float = PROGRESS_AFTER,
        progress_every: float = PROGRESS_EVERY,
    ) -> None:
        self._client = client
        self._events = events
        self._interval = interval
        #: Each history page waits for it and is counted by it (None: no budget).
        self._budget = budget
        self._max_pages = max_pages
        self._sleep = sleep
        #: Told (pages read so far, seconds since the read began) while a read is long.
        self._on_progress = on_progress
        self._progress_after = progress_after
        self._progress_every = progress_every
        self._known: set[str] | None = None
        self._failing = False
        #: The last incomplete read's warning (None: the last read was whole).
        self._warning: str | None = None

    @property
    def known(self) -> frozenset[str]:
        return frozenset(self._known or ())

    async def read_once(self) -> None:
        asked = 0

        async def gate() -> None:
            nonlocal asked
            asked += 1  # before each page: the ones asked before it are read
            if self._budget is not None:
                await self._budget.take_turn()

        reporter = None
        if self._on_progress is not None:
            reporter = asyncio.create_task(
                self._report_progress(self._on_progress, lambda: max(asked - 1, 0))
            )
        try:
            orders = await self._client.account_orders(max_pages=self._max_pages, before_page=gate)
        except Exception as error:  # noqa: BLE001 - a bug here must not stop the watching
            if isinstance(error, RateLimited) and self._budget is not None:
                self._budget.refused_for_limit(error.retry_after)
            if not isinstance(error, OrderdashError):
                error = OrderdashError(f"internal error: {type(error).__name__}: {error}")
            if not self._failing:
                self._failing = True
                self._events.on_account_failure(error)
            return
        finally:
            if reporter is not None:
                reporter.cancel()
        if self._failing:
            self._failing = False
            self._events.on_account_recovered()
        warning = "; ".join(orders.warnings()) or None
        large = len(orders.items) > LARGE_LISTING
        listed = await asyncio.to_thread(_listed, orders) if large else _listed(orders)
        del orders  # `listed` holds the last references: let go of below
        if self._known is None:
            self._known = {order.item.token for order in listed}
            self._events.on_baseline(listed)
        else:
            new = [order for order in listed if order.item.token not in self._known]
            # oldest first, as they were created: the history lists the newest first
            for order in sorted(new, key=lambda o: o.item.created_at_ms):
                if order.item.token not in self._known:
                    self._known.add(order.item.token)
                    self._events.on_new_order(order)
        if large:
            let_go(listed)
        if warning != self._warning:
            self._warning = warning
            if warning is not None:
                self._events.on_account_warning(warning)

    async def _report_progress(
        self, report: Callable[[int, float], None], pages: Callable[[], int]
    ) -> None:
        """While a read goes on: its pages so far, after `progress_after` seconds and every
        `progress_every` after that (cancelled when the read ends)."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        wait = self._progress_after
        while True:
            await asyncio.sleep(wait)
            try:
                report(pages(), loop.time() - started)
            except Exception:  # noqa: BLE001 - a report that fails must not stop the read
                log.exception("a history progress report failed")
                return
            wait = self._progress_every

    async def run(self) -> None:
        while True:
            started = time.monotonic()
            await self.read_once()
            await self._sleep(max(self._interval - (time.monotonic() - started), 0.0))
