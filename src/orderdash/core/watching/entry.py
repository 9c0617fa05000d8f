"""What the dashboard knows of one watched order, and the state filters of the list."""

from __future__ import annotations

from dataclasses import dataclass

from orderdash.core.domain.payment import PAID, PaymentState, Phase
from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import Order

#: State filters, in the order `t` cycles through them.
STATE_FILTERS: dict[str, frozenset[Phase] | None] = {
    "all": None,
    "open": frozenset({Phase.AWAITING, Phase.COIN_NOT_CHOSEN}),
    "partly paid": frozenset({Phase.PARTLY_PAID, Phase.UNCLEAR}),
    "paid": PAID,
    "closed": frozenset({Phase.UNDERPAID, Phase.EXPIRED, Phase.CANCELED}),
    "problems": frozenset(),  # by health, not by phase
}


@dataclass(eq=False, repr=False)
class Entry:
    """What the list knows of one watched order."""

    token: str
    fetched: Fetched | None = None
    payment: PaymentState | None = None
    error: str | None = None
    failing: bool = False
    updated_at: float | None = None
    unseen: bool = False
    #: The order this token named before it changed identity (the service reset and reused
    #: the token): kept to compare, until the operator removes the order.
    was: Order | None = None

    @property
    def order(self) -> Order | None:
        return None if self.fetched is None else self.fetched.order

    @property
    def health(self) -> str:
        if self.failing and self.order is None:
            return "error"
        if self.failing:
            return "stale"
        return "ok" if self.order is not None else "loading"

    @property
    def last_tx_ms(self) -> int | None:
        if self.order is None or not self.order.transactions:
            return None
        return max(tx.created_at_ms for tx in self.order.transactions)

    def in_filter(self, state: str, text: str) -> bool:
        phases = STATE_FILTERS[state]
        if state == "problems":
            if self.health in ("ok", "loading"):
                return False
        elif phases is not None and (self.payment is None or self.payment.phase not in phases):
            return False
        if not text:
            return True
        haystack = [self.token]
        if self.order is not None:
            haystack += [self.order.company_name, self.order.status.label, self.order.coin or ""]
            haystack += [self.order.address or "", self.order.currency.abbreviation]
        return any(text.lower() in value.lower() for value in haystack)
