"""When an order expires, and how sure we are.

The spec gives `expiresAt` and `expirationTime` without units. docs/service-api.md#times says
`expirationTime` behaves like milliseconds remaining, and `expiresAt` is epoch milliseconds in
newer answers but a small moving number in older ones. So, like BTCPay's checkout, the deadline
is computed on the client as "arrival + expirationTime ms", re-based on every answer, and
`expiresAt` is only a cross-check when it looks like epoch milliseconds. When the two disagree,
no countdown is shown: a wrong countdown at a till is worse than none.

The deadline must also agree with the order's creation (`createdAtMiliseconds`): never before
it, and never beyond any plausible lifetime after it. "arrival + expirationTime" for an order
created years ago (the service's own 2020 getOrder example, read today) would otherwise promise
a deadline in the future; then the expiry is unknown and the raw values are shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from orderdash.core.domain.text import MISSING, duration_text, epoch_ms_text
from orderdash.core.model.wire import Order

#: Epoch milliseconds from 2001 on; smaller values are not epoch ms.
EPOCH_MS_FLOOR = 10**12
#: expirationTime beyond this many ms (400 days) is not a plausible "ms remaining".
MAX_REMAINING_MS = 400 * 86400 * 1000
#: How far `expiresAt` may be from arrival + expirationTime and still confirm it (clock skew).
AGREEMENT_TOLERANCE_S = 120.0
#: No order lives longer than this from its creation: a deadline beyond it is not believed.
PLAUSIBLE_LIFETIME_S = 48 * 3600.0
#: The countdown stands out in an order's last this many seconds (POS, display, order pane).
EXPIRING_SOON_S = 120.0


UNKNOWN_TEXT = "expiry unknown"


class Confidence(Enum):
    CONFIRMED = "confirmed"  # expirationTime and epoch-ms expiresAt agree
    ASSUMED = "assumed"  # only expirationTime, read as milliseconds
    UNKNOWN = "unknown"  # nothing usable, or the values disagree


@dataclass(frozen=True, eq=False, repr=False)
class Expiry:
    """An order's deadline as far as it can be trusted, with the values it was read from."""

    deadline: float | None  # epoch seconds
    confidence: Confidence
    raw: str  # the server's values, always shown beside any interpretation

    def remaining(self, now: float) -> float | None:
        if self.deadline is None:
            return None
        return self.deadline - now

    def countdown(self, now: float) -> str:
        """'expires in 12:34', 'expired', or '' when no countdown can be trusted."""
        remaining = self.remaining(now)
        if remaining is None:
            return ""
        if remaining <= 0:
            return "expired"
        hedge = " (if ms)" if self.confidence is Confidence.ASSUMED else ""
        return f"expires in {duration_text(remaining)}{hedge}"

    def describe(self, now: float) -> str:
        countdown = self.countdown(now)
        return f"{countdown}  ({self.raw})" if countdown else f"{UNKNOWN_TEXT}  ({self.raw})"

    @property
    def summary(self) -> str:
        if self.deadline is None:
            return f"{UNKNOWN_TEXT}  ({self.raw})"
        return f"{epoch_ms_text(int(self.deadline * 1000))}  ({self.raw})"


def expiry_for(order: Order, received_at: float) -> Expiry:
    """The deadline of `order`, whose data arrived at epoch second `received_at`."""
    remaining_ms = order.expiration_time
    expires_at = order.expires_at
    raw = (
        f"expirationTime {MISSING if remaining_ms is None else remaining_ms}, "
        f"expiresAt {MISSING if expires_at is None else expires_at}"
    )
    plausible_remaining = remaining_ms is not None and 0 <= remaining_ms <= MAX_REMAINING_MS
    epoch_expires = expires_at is not None and expires_at >= EPOCH_MS_FLOOR
    if plausible_remaining:
        assert remaining_ms is not None
        deadline = received_at + remaining_ms / 1000
        if not _fits_the_creation(deadline, order.created_at_ms / 1000):
            return Expiry(None, Confidence.UNKNOWN, raw)
        if not epoch_expires:
            return Expiry(deadline, Confidence.ASSUMED, raw)
        assert expires_at is not None
        if abs(expires_at / 1000 - deadline) <= AGREEMENT_TOLERANCE_S:
            return Expiry(deadline, Confidence.CONFIRMED, raw)
        return Expiry(None, Confidence.UNKNOWN, raw)
    return Expiry(None, Confidence.UNKNOWN, raw)


def _fits_the_creation(deadline: float, created: float) -> bool:
    """Not before the order was created, nor beyond a plausible lifetime after (clock skew
    between the service and this machine allowed for)."""
    earliest = created - AGREEMENT_TOLERANCE_S
    latest = created + PLAUSIBLE_LIFETIME_S + AGREEMENT_TOLERANCE_S
    return earliest <= deadline <= latest
