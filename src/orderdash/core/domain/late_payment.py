"""Late payments: money into an order after it closed unpaid (expired, canceled, or underpaid,
which this service reads as expired with part of the amount: docs/service-api.md#states).
BTCPay calls it "paid late" and watches an expired invoice for a monitoring window; orderdash
does the same (`late_window`, docs/limits.md#late-payments).

The times compared are the service's own (`expiresAt` and a transaction's
`createdAtMiliseconds`), so the clock of this machine does not move a payment across the
deadline.
"""

from __future__ import annotations

from orderdash.core.domain.expiry import EPOCH_MS_FLOOR, expiry_for
from orderdash.core.domain.status import state_key
from orderdash.core.domain.text import duration_text
from orderdash.core.model.wire import Order, Transaction

#: The documented states of an order closed without the full amount.
CLOSED_UNPAID = frozenset({"EXPIRED", "CANCELED", "CANCELLED", "UNDERPAID"})


def is_closed_unpaid(order: Order) -> bool:
    return state_key(order.status.code, order.status.label) in CLOSED_UNPAID


def _expires_ms(order: Order) -> int | None:
    """`expiresAt` when it reads as epoch milliseconds (older answers send a small number)."""
    expires = order.expires_at
    return expires if expires is not None and expires >= EPOCH_MS_FLOOR else None


def closed_unpaid_for(order: Order, received_at: float) -> float | None:
    """Seconds since `order` closed unpaid, as of `received_at` (epoch seconds, when the answer
    arrived): since its expiry when that has passed, else 0 (it closed when first seen so, a
    cancellation before the deadline); None when it is not closed unpaid."""
    if not is_closed_unpaid(order):
        return None
    expires_ms = _expires_ms(order)
    deadline = (
        expires_ms / 1000 if expires_ms is not None else expiry_for(order, received_at).deadline
    )
    if deadline is None or deadline > received_at:
        return 0.0
    return received_at - deadline


def is_late(tx: Transaction, order: Order, *, was_closed_unpaid: bool) -> bool:
    """A new transaction `tx` of `order` is a late payment: the order was closed unpaid when last
    read, or the payment came after the order's deadline by the service's clock."""
    if was_closed_unpaid:
        return True
    expires_ms = _expires_ms(order)
    return expires_ms is not None and tx.created_at_ms > expires_ms


def after_expiry(tx: Transaction, order: Order) -> float | None:
    """Seconds from the order's deadline to the payment, by the service's clock (negative: a
    payment into a canceled order before its deadline); None when the deadline is not known."""
    expires_ms = _expires_ms(order)
    if expires_ms is None:
        return None
    return (tx.created_at_ms - expires_ms) / 1000


def after_expiry_text(seconds: float | None) -> str:
    """'3:00:00 after expiry', '5:00 before expiry', or 'after the order closed'."""
    if seconds is None:
        return "after the order closed"
    if seconds < 0:
        return f"{duration_text(-seconds)} before expiry, after the order closed"
    return f"{duration_text(seconds)} after expiry"
