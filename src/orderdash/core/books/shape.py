"""The close report's shape (docs/books.md "The report"), as the type checker reads it: what
`report.build_report` writes, and what `frozen.read_close` hands back once it has checked a
report read from the ledger member by member. Every amount is decimal text, the service's own
digits; every time ISO-8601 with its offset. Members a version added are not required of the
versions before it (`resolutions` 2, `previous` 3, `sales` 4)."""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict

#: A period, a close's own or the one it follows ("from" is a keyword: the functional form).
PeriodJSON = TypedDict("PeriodJSON", {"from": str, "until": str, "zone": str})
#: The close a report follows: its period and digest (`chain.link_to`).
LinkJSON = TypedDict("LinkJSON", {"from": str, "until": str, "digest": str})
#: The period of the earlier close that covered an adjustment's order.
SpanJSON = TypedDict("SpanJSON", {"from": str, "until": str})


class OrdersJSON(TypedDict):
    total: int
    by_state: dict[str, int]


class SumJSON(TypedDict):
    """What was received in one coin or fiat currency, and in how many payments."""

    amount: str
    payments: int


class ReceivedJSON(TypedDict):
    coins: dict[str, SumJSON]
    fiat: dict[str, SumJSON]


class PartJSON(TypedDict):
    """One part of a currency's difference (`sales.PARTS`) and the orders it counts."""

    amount: str
    orders: int


class SalesRowJSON(TypedDict):
    sales: str
    orders: int
    received: str
    payments: int
    difference: str
    parts: dict[str, PartJSON]


class SalesJSON(TypedDict):
    """The report's `sales` (`sales.sales_block`)."""

    currency: str | None
    tolerance: str
    fiat: dict[str, SalesRowJSON]


#: The name of an exception's figure: what is missing, what is too much, or what came.
FigureName: TypeAlias = Literal["shortfall", "excess", "received"]


class FigureJSON(TypedDict):
    coin: str
    fiat: str


class RefundJSON(TypedDict):
    coin: str
    amount: str
    basis: str
    rate: str | None
    fee: str


class ResolutionJSON(TypedDict):
    order: str
    kind: str
    reason: str
    operator: str
    till: str
    at: str
    refund: RefundJSON | None


class ExceptionJSON(TypedDict):
    """An exceptional order and its figure: one of `shortfall`, `excess`, `received`."""

    kind: str
    order: str
    state: str
    coin: str
    currency: str
    shortfall: NotRequired[FigureJSON]
    excess: NotRequired[FigureJSON]
    received: NotRequired[FigureJSON]
    resolution: NotRequired[ResolutionJSON | None]


class PaymentJSON(TypedDict):
    """A payment the close counts; an adjustment names the close that covered its order too."""

    order: str
    id: int
    at: str
    coin: str
    amount: str
    currency: str
    fiat: str
    closed_period: NotRequired[SpanJSON]


class CloseReport(TypedDict):
    version: int
    period: PeriodJSON
    till: str
    closed_at: str
    orders: OrdersJSON
    received: ReceivedJSON
    sales: NotRequired[SalesJSON]
    exceptions: list[ExceptionJSON]
    adjustments: list[PaymentJSON]
    payments: list[PaymentJSON]
    resolutions: NotRequired[list[ResolutionJSON]]
    warnings: list[str]
    previous: NotRequired[LinkJSON | None]
    #: The SHA-256 of the rest (`report.digest_of`): set once the rest is built.
    digest: NotRequired[str]
