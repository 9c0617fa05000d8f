"""Demo orders: a small, stable set covering every coin, fiat currency and status, and the
live customer that keeps the demo moving.

The demo orders' creation and payment times lie a little in the past of the simulator clock,
so the dashboard shows a lived-in picture right after start. Their tokens are `DEMO_TOKENS`,
or with a run suffix (`demo_tokens(run)`) so that no token names another order after a
restart of the simulator.

The live customer (`LiveCustomer`) opens a new order about every minute of simulator time and
gives each order a fate, drawn when it is created: paid in full (in one or two payments),
paid in part and then left to expire, paid in full after it expired, paid too much, or never
paid. Overpayment is the exception. Everything follows the simulator clock and a seeded
random generator, so a test can run a quarter of an hour in a moment.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from typing import Any, Protocol


class DemoTarget(Protocol):
    """The public part of the simulator the demo uses (`Simulator` has it)."""

    def create_order(
        self,
        *,
        company_name: str = ...,
        coin: str | None = ...,
        currency: str = ...,
        amount_fiat: Decimal | str = ...,
        token: str | None = ...,
        email: str | None = ...,
        lifetime_s: float = ...,
        age_s: float = ...,
    ) -> str: ...

    def add_transaction(
        self, token: str, amount: Decimal | str | None = ..., *, age_s: float = ...
    ) -> dict[str, Any]: ...

    def order_wire(self, token: str, *, with_qr: bool) -> dict[str, Any]: ...

    def now(self) -> float: ...


DEMO_TOKENS: tuple[str, ...] = (
    "demo-btc-eur",  # the default demo order: in progress, one small partial payment
    "demo-eth-usd",  # in progress, two partial payments, has an e-mail, 18-decimal amounts
    "demo-ltc-gbp",  # paid in full with two payments (PAID)
    "demo-doge-chf",  # expired without payment (EXPIRED)
    "demo-bch-usd",  # three payments, more than due (OVERPAID)
    "demo-usdt-eur",  # in progress, no payment yet, 6-decimal amounts
    "demo-nocoin-eur",  # the buyer has not chosen a coin yet: coin fields null
)


def demo_tokens(run: str = "") -> tuple[str, ...]:
    """The demo orders' tokens: `DEMO_TOKENS`, or each with `-<run>` (a run of the simulator)."""
    return tuple(f"{token}-{run}" if run else token for token in DEMO_TOKENS)


def _share(sim: DemoTarget, token: str, share: str) -> Decimal:
    wire = sim.order_wire(token, with_qr=False)
    amount: Decimal = wire["amount"]
    # quantize takes its argument's exponent: the share has the amount's own decimals
    return (amount * Decimal(share)).quantize(amount, rounding=ROUND_DOWN)


def install_demo_orders(sim: DemoTarget, run: str = "") -> None:
    """Create the demo orders (tokens `demo_tokens(run)`) in an empty simulator (before it
    serves: nobody sees it half-filled)."""
    suffix = f"-{run}" if run else ""

    def create(*, token: str, **fields: Any) -> str:
        return sim.create_order(token=token + suffix, **fields)

    pay = sim.add_transaction

    def new(
        token: str,
        *,
        company: str,
        coin: str | None,
        currency: str,
        fiat: str,
        age_min: float,
        lifetime_min: float = 60,
        email: str | None = None,
    ) -> str:
        return create(
            company_name=company,
            coin=coin,
            currency=currency,
            amount_fiat=fiat,
            token=token,
            email=email,
            lifetime_s=lifetime_min * 60,
            age_s=age_min * 60,
        )

    t = new(
        "demo-btc-eur", company="Demo Shop", coin="btc", currency="EUR", fiat="25.00", age_min=6
    )
    pay(t, _share(sim, t, "0.2"), age_s=150)

    t = new(
        "demo-eth-usd",
        company="Nordic Outfitters",
        coin="eth",
        currency="USD",
        fiat="120.00",
        age_min=14,
        email="buyer@example.com",
    )
    pay(t, _share(sim, t, "0.25"), age_s=600)
    pay(t, _share(sim, t, "0.4"), age_s=240)

    t = new(
        "demo-ltc-gbp",
        company="Tea & Biscuits Ltd",
        coin="ltc",
        currency="GBP",
        fiat="40.00",
        age_min=35,
    )
    pay(t, _share(sim, t, "0.5"), age_s=1500)
    pay(t, None, age_s=1200)

    new(
        "demo-doge-chf",
        company="Alpenblick GmbH",
        coin="doge",
        currency="CHF",
        fiat="15.00",
        age_min=125,
    )

    t = new(
        "demo-bch-usd",
        company="Corner Bakery",
        coin="bch",
        currency="USD",
        fiat="60.00",
        age_min=50,
    )
    pay(t, _share(sim, t, "0.4"), age_s=2400)
    pay(t, _share(sim, t, "0.4"), age_s=1800)
    pay(t, _share(sim, t, "0.3"), age_s=1000)

    new(
        "demo-usdt-eur",
        company="Pixel Games",
        coin="usdt",
        currency="EUR",
        fiat="99.90",
        age_min=3,
    )

    new(
        "demo-nocoin-eur",
        company="Demo Shop",
        coin=None,
        currency="EUR",
        fiat="10.00",
        age_min=1,
    )


#: The fates of ten live orders in a row, dealt in a shuffled order: every fate comes up in
#: every ten orders (a quarter of an hour) and overpayment is one in ten.
FATES: dict[str, int] = {"full": 3, "partial": 2, "late": 2, "none": 2, "over": 1}

#: Shops, coins and fiat amounts the live orders are drawn from.
SHOPS = ("Demo Shop", "Corner Bakery", "Pixel Games", "Nordic Outfitters", "Tea & Biscuits Ltd")
LIVE_COINS = ("btc", "eth", "ltc", "doge", "bch", "usdt")
LIVE_CURRENCIES = ("EUR", "USD", "GBP", "CHF")
LIVE_AMOUNTS = ("4.50", "9.90", "12.00", "25.00", "42.50", "60.00", "99.90", "149.00")

#: Seconds of simulator time between two new orders (drawn in this range), and a live order's
#: lifetime: short, so that expiry, late and partial fates play out within minutes.
NEW_ORDER_EVERY = (40.0, 80.0)
LIVE_LIFETIME = (240.0, 420.0)


@dataclass
class _Plan:
    fate: str
    #: (simulator time, share of what remains then, or None for all of it), soonest first.
    payments: list[tuple[float, Decimal | None]]


class LiveCustomer:
    """Keeps the demo alive on the simulator clock: `step()` opens the orders and makes the
    payments that are due by now. The server calls it every second or so; a test calls it
    after each `advance_clock`."""

    def __init__(self, sim: DemoTarget, seed: int | str, demo: tuple[str, ...] = ()) -> None:
        """`demo`: the demo orders' tokens (`demo_tokens`); their open ones move on too."""
        self._sim = sim
        self._rng = random.Random(f"{seed}:live")
        now = sim.now()
        self._next_order_at = now + self._rng.uniform(*NEW_ORDER_EVERY) / 2
        self._plans: dict[str, _Plan] = {}
        self._deck: list[str] = []
        #: Each live order's fate (the demo's own orders keep theirs): what a test reads.
        self.fates: dict[str, str] = {}
        if len(demo) == len(DEMO_TOKENS):
            # the partly paid Demo Shop order is paid up, the unpaid Pixel Games one in part
            self._plans[demo[0]] = _Plan("full", [(now + 90, None)])
            self._plans[demo[5]] = _Plan("partial", [(now + 40, Decimal("0.5"))])

    def _fate(self) -> str:
        if not self._deck:
            self._deck = [fate for fate, count in FATES.items() for _ in range(count)]
            self._rng.shuffle(self._deck)
        return self._deck.pop()

    def step(self) -> int:
        """Open the orders and make the payments due by now; returns how many happened."""
        now = self._sim.now()
        done = 0
        while self._next_order_at <= now:
            self._open(self._next_order_at)
            self._next_order_at += self._rng.uniform(*NEW_ORDER_EVERY)
            done += 1
        for token, plan in list(self._plans.items()):
            while plan.payments and plan.payments[0][0] <= now:
                _, share = plan.payments.pop(0)
                done += self._pay(token, share)
            if not plan.payments:
                del self._plans[token]
        return done

    def _open(self, at: float) -> None:
        rng = self._rng
        age = max(self._sim.now() - at, 0.0)
        lifetime = rng.uniform(*LIVE_LIFETIME)
        token = self._sim.create_order(
            company_name=rng.choice(SHOPS),
            coin=rng.choice(LIVE_COINS),
            currency=rng.choice(LIVE_CURRENCIES),
            amount_fiat=rng.choice(LIVE_AMOUNTS),
            lifetime_s=lifetime,
            age_s=age,
        )
        fate = self._fate()
        self.fates[token] = fate
        expires = at + lifetime
        first = at + rng.uniform(30, lifetime * 0.5)
        payments: list[tuple[float, Decimal | None]] = []
        if fate == "full":
            if rng.random() < 0.4:  # in two goes
                payments.append((first, _share_of(rng, 0.3, 0.7)))
                payments.append((rng.uniform(first + 20, expires - 15), None))
            else:
                payments.append((first, None))
        elif fate == "partial":
            payments.append((first, _share_of(rng, 0.2, 0.8)))
        elif fate == "late":
            payments.append((expires + rng.uniform(15, 60), None))
        elif fate == "over":
            payments.append((first, _share_of(rng, 1.02, 1.15)))
        if payments:
            self._plans[token] = _Plan(fate, payments)

    def _pay(self, token: str, share: Decimal | None) -> int:
        wire = self._sim.order_wire(token, with_qr=False)
        amount: Decimal | None = wire.get("amount")
        txs = wire.get("transactions") or []
        paid = txs[-1]["amount"]["total"] if txs else Decimal(0)
        if amount is None or amount <= paid:
            return 0
        remaining = amount - paid
        exponent = remaining.as_tuple().exponent
        assert isinstance(exponent, int)
        quantum = Decimal(1).scaleb(exponent)
        value = None if share is None else (remaining * share).quantize(quantum, ROUND_DOWN)
        if value is not None and value <= 0:
            value = None
        try:
            self._sim.add_transaction(token, value)
        except ValueError:  # paid meanwhile, or no coin: the plan just ends
            return 0
        return 1


def _share_of(rng: random.Random, low: float, high: float) -> Decimal:
    return Decimal(f"{rng.uniform(low, high):.4f}")
