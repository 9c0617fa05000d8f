"""The customer face the display tests start from: a BTC order awaiting 0.00012871 BTC
(12.00 EUR) at bc1qtest, its code paying exactly that; each test changes what it is about."""

from __future__ import annotations

from orderdash.core.customer.face import CustomerFace

AMOUNT = "0.00012871"
ADDRESS = "bc1qtest"


def customer_face(**fields: object) -> CustomerFace:
    values: dict[str, object] = {
        "phase": "AWAITING",
        "coin": "BTC",
        "currency": "EUR",
        "payable": True,
        "amount_label": "label_amount_due",
        "coin_amount": AMOUNT,
        "fiat_amount": "12.00",
        "qr_text": f"BITCOIN:{ADDRESS.upper()}?amount={AMOUNT}",
        "address": ADDRESS,
        "company": "Shop",
        "order_id": "7",
    }
    values.update(fields)
    return CustomerFace.model_validate(values)
