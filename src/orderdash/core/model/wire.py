"""Typed models of the order API (docs/service-api.md), open to what the spec does not show
(the account's, read only in account mode and by its commands: `account.py`).

Attributes are snake_case; the wire names are aliases. Money is `Decimal` with every digit the
server sent: bodies must be parsed with `jsontext.loads` (floats never appear), and the `Money`
type refuses float, bool, NaN/Infinity and absurd exponents instead of rounding them.

Unlike the rest of the project, no `from __future__ import annotations` here: pydantic would
evaluate every field's annotation string again as each model class is made (~1.5 ms of every
start, `orderdash get`'s included); evaluated by Python as the class body runs, they are ready.
"""

import re
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, model_validator
from pydantic.alias_generators import to_camel

from orderdash.core.model.jsontext import OutOfRangeNumber, in_range

#: Largest magnitude and finest fraction accepted for a money value (10^±40): wider than any
#: coin or fiat amount, narrow enough that formatting can never produce a huge string.
MONEY_MAX_EXPONENT = 40
MONEY_MAX_DIGITS = 80


def to_money(value: Any) -> Decimal:
    """A money value as the service sent it (Decimal, int or decimal text), exact and within
    the bounds above; ValueError otherwise (float, bool, NaN, out of range)."""
    if isinstance(value, OutOfRangeNumber):
        raise ValueError("number out of range")
    if isinstance(value, bool) or isinstance(value, float):
        # float means the body was parsed lossily somewhere: refuse rather than show a wrong digit
        raise ValueError("expected an exact decimal number")
    if isinstance(value, int):
        value = Decimal(value)
    elif isinstance(value, str):
        text = value.strip()
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise ValueError("expected decimal text") from None
    if not isinstance(value, Decimal):
        raise ValueError("expected a decimal number")
    if not value.is_finite():
        raise ValueError("expected a finite number")
    if (
        len(value.as_tuple().digits) > MONEY_MAX_DIGITS
        or abs(value.adjusted()) > MONEY_MAX_EXPONENT
    ):
        raise ValueError("number out of range")
    return value


Money = Annotated[Decimal, BeforeValidator(to_money)]

#: A JSON integer, as the spec says: never a bool, text or a fraction coerced into one, and within
#: 64 bits, so that no time or id computed from it can overflow (a 400-digit `expiresAt` made the
#: expiry arithmetic raise OverflowError inside the app).
WireInt = Annotated[int, Strict(), Field(ge=-(2**63), le=2**63 - 1)]
#: A JSON boolean, never "false" or 0 read as one.
WireBool = Annotated[bool, Strict()]

#: Deepest nesting accepted in a field whose type the spec does not give (`dueDate`).
_MAX_JSON_DEPTH = 32


def _to_json_value(value: Any) -> Any:
    """Any JSON value as parsed by `jsontext` (numbers may be Decimal), not nested too deeply."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > _MAX_JSON_DEPTH:
            raise ValueError("nested too deeply")
        if isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                raise ValueError("expected a JSON value")
            stack.extend((member, depth + 1) for member in item.values())
        elif isinstance(item, list):
            stack.extend((member, depth + 1) for member in item)
        elif isinstance(item, Decimal):
            if not item.is_finite():
                raise ValueError("expected a finite number")
            if not in_range(item):
                raise ValueError("number out of range")
        elif isinstance(item, int) and not isinstance(item, bool):
            if item.bit_length() > 340:  # about 100 digits, as jsontext bounds a literal
                raise ValueError("number out of range")
        elif item is not None and not isinstance(item, str | bool | OutOfRangeNumber):
            # float included: it would mean the body was parsed lossily somewhere
            raise ValueError("expected a JSON value")
    return value


#: A value whose type the spec does not show: kept as sent (numbers as Decimal, or as the cut,
#: marked literal text of an OutOfRangeNumber).
JsonAny = Annotated[Any, BeforeValidator(_to_json_value)]


class WireModel(BaseModel):
    model_config = ConfigDict(
        # each model's validator is built when it first validates, not at import: a command
        # builds only those it reads (`get` neither the history's, the log-in's nor Generate
        # Order's; ~8 ms of its start)
        defer_build=True,
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        frozen=True,
    )


#: What `datetime.strptime(text, "%Y-%m-%d %H:%M")` accepts, as CPython's `_strptime` builds it
#: (unpadded fields, any run of whitespace): the same times parse without loading `_strptime`
#: and its locale tables, ~1.5 ms of the start-up's first order.
_SERVER_TIME = re.compile(
    r"(?P<Y>\d\d\d\d)-(?P<m>1[0-2]|0[1-9]|[1-9])-(?P<d>3[0-1]|[1-2]\d|0[1-9]|[1-9]| [1-9])"
    r"\s+(?P<H>2[0-3]|[0-1]\d|\d):(?P<M>[0-5]\d|\d)",
    re.IGNORECASE,
)


def parse_server_time(text: str) -> datetime | None:
    """`YYYY-MM-DD HH:MM` as `strptime` reads it, or None where it would raise."""
    found = _SERVER_TIME.fullmatch(text)
    if found is None:
        return None
    try:
        year, month, day, hour, minute = (int(found[name]) for name in ("Y", "m", "d", "H", "M"))
        return datetime(year, month, day, hour, minute)
    except ValueError:  # no such day (February 30th, year 0)
        return None


class ServerTime(BaseModel):
    """A `YYYY-MM-DD HH:MM` time as sent: the raw text always, the parsed value when it parses."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    raw: str
    value: datetime | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"raw": data, "value": parse_server_time(data)}
        return data


class Currency(WireModel):
    id: WireInt
    currency: str
    abbreviation: str


class Status(WireModel):
    #: Kept as sent: the service has states this client does not know yet.
    code: str
    label: str


class Urls(WireModel):
    cancel_url: str | None = None
    success_url: str | None = None
    callback_url: str | None = None


class TxAmounts(WireModel):
    base: Money
    total: Money
    under_paid: Money
    over_paid: Money


class Transaction(WireModel):
    id: WireInt
    hash: str
    hash_url: str | None = None
    amount: TxAmounts
    amount_fiat: TxAmounts
    created_at: ServerTime
    created_at_ms: WireInt = Field(alias="createdAtMiliseconds")


class Order(WireModel):
    company_name: str
    id: WireInt
    customer_id: WireInt
    token: str
    # coin, coin_base_name, exchange_rate and amount are null until the buyer chooses a coin
    coin: str | None = None
    coin_base_name: str | None = None
    exchange_rate: Money | None = None
    amount_fiat: Money
    amount: Money | None = None
    due_date: JsonAny = None
    currency: Currency
    created_at: ServerTime
    created_at_ms: WireInt = Field(alias="createdAtMiliseconds")
    type: str
    expires_at: WireInt | None = None
    expiration_time: WireInt | None = None
    email: str | None = None
    address: str | None = None
    qr_code: str | None = None
    status: Status
    urls: Urls = Field(default_factory=Urls)
    transactions: tuple[Transaction, ...] = ()

    @property
    def coin_chosen(self) -> bool:
        return self.coin_base_name is not None and self.amount is not None


class OrderEnvelope(WireModel):
    """getOrder: `{status, data}`."""

    status: WireInt
    data: Order


class RatesEnvelope(WireModel):
    """Update Exchange rate: `{success, data, message}`; `data` may be absent on failure."""

    success: WireBool
    data: Order | None = None
    #: Text, or an object of field -> text as in the service's error examples.
    message: JsonAny = None
