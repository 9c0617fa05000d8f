"""The order on screen, as values: how fresh it is (`Freshness`, what the status line says) and
what the panes and the point of sale show of it (`Shown`). Both are replaced, never changed in
place; `DashboardState` holds the current ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from orderdash.core.polling.refresh import Kind, TrackStatus

if TYPE_CHECKING:
    from orderdash.core.domain.payment import PaymentState
    from orderdash.core.model.wire import Order
    from orderdash.core.qr.payload import QRPayload


@dataclass(frozen=True, repr=False)
class Freshness:
    """How fresh the order on screen is. Replaced, never changed in place: a new value is what
    the status line is handed."""

    last_update: float | None = None  # wall time the last good data was fetched
    rates_enabled: bool = True
    loading: bool = False
    #: The last error and the time of the next try, per failing kind of request. `retry_at` and
    #: `next_rate_at` are read off the monotonic clock the line counts down with (a wall-clock
    #: step back of an hour once showed "next rate in 1:00:59").
    errors: Mapping[Kind, str] = field(default_factory=dict)
    retry_at: Mapping[Kind, float] = field(default_factory=dict)
    next_rate_at: float | None = None
    statuses: Mapping[Kind, TrackStatus] = field(default_factory=dict)

    @property
    def stale(self) -> bool:
        """The order poll is failing: what is on screen is no longer being renewed.

        A failing rate call alone does not make the data stale (getOrder keeps it current);
        it is reported on its own.
        """
        return Kind.ORDER in self.errors

    def succeeded(self, kind: Kind, at: float, next_rate_at: float | None) -> Freshness:
        errors = {k: v for k, v in self.errors.items() if k is not kind}
        retry_at = {k: v for k, v in self.retry_at.items() if k is not kind}
        return replace(
            self,
            loading=False,
            last_update=at,
            errors=errors,
            retry_at=retry_at,
            next_rate_at=self.next_rate_at if next_rate_at is None else next_rate_at,
        )

    def failed(self, kind: Kind, message: str, retry_at: float) -> Freshness:
        return replace(
            self,
            errors={**self.errors, kind: message},
            retry_at={**self.retry_at, kind: retry_at},
        )


@dataclass(frozen=True, eq=False, repr=False)
class Shown:
    """The order on screen as the panes and the point-of-sale screen show it."""

    order: Order
    payment: PaymentState
    payload: QRPayload
    #: When the answer arrived (wall time): the expiry countdown counts from it.
    received_at: float
    #: Transactions new in this answer (the POS flashes, the table marks them).
    new_ids: tuple[int, ...] = ()


def rate_direction(previous: Order | None, current: Order) -> int | None:
    """1 up, -1 down, 0 the same, None when either rate is unknown."""
    if previous is None or previous.exchange_rate is None or current.exchange_rate is None:
        return None
    before, after = previous.exchange_rate, current.exchange_rate
    return (after > before) - (after < before)
