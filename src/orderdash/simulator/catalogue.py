"""What the simulated service sells in: its coins, fiat currencies and order states, and the
market that prices the coins.

Rates:
  * A seeded random walk per coin in EUR (steps of 0.05 % .. 0.5 %, up or down); USD, GBP and
    CHF rates are the EUR rate times a fixed factor. `exchangeRate` has 2 decimals.
  * The walk takes one step per 60-second period of the simulator clock (computed lazily on
    read: the number of periods elapsed, at most 1000 steps) and one extra step for the coin
    after each recorded transaction.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

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

CENT = Decimal("0.01")
ZERO = Decimal(0)


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


def rate_period(now: float) -> int:
    """The number of the rate period `now` (epoch seconds) falls in."""
    return math.floor(now / RATE_PERIOD_S)


class Market:
    """Each coin's EUR rate: a seeded random walk, one step per rate period (taken lazily).
    Not thread-safe on its own: the `Simulator` calls it under its lock."""

    def __init__(self, seed: int, now: float) -> None:
        self._rng = random.Random(f"{seed}:market")
        self._eur: dict[str, Decimal] = {code: c.eur_start for code, c in COINS.items()}
        self._period = rate_period(now)

    def step(self, code: str) -> None:
        """One step of the walk for one coin."""
        size = self._rng.uniform(MIN_STEP, MAX_STEP)
        sign = -1 if self._rng.random() < 0.5 else 1
        factor = Decimal(1) + sign * Decimal(f"{size:.6f}")
        self._eur[code] = (self._eur[code] * factor).quantize(Decimal("1e-8"))

    def sync(self, now: float) -> int:
        """Take the steps of the periods elapsed up to `now`; return the current period."""
        period = rate_period(now)
        if period > self._period:
            for _ in range(min(period - self._period, MAX_CATCH_UP_STEPS)):
                for code in COINS:
                    self.step(code)
            self._period = period
        return period

    def fiat_rate(self, coin: CoinInfo, fiat: FiatInfo) -> Decimal:
        """The coin's current rate in the fiat currency, to the cent (at least one cent)."""
        rate = (self._eur[coin.code] * fiat.factor).quantize(CENT, rounding=ROUND_HALF_UP)
        return max(rate, CENT)
