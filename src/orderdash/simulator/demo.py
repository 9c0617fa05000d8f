"""Demo orders: a small, stable set covering every coin, fiat currency and status.

Their creation and payment times lie a little in the past of the simulator clock, so the
dashboard shows a lived-in picture right after start.
"""

from __future__ import annotations

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


DEMO_TOKENS: tuple[str, ...] = (
    "demo-btc-eur",  # the default demo order: in progress, one small partial payment
    "demo-eth-usd",  # in progress, two partial payments, has an e-mail, 18-decimal amounts
    "demo-ltc-gbp",  # paid in full with two payments (PAID)
    "demo-doge-chf",  # expired without payment (EXPIRED)
    "demo-bch-usd",  # three payments, more than due (OVERPAID)
    "demo-usdt-eur",  # in progress, no payment yet, 6-decimal amounts
    "demo-nocoin-eur",  # the buyer has not chosen a coin yet: coin fields null
)


def _share(sim: DemoTarget, token: str, share: str) -> Decimal:
    wire = sim.order_wire(token, with_qr=False)
    amount: Decimal = wire["amount"]
    return (amount * Decimal(share)).quantize(
        Decimal(1).scaleb(amount.as_tuple().exponent), rounding=ROUND_DOWN
    )


def install_demo_orders(sim: DemoTarget) -> None:
    """Create the demo orders (tokens in DEMO_TOKENS) in an empty simulator (before it
    serves: nobody sees it half-filled)."""
    create = sim.create_order
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
