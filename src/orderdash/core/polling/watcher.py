"""Runs the scheduler against the client for every watched order, and reports what happened.

Plain asyncio: the dashboard runs `run()` inside one Textual worker and the headless
`orderdash watch --jsonl` runs it directly; cancelling it cancels every request at once. It never
lets an exception out: every failure becomes an `on_failure` report and a scheduled retry.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol

from orderdash.core.domain.late_payment import (
    CLOSED_UNPAID,
    closed_unpaid_for,
    is_late,
)
from orderdash.core.domain.status import Tone, state_key, tone_of
from orderdash.core.model.errors import (
    ApiError,
    AuthError,
    InvalidResponse,
    NetworkError,
    NotFound,
    OrderdashError,
    RateLimited,
    ServiceError,
    Timeout,
)
from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import Order
from orderdash.core.polling.late import DEFAULT_LATE_WINDOW
from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.core.polling.scheduler import DEFAULT_LIMIT_HOLD, RATE_ONCE_RESERVE, Scheduler
from orderdash.core.service.client import OrderClient

if TYPE_CHECKING:
    from orderdash.core.polling.budget_use import BudgetUse
    from orderdash.core.polling.push import PushPace

log = logging.getLogger(__name__)

#: Shortest sleep of the loop: a guard against spinning if the schedule ever says "now" wrongly.
MIN_SLEEP = 0.01


#: The documented states in which the order counts as paid: leaving one for any other state
#: (`PAID -> IN_PROGRESS`, `CONFIRMED -> UNDERPAID`, an unknown code) is a regression.
PAID_STATES = frozenset(
    {"PAID", "UNCONFIRMED", "PAIDUNCONFIRMED", "CONFIRMED", "COMPLETED", "OVERPAID"}
)


def error_kind(error: OrderdashError) -> str:
    """A short, stable name for what kind of failure this is: a change of kind (an outage
    that ends in "not found") is news even while the order keeps failing."""
    match error:
        case NotFound():
            return "not-found"
        case AuthError():
            return "auth"
        case RateLimited():
            return "rate-limited"
        case Timeout():
            return "timeout"
        case NetworkError():
            return "cannot-connect"
        case ServiceError():
            return "service-error"
        case InvalidResponse():
            return "invalid-response"
    return "error"


def is_outage(error: OrderdashError) -> bool:
    """The service cannot be reached (or fails as a whole), as opposed to one order's trouble."""
    if isinstance(error, NetworkError):
        return True
    return isinstance(error, ServiceError) and error.status >= 500


@dataclass(frozen=True, eq=False, repr=False)
class Failure:
    """A failed request: what was asked, why it failed, and when it is tried again."""

    kind: Kind
    error: OrderdashError
    retry_in: float

    @property
    def error_kind(self) -> str:
        return error_kind(self.error)


@dataclass(frozen=True)
class Identity:
    """What pins an order token to one order: the service's `id` and creation time."""

    id: int
    created_at_ms: int

    @classmethod
    def of(cls, order: Order) -> Identity:
        return cls(order.id, order.created_at_ms)


@dataclass(frozen=True)
class Change:
    """What one read revealed about its order, compared with the previous read."""

    new_transaction_ids: tuple[int, ...] = ()
    #: (previous code, new code) when the status code changed.
    status: tuple[str, str] | None = None
    #: Why this read takes back a payment, in a few words: a paid order left its paid state,
    #: or the amount paid went down (transactions gone or smaller).
    regression: str | None = None
    #: (before, now) when the token names another order than before (the service was reset
    #: and reused it): nothing else is compared then, the new order is the new baseline.
    identity: tuple[Identity, Identity] | None = None
    #: Those of `new_transaction_ids` that are late payments: into an order closed unpaid
    #: (expired, canceled), or after its deadline (`core/domain/late_payment.py`).
    late_ids: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return bool(
            self.new_transaction_ids
            or self.status is not None
            or self.regression
            or self.identity is not None
        )


class WatchEvents(Protocol):
    """What the runner reports; the dashboard turns each call into a message.

    A call that raises is logged and dropped: a bug in reporting must not stop the refresh.
    """

    def on_fetched(self, token: str, kind: Kind, fetched: Fetched, change: Change) -> None: ...

    def on_failure(self, token: str, failure: Failure) -> None: ...

    def on_status(self, token: str, status: dict[Kind, TrackStatus]) -> None: ...


@dataclass(eq=False, repr=False)
class _Seen:
    """What the last read of an order showed, for comparing the next one with it."""

    identity: Identity
    ids: set[int] = field(default_factory=set)
    status: str | None = None
    #: The order's status as a documented state key (None: not one we know).
    state: str | None = None
    paid: Decimal = Decimal(0)

    @classmethod
    def of(cls, order: Order) -> _Seen:
        return cls(
            Identity.of(order),
            {tx.id for tx in order.transactions},
            order.status.code,
            state_key(order.status.code, order.status.label),
            _paid(order),
        )


def _newly_paid(change: Change, fetched: Fetched) -> bool:
    """This read shows a payment the last did not: a new transaction, or a paid state."""
    if change.new_transaction_ids:
        return True
    status = fetched.order.status
    return change.status is not None and state_key(status.code, status.label) in PAID_STATES


def _paid(order: Order) -> Decimal:
    """What the order's transactions add up to, in coin."""
    return sum((tx.amount.base for tx in order.transactions), Decimal(0))


class OrderWatcher:
    def __init__(
        self,
        client: OrderClient,
        events: WatchEvents,
        *,
        poll_interval: float,
        refresh_interval: float,
        budget_per_minute: int = 200,
        budget_per_hour: int = 10_000,
        rate_budget_per_minute: int = 200,
        rate_budget_per_hour: int = 1_000,
        concurrency: int = 6,
        monotonic: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        customer_poll_interval: float | None = None,
        late_window: float = DEFAULT_LATE_WINDOW,
    ) -> None:
        self._client = client
        self._events = events
        self._monotonic = monotonic
        self.scheduler = Scheduler(
            poll_interval=poll_interval,
            refresh_interval=refresh_interval,
            rates_enabled=client.has_credentials,
            now=monotonic(),
            budget_per_minute=budget_per_minute,
            budget_per_hour=budget_per_hour,
            rate_budget_per_minute=rate_budget_per_minute,
            rate_budget_per_hour=rate_budget_per_hour,
            concurrency=concurrency,
            rng=rng or random.Random(),
            customer_poll_interval=customer_poll_interval,
            late_window=late_window,
        )
        # log-ins and their retries are private requests too: the rate budget counts them
        client.on_extra_private_request = self._extra_private_request
        #: Per order, what the last read showed; absent until the first read sets the baseline.
        self._seen: dict[str, _Seen] = {}
        self._wake = asyncio.Event()
        self._focused: set[str] = set()
        self._point_of_sale = False
        #: The orders on the customer display (`orderdash display`), POS screen or not.
        self._customer: set[str] = set()
        #: getOrder requests sent before their order joined the schedule (`prefetch`).
        self._early: dict[str, asyncio.Future[Fetched]] = {}
        #: Only prefetched reads are sent until `release` (`hold`).
        self._held = False
        #: Whether the service's callbacks reach the book (None: nothing is heard from it).
        self.push: PushPace | None = None
        #: When each order's last answer applied was received (the clock's seconds).
        self._received: dict[str, float] = {}

    @property
    def tokens(self) -> list[str]:
        return list(self.scheduler.orders)

    def add(self, token: str) -> bool:
        added = self.scheduler.add(token, self._monotonic())
        self._wake.set()
        return added

    def remove(self, token: str) -> None:
        self.scheduler.remove(token, self._monotonic())
        self._seen.pop(token, None)
        self._received.pop(token, None)
        if self.push is not None:
            self.push.forget(token)
        self._drop_early(token)
        self._wake.set()

    def prefetch(self, token: str) -> None:
        """Send `token`'s getOrder now, in the running event loop, before the order is
        scheduled: the dashboard asks for the order it opens while its screen is still being
        built. The first read the schedule makes of `token` takes this answer (one request, not
        two; it is counted then). Call `add` for `token` soon after, or `remove` it."""
        if token not in self._early:
            self._early[token] = asyncio.ensure_future(self._client.get_order_first(token))

    def hold(self) -> None:
        """Send nothing but the prefetched reads until `release`: a dashboard's first paint
        waits for its first read alone, not for rate calls and other orders' reads that show
        nothing it paints (each costs CPU the start-up shares)."""
        self._held = True

    def release(self) -> None:
        """End `hold`: whatever is due goes now."""
        self._held = False
        self._wake.set()

    def _drop_early(self, token: str) -> None:
        early = self._early.pop(token, None)
        if early is not None and not early.cancel() and not early.cancelled():
            early.exception()  # finished: its failure, if any, is not "never retrieved"

    def focus(self, tokens: Iterable[str]) -> None:
        """The orders on screen; while a point-of-sale screen is up they are on it too (their
        rate comes first in the rate budget, they are read at the customer's pace), like the
        order on the customer display."""
        self._focused = set(tokens)
        pos = (self._focused if self._point_of_sale else set()) | self._customer
        self.scheduler.focus(self._focused, self._monotonic(), pos=pos)
        self._wake.set()

    def customer_display(self, tokens: Iterable[str]) -> None:
        """The orders the customer display shows now (none: it is idle)."""
        self._customer = set(tokens)
        self.focus(self._focused)

    def point_of_sale(self, up: bool) -> None:
        """The customer display opened (`up`) or closed over the orders on screen."""
        self._point_of_sale = up
        self.focus(self._focused)

    def refresh_now(self, token: str) -> None:
        self.scheduler.refresh_now(token, self._monotonic())
        self._wake.set()

    def status(self, token: str) -> dict[Kind, TrackStatus]:
        return self.scheduler.status(token, self._monotonic())

    def _extra_private_request(self) -> None:
        self.scheduler.spent_extra(Kind.RATES, self._monotonic())

    def spent_private_request(self) -> None:
        """A private request made beside the watcher: the rate budget, which the service
        shares between every private endpoint, counts it."""
        self._extra_private_request()

    async def take_turn(self) -> None:
        """Wait until the private (rate) budget lets one more request start, then count it:
        a history read goes through this gate, not only into the count. It leaves the tills
        the share of the burst that one-off calls leave them."""
        budget = self.scheduler.budgets[Kind.RATES]
        while True:
            now = self._monotonic()
            free = budget.next_free(now, reserve=RATE_ONCE_RESERVE)
            if free <= now:
                self.scheduler.spent_extra(Kind.RATES, now)
                return
            await asyncio.sleep(min(free - now, 60.0))

    def refused_for_limit(self, retry_after: float | None) -> None:
        """A private request beside the watcher was refused for the limit: hold the budget."""
        hold = DEFAULT_LIMIT_HOLD if retry_after is None else retry_after
        self.scheduler.budgets[Kind.RATES].hold(self._monotonic() + hold)
        self._wake.set()

    def budget_use(self) -> list[BudgetUse]:
        """Each request budget's use now and the hour's projection (the `b` view)."""
        return self.scheduler.budget_use(self._monotonic())

    async def run(self) -> None:
        try:
            await self._run()
        finally:
            for token in list(self._early):  # prefetched for orders that never joined
                self._drop_early(token)

    async def _run(self) -> None:
        async with asyncio.TaskGroup() as group:
            while True:
                now = self._monotonic()
                held = self._held
                for token, kind in self.scheduler.due_requests(now):
                    if held and not (kind is Kind.ORDER and token in self._early):
                        continue  # due still: it goes at `release`
                    self.scheduler.started(token, kind, now)
                    group.create_task(self._request(token, kind))
                # held: woken by `release` or by a request's end, not by what is held back
                wakeup = None if held else self.scheduler.next_wakeup(self._monotonic())
                self._wake.clear()
                timeout = None
                if wakeup is not None:
                    timeout = max(wakeup - self._monotonic(), MIN_SLEEP)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await self._wake.wait()

    async def _request(self, token: str, kind: Kind) -> None:
        try:
            early = self._early.pop(token, None) if kind is Kind.ORDER else None
            if early is not None:
                fetched = await early
            elif kind is Kind.ORDER:
                fetched = await self._client.get_order(token)
            else:
                fetched = await self._client.refresh_rate(token)
        except OrderdashError as error:
            self._failed(token, kind, error)
        except Exception as error:  # noqa: BLE001 - a bug here must not stop the refresh
            bug = OrderdashError(f"internal error: {type(error).__name__}: {error}")
            self._failed(token, kind, bug)
        else:
            now = self._monotonic()
            self.scheduler.succeeded(token, kind, now)
            if token in self.scheduler.orders:
                change = self._compare(token, fetched)
                if kind is Kind.ORDER and self.push is not None and _newly_paid(change, fetched):
                    self.push.polled_paid(token, now)
                self._apply(token, kind, fetched, change, now)
        finally:
            if token in self.scheduler.orders:
                self._report(self._events.on_status, token, self.status(token))
            self._wake.set()

    def _apply(self, token: str, kind: Kind, fetched: Fetched, change: Change, now: float) -> None:
        """An answer for a watched order, scheduled by and reported."""
        if kind is Kind.ORDER:
            self._received[token] = fetched.received_at
        closed = tone_of(fetched.order.status.code, fetched.order.status.label) not in (
            Tone.OPEN,
            Tone.UNKNOWN,
        )
        self.scheduler.note_result(
            token,
            now,
            activity=bool(change),
            closed=closed,
            closed_unpaid_for=closed_unpaid_for(fetched.order, fetched.received_at),
        )
        self._report(self._events.on_fetched, token, kind, fetched, change)

    def pushed(self, token: str, fetched: Fetched) -> bool:
        """An order's newest read from the book, announced by another process (the callback
        receiver): applied as a polled answer is (compared, scheduled, reported), without a
        request. Not applied (False) when the order is not watched, when the read was received
        before the last answer applied here and shows no payment this till has not seen (the
        two times are two machines' clocks: a payment is news whatever they say), or when it
        would take a payment back (an older read written to the book after a newer one: a
        poll, never a push, says that)."""
        if token not in self.scheduler.orders:
            return False
        now = self._monotonic()
        last = self._received.get(token)
        before = self._seen.get(token)
        news = before is None or any(tx.id not in before.ids for tx in fetched.order.transactions)
        if last is not None and fetched.received_at < last and not news:
            return False
        change = self._compare(token, fetched)
        if change.regression:
            if before is None:
                self._seen.pop(token, None)
            else:
                self._seen[token] = before
            return False
        self.scheduler.pushed(token, now)
        self._apply(token, Kind.ORDER, fetched, change, now)
        if token in self.scheduler.orders:
            self._report(self._events.on_status, token, self.status(token))
        self._wake.set()
        return True

    def heard(self, tokens: Iterable[str]) -> None:
        """The book announced `tokens` (watched here or not): the callbacks flow."""
        if self.push is None:
            return
        now = self._monotonic()
        began = [self.push.heard(token, now) for token in tokens]
        if any(began):
            self.scheduler.fallback(self.push.fallback, now)
            self._wake.set()

    def check_push(self) -> None:
        """Time passed: full polling again if the callbacks stopped (`PushPace.check`)."""
        if self.push is not None and self.push.check(self._monotonic()):
            self.scheduler.fallback(0.0, self._monotonic())
            self._wake.set()

    @staticmethod
    def _report(callback: Callable[..., None], *args: object) -> None:
        try:
            callback(*args)
        except Exception:  # noqa: BLE001 - see WatchEvents
            log.exception("a watch event handler failed")

    def _failed(self, token: str, kind: Kind, error: OrderdashError) -> None:
        retry_after = error.retry_after if isinstance(error, ApiError) else None
        delay = self.scheduler.failed(
            token,
            kind,
            self._monotonic(),
            retry_after=retry_after,
            persistent=isinstance(error, AuthError | NotFound),
            rate_limited=isinstance(error, RateLimited),
        )
        if token in self.scheduler.orders:
            self._report(self._events.on_failure, token, Failure(kind, error, delay))

    def _compare(self, token: str, fetched: Fetched) -> Change:
        order = fetched.order
        seen = self._seen.get(token)
        now = self._seen[token] = _Seen.of(order)
        if seen is None:
            return Change()
        if now.identity != seen.identity:
            return Change(identity=(seen.identity, now.identity))
        new = tuple(tx.id for tx in order.transactions if tx.id not in seen.ids)
        was_closed_unpaid = seen.state in CLOSED_UNPAID
        fresh = set(new)
        late = tuple(
            tx.id
            for tx in order.transactions
            if tx.id in fresh and is_late(tx, order, was_closed_unpaid=was_closed_unpaid)
        )
        now.ids |= seen.ids  # a transaction that vanished and comes back is not new
        status = None
        if order.status.code != seen.status:
            status = (seen.status or "", order.status.code)
        regression = None
        if seen.state in PAID_STATES and now.state not in PAID_STATES:
            regression = "a paid order is no longer paid"
        elif now.paid < seen.paid:
            regression = "the amount paid went down"
        return Change(new, status, regression, late_ids=late)
