"""The pace of the late watch: an order that closed unpaid (expired, canceled, underpaid) is
read for a late payment for `late_window` after it closed, at a pace the getOrder budget allows
(docs/limits.md#late-payments). The scheduler (`scheduler.py`) applies it.

Pure policy: nothing here does I/O.
"""

from __future__ import annotations

#: An order closed unpaid is read this often within its late window: a late payment is seen
#: within about a minute (60 getOrders an hour per order).
LATE_INTERVAL = 60.0
#: Share of the getOrder budget the orders within their late window may take together: beyond
#: it their interval stretches, never the open orders'.
LATE_SHARE = 0.25
#: BTCPay's monitoring window: how long an order closed unpaid is watched for a late payment.
DEFAULT_LATE_WINDOW = 86400.0


def late_interval(watching: int, per_minute: float) -> float:
    """Seconds between reads of each of `watching` orders within their late window, when the
    getOrder budget allows `per_minute` reads a minute in the long run."""
    return max(LATE_INTERVAL, 60.0 * watching / (per_minute * LATE_SHARE))
