"""One simulated order: its record and the rules time and payments apply to it.

Statuses (only IN_PROGRESS is published; labels equal the codes, as in every case seen):
  * IN_PROGRESS - new orders, and partly paid orders still within their lifetime.
  * PAID        - the payments reached exactly the coin amount due.
  * OVERPAID    - the payments went over the coin amount due.
  * EXPIRED     - the deadline passed with nothing paid.
  * UNDERPAID   - the deadline passed with a partial payment.
  Payment-driven transitions happen when a transaction is recorded; expiry is checked lazily
  whenever the order is read. `Simulator.set_status` pins a status (any code and label): the
  automatic transitions stop for that order, except that pinning IN_PROGRESS hands the order
  back to the automatic rules.

Rates and amounts:
  * An open (IN_PROGRESS) order takes the current rate when a new period started since its last
    renewal, and right after each of its own transactions. Closed orders keep their last rate.
  * `amount` = amountFiat / exchangeRate, rounded half-up to the coin's decimals (8 for
    btc/ltc/bch/doge, 18 for eth, 6 for usdt).
  * Payments within one smallest unit of the amount due (a fixed amount finer than the unit,
    paid rounded up to the satoshi) count as paid in full: PAID, underPaid and overPaid 0. The
    spec does not say; no wallet can send, nor the service return, a fraction of the unit.
  * An order created with a coin `amount` (`create_order(amount=...)`) keeps exactly that
    amount, with as many decimals as given (the real service asks for amounts such as
    0.000128701234567890123456 BTC, finer than the coin's unit); its rate still moves and its
    amountFiat is amount x rate at creation, to the cent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from orderdash.simulator.catalogue import (
    CENT,
    COINS,
    EXPIRED,
    FIATS,
    IN_PROGRESS,
    OVERPAID,
    PAID,
    UNDERPAID,
    ZERO,
    CoinInfo,
    FiatInfo,
    Market,
)
from orderdash.simulator.values import non_negative_float, to_decimal


class UnknownOrderError(LookupError):
    """No order has this token."""

    def __init__(self, token: str) -> None:
        super().__init__(f"no order with token {token!r}")
        self.token = token


@dataclass
class Order:
    id: int
    customer_id: int
    token: str
    company_name: str
    coin: CoinInfo | None
    fiat: FiatInfo
    amount_fiat: Decimal
    email: str | None
    created_ms: int
    expires_ms: int
    address: str
    rate: Decimal | None = None
    amount: Decimal | None = None
    rate_period: int = 0
    status_code: str = IN_PROGRESS
    status_label: str = IN_PROGRESS
    pinned: bool = False
    #: Created with a coin amount: renewals move the rate, never the amount.
    fixed_amount: bool = False
    paid_total: Decimal = ZERO
    transactions: list[dict[str, Any]] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    #: The merchant's own order id (Generate Order's `order_id`), for the callbacks
    client_order_id: str | None = None
    #: The rate the last transaction was received at, for the callbacks
    last_rate: Decimal | None = None


def set_auto(order: Order, code: str) -> None:
    """An automatic transition: the label is the code."""
    order.status_code = code
    order.status_label = code


def renew(order: Order, market: Market, period: int) -> None:
    """Take the market's current rate and, unless the amount is fixed, the amount from it."""
    if order.coin is None:
        return
    order.rate = market.fiat_rate(order.coin, order.fiat)
    if order.fixed_amount:
        order.rate_period = period
        return
    with localcontext() as ctx:
        ctx.prec = 80
        order.amount = (order.amount_fiat / order.rate).quantize(
            order.coin.quantum, rounding=ROUND_HALF_UP
        )
    order.rate_period = period


def refresh(order: Order, market: Market, now: float) -> None:
    """Lazy time effects on one order: expiry, then the per-period rate renewal."""
    period = market.sync(now)
    if not order.pinned and order.status_code == IN_PROGRESS:
        if int(now * 1000) >= order.expires_ms:
            set_auto(order, UNDERPAID if order.paid_total > 0 else EXPIRED)
    if order.status_code == IN_PROGRESS and order.rate_period != period:
        renew(order, market, period)


def settle(order: Order, diff: Decimal) -> None:
    """The payment-driven transition after a payment left `diff` = paid - due (unless pinned)."""
    if not order.pinned:
        if diff > 0:
            set_auto(order, OVERPAID)
        elif diff == 0:
            set_auto(order, PAID)
        elif order.status_code == EXPIRED:
            set_auto(order, UNDERPAID)


@dataclass(frozen=True)
class Terms:
    """A new order's terms, checked (`check_terms`)."""

    coin: CoinInfo | None
    fiat: FiatInfo
    amount_fiat: Decimal
    amount: Decimal | None
    lifetime_s: float


def check_terms(
    company_name: object,
    coin: object,
    currency: object,
    amount_fiat: Decimal | str | int,
    amount: Decimal | str | None,
    email: object,
    lifetime_s: float,
    token: object,
) -> Terms:
    """The terms of `Simulator.create_order`, checked; ValueError on bad input."""
    if not isinstance(company_name, str):
        raise ValueError("company_name must be text")
    coin_info: CoinInfo | None = None
    if coin is not None:
        if not isinstance(coin, str) or coin.lower() not in COINS:
            raise ValueError(f"unknown coin {coin!r}; known: {', '.join(COINS)}")
        coin_info = COINS[coin.lower()]
    if not isinstance(currency, str) or currency.upper() not in FIATS:
        raise ValueError(f"unknown currency {currency!r}; known: {', '.join(FIATS)}")
    fiat = FIATS[currency.upper()]
    fiat_amount = to_decimal(amount_fiat, "amount_fiat")
    if fiat_amount <= 0:
        raise ValueError("amount_fiat must be positive")
    fiat_amount = fiat_amount.quantize(CENT, rounding=ROUND_HALF_UP)
    coin_amount: Decimal | None = None
    if amount is not None:
        if coin_info is None:
            raise ValueError("a coin amount needs a coin")
        coin_amount = to_decimal(amount)
        if coin_amount <= 0:
            raise ValueError("amount must be positive")
    if email is not None and not isinstance(email, str):
        raise ValueError("email must be text or None")
    lifetime = non_negative_float(lifetime_s, "lifetime_s")
    if token is not None and (not isinstance(token, str) or not token):
        raise ValueError("token must be a non-empty string")
    return Terms(coin_info, fiat, fiat_amount, coin_amount, lifetime)


def price(order: Order, market: Market, period: int, fixed_amount: Decimal | None) -> None:
    """A new order's first rate and amount; a fixed coin amount derives amountFiat instead."""
    if fixed_amount is not None:
        order.fixed_amount = True
        order.amount = fixed_amount
    renew(order, market, period)
    if fixed_amount is not None and order.rate is not None:
        with localcontext() as ctx:
            ctx.prec = 80
            derived = (fixed_amount * order.rate).quantize(CENT, rounding=ROUND_HALF_UP)
        order.amount_fiat = max(derived, CENT)


def payment_amount(order: Order, amount: Decimal | str | None) -> Decimal:
    """A payment's amount in coin, checked; None = exactly what remains to be paid."""
    assert order.coin is not None and order.amount is not None
    if amount is None:
        paid = order.amount - order.paid_total
        if paid <= 0:
            raise ValueError("nothing remains to be paid on this order")
        return paid
    paid = to_decimal(amount)
    if paid <= 0:
        raise ValueError("amount must be positive")
    exponent = paid.as_tuple().exponent  # an int: the amount is finite
    if isinstance(exponent, int) and exponent < -order.coin.decimals:
        raise ValueError(f"{order.coin.code} has at most {order.coin.decimals} decimals")
    return paid


def balance(order: Order, paid: Decimal) -> tuple[Decimal, Decimal, Decimal, Decimal]:
    """(total, diff, underPaid, overPaid) once `paid` is added to the payments so far."""
    assert order.coin is not None and order.amount is not None
    total = order.paid_total + paid
    diff = total - order.amount
    if abs(diff) < order.coin.quantum:
        # a difference finer than the coin's smallest unit cannot be sent nor returned:
        # paid in full (a wallet rounds the service's finer amount up to the unit)
        diff = ZERO
    under = diff if diff < 0 else ZERO.quantize(order.coin.quantum)
    over = diff if diff > 0 else ZERO.quantize(order.coin.quantum)
    return total, diff, under, over
