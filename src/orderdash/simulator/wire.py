"""Turning the simulator's orders into the service's JSON (the `data` object, transactions, the
history's items); every money value stays a `decimal.Decimal`, a float never enters the wire.

Times:
  * `createdAt` is "YYYY-MM-DD HH:MM" in UTC; `createdAtMiliseconds` epoch ms.
  * `expiresAt` is the epoch ms of the deadline (creation + lifetime).
  * `expirationTime` is the ms remaining until the deadline at the time of the response,
    floored at 0.
  * All of them follow the simulator clock (`Simulator.now()`), which tests move with
    `advance_clock`.

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
import json
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from urllib.parse import quote

from orderdash.simulator.catalogue import CENT, COINS, CoinInfo
from orderdash.simulator.orders import Order
from orderdash.simulator.png import qr_data_uri


def fiat_text(value: Decimal) -> str:
    q = value.quantize(CENT, rounding=ROUND_HALF_UP)
    if q == 0:
        q = abs(q)  # never "-0.00"
    return format(q, "f")


def created_at(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M")


def order_data(order: Order, now: float, with_qr: bool) -> dict[str, Any]:
    """The order's `data` object at `now`, overrides applied; with `with_qr` its qrCode is None
    until `add_qr_code` fills it in (outside the simulator's lock: drawing it takes a while)."""
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
        "createdAt": created_at(order.created_ms),
        "createdAtMiliseconds": order.created_ms,
        "type": "Order",
        "expiresAt": order.expires_ms,
        "expirationTime": max(0, order.expires_ms - now_ms),
        "email": order.email,
        "address": order.address,
    }
    if with_qr:
        data["qrCode"] = None  # filled in by add_qr_code, outside the lock
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


def add_qr_code(data: dict[str, Any]) -> None:
    """The QR code image of the address (a data URI), or None when there is no address."""
    address = data.get("address")
    qr: str | None = None
    if isinstance(address, str) and address:
        try:
            qr = qr_data_uri(address)
        except ValueError:
            qr = None
    data["qrCode"] = qr


def transaction_data(
    tx_id: int,
    tx_hash: str,
    coin: CoinInfo,
    amounts: tuple[Decimal, Decimal, Decimal, Decimal],
    rate: Decimal,
    at_ms: int,
) -> dict[str, Any]:
    """One transaction: `amounts` are the payment, the total so far, underPaid and overPaid."""
    paid, total, under, over = amounts
    return {
        "id": tx_id,
        "hash": tx_hash,
        "hashUrl": f"https://explorer.example/{coin.code}/tx/{tx_hash}",
        "amount": {"base": paid, "total": total, "underPaid": under, "overPaid": over},
        "amountFiat": {
            "base": fiat_text(paid * rate),
            "total": fiat_text(total * rate),
            "underPaid": fiat_text(under * rate),
            "overPaid": fiat_text(over * rate),
        },
        "createdAt": created_at(at_ms),
        "createdAtMiliseconds": at_ms,
    }


def coin_choices() -> list[dict[str, Any]]:
    """The UI order's `coins`: every coin the customer may choose."""
    return [
        {"id": index, "name": coin.name, "code": coin.code.upper(), "basename": coin.code}
        for index, coin in enumerate(COINS.values(), start=1)
    ]


def history_item(wire: dict[str, Any]) -> dict[str, Any]:
    """An order history item from the order's `data` (overridden fields show here too)."""
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
    return item


def history_data(items: list[dict[str, Any]], total: int, page: int, size: int) -> dict[str, Any]:
    """A history page's `data`: its items and the paging meta."""
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


def made_up_items(page: int, count: int, status: str = "IN_PROGRESS") -> list[str]:
    """`count` orders no order stands behind (a history fault's huge page), as JSON text as
    short as the API lets them be; their tokens name the page, so each page's are new. Written
    as text, not made as objects: 50,000 dicts would set off the collector in this process,
    where a test measures the client's pauses."""
    code = json.dumps(status)
    return [
        f'{{"id":{index + 1},"token":"x{page}-{index}","createdAtMiliseconds":{index},'
        f'"amount":"1","status":{{"code":{code},"label":""}},'
        '"currency":{"id":1,"currency":"","abbreviation":"EUR"}}'
        for index in range(count)
    ]
