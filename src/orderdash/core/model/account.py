"""The account's models (docs/account-api.md): the log-in, the order history, Generate Order and the
coins an order offers. Apart from `wire.py` so that what reads only orders (the dashboard's
start-up, `orderdash get`) does not define them: each model class costs its start ~0.5 ms.

No `from __future__ import annotations`, as in `wire.py` (the annotations are evaluated once,
as the class body runs).
"""

from pydantic import BaseModel, ConfigDict, Field

from orderdash.core.model.wire import (
    Currency,
    JsonAny,
    Money,
    Status,
    WireBool,
    WireInt,
    WireModel,
)


class CoinChoice(WireModel):
    """One of the coins an order without a coin offers (the UI's get order)."""

    id: WireInt | None = None
    name: str | None = None
    code: str
    basename: str | None = None


class CreatedOrder(BaseModel):
    """Generate Order's answer object (`data`, or `message` in the second published form)."""

    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)

    id: WireInt | None = None
    payment_url: str | None = None
    token: str


class LoginEnvelope(WireModel):
    """Log in (docs/account-api.md#log-in): `{success, data: "<bearer JWT>", message}`."""

    success: WireBool
    data: str | None = None
    message: JsonAny = None


class HistoryItem(WireModel):
    """One order of Get Order History. `amount` is the fiat amount, as decimal text."""

    id: WireInt
    token: str
    created_at_ms: WireInt = Field(alias="createdAtMiliseconds")
    amount: Money
    status: Status
    currency: Currency


class HistoryMeta(WireModel):
    total_count: WireInt | None = None
    pages_count: WireInt | None = None
    current_page: WireInt | None = None
    #: Required, null on the last page: the only thing paging follows.
    next_page: WireInt | None


class HistoryPage(WireModel):
    items: tuple[HistoryItem, ...]
    meta: HistoryMeta


class HistoryEnvelope(WireModel):
    """Get Order History: `{statusCode, data: {items, meta}}`."""

    status_code: WireInt | None = None
    data: HistoryPage
