"""Demo orders: a small, stable set covering every coin, fiat currency and status.

Their creation and payment times lie a little in the past of the simulator clock, so the
dashboard shows a lived-in picture right after start.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from orderdash.simulator.state import Simulator

DEMO_TOKENS: tuple[str, ...] = (
    "demo-btc-eur",  # the default demo order: in progress, one small partial payment
    "demo-eth-usd",  # in progress, two partial payments, has an e-mail, 18-decimal amounts
    "demo-ltc-gbp",  # paid in full with two payments (PAID)
    "demo-doge-chf",  # expired without payment (EXPIRED)
    "demo-bch-usd",  # three payments, more than due (OVERPAID)
    "demo-usdt-eur",  # in progress, no payment yet, 6-decimal amounts
    "demo-nocoin-eur",  # the buyer has not chosen a coin yet: coin fields null
)


def _share(sim: Simulator, token: str, share: str) -> Decimal:
    wire = sim.order_wire(token, with_qr=False)
    amount: Decimal = wire["amount"]
    return (amount * Decimal(share)).quantize(
        Decimal(1).scaleb(amount.as_tuple().exponent), rounding=ROUND_DOWN
    )


def install_demo_orders(sim: Simulator) -> None:
    """Create the demo orders (tokens in DEMO_TOKENS) in an empty simulator."""
    create = sim._create_order  # noqa: SLF001 - the demo uses the back-dating hooks
    pay = sim._add_transaction  # noqa: SLF001

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

    with sim._lock:  # noqa: SLF001
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
