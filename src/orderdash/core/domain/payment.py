"""What the customer must do now, derived from an order and the time its data arrived.

The service's status code decides when it is one we recognise (docs/service-api.md#states lists the
documented states). While the order is open, the latest transaction's underPaid / overPaid
figures tell how much is missing or too much; those are the server's own numbers, shown with the
server's names. When they contradict each other (the published example has both non-zero), the
state says so instead of picking one. No amount is computed here: `due_coin`/`due_fiat` are
always numbers the server sent. What the customer is asked to send is `due_coin` rounded up to
the coin's smallest unit (`send`, from `core/domain/units.py`), shown beside the server's figure.

A shortfall the merchant covers is paid, never hidden: an order closed short (underpaid, or
expired after a payment) by no more than the payment tolerance (`underpaid_tolerance`,
`core/domain/tolerance.py`) is paid within tolerance, and so is one accepted as paid at the
counter (a written-off resolution, `accepted`); an order the service itself calls paid while
its latest transaction shows a shortfall keeps its phase. All three carry the shortfall
absorbed (`absorbed_coin`, `absorbed_fiat`, the server's underPaid figures) for the staff.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from enum import Enum
from typing import TypedDict

from orderdash.core.domain.expiry import Expiry, expiry_for
from orderdash.core.domain.status import Tone, state_key, tone_of
from orderdash.core.domain.text import amount_text, coin_code
from orderdash.core.domain.tolerance import within_tolerance
from orderdash.core.domain.units import Sendable, sendable
from orderdash.core.model.wire import Order, Transaction
from orderdash.core.safetext import clean


class Phase(Enum):
    COIN_NOT_CHOSEN = "coin not chosen"
    AWAITING = "awaiting payment"
    PARTLY_PAID = "partly paid"
    UNCLEAR = "payment received, figures unclear"
    CONFIRMING = "paid, confirming"
    CONFIRMED = "confirmed"
    OVERPAID = "overpaid"
    UNDERPAID = "underpaid"
    EXPIRED = "expired"
    CANCELED = "canceled"
    #: Closed short, the shortfall covered by the merchant: within the payment tolerance, or
    #: accepted as paid at the counter.
    PAID_SHORT = "paid, shortfall absorbed"
    UNKNOWN = "unknown"


#: Phases in which the customer still has to pay: the QR and the amount due are shown.
PAYABLE = frozenset({Phase.AWAITING, Phase.PARTLY_PAID})
#: Phases in which the order counts as paid: confirming or confirmed, overpaid, or a shortfall
#: the merchant covers (within the tolerance, accepted at the counter).
PAID = frozenset({Phase.CONFIRMING, Phase.CONFIRMED, Phase.OVERPAID, Phase.PAID_SHORT})
#: Phases after which nothing more is expected.
CLOSED = frozenset(
    {Phase.CONFIRMED, Phase.UNDERPAID, Phase.EXPIRED, Phase.CANCELED, Phase.PAID_SHORT}
)
#: Phases in which nothing may be paid any more (paid, confirmed, overpaid, closed): no screen
#: shows a payment QR for them, so nobody pays twice.
SETTLED = CLOSED | {Phase.CONFIRMING, Phase.OVERPAID}

#: By the loose key of the code or label (status.py); IN_PROGRESS and NEW are read from the
#: transactions instead.
_CLOSED_BY_CODE = {
    "PAID": Phase.CONFIRMING,
    "UNCONFIRMED": Phase.CONFIRMING,
    "PAIDUNCONFIRMED": Phase.CONFIRMING,
    "CONFIRMED": Phase.CONFIRMED,
    "COMPLETED": Phase.CONFIRMED,
    "OVERPAID": Phase.OVERPAID,
    "UNDERPAID": Phase.UNDERPAID,
    "EXPIRED": Phase.EXPIRED,
    "CANCELED": Phase.CANCELED,
    "CANCELLED": Phase.CANCELED,
}


@dataclass(frozen=True, eq=False, repr=False)
class PaymentState:
    """Where the payment of one order stands, with the server's figures that say so."""

    phase: Phase
    #: The server's status label, as sent (cleaned for display).
    label: str
    coin: str
    currency: str
    #: What is still to pay (AWAITING: the order amount; PARTLY_PAID: the server's underPaid).
    due_coin: Decimal | None = None
    due_fiat: Decimal | None = None
    #: What was paid too much (the server's overPaid).
    excess_coin: Decimal | None = None
    excess_fiat: Decimal | None = None
    #: The transaction whose figures were used, if any.
    latest: Transaction | None = None
    expiry: Expiry | None = None
    #: PARTLY_PAID: what was paid so far (the latest transaction's total) and the order's
    #: amount now, which a rate renewed after the payment may have moved.
    paid_coin: Decimal | None = None
    amount_coin: Decimal | None = None
    #: The shortfall the merchant covers (the latest transaction's underPaid, made positive):
    #: paid within tolerance, accepted at the counter, or paid by the service's word.
    absorbed_coin: Decimal | None = None
    absorbed_fiat: Decimal | None = None
    #: PAID_SHORT: accepted as paid at the counter (else: within the payment tolerance).
    accepted: bool = False

    @property
    def payable(self) -> bool:
        return self.phase in PAYABLE

    @property
    def takes_payment(self) -> bool:
        """A code shown for this order invites a payment: the amount is due, or no coin is
        chosen yet (the code is the checkout page). Its expiry withdraws it and `p` asks near
        it, whatever the service's last answer said."""
        return self.payable or self.phase is Phase.COIN_NOT_CHOSEN

    @property
    def settled(self) -> bool:
        return self.phase in SETTLED

    @property
    def send(self) -> Sendable | None:
        """What a wallet can send for the amount due: `due_coin` rounded up to the coin's
        smallest unit; None when nothing is due or the coin's unit is not known."""
        if not self.payable:
            return None
        return sendable(self.coin, self.due_coin)

    @property
    def send_text(self) -> str:
        """The amount to send in the coin, as the customer should type it."""
        send = self.send
        return f"{send.text} {self.coin}" if send is not None else self._coin(self.due_coin)

    def _coin(self, value: Decimal | None) -> str:
        return f"{amount_text(value)} {self.coin}".strip()

    def _fiat(self, value: Decimal | None) -> str:
        return f"{amount_text(value, group=True)} {self.currency}".strip()

    @property
    def due_rules(self) -> str:
        """Paid so far and still due do not add up to the order's amount (the amount is at a
        rate renewed since, or the service counts otherwise): which figure the screens go by,
        in words; "" when they add up or nothing is due."""
        paid, due, amount = self.paid_coin, self.due_coin, self.amount_coin
        if self.phase is not Phase.PARTLY_PAID or None in (paid, due, amount):
            return ""
        assert paid is not None and due is not None and amount is not None
        if paid + due == amount:
            return ""
        return (
            f"paid {amount_text(paid)} + due is not the amount {self._coin(amount)}: "
            f"the service's due figure rules: {self._coin(due)}"
        )

    @property
    def headline(self) -> str:
        """The banner a customer reads from two metres."""
        match self.phase:
            case Phase.COIN_NOT_CHOSEN:
                return "Choose a coin to pay with"
            case Phase.AWAITING:
                return "Scan to pay"
            case Phase.PARTLY_PAID:
                return f"Partly paid: send {self.send_text} more"
            case Phase.UNCLEAR if self.latest is None:
                return "Amount unclear: check the amounts"
            case Phase.UNCLEAR:
                return "Payment received: check the amounts"
            case Phase.CONFIRMING:
                return "Payment received, confirming"
            case Phase.CONFIRMED | Phase.PAID_SHORT:
                return "Paid"
            case Phase.OVERPAID:
                return f"Overpaid by {self._coin(self.excess_coin)}"
            case Phase.UNDERPAID:
                return "Underpaid: order closed"
            case Phase.EXPIRED:
                return "Expired"
            case Phase.CANCELED:
                return "Canceled"
            case _:
                return f"Status: {self.label}"

    @property
    def summary(self) -> str:
        """One line for the dashboard's detail pane."""
        match self.phase:
            case Phase.AWAITING:
                return f"awaiting {self._coin(self.due_coin)} ({self._fiat(self.due_fiat)})"
            case Phase.PARTLY_PAID:
                return (
                    f"partly paid: {self._coin(self.due_coin)} ({self._fiat(self.due_fiat)}) "
                    "still due (server's underPaid)"
                )
            case Phase.UNCLEAR if self.latest is None:
                return "the order amount is not a positive number: check the amounts"
            case Phase.UNCLEAR:
                latest = self.latest
                assert latest is not None
                under = amount_text(latest.amount.under_paid)
                over = amount_text(latest.amount.over_paid)
                return (
                    f"payment received; server says underPaid {under} and overPaid {over} "
                    f"{self.coin}"
                )
            case Phase.OVERPAID if self.excess_coin is not None:
                return (
                    f"overpaid by {self._coin(self.excess_coin)} ({self._fiat(self.excess_fiat)})"
                )
            case Phase.UNKNOWN:
                return f"unknown state: {self.label}"
            case Phase.PAID_SHORT:
                return self.absorbed_text
            case _ if self.absorbed_coin is not None:
                return f"{self.phase.value}; {self.absorbed_text}"
            case _:
                # mypy types the value of an enum narrowed to some of its members Any
                return self.phase.value  # type: ignore[no-any-return]

    @property
    def shortfall(self) -> tuple[Decimal, Decimal] | None:
        """What the order lacks (coin, fiat; the server's figures) while it is part-paid or
        closed short: what accepting it as paid writes off. None for any other phase."""
        if self.phase is Phase.PARTLY_PAID and self.due_coin is not None:
            if self.due_fiat is not None:
                return self.due_coin, self.due_fiat
        latest = self.latest
        if self.phase not in _CLOSED_SHORT or latest is None or latest.amount.under_paid >= 0:
            return None
        return latest.amount.under_paid.copy_negate(), latest.amount_fiat.under_paid.copy_negate()

    @property
    def absorbed_text(self) -> str:
        """The shortfall the merchant covers, for the staff: "paid within tolerance, 0.14 EUR
        (0.000039527133318573 ETH) short, absorbed"; "" when there is none."""
        if self.absorbed_coin is None:
            return ""
        how = (
            "accepted as paid at the counter"
            if self.accepted
            else "paid within tolerance"
            if self.phase is Phase.PAID_SHORT
            else "paid by the service"
        )
        short = f"{self._fiat(self.absorbed_fiat)} ({self._coin(self.absorbed_coin)})"
        return f"{how}, {short} short, absorbed"


class _Described(TypedDict):
    """What every state of an order carries, whatever its phase."""

    label: str
    coin: str
    currency: str
    expiry: Expiry


#: Phases by the service's code that close an order short when a payment left a shortfall.
_CLOSED_SHORT = frozenset({Phase.UNDERPAID, Phase.EXPIRED})
#: Phases by the service's code that say paid.
_PAID = frozenset({Phase.CONFIRMING, Phase.CONFIRMED})


def payment_state(
    order: Order,
    received_at: float,
    *,
    tolerance: Decimal = Decimal(0),
    accepted: bool = False,
) -> PaymentState:
    """The state of `order` whose data arrived at epoch second `received_at`. `tolerance`: the
    payment tolerance in percent (`underpaid_tolerance`); `accepted`: the order was accepted as
    paid at the counter (a shortfall written off)."""
    state = _state(order, received_at)
    latest = state.latest
    if latest is None or latest.amount.under_paid >= 0 or latest.amount_fiat.under_paid > 0:
        return state
    short_coin = latest.amount.under_paid.copy_negate()
    short_fiat = latest.amount_fiat.under_paid.copy_negate()
    if state.phase in _PAID:
        return replace(state, absorbed_coin=short_coin, absorbed_fiat=short_fiat)
    if accepted and state.phase in _CLOSED_SHORT | {Phase.PARTLY_PAID}:
        return _paid_short(state, short_coin, short_fiat, accepted=True)
    if state.phase in _CLOSED_SHORT and within_tolerance(short_fiat, order.amount_fiat, tolerance):
        return _paid_short(state, short_coin, short_fiat, accepted=False)
    return state


def _paid_short(
    state: PaymentState, absorbed_coin: Decimal, absorbed_fiat: Decimal, *, accepted: bool
) -> PaymentState:
    return PaymentState(
        Phase.PAID_SHORT,
        label=state.label,
        coin=state.coin,
        currency=state.currency,
        latest=state.latest,
        expiry=state.expiry,
        absorbed_coin=absorbed_coin,
        absorbed_fiat=absorbed_fiat,
        accepted=accepted,
    )


def _state(order: Order, received_at: float) -> PaymentState:
    base: _Described = {
        "label": clean(order.status.label, limit=60),
        "coin": coin_code(order),
        "currency": clean(order.currency.abbreviation, limit=12),
        "expiry": expiry_for(order, received_at),
    }
    latest = max(order.transactions, key=lambda tx: (tx.created_at_ms, tx.id), default=None)
    code = state_key(order.status.code, order.status.label)
    if code in _CLOSED_BY_CODE:
        phase = _CLOSED_BY_CODE[code]
        if phase is Phase.OVERPAID and latest is not None and latest.amount.over_paid > 0:
            return PaymentState(
                phase,
                excess_coin=latest.amount.over_paid,
                excess_fiat=latest.amount_fiat.over_paid,
                latest=latest,
                **base,
            )
        return PaymentState(phase, latest=latest, **base)
    if tone_of(order.status.code, order.status.label) is not Tone.OPEN:
        return PaymentState(Phase.UNKNOWN, latest=latest, **base)
    if not order.coin_chosen:
        return PaymentState(Phase.COIN_NOT_CHOSEN, **base)
    if latest is None:
        assert order.amount is not None
        if order.amount <= 0:
            # nothing sensible to ask the customer for: say so rather than show a QR to pay
            return PaymentState(Phase.UNCLEAR, **base)
        return PaymentState(
            Phase.AWAITING, due_coin=order.amount, due_fiat=order.amount_fiat, **base
        )
    under, over = latest.amount.under_paid, latest.amount.over_paid
    if (under < 0 and over > 0) or under > 0 or over < 0:
        # both at once (the published example), or a sign the spec never shows: no guessing
        return PaymentState(Phase.UNCLEAR, latest=latest, **base)
    if under < 0:
        return PaymentState(
            Phase.PARTLY_PAID,
            due_coin=-under,
            due_fiat=-latest.amount_fiat.under_paid,
            latest=latest,
            paid_coin=latest.amount.total,
            amount_coin=order.amount,
            **base,
        )
    if over > 0:
        return PaymentState(
            Phase.OVERPAID,
            excess_coin=over,
            excess_fiat=latest.amount_fiat.over_paid,
            latest=latest,
            **base,
        )
    return PaymentState(Phase.CONFIRMING, latest=latest, **base)
