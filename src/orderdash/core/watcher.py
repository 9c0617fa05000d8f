"""Runs the refresh policy for one order against the client, and reports what happened.

The watcher is plain asyncio: the dashboard runs it inside one Textual worker, so cancelling
that worker (a new token, quitting) cancels every request of this order at once. It never lets
an exception out: every failure becomes an `on_failure` report and a scheduled retry.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from orderdash.core.client import Fetched, OrderClient
from orderdash.core.errors import ApiError, AuthError, NotFound, OrderdashError
from orderdash.core.refresh import Kind, RefreshPolicy, TrackStatus


@dataclass(frozen=True)
class Failure:
    kind: Kind
    error: OrderdashError
    retry_in: float


class WatchEvents(Protocol):
    """What the watcher reports; the dashboard turns each call into a message."""

    def on_fetched(
        self, kind: Kind, fetched: Fetched, new_transaction_ids: tuple[int, ...]
    ) -> None: ...

    def on_failure(self, failure: Failure) -> None: ...

    def on_status(self, status: dict[Kind, TrackStatus]) -> None: ...


class OrderWatcher:
    def __init__(
        self,
        client: OrderClient,
        token: str,
        events: WatchEvents,
        *,
        poll_interval: float,
        refresh_interval: float,
        monotonic: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.token = token
        self._client = client
        self._events = events
        self._monotonic = monotonic
        self.policy = RefreshPolicy(
            poll_interval=poll_interval,
            refresh_interval=refresh_interval,
            rates_enabled=client.has_bearer_token,
            now=monotonic(),
            rng=rng or random.Random(),
        )
        #: Transaction ids already reported; None until the first answer sets the baseline.
        self._seen_ids: set[int] | None = None
        self._wake = asyncio.Event()

    def refresh_now(self) -> None:
        now = self._monotonic()
        for kind in Kind:
            self.policy.request_now(kind, now)
        self._wake.set()

    async def run(self) -> None:
        async with asyncio.TaskGroup() as group:
            while True:
                now = self._monotonic()
                for kind in self.policy.due(now):
                    self.policy.started(kind, now)
                    group.create_task(self._request(kind))
                wakeup = self.policy.next_wakeup()
                self._wake.clear()
                timeout = None if wakeup is None else max(wakeup - self._monotonic(), 0.0)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await self._wake.wait()

    async def _request(self, kind: Kind) -> None:
        try:
            if kind is Kind.ORDER:
                fetched = await self._client.get_order(self.token)
            else:
                fetched = await self._client.refresh_rate(self.token)
        except OrderdashError as error:
            self._failed(kind, error)
        except Exception as error:  # noqa: BLE001 - a bug here must not stop the refresh
            self._failed(kind, OrderdashError(f"internal error: {type(error).__name__}: {error}"))
        else:
            self.policy.succeeded(kind, self._monotonic())
            new_ids = self._new_transactions(fetched)
            if new_ids:
                self.policy.request_now(Kind.RATES, self._monotonic())
            self._events.on_fetched(kind, fetched, new_ids)
        finally:
            self._events.on_status(self.policy.status(self._monotonic()))
            self._wake.set()

    def _failed(self, kind: Kind, error: OrderdashError) -> None:
        retry_after = error.retry_after if isinstance(error, ApiError) else None
        delay = self.policy.failed(
            kind,
            self._monotonic(),
            retry_after=retry_after,
            persistent=isinstance(error, AuthError | NotFound),
        )
        self._events.on_failure(Failure(kind, error, delay))

    def _new_transactions(self, fetched: Fetched) -> tuple[int, ...]:
        ids = [tx.id for tx in fetched.order.transactions]
        if self._seen_ids is None:
            self._seen_ids = set(ids)
            return ()
        new = tuple(i for i in ids if i not in self._seen_ids)
        self._seen_ids.update(new)
        return new
