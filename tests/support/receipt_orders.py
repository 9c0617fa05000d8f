"""Paid orders written to a book as the dashboard writes its reads (`Book.order_seen`): the
service's example order (tests/fixtures/get_order_example.json) made paid, with digits a
float would lose, for the receipts' tests."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from orderdash.core.model import jsontext
from support.example_order import FIXTURE

#: 2026-11-28 13:02:00 UTC: 14:02 in Berlin, the sale's time on the receipt.
PAID_AT_MS = 1_795_870_920_000
LONG_HASH = "efda5c2e4c23949e9f823d5d158dccb2f263660251acef2330246cd2ca4f03ea"
SECOND_HASH = "81b5bccf9d51bd69bac2c86209122ce6168af0060c6ff5d7eb1577dcba03894f"


def paid_order(
    token: str = "paidtoken",
    *,
    status: str = "PAID",
    under_fiat: str = "0",
    under_coin: str = "0",
    over_fiat: str = "0",
    over_coin: str = "0",
) -> dict[str, Any]:
    """An order for 100.10 EUR paid in two BTC payments, each amount with digits a float
    would round (`0.000651234567891234`)."""
    data = copy.deepcopy(jsontext.loads(FIXTURE.read_bytes())["data"])
    data.update(
        token=token,
        companyName="Service Company",
        amountFiat="100.10",
        exchangeRate=Decimal("76861.12345678"),
        currency={"id": 3, "currency": "Euro", "abbreviation": "EUR"},
        status={"code": status, "label": status.title()},
        expiresAt=None,
    )
    payments = []
    for n, (tx_hash, coin, fiat) in enumerate(
        ((LONG_HASH, "0.000651234567891234", "50.05"), (SECOND_HASH, "0.00065123456789", "50.05"))
    ):
        payments.append(
            {
                "id": 900 + n,
                "hash": tx_hash,
                "amount": {
                    "base": Decimal(coin),
                    "total": Decimal(coin),
                    "underPaid": Decimal(under_coin),
                    "overPaid": Decimal(over_coin),
                },
                "amountFiat": {
                    "base": fiat,
                    "total": fiat,
                    "underPaid": under_fiat,
                    "overPaid": over_fiat,
                },
                "createdAtMiliseconds": PAID_AT_MS - 60_000 * (1 - n),
            }
        )
    data["transactions"] = payments
    return data


def write_seen(book: Any, data: dict[str, Any], till: str = "front") -> None:
    """`data` as the ledger's newest read of its order, written as the dashboard writes one
    (numbers as JSON numbers, every digit kept)."""
    book.order_seen(data["token"], till, datetime.now(UTC), jsontext.dumps(data))
