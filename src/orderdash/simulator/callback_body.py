"""The body of a callback the simulated service sends (docs/simulator.md, "Callbacks"): the
fields the service documents, with the values it leaves unpublished chosen as the public
integrations see them, and the bodies the faults send instead (forged, for an unknown token).

Chosen where the docs are silent:
  * `action`: `receive_transaction` for a payment, `status_update` for a status change, and
    `status_update` (with the status `IN_PROGRESS`) when the order gets its coin: the only two
    values integrations are seen handling.
  * `status`: the status code at that moment (integrations compare it with `CONFIRMED`).
  * The received amounts, the transaction id and the exchange rate are the last transaction's
    (none yet: null, 0 and "0.00"), its coin amount and the rate a JSON number and its fiat
    amount text with 2 decimals, as getOrder serves them; `crypto_currency` is the coin's code
    in capitals ("BTC", as the UI's coin list names it), `fiat_currency` the abbreviation;
    `created_at` the order's `createdAt` ("YYYY-MM-DD HH:MM", UTC); `order_expiration` the
    order's lifetime in whole minutes; `order_id` the service's order id and `client_order_id`
    the merchant's (Generate Order's `order_id`; null for an order made otherwise).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from orderdash.simulator.orders import Order
from orderdash.simulator.wire import created_at

RECEIVE_TRANSACTION = "receive_transaction"
STATUS_UPDATE = "status_update"

#: What a forged callback claims when the order is not confirmed (and when it is).
FORGED_STATUS = ("CONFIRMED", "CANCELED")


def callback_body(order: Order, action: str) -> dict[str, Any]:
    """The callback for `order` as it stands now (the caller holds the simulator's lock)."""
    last = order.transactions[-1] if order.transactions else None
    rate = order.last_rate if last is not None and order.last_rate is not None else order.rate
    return {
        "type": "order callback",
        "action": action,
        "status": order.status_code,
        "order_id": order.id,
        "client_order_id": order.client_order_id,
        "transaction_id": last["id"] if last else None,
        "received_amount_in_coins": last["amount"]["base"] if last else Decimal(0),
        "received_amount_in_fiat": last["amountFiat"]["base"] if last else "0.00",
        "fiat_currency": order.fiat.code,
        "crypto_currency": order.coin.code.upper() if order.coin else None,
        "created_at": created_at(order.created_ms),
        "order_token": order.token,
        "order_expiration": max(0, order.expires_ms - order.created_ms) // 60_000,
        "exchange_rate": rate,
    }


def forged_body(body: dict[str, Any]) -> dict[str, Any]:
    """`body` with a status and amounts that getOrder does not say: confirmed (canceled when it
    is confirmed) and ten times the amounts received (1 coin, "1000.00" when none was)."""
    forged = dict(body)
    confirmed = body["status"] == FORGED_STATUS[0]
    forged["status"] = FORGED_STATUS[1] if confirmed else FORGED_STATUS[0]
    coins = Decimal(body["received_amount_in_coins"])
    fiat = Decimal(body["received_amount_in_fiat"])
    forged["received_amount_in_coins"] = coins * 10 if coins else Decimal(1)
    forged["received_amount_in_fiat"] = format(fiat * 10, "f") if fiat else "1000.00"
    return forged


def stray_body(body: dict[str, Any], token: str) -> dict[str, Any]:
    """`body` for an order the account does not have: another token, no order id."""
    stray = dict(body)
    stray["order_token"] = token
    stray["order_id"] = 0
    stray["client_order_id"] = None
    return stray
