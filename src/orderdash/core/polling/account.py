"""The account's orders as they appear: the order history read every `account_interval`.

The first read is the baseline: its open orders are the ones to watch, and none of them is
"new". Every later read reports the orders it lists for the first time. A failed read is
reported once per failure streak and retried at the next interval; the orders already known
stay known.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from orderdash.core.domain.status import is_open
from orderdash.core.service.account_models import HistoryItem
from orderdash.core.service.client import OrderClient
from orderdash.core.service.errors import OrderdashError, RateLimited


@dataclass(frozen=True, eq=False, repr=False)
class AccountOrder:
    """One order of the account's history: typed, and as it came."""

    item: HistoryItem
    #: The wire object as received (numbers with their digits).
    raw: dict[str, Any]

    @property
    def open(self) -> bool:
        return is_open(self.item.status.code, self.item.status.label)


class AccountEvents(Protocol):
    def on_baseline(self, orders: list[AccountOrder]) -> None: ...

    def on_new_order(self, order: AccountOrder) -> None: ...

    def on_account_failure(self, error: OrderdashError) -> None: ...

    def on_account_recovered(self) -> None: ...


class PrivateBudget(Protocol):
    """The private budget the history reads share with the rate refreshes (the watcher)."""

    async def private_request(self) -> None: ...

    def private_limited(self, retry_after: float | None) -> None: ...


class AccountFeed:
    """Reads the history every `interval` seconds and reports what is new."""

    def __init__(
        self,
        client: OrderClient,
        events: AccountEvents,
        *,
        interval: float,
        budget: PrivateBudget | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        self._client = client
        self._events = events
        self._interval = interval
        #: Each history page waits for it and is counted by it (None: no budget).
        self._budget = budget
        self._sleep = sleep
        self._known: set[str] | None = None
        self._failing = False

    @property
    def known(self) -> frozenset[str]:
        return frozenset(self._known or ())

    async def read_once(self) -> None:
        gate: Callable[[], Awaitable[None]] | None = None
        if self._budget is not None:
            gate = self._budget.private_request
        try:
            orders = await self._client.account_orders(before_page=gate)
        except Exception as error:  # noqa: BLE001 - a bug here must not stop the watching
            if isinstance(error, RateLimited) and self._budget is not None:
                self._budget.private_limited(error.retry_after)
            if not isinstance(error, OrderdashError):
                error = OrderdashError(f"internal error: {type(error).__name__}: {error}")
            if not self._failing:
                self._failing = True
                self._events.on_account_failure(error)
            return
        if self._failing:
            self._failing = False
            self._events.on_account_recovered()
        listed = [AccountOrder(i, r) for i, r in zip(orders.items, orders.raw, strict=True)]
        if self._known is None:
            self._known = {order.item.token for order in listed}
            self._events.on_baseline(listed)
            return
        # oldest first, as they were created: the history lists the newest first
        for order in sorted(listed, key=lambda o: o.item.created_at_ms):
            if order.item.token not in self._known:
                self._known.add(order.item.token)
                self._events.on_new_order(order)

    async def run(self) -> None:
        while True:
            started = time.monotonic()
            await self.read_once()
            await self._sleep(max(self._interval - (time.monotonic() - started), 0.0))
