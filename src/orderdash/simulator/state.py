"""Pure state of the simulated order service: orders, rates, payments, faults, request log.

No web code lives here; `app.py` serves this state over HTTP. Every money value is a
`decimal.Decimal`; a float never enters the wire data.

The contract (docs/service-api.md) publishes little beyond the field names, so the simulator makes
these assumptions, chosen to match the published examples and docs/service-api.md:

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

Times:
  * `createdAt` is "YYYY-MM-DD HH:MM" in UTC; `createdAtMiliseconds` epoch ms.
  * `expiresAt` is the epoch ms of the deadline (creation + lifetime).
  * `expirationTime` is the ms remaining until the deadline at the time of the response,
    floored at 0.
  * All of them follow the simulator clock (`Simulator.now()`), which tests move with
    `advance_clock`.

Rates and amounts:
  * A seeded random walk per coin in EUR (steps of 0.05 % .. 0.5 %, up or down); USD, GBP and
    CHF rates are the EUR rate times a fixed factor. `exchangeRate` has 2 decimals.
  * The walk takes one step per 60-second period of the simulator clock (computed lazily on
    read: the number of periods elapsed, at most 1000 steps) and one extra step for the coin
    after each recorded transaction.
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

Transactions:
  * `amount.base` is the payment, `amount.total` the sum of the payments so far,
    `underPaid` = min(0, total - amount due), `overPaid` = max(0, total - amount due), all taken
    when the payment is recorded (the published example, where both are non-zero at once, is
    not reproduced). `amountFiat.*` are the same four converted at the order's rate at that
    moment, as text with 2 decimals.
  * Transactions are served oldest first (newest last); ids increase across the simulator.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from typing import Any
from urllib.parse import quote

from orderdash.simulator.addresses import make_address
from orderdash.simulator.png import qr_data_uri

IN_PROGRESS = "IN_PROGRESS"
#: The service's documented states (docs/service-api.md) as (code, label): only IN_PROGRESS is a
#: published code; the others are the labels written as codes. `set_status` serves any of them.
DOCUMENTED_STATES = (
    (IN_PROGRESS, "In-progress"),
    ("PAID_UNCONFIRMED", "Paid / Unconfirmed"),
    ("CONFIRMED", "Confirmed"),
    ("UNDERPAID", "Underpaid"),
    ("OVERPAID", "Overpaid"),
    ("EXPIRED", "Expired"),
    ("CANCELED", "Canceled"),
)
PAID = "PAID"
OVERPAID = "OVERPAID"
EXPIRED = "EXPIRED"
UNDERPAID = "UNDERPAID"

RATE_PERIOD_S = 60
MAX_CATCH_UP_STEPS = 1000
MIN_STEP = 0.0005
MAX_STEP = 0.005
REQUEST_LOG_LIMIT = 10_000

_CENT = Decimal("0.01")
_ZERO = Decimal(0)


@dataclass(frozen=True)
class CoinInfo:
    code: str  # coinBaseName
    name: str  # coin
    decimals: int
    eur_start: Decimal

    @property
    def quantum(self) -> Decimal:
        return Decimal(1).scaleb(-self.decimals)


@dataclass(frozen=True)
class FiatInfo:
    id: int
    code: str  # abbreviation
    name: str  # currency
    factor: Decimal  # units of this currency per EUR


COINS: dict[str, CoinInfo] = {
    "btc": CoinInfo("btc", "Bitcoin", 8, Decimal("97123.45")),
    "eth": CoinInfo("eth", "Ethereum", 18, Decimal("3400.12")),
    "ltc": CoinInfo("ltc", "Litecoin", 8, Decimal("95.37")),
    "doge": CoinInfo("doge", "Dogecoin", 8, Decimal("0.3812")),
    "bch": CoinInfo("bch", "Bitcoin Cash", 8, Decimal("450.55")),
    "usdt": CoinInfo("usdt", "Tether USD", 6, Decimal("0.9300")),
}

FIATS: dict[str, FiatInfo] = {
    "EUR": FiatInfo(1, "EUR", "Euro", Decimal("1")),
    "USD": FiatInfo(2, "USD", "US Dollar", Decimal("1.0825")),
    "GBP": FiatInfo(3, "GBP", "Pound Sterling", Decimal("0.8412")),
    "CHF": FiatInfo(4, "CHF", "Swiss Franc", Decimal("0.9391")),
}


class UnknownOrderError(LookupError):
    """No order has this token."""

    def __init__(self, token: str) -> None:
        super().__init__(f"no order with token {token!r}")
        self.token = token


#: The endpoints a Fault can name: the API endpoints the simulator serves, or any of them.
FAULT_ENDPOINTS = ("order", "rates", "login", "history", "ui_order", "create", "any")
#: The most made-up orders a history fault adds to one page (`Fault.extra_items`): 50,000 make
#: a page of ~7.9 MB, under a client's usual 8 MiB cap.
MAX_EXTRA_ITEMS = 60_000


@dataclass
class Fault:
    """A misbehaviour of the API endpoints (getOrder, rates); the first matching fault wins.

    `drip_chunk` (bytes per chunk when dripping) is a simulator extension. Two apply to the
    history only: `endless_pages` (every page names a next one: paging never ends) and
    `extra_items` (each page carries this many made-up orders after its real ones, at most
    MAX_EXTRA_ITEMS: a huge page; their status code is `extra_status`).
    """

    endpoint: str = "any"  # "order" | "rates" | "login" | "history" | "any"
    token: str | None = None  # only for this order token
    times: int | None = None  # how many requests it applies to; None = until cleared
    delay: float = 0.0  # seconds before the response headers
    status: int | None = None  # replace the status code
    headers: dict[str, str] = field(default_factory=dict)  # extra/replacement headers
    body: str | None = None  # replace the body with this text
    body_b64: str | None = None  # or with these raw bytes (base64)
    drip_delay: float = 0.0  # send the body in small chunks with this pause between them
    reset_after: int | None = None  # send this many body bytes, then abort the connection
    drip_chunk: int = 64
    # Generate Order only (the order is made with the token sent): its answer names this
    # token instead, or carries this payment_url
    answer_token: str | None = None
    answer_payment_url: str | None = None
    # the order history only: nextPage never null; made-up orders added to a page
    endless_pages: bool = False
    extra_items: int = 0
    extra_status: str = "IN_PROGRESS"

    def __post_init__(self) -> None:
        if self.endpoint not in FAULT_ENDPOINTS:
            raise ValueError(
                "endpoint must be 'order', 'rates', 'login', 'history', 'ui_order', 'create' "
                "or 'any'"
            )
        if self.token is not None and not isinstance(self.token, str):
            raise ValueError("token must be a string or null")
        if self.times is not None and (not _is_int(self.times) or self.times < 1):
            raise ValueError("times must be a positive integer or null")
        self.delay = _non_negative_float(self.delay, "delay")
        self.drip_delay = _non_negative_float(self.drip_delay, "drip_delay")
        if self.status is not None and (not _is_int(self.status) or not 200 <= self.status <= 599):
            raise ValueError("status must be an integer from 200 to 599")
        if not isinstance(self.headers, Mapping):
            raise ValueError("headers must be an object of strings")
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            if not isinstance(name, str) or not isinstance(value, str):
                raise ValueError("header names and values must be strings")
            if not name or any(c in name for c in " \t\r\n:") or any(c in value for c in "\r\n"):
                raise ValueError(f"bad header {name!r}")
            try:
                name.encode("ascii")
                value.encode("latin-1")
            except UnicodeEncodeError as exc:
                raise ValueError(f"header {name!r} is not latin-1 text") from exc
            headers[name] = value
        self.headers = headers
        if self.body is not None and self.body_b64 is not None:
            raise ValueError("give body or body_b64, not both")
        if self.body is not None and not isinstance(self.body, str):
            raise ValueError("body must be text")
        if self.body_b64 is not None:
            import base64
            import binascii

            try:
                base64.b64decode(self.body_b64, validate=True)
            except (binascii.Error, TypeError, ValueError) as exc:
                raise ValueError("body_b64 is not base64") from exc
        if self.reset_after is not None and (not _is_int(self.reset_after) or self.reset_after < 0):
            raise ValueError("reset_after must be a non-negative integer or null")
        if not _is_int(self.drip_chunk) or self.drip_chunk < 1:
            raise ValueError("drip_chunk must be a positive integer")
        for name in ("answer_token", "answer_payment_url"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or self.endpoint != "create"):
                raise ValueError(f"{name} is text, for the 'create' endpoint only")
        if not isinstance(self.endless_pages, bool):
            raise ValueError("endless_pages must be true or false")
        if not _is_int(self.extra_items) or not 0 <= self.extra_items <= MAX_EXTRA_ITEMS:
            raise ValueError(f"extra_items must be an integer from 0 to {MAX_EXTRA_ITEMS}")
        if not isinstance(self.extra_status, str) or not 0 < len(self.extra_status) <= 40:
            raise ValueError("extra_status must be a status code of 1 to 40 characters")

    def body_bytes(self) -> bytes | None:
        """The replacement body, or None to keep (or derive) the normal one."""
        if self.body_b64 is not None:
            import base64

            return base64.b64decode(self.body_b64)
        if self.body is not None:
            return self.body.encode("utf-8")
        return None

    @classmethod
    def from_json(cls, obj: Any) -> Fault:
        """Build from a parsed JSON object (snake_case or camelCase keys); ValueError if bad."""
        if not isinstance(obj, dict):
            raise ValueError("a fault is a JSON object")
        aliases = {
            "bodyB64": "body_b64",
            "dripDelay": "drip_delay",
            "resetAfter": "reset_after",
            "dripChunk": "drip_chunk",
            "answerToken": "answer_token",
            "answerPaymentUrl": "answer_payment_url",
            "endlessPages": "endless_pages",
            "extraItems": "extra_items",
            "extraStatus": "extra_status",
        }
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in obj.items():
            name = aliases.get(key, key)
            if name not in names:
                raise ValueError(f"unknown fault field {key!r}")
            kwargs[name] = value
        for name in ("delay", "drip_delay"):
            if isinstance(kwargs.get(name), Decimal):
                kwargs[name] = float(kwargs[name])
        if kwargs.get("headers") is None:
            kwargs.pop("headers", None)
        return cls(**kwargs)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _non_negative_float(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise ValueError(f"{name} must be a number")
    result = float(value)
    if not math.isfinite(result) or result < 0:
        raise ValueError(f"{name} must be a finite number >= 0")
    return result


def to_decimal(value: Decimal | str | int, what: str = "amount") -> Decimal:
    """A finite Decimal from Decimal, decimal text or int (never float); ValueError otherwise."""
    if isinstance(value, bool) or isinstance(value, float):
        raise ValueError(f"{what} must be a Decimal or decimal text, not {type(value).__name__}")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int):
        result = Decimal(value)
    elif isinstance(value, str):
        try:
            result = Decimal(value.strip())
        except InvalidOperation as exc:
            raise ValueError(f"{what} is not a decimal number: {value[:40]!r}") from exc
    else:
        raise ValueError(f"{what} must be a Decimal or decimal text")
    if not result.is_finite():
        raise ValueError(f"{what} must be finite")
    return result


def _jsonable(value: Any) -> Any:
    """Deep copy of a JSON-like value with floats turned into Decimal (jsontext refuses floats)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("NaN and Infinity are not JSON")
        return Decimal(repr(value))
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, bool, Decimal)):
        return value
    raise ValueError(f"{type(value).__name__} is not a JSON value")


def _fiat_text(value: Decimal) -> str:
    q = value.quantize(_CENT, rounding=ROUND_HALF_UP)
    if q == 0:
        q = abs(q)  # never "-0.00"
    return format(q, "f")


def _created_at(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M")


@dataclass
class _Order:
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
    paid_total: Decimal = _ZERO
    transactions: list[dict[str, Any]] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)


class Simulator:
    """The simulated order service's state. Thread-safe: every method takes one lock."""

    def __init__(
        self,
        seed: int = 7,
        clock: Callable[[], float] = time.time,
        with_demo_orders: bool = True,
        *,
        run: str = "",
        live: bool = False,
    ) -> None:
        """`run` suffixes the demo orders' tokens (`demo_tokens(run)`): a fresh one per start
        means no token names another order after a restart. `live`: a `LiveCustomer` keeps
        opening and paying orders (`live_customer.step()`, which the server calls)."""
        self.seed = seed
        self.run = run
        self._clock = clock
        self._offset = 0.0
        self._lock = threading.RLock()
        self._orders: dict[str, _Order] = {}
        self._faults: list[list[Any]] = []  # [Fault, remaining or None]
        self._requests: deque[dict[str, Any]] = deque(maxlen=REQUEST_LOG_LIMIT)
        self._market_rng = random.Random(f"{seed}:market")
        self._tx_rng = random.Random(f"{seed}:tx")
        self._token_rng = random.Random(f"{seed}:tokens")
        self._customer_rng = random.Random(f"{seed}:customer")
        self._market: dict[str, Decimal] = {code: c.eur_start for code, c in COINS.items()}
        self._market_period = self._period(self.now())
        self._next_order_id = 1001
        self._next_tx_id = 50001
        from orderdash.simulator.demo import LiveCustomer, demo_tokens, install_demo_orders

        #: The demo orders' tokens (none without the demo orders).
        self.demo_tokens: tuple[str, ...] = demo_tokens(run) if with_demo_orders else ()
        if with_demo_orders:
            install_demo_orders(self, run)
        self.live_customer = LiveCustomer(self, f"{seed}:{run}", self.demo_tokens) if live else None

    # ------------------------------------------------------------------ clock
    def now(self) -> float:
        """Simulator time, epoch seconds: the clock plus the offset added by advance_clock."""
        with self._lock:
            return float(self._clock()) + self._offset

    def advance_clock(self, seconds: float) -> None:
        """Move the simulator clock forward (rate renewal, expiry) without waiting."""
        seconds = _non_negative_float(seconds, "seconds")
        with self._lock:
            self._offset += seconds

    @staticmethod
    def _period(now: float) -> int:
        return math.floor(now / RATE_PERIOD_S)

    # ------------------------------------------------------------------ market
    def _step_coin(self, code: str) -> None:
        size = self._market_rng.uniform(MIN_STEP, MAX_STEP)
        sign = -1 if self._market_rng.random() < 0.5 else 1
        factor = Decimal(1) + sign * Decimal(f"{size:.6f}")
        self._market[code] = (self._market[code] * factor).quantize(Decimal("1e-8"))

    def _sync_market(self, now: float) -> int:
        period = self._period(now)
        if period > self._market_period:
            for _ in range(min(period - self._market_period, MAX_CATCH_UP_STEPS)):
                for code in COINS:
                    self._step_coin(code)
            self._market_period = period
        return period

    def _fiat_rate(self, coin: CoinInfo, fiat: FiatInfo) -> Decimal:
        rate = (self._market[coin.code] * fiat.factor).quantize(_CENT, rounding=ROUND_HALF_UP)
        return max(rate, _CENT)

    def _renew(self, order: _Order, period: int) -> None:
        if order.coin is None:
            return
        order.rate = self._fiat_rate(order.coin, order.fiat)
        if order.fixed_amount:
            order.rate_period = period
            return
        with localcontext() as ctx:
            ctx.prec = 80
            order.amount = (order.amount_fiat / order.rate).quantize(
                order.coin.quantum, rounding=ROUND_HALF_UP
            )
        order.rate_period = period

    def _refresh(self, order: _Order, now: float) -> None:
        """Lazy time effects on one order: expiry, then the per-period rate renewal."""
        period = self._sync_market(now)
        if not order.pinned and order.status_code == IN_PROGRESS:
            if int(now * 1000) >= order.expires_ms:
                self._set_auto(order, UNDERPAID if order.paid_total > 0 else EXPIRED)
        if order.status_code == IN_PROGRESS and order.rate_period != period:
            self._renew(order, period)

    @staticmethod
    def _set_auto(order: _Order, code: str) -> None:
        order.status_code = code
        order.status_label = code

    # ------------------------------------------------------------------ orders
    def _get(self, token: str) -> _Order:
        try:
            return self._orders[token]
        except (KeyError, TypeError):
            raise UnknownOrderError(token) from None

    def has_order(self, token: str) -> bool:
        with self._lock:
            return token in self._orders

    def tokens(self) -> list[str]:
        """All order tokens, oldest first."""
        with self._lock:
            return list(self._orders)

    def list_orders(self) -> list[dict[str, Any]]:
        """A short summary per order: token, status, companyName, coin (coinBaseName)."""
        with self._lock:
            now = self.now()
            result = []
            for order in self._orders.values():
                self._refresh(order, now)
                result.append(
                    {
                        "token": order.token,
                        "status": order.status_code,
                        "companyName": order.company_name,
                        "coin": order.coin.code if order.coin else None,
                    }
                )
            return result

    def create_order(
        self,
        *,
        company_name: str = "Demo Shop",
        coin: str | None = "btc",
        currency: str = "EUR",
        amount_fiat: Decimal | str = "25.00",
        token: str | None = None,
        email: str | None = None,
        lifetime_s: float = 3600,
        age_s: float = 0.0,
        amount: Decimal | str | None = None,
    ) -> str:
        """Create an open order and return its token. ValueError on bad input or a taken token.

        `age_s` back-dates its creation (the demo's lived-in orders); `amount` fixes the coin
        amount, every decimal kept (then `amount_fiat` is derived)."""
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
        fiat_amount = fiat_amount.quantize(_CENT, rounding=ROUND_HALF_UP)
        coin_amount: Decimal | None = None
        if amount is not None:
            if coin_info is None:
                raise ValueError("a coin amount needs a coin")
            coin_amount = to_decimal(amount)
            if coin_amount <= 0:
                raise ValueError("amount must be positive")
        if email is not None and not isinstance(email, str):
            raise ValueError("email must be text or None")
        lifetime = _non_negative_float(lifetime_s, "lifetime_s")
        if token is not None and (not isinstance(token, str) or not token):
            raise ValueError("token must be a non-empty string")
        with self._lock:
            if token is None:
                token = self._new_token()
            if token in self._orders:
                raise ValueError(f"an order with token {token!r} exists")
            now = self.now()
            period = self._sync_market(now)
            created_ms = int((now - age_s) * 1000)
            digest = hashlib.sha256(f"{self.seed}:customer:{token}".encode()).digest()
            order = _Order(
                id=self._next_order_id,
                customer_id=10_000 + int.from_bytes(digest[:4], "big") % 90_000,
                token=token,
                company_name=company_name,
                coin=coin_info,
                fiat=fiat,
                amount_fiat=fiat_amount,
                email=email,
                created_ms=created_ms,
                expires_ms=created_ms + int(lifetime * 1000),
                address=make_address(coin_info.code, self.seed, token) if coin_info else "",
            )
            self._next_order_id += 1
            if coin_amount is not None:
                order.fixed_amount = True
                order.amount = coin_amount
            self._renew(order, period)
            if coin_amount is not None and order.rate is not None:
                with localcontext() as ctx:
                    ctx.prec = 80
                    derived = (coin_amount * order.rate).quantize(_CENT, rounding=ROUND_HALF_UP)
                order.amount_fiat = max(derived, _CENT)
            self._orders[token] = order
            return token

    def _new_token(self) -> str:
        while True:
            token = f"{self._token_rng.getrandbits(128):032x}"
            if token not in self._orders:
                return token

    # ------------------------------------------------------------------ payments
    def add_transaction(
        self, token: str, amount: Decimal | str | None = None, *, age_s: float = 0.0
    ) -> dict[str, Any]:
        """Record a payment in coin (None = exactly what remains) and return the wire dict;
        `age_s` back-dates it."""
        with self._lock:
            return self._add_transaction(token, amount, age_s=age_s)

    def _add_transaction(
        self, token: str, amount: Decimal | str | None, *, age_s: float
    ) -> dict[str, Any]:
        order = self._get(token)
        if order.coin is None or order.amount is None or order.rate is None:
            raise ValueError("the order has no coin chosen yet; it cannot be paid")
        now = self.now()
        self._refresh(order, now)
        due = order.amount
        if amount is None:
            paid = due - order.paid_total
            if paid <= 0:
                raise ValueError("nothing remains to be paid on this order")
        else:
            paid = to_decimal(amount)
            if paid <= 0:
                raise ValueError("amount must be positive")
            if paid.as_tuple().exponent < -order.coin.decimals:  # type: ignore[operator]
                raise ValueError(f"{order.coin.code} has at most {order.coin.decimals} decimals")
        total = order.paid_total + paid
        diff = total - due
        if abs(diff) < order.coin.quantum:
            # a difference finer than the coin's smallest unit cannot be sent nor returned:
            # paid in full (a wallet rounds the service's finer amount up to the unit)
            diff = _ZERO
        under = diff if diff < 0 else _ZERO.quantize(order.coin.quantum)
        over = diff if diff > 0 else _ZERO.quantize(order.coin.quantum)
        rate = order.rate
        tx_hash = f"{self._tx_rng.getrandbits(256):064x}"
        at_ms = int((now - age_s) * 1000)
        tx = {
            "id": self._next_tx_id,
            "hash": tx_hash,
            "hashUrl": f"https://explorer.example/{order.coin.code}/tx/{tx_hash}",
            "amount": {"base": paid, "total": total, "underPaid": under, "overPaid": over},
            "amountFiat": {
                "base": _fiat_text(paid * rate),
                "total": _fiat_text(total * rate),
                "underPaid": _fiat_text(under * rate),
                "overPaid": _fiat_text(over * rate),
            },
            "createdAt": _created_at(at_ms),
            "createdAtMiliseconds": at_ms,
        }
        self._next_tx_id += 1
        order.transactions.append(tx)
        order.paid_total = total
        if not order.pinned:
            if diff > 0:
                self._set_auto(order, OVERPAID)
            elif diff == 0:
                self._set_auto(order, PAID)
            elif order.status_code == EXPIRED:
                self._set_auto(order, UNDERPAID)
        # The rate is renewed right after each new transaction (for a still open order).
        self._step_coin(order.coin.code)
        if order.status_code == IN_PROGRESS:
            self._renew(order, self._period(now))
        return copy.deepcopy(tx)

    def customer_step(self) -> dict[str, Any] | None:
        """A simulated customer pays part (sometimes all, rarely too much) of a random open order.

        Returns the new transaction's wire dict, or None when no order is open.
        """
        with self._lock:
            now = self.now()
            candidates = []
            for order in self._orders.values():
                self._refresh(order, now)
                if order.status_code == IN_PROGRESS and order.coin is not None:
                    if order.amount is not None and order.amount > order.paid_total:
                        candidates.append(order)
            if not candidates:
                return None
            order = self._customer_rng.choice(candidates)
            assert order.coin is not None and order.amount is not None
            remaining = order.amount - order.paid_total
            roll = self._customer_rng.random()
            if roll < 0.6:
                share = Decimal(f"{self._customer_rng.uniform(0.15, 0.7):.4f}")
            elif roll < 0.9:
                share = Decimal(1)
            else:
                share = Decimal(f"{self._customer_rng.uniform(1.02, 1.2):.4f}")
            paid = (remaining * share).quantize(order.coin.quantum, rounding=ROUND_HALF_UP)
            if paid <= 0:
                paid = order.coin.quantum
            return self._add_transaction(order.token, paid, age_s=0.0)

    # ------------------------------------------------------------------ overrides
    def set_status(self, token: str, code: str, label: str | None = None) -> None:
        """Pin the status (label defaults to the code). Pinning IN_PROGRESS resumes the
        automatic transitions."""
        if not isinstance(code, str) or (label is not None and not isinstance(label, str)):
            raise ValueError("code and label must be text")
        with self._lock:
            order = self._get(token)
            order.status_code = code
            order.status_label = code if label is None else label
            order.pinned = code != IN_PROGRESS

    def set_fields(
        self, token: str, fields: Mapping[str, Any], *, remove: Iterable[str] = ()
    ) -> None:
        """Raw wire-field overrides merged into the served `data` (later calls add to earlier).

        `remove` (an extension) names fields to leave out of the served data entirely.
        """
        if not isinstance(fields, Mapping):
            raise ValueError("fields must be an object")
        clean = _jsonable(fields)
        removed = {str(name) for name in remove}
        with self._lock:
            order = self._get(token)
            order.overrides.update(clean)
            for name in clean:
                order.removed.discard(name)
            order.removed |= removed

    # ------------------------------------------------------------------ wire
    def order_wire(self, token: str, *, with_qr: bool) -> dict[str, Any]:
        """The `data` object as served: getOrder without qrCode, the rate endpoint with it."""
        with self._lock:
            order = self._get(token)
            now = self.now()
            self._refresh(order, now)
            data = self._wire(order, now, with_qr)
            qr_overridden = "qrCode" in order.overrides or "qrCode" in order.removed
        if with_qr and not qr_overridden:
            address = data.get("address")
            qr: str | None = None
            if isinstance(address, str) and address:
                try:
                    qr = qr_data_uri(address)
                except ValueError:
                    qr = None
            data["qrCode"] = qr
        return data

    def _wire(self, order: _Order, now: float, with_qr: bool) -> dict[str, Any]:
        coin = order.coin
        now_ms = int(now * 1000)
        quoted = quote(order.token, safe="")
        data: dict[str, Any] = {
            "companyName": order.company_name,
            "id": order.id,
            "customerId": order.customer_id,
            "token": order.token,
            "coin": coin.name if coin else None,
            "coinBaseName": coin.code if coin else None,
            "exchangeRate": order.rate if coin else None,
            "amountFiat": format(order.amount_fiat, "f"),
            "amount": order.amount if coin else None,
            "dueDate": None,
            "currency": {
                "id": order.fiat.id,
                "currency": order.fiat.name,
                "abbreviation": order.fiat.code,
            },
            "createdAt": _created_at(order.created_ms),
            "createdAtMiliseconds": order.created_ms,
            "type": "Order",
            "expiresAt": order.expires_ms,
            "expirationTime": max(0, order.expires_ms - now_ms),
            "email": order.email,
            "address": order.address,
        }
        if with_qr:
            data["qrCode"] = None  # filled in by order_wire, outside the lock
        data["status"] = {"code": order.status_code, "label": order.status_label}
        data["urls"] = {
            "cancelUrl": f"https://shop.example/checkout/{quoted}/cancel",
            "successUrl": f"https://shop.example/checkout/{quoted}/success",
            "callbackUrl": "https://shop.example/api/payments/callback",
        }
        data["transactions"] = copy.deepcopy(order.transactions) if coin else []
        data.update(copy.deepcopy(order.overrides))
        for name in order.removed:
            data.pop(name, None)
        return data

    # ------------------------------------------------------------------ the UI's order
    def ui_order_wire(self, token: str) -> dict[str, Any]:
        """Get order (UI form, docs/account-api.md): the rate endpoint's order, plus `coins` (the
        coins the customer may choose) while no coin is chosen."""
        data = self.order_wire(token, with_qr=True)
        with self._lock:
            chosen = self._get(token).coin is not None
        if not chosen:
            data["coins"] = [
                {"id": index, "name": coin.name, "code": coin.code.upper(), "basename": coin.code}
                for index, coin in enumerate(COINS.values(), start=1)
            ]
        return data

    def choose_coin(self, token: str, coin: str) -> dict[str, Any]:
        """Choose crypto: the coin by code or basename, any case; ValueError when it is not
        one of `coins`, the coin is chosen already or the order is closed."""
        if not isinstance(coin, str) or coin.lower() not in COINS:
            raise ValueError(f"unknown coin {coin!r}")
        with self._lock:
            order = self._get(token)
            now = self.now()
            self._refresh(order, now)
            if order.coin is not None:
                raise ValueError("the coin of this order is chosen already")
            if order.status_code != IN_PROGRESS:
                raise ValueError("the order is closed")
            info = COINS[coin.lower()]
            order.coin = info
            order.address = make_address(info.code, self.seed, token)
            self._renew(order, self._sync_market(now))
        return self.order_wire(token, with_qr=True)

    # ------------------------------------------------------------------ history
    def history_page(self, page: int, size: int) -> dict[str, Any]:
        """One page of Get Order History (docs/account-api.md): every order, newest first, `size`
        a page, pages counted from 0. Overridden wire fields show here too (hostile data)."""
        if page < 0 or size < 1:
            raise ValueError("page must be >= 0 and the page size >= 1")
        with self._lock:
            now = self.now()
            orders = sorted(self._orders.values(), key=lambda o: o.id, reverse=True)
            total = len(orders)
            chosen = orders[page * size : (page + 1) * size]
            items = []
            for order in chosen:
                self._refresh(order, now)
                wire = self._wire(order, now, with_qr=False)
                item: dict[str, Any] = {}
                for name, source in (
                    ("id", "id"),
                    ("token", "token"),
                    ("createdAtMiliseconds", "createdAtMiliseconds"),
                    ("amount", "amountFiat"),
                    ("status", "status"),
                    ("currency", "currency"),
                ):
                    if source in wire:
                        item[name] = wire[source]
                items.append(item)
        pages = -(-total // size)
        return {
            "items": items,
            "meta": {
                "totalCount": total,
                "pagesCount": pages,
                "currentPage": page,
                "nextPage": page + 1 if page + 1 < pages else None,
            },
        }

    # ------------------------------------------------------------------ faults
    def add_fault(self, fault: Fault) -> None:
        if not isinstance(fault, Fault):
            raise ValueError("add_fault takes a Fault")
        stored = dataclasses.replace(fault, headers=dict(fault.headers))
        with self._lock:
            self._faults.append([stored, stored.times])

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    @property
    def faults(self) -> list[Fault]:
        with self._lock:
            return [dataclasses.replace(f, headers=dict(f.headers)) for f, _ in self._faults]

    def take_fault(self, endpoint: str, token: str | None) -> Fault | None:
        """The first fault matching one API request, counting it against `times`."""
        with self._lock:
            for index, entry in enumerate(self._faults):
                fault, remaining = entry
                if fault.endpoint not in ("any", endpoint):
                    continue
                if fault.token is not None and fault.token != token:
                    continue
                if remaining is not None:
                    remaining -= 1
                    if remaining <= 0:
                        del self._faults[index]
                    else:
                        entry[1] = remaining
                return dataclasses.replace(fault, headers=dict(fault.headers))
            return None

    # ------------------------------------------------------------------ request log
    def log_request(
        self, method: str, path: str, endpoint: str, token: str | None, bearer: str
    ) -> None:
        """Record one request. `bearer` is only 'missing', 'ok', 'expired' or 'wrong', never the
        value; no body is ever recorded (the log-in body carries the access token)."""
        if bearer not in ("missing", "ok", "expired", "wrong"):
            raise ValueError("bearer must be 'missing', 'ok', 'expired' or 'wrong'")
        with self._lock:
            self._requests.append(
                {
                    "t": self.now(),
                    "method": method,
                    "path": path,
                    "endpoint": endpoint,
                    "token": token,
                    "bearer": bearer,
                }
            )

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The request log, oldest first (copies; the last 10,000 requests)."""
        with self._lock:
            return [dict(entry) for entry in self._requests]

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()
