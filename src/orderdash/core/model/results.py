"""What the client's reads of an order hand back: the order as fetched (the account's orders and
a history page are in `core/service/account_answers.py`, loaded on the account's paths only;
the models of the wire itself are in wire.py and account.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orderdash.core.model.wire import Order


@dataclass(frozen=True, eq=False, repr=False)
class Fetched:
    """One successful read: the model, the wire `data` object as received, and when it arrived."""

    order: Order
    raw: dict[str, Any]
    received_at: float
    elapsed: float
