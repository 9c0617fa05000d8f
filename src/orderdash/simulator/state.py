"""The simulated order service's state behind one lock: orders, payments, the clock, the
history, the faults in force and the request log. No web code lives here (`app.py` serves it).

The contract (docs/service-api.md) publishes little beyond the field names; the simulator's
assumptions are written where they are made: the statuses and amounts in `orders.py`, the rates
in `catalogue.py`, the times and transactions in `wire.py`. Every money value is a
`decimal.Decimal`; a float never enters the wire data.
"""

from __future__ import annotations

import copy
import hashlib
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from orderdash.simulator.addresses import make_address
from orderdash.simulator.callback_body import RECEIVE_TRANSACTION, STATUS_UPDATE, callback_body
from orderdash.simulator.callbacks import CallbackOutbox
from orderdash.simulator.catalogue import (
    COINS,
    DOCUMENTED_STATES,
    EXPIRED,
    FIATS,
    IN_PROGRESS,
    Market,
    rate_period,
)
from orderdash.simulator.demo import LiveCustomer, demo_tokens, install_demo_orders
from orderdash.simulator.faults import Fault, FaultList
from orderdash.simulator.history import install_history
from orderdash.simulator.orders import (
    Order,
    UnknownOrderError,
    balance,
    check_terms,
    payment_amount,
    price,
    refresh,
    renew,
    settle,
)
from orderdash.simulator.values import jsonable, non_negative_float
from orderdash.simulator.wire import (
    add_qr_code,
    coin_choices,
    history_data,
    history_item,
    order_data,
    transaction_data,
)

__all__ = [
    "COINS",
    "DOCUMENTED_STATES",
    "FIATS",
    "Fault",
    "Simulator",
    "UnknownOrderError",
]

REQUEST_LOG_LIMIT = 10_000


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
        history_days: int = 0,
        callback_url: str | None = None,
    ) -> None:
        """`run` suffixes the demo orders' tokens (`demo_tokens(run)`): a fresh one per start
        means no token names another order after a restart. `live`: a `LiveCustomer` keeps
        opening and paying orders (`live_customer.step()`, which the server calls). `history_days`:
        that many days of past orders and payments ending now (`history.py`), books to close.
        `callback_url`: where the callbacks go (`callbacks.configure` sets more), from the
        orders made after the demo's and the past days' on."""
        self.seed = seed
        self.run = run
        self._clock = clock
        self._offset = 0.0
        self._lock = threading.RLock()
        self._orders: dict[str, Order] = {}
        self._faults = FaultList(self._lock)
        self._requests: deque[dict[str, Any]] = deque(maxlen=REQUEST_LOG_LIMIT)
        self._tx_rng = random.Random(f"{seed}:tx")
        self._token_rng = random.Random(f"{seed}:tokens")
        self._customer_rng = random.Random(f"{seed}:customer")
        self._market = Market(seed, self.now())
        self._next_order_id = 1001
        self._next_tx_id = 50001
        #: The callbacks to the merchant's URL: queued here, sent by their own thread; none go
        #: before `callback_url` is set, so the demo's and the past days' orders send none.
        self.callbacks = CallbackOutbox(
            lambda token: self._faults.take("callback", token), self.now, self.has_order
        )
        #: The demo orders' tokens (none without the demo orders).
        self.demo_tokens: tuple[str, ...] = demo_tokens(run) if with_demo_orders else ()
        if with_demo_orders:
            install_demo_orders(self, run)
        if history_days:
            install_history(self, history_days)
        self.live_customer = LiveCustomer(self, f"{seed}:{run}", self.demo_tokens) if live else None
        if callback_url is not None:
            self.callbacks.configure(callback_url)

    # ------------------------------------------------------------------ clock
    def now(self) -> float:
        """Simulator time, epoch seconds: the clock plus the offset added by advance_clock."""
        with self._lock:
            return float(self._clock()) + self._offset

    def advance_clock(self, seconds: float) -> None:
        """Move the simulator clock forward (rate renewal, expiry) without waiting."""
        seconds = non_negative_float(seconds, "seconds")
        with self._lock:
            self._offset += seconds

    # ------------------------------------------------------------------ orders
    def _get(self, token: str) -> Order:
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
                refresh(order, self._market, now)
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
        amount_fiat: Decimal | str | int = "25.00",
        token: str | None = None,
        email: str | None = None,
        lifetime_s: float = 3600,
        age_s: float = 0.0,
        amount: Decimal | str | None = None,
        client_order_id: str | None = None,
    ) -> str:
        """Create an open order and return its token. ValueError on bad input or a taken token.

        `age_s` back-dates its creation (the demo's lived-in orders); `amount` fixes the coin
        amount, every decimal kept (then `amount_fiat` is derived). `client_order_id`: the
        merchant's order id (Generate Order's), named in the callbacks. With a coin, the order
        is made with its coin chosen: a callback."""
        terms = check_terms(
            company_name, coin, currency, amount_fiat, amount, email, lifetime_s, token
        )
        with self._lock:
            if token is None:
                token = self._new_token()
            if token in self._orders:
                raise ValueError(f"an order with token {token!r} exists")
            now = self.now()
            period = self._market.sync(now)
            created_ms = int((now - age_s) * 1000)
            digest = hashlib.sha256(f"{self.seed}:customer:{token}".encode()).digest()
            order = Order(
                id=self._next_order_id,
                customer_id=10_000 + int.from_bytes(digest[:4], "big") % 90_000,
                token=token,
                company_name=company_name,
                coin=terms.coin,
                fiat=terms.fiat,
                amount_fiat=terms.amount_fiat,
                email=email,
                created_ms=created_ms,
                expires_ms=created_ms + int(terms.lifetime_s * 1000),
                address=make_address(terms.coin.code, self.seed, token) if terms.coin else "",
                client_order_id=client_order_id,
            )
            self._next_order_id += 1
            price(order, self._market, period, terms.amount)
            self._orders[token] = order
            if order.coin is not None:
                self.callbacks.push("coin", callback_body(order, STATUS_UPDATE))
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
        refresh(order, self._market, now)
        paid = payment_amount(order, amount)
        total, diff, under, over = balance(order, paid)
        rate = order.rate
        tx_hash = f"{self._tx_rng.getrandbits(256):064x}"
        at_ms = int((now - age_s) * 1000)
        tx = transaction_data(
            self._next_tx_id, tx_hash, order.coin, (paid, total, under, over), rate, at_ms
        )
        self._next_tx_id += 1
        order.transactions.append(tx)
        order.paid_total = total
        order.last_rate = rate
        before = order.status_code
        settle(order, diff)
        self.callbacks.push("payment", callback_body(order, RECEIVE_TRANSACTION))
        if order.status_code != before:
            self.callbacks.push("status", callback_body(order, STATUS_UPDATE))
        # The rate is renewed right after each new transaction (for a still open order).
        self._market.step(order.coin.code)
        if order.status_code == IN_PROGRESS:
            renew(order, self._market, rate_period(now))
        return copy.deepcopy(tx)

    def customer_step(self) -> dict[str, Any] | None:
        """A simulated customer pays part (sometimes all, rarely too much) of a random open order.

        Returns the new transaction's wire dict, or None when no order is open.
        """
        with self._lock:
            now = self.now()
            candidates = []
            for order in self._orders.values():
                refresh(order, self._market, now)
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
        automatic transitions. A new status is a callback, unless it is EXPIRED (the service
        never calls back on expiry)."""
        if not isinstance(code, str) or (label is not None and not isinstance(label, str)):
            raise ValueError("code and label must be text")
        with self._lock:
            order = self._get(token)
            before = (order.status_code, order.status_label)
            order.status_code = code
            order.status_label = code if label is None else label
            order.pinned = code != IN_PROGRESS
            if (code, order.status_label) != before and code != EXPIRED:
                self.callbacks.push("status", callback_body(order, STATUS_UPDATE))

    def set_fields(
        self, token: str, fields: Mapping[str, Any], *, remove: Iterable[str] = ()
    ) -> None:
        """Raw wire-field overrides merged into the served `data` (later calls add to earlier).

        `remove` (an extension) names fields to leave out of the served data entirely.
        """
        if not isinstance(fields, Mapping):
            raise ValueError("fields must be an object")
        clean = jsonable(fields)
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
            refresh(order, self._market, now)
            data = order_data(order, now, with_qr)
            qr_overridden = "qrCode" in order.overrides or "qrCode" in order.removed
        if with_qr and not qr_overridden:
            add_qr_code(data)
        return data

    # ------------------------------------------------------------------ the UI's order
    def ui_order_wire(self, token: str) -> dict[str, Any]:
        """Get order (UI form, docs/account-api.md): the rate endpoint's order, plus `coins` (the
        coins the customer may choose) while no coin is chosen."""
        data = self.order_wire(token, with_qr=True)
        with self._lock:
            chosen = self._get(token).coin is not None
        if not chosen:
            data["coins"] = coin_choices()
        return data

    def choose_coin(self, token: str, coin: str) -> dict[str, Any]:
        """Choose crypto: the coin by code or basename, any case; ValueError when it is not
        one of `coins`, the coin is chosen already or the order is closed."""
        if not isinstance(coin, str) or coin.lower() not in COINS:
            raise ValueError(f"unknown coin {coin!r}")
        with self._lock:
            order = self._get(token)
            now = self.now()
            refresh(order, self._market, now)
            if order.coin is not None:
                raise ValueError("the coin of this order is chosen already")
            if order.status_code != IN_PROGRESS:
                raise ValueError("the order is closed")
            info = COINS[coin.lower()]
            order.coin = info
            order.address = make_address(info.code, self.seed, token)
            renew(order, self._market, self._market.sync(now))
            self.callbacks.push("coin", callback_body(order, STATUS_UPDATE))
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
                refresh(order, self._market, now)
                items.append(history_item(order_data(order, now, with_qr=False)))
        return history_data(items, total, page, size)

    # ------------------------------------------------------------------ faults
    def add_fault(self, fault: Fault) -> None:
        self._faults.add(fault)

    def clear_faults(self) -> None:
        self._faults.clear()

    @property
    def faults(self) -> list[Fault]:
        return self._faults.copies()

    def take_fault(self, endpoint: str, token: str | None) -> Fault | None:
        """The first fault matching one API request, counting it against `times`."""
        return self._faults.take(endpoint, token)

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
