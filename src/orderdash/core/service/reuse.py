"""The validated transactions of a big order kept for its next answer (the client's cache of
them, by token, a few orders at most)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from orderdash.core.model.errors import InvalidResponse

if TYPE_CHECKING:
    from orderdash.core.model.wire import Order, Transaction

#: Orders with at least this many transactions keep their validated transactions for the next
#: answer (see `TransactionReuse`); how many such orders are remembered.
REUSE_MIN_TRANSACTIONS = 200
REMEMBERED_ORDERS = 8


class TransactionReuse:
    """The validated transactions of a big order, kept for its next answer.

    A big order's answer is mostly transactions that were in the previous answer too (every
    answer differs anyway: `expirationTime` counts down). A transaction whose wire object is
    the same as before, strictly (same types, same digits), gets the model it had, without
    validation; and the table, seeing the same objects, has nothing to compare. Anything else,
    or any doubt, takes the full path.
    """

    def __init__(self) -> None:
        self._by_id: dict[object, tuple[Any, Transaction]] = {}

    def interpret(
        self,
        document: dict[str, Any],
        validate: Callable[[dict[str, Any]], tuple[Order, dict[str, Any]]],
    ) -> tuple[Order, dict[str, Any]]:
        data = document.get("data")
        wire = data.get("transactions") if isinstance(data, dict) else None
        if not isinstance(wire, list) or not self._by_id:
            return self._remember(validate(document))
        kept: dict[int, Transaction] = {}
        fresh: list[Any] = []
        for index, tx in enumerate(wire):
            known = self._by_id.get(_tx_key(tx))
            if known is not None and _same_wire(known[0], tx):
                kept[index] = known[1]
            else:
                fresh.append(tx)
        if not kept:
            return self._remember(validate(document))
        assert isinstance(data, dict)
        try:
            order, _ = validate({**document, "data": {**data, "transactions": fresh}})
        except InvalidResponse:
            # the message must name the transaction's place in the whole answer
            return self._remember(validate(document))
        new = iter(order.transactions)
        merged = tuple(kept[i] if i in kept else next(new) for i in range(len(wire)))
        order = order.model_copy(update={"transactions": merged})
        return self._remember((order, data))

    def _remember(self, result: tuple[Order, dict[str, Any]]) -> tuple[Order, dict[str, Any]]:
        order, data = result
        wire = data.get("transactions")
        if isinstance(wire, list) and len(wire) == len(order.transactions):
            self._by_id = {
                key: (tx, model)
                for tx, model in zip(wire, order.transactions, strict=True)
                if (key := _tx_key(tx)) is not None
            }
        else:
            self._by_id = {}
        return result


class ReuseByOrder:
    """Per big order (by token, most recent last): its transactions as last received."""

    def __init__(self) -> None:
        self._by_token: dict[str, TransactionReuse] = {}

    def take(self, token: str) -> TransactionReuse:
        """The order's reuse, out of the cache while its answer is read (or a new one)."""
        return self._by_token.pop(token, None) or TransactionReuse()

    def keep(self, token: str, reuse: TransactionReuse, order: Order) -> None:
        """Put back after the answer was read, if the order is big enough to be worth it."""
        if len(order.transactions) >= REUSE_MIN_TRANSACTIONS:
            self._by_token[token] = reuse
            while len(self._by_token) > REMEMBERED_ORDERS:
                del self._by_token[next(iter(self._by_token))]


def _tx_key(tx: Any) -> object:
    tx_id = tx.get("id") if isinstance(tx, dict) else None
    return tx_id if type(tx_id) in (int, str) else None


def _same_wire(a: Any, b: Any) -> bool:
    """Equal as JSON text would be: `==` says 1.0 == 1.00 and True == 1, which for money and
    for validation are different answers."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_wire(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same_wire, a, b))
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return a.as_tuple() == b.as_tuple()
    return bool(a == b)
