"""What a callback's body claims set against what getOrder said of the same order: the status,
and the last transaction's amounts (the body's `received_amount_in_coins` and `_in_fiat` are
the last transaction's, not the order's total). A difference is an alarm for the shop (a
forged callback, a proxy that rewrites, or a callback overtaken by the order's next change),
never a change to the order: getOrder's answer is the order."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.model.wire import Order
    from orderdash.core.receiver.parse import Callback

#: Longest value shown on either side of a difference.
SHOWN = 40


def differences(callback: Callback, order: Order) -> list[str]:
    """Each field where the body and getOrder's answer differ, as "field: body X, getOrder Y"
    (bounded, printable); empty when they agree (a field the body lacks is not compared)."""
    last = order.transactions[-1] if order.transactions else None
    said: list[tuple[str, object, object]] = [("status", callback.status, order.status.code)]
    coins = last.amount.base if last is not None else Decimal(0)
    fiat = last.amount_fiat.base if last is not None else Decimal(0)
    said.append(("received_amount_in_coins", callback.coins, coins))
    said.append(("received_amount_in_fiat", callback.fiat, fiat))
    return [
        f"{name}: body {clean(claimed, limit=SHOWN)}, getOrder {clean(truth, limit=SHOWN)}"
        for name, claimed, truth in said
        if claimed is not None and claimed != truth
    ]
