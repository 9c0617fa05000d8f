"""When the customer display may change hands: an order a customer may still be paying is not
taken off it without the operator's yes (`may_be_paying`), a display another dashboard holds is
not taken without the operator's yes either (`takeover_question`, from what the channel file
shows), and an order that is done gives the screen back to the welcome screen after a short
while (`BackToWelcome`), so the next customer never finds the last sale on it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.customer.face import CustomerFace
    from orderdash.core.customer.reading import Reading

#: Phases whose banner thanks the customer: the whole amount has arrived.
PAID = frozenset({"CONFIRMING", "CONFIRMED", "PAID_SHORT"})
#: Phases nobody can pay any more; with nothing paid, there is nothing left to tell.
CLOSED = frozenset({"EXPIRED", "CANCELED"})


def may_be_paying(face: CustomerFace | None) -> bool:
    """A customer may be scanning or paying what the display shows: a code is up, or the
    payment is to wait for ("we can't check this payment right now")."""
    return face is not None and (face.payable or face.trouble == "unreachable")


def finished(face: CustomerFace | None) -> bool:
    """Paid, or closed with nothing paid: the display has said all it had to. An overpaid,
    underpaid or partly paid closed order stays (its banner sends the customer to the staff)."""
    if face is None or face.trouble or face.payable:
        return False
    return face.phase in PAID or (face.phase in CLOSED and face.payments == 0)


#: The state of the order on the display, in the operator's words.
STATE_WORDS = {
    "COIN_NOT_CHOSEN": "unpaid, no coin chosen yet",
    "AWAITING": "unpaid",
    "PARTLY_PAID": "partly paid",
    "UNCLEAR": "amounts to check",
    "CONFIRMING": "paid, confirming",
    "CONFIRMED": "paid",
    "PAID_SHORT": "paid, a shortfall absorbed",
    "OVERPAID": "overpaid",
    "UNDERPAID": "underpaid, closed",
    "EXPIRED": "expired",
    "CANCELED": "canceled",
    "UNKNOWN": "in a state not known here",
}


def takeover_question(reading: Reading) -> str:
    """What another dashboard asks its operator before taking the display from the one that
    holds it: what the display shows now, as its channel file says ("The customer display
    shows till-2's order 1013 (12.50 EUR), unpaid: a customer may be scanning it. Take it
    over?")."""
    till = clean(reading.till, limit=64)
    face = reading.face
    if face is None:
        holder = f"another dashboard ({till})" if till else "another dashboard"
        return f"The customer display is held by {holder}, with nothing on it now. Take it over?"
    whose = "the demo's" if face.demo else f"{till}'s" if till else "another till's"
    order = "order" + (f" {clean(face.order_id, limit=40)}" if face.order_id else "")
    amount = " ".join(part for part in (face.fiat_amount, face.currency) if part)
    if amount:
        order += f" ({clean(amount, limit=60)})"
    if face.trouble == "unreachable":
        state = "waiting for the service to answer"
    elif face.trouble:
        state = "no code shown"
    else:
        state = STATE_WORDS.get(face.phase, "in a state not known here")
    if may_be_paying(face):
        state += ": a customer may be scanning it"
    return f"The customer display shows {whose} {order}, {state}. Take it over?"


class BackToWelcome:
    """`due(face)`: the display's order has been finished for `after` seconds (0: never)."""

    def __init__(self, after: float, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.after = after
        self.monotonic = monotonic
        self._since: float | None = None

    def reset(self) -> None:
        """Another order is on the display: its own time starts when it is finished."""
        self._since = None

    def due(self, face: CustomerFace | None) -> bool:
        if not self.after or not finished(face):
            self._since = None
            return False
        now = self.monotonic()
        if self._since is None:
            self._since = now
        return now - self._since >= self.after
