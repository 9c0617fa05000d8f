"""What a customer is shown of an order (the customer display, the point of sale): the order as
last answered, or words instead of the QR when the amount cannot be checked. `Reachability`
keeps, per order, what that depends on: when its reads began failing and when the last good
answer came. The dashboard's state answers through here (`DashboardState.face_for`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from orderdash.core.qr.payload import QRContent, qr_payload, remaining_payload

if TYPE_CHECKING:
    # the customer's face is built only once a customer display or point of sale shows one
    # (its models are not needed for the dashboard's first paint)
    from orderdash.core.customer.face import CustomerFace, Trouble
    from orderdash.core.domain.payment import PaymentState
    from orderdash.core.model.wire import Order
    from orderdash.core.watching.entry import Entry
    from orderdash.core.watching.onscreen import Freshness, Shown

#: The service renews an order's exchange rate every minute (docs/service-api.md): after that long
#: without an answer, a QR may ask for an amount the order no longer has, and a payment made
#: from it could not be checked. The customer's screens withdraw it then.
RATE_PERIOD = 60.0


class Reachability:
    """Per order, since when its reads fail (and whether the last said 404), and when its last
    good answer came. Kept for a token no longer watched too: a POS may still show it (its
    words stay true)."""

    def __init__(self, monotonic: Callable[[], float], rate_period: float = RATE_PERIOD) -> None:
        self.monotonic = monotonic
        self.rate_period = rate_period
        #: since when (monotonic), and whether the last failure said "not found"
        self._failing: dict[str, tuple[float, bool]] = {}
        #: when (monotonic) the last good answer came: a customer's screen withdraws the QR a
        #: rate period after it, however long the failed reads took to say so
        self._last_good: dict[str, float] = {}

    def answered(self, token: str) -> None:
        """A good answer for `token`."""
        self._failing.pop(token, None)
        self._last_good[token] = self.monotonic()

    def failed(self, token: str, *, not_found: bool) -> None:
        """A failed read of `token`'s order."""
        # the rate period runs from the last good answer (now, if there never was one)
        started = self._last_good.get(token, self.monotonic())
        since = self._failing.get(token, (started, False))[0]
        self._failing[token] = (since, not_found)

    def failing(self, token: str) -> bool:
        return token in self._failing

    def trouble(self, token: str | None, *, has_order: bool, facing: bool) -> Trouble:
        """Why a customer cannot be shown `token`'s QR: the service says the order does not
        exist, or no good answer came for a rate period (at once when there is no order yet
        to show); "" when it can. The rate period counts from the last good answer, not from
        the first failure: a hung read or a poll interval must not add to it. `facing`: the
        order is before a customer now (read every second or two)."""
        if token is None:
            return ""
        failing = self._failing.get(token)
        last_good = self._last_good.get(token)
        if failing is None:
            # no failure yet, but no answer either (a read hanging until its timeout): known
            # for the orders before a customer (another order may be read less often than a
            # rate period)
            if facing and has_order and last_good is not None:
                if self.monotonic() - last_good >= self.rate_period:
                    return "unreachable"
            return ""
        since, not_found = failing
        if not_found:
            return "not_found"
        if not has_order or self.monotonic() - since >= self.rate_period:
            return "unreachable"
        return ""


class FaceSource(Protocol):
    """What a customer's face is made from: the dashboard's state, as read here."""

    @property
    def entries(self) -> Mapping[str, Entry]: ...
    @property
    def token(self) -> str | None: ...
    @property
    def shown(self) -> Shown | None: ...
    @property
    def freshness(self) -> Freshness: ...
    @property
    def remaining_for(self) -> str | None: ...
    @property
    def payment_urls(self) -> Mapping[str, str]: ...
    @property
    def qr_content(self) -> QRContent: ...
    @property
    def qr_uppercase(self) -> bool: ...
    @property
    def reach(self) -> Reachability: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    @property
    def monotonic(self) -> Callable[[], float]: ...

    def payment_of(self, order: Order, received_at: float) -> PaymentState: ...
    def trouble(self, token: str | None, *, has_order: bool) -> Trouble: ...


def face_for(source: FaceSource, token: str | None) -> CustomerFace | None:
    """What a customer is shown of `token`: its order as last answered (the panes' answer for
    the order on screen), words instead of the QR when it cannot be checked, or None while
    there is nothing to say yet (no answer and no failure)."""
    if token is None:
        return None
    # the customer's face: with the first order shown, not before the first paint
    from orderdash.core.customer.face import customer_face, face_at, trouble_face, wall_time

    if token == source.token and source.shown is not None:
        shown, fresh = source.shown, source.freshness
        order, payment, payload = shown.order, shown.payment, shown.payload
        renews = wall_time(fresh.next_rate_at, source.clock, source.monotonic)
        problem = fresh.stale
    else:
        entry = source.entries.get(token)
        if entry is None or entry.fetched is None:
            trouble = source.trouble(token, has_order=False)
            return trouble_face(trouble) if trouble else None
        order = entry.fetched.order
        payment = entry.payment or source.payment_of(order, entry.fetched.received_at)
        content, uppercase = source.qr_content, source.qr_uppercase
        payload = qr_payload(order, payment, content, None, uppercase=uppercase)
        renews, problem = None, entry.failing
    if token == source.remaining_for:
        payload = remaining_payload(order, payment, uppercase=source.qr_uppercase) or payload
    face = customer_face(
        order,
        payment,
        payload,
        rate_renews_at=renews,
        connection_problem=problem or source.reach.failing(token),
        trouble=source.trouble(token, has_order=True),
        payment_url=source.payment_urls.get(token, ""),
    )
    # past its deadline by this machine's clock, whatever the last answer said
    return face_at(face, source.clock())


def qr_withdrawn(source: FaceSource) -> str:
    """Why the order on screen, which takes a payment, must show no code now, or ""."""
    shown = source.shown
    if shown is None or not shown.payment.takes_payment:
        return ""
    expiry = shown.payment.expiry
    deadline = expiry.deadline if expiry is not None else None
    if deadline is not None and source.clock() >= deadline:
        return "No QR: the order's time is up by this machine's clock, nothing is to be paid"
    if source.trouble(source.token, has_order=True) == "unreachable":
        return "No QR: no answer from the service for a minute, the amount cannot be checked"
    return ""
