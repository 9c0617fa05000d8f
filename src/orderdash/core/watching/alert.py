"""One alert: a payment, a status change, a new order or an alarm, as the toasts and the alerts
log (`l`) show it. Apart from `state.py`, which makes them: defined with the first alert, not
at every start.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Alert:
    at: float  # wall time
    token: str
    company: str
    text: str
    #: An alarm: the service is unreachable or back, an order is not found, a paid order is
    #: paid no longer, a token names another order, a late payment. Shown apart from ordinary
    #: payments.
    alarm: bool = False
    #: What kind of news it is, by a stable name a listener may pick alerts by ("" for those
    #: not named yet): `LATE_PAYMENT`.
    kind: str = ""
    #: Of a `LATE_PAYMENT` alert: the ids of the late payments (the others it names came in
    #: time).
    late_ids: tuple[int, ...] = ()


#: A payment into an order closed unpaid (expired, canceled): docs/limits.md#late-payments.
LATE_PAYMENT = "late-payment"
