"""A refund worked out: what an order owes back, in coin, as a wallet can send it.

What is owed (`owed_by`): for an overpaid order, its excess (the latest payment's `overPaid`,
coin and fiat, as the close of day counts it); for a payment after expiry, an expired or a
canceled order with a payment, what was paid; for an order that closed underpaid (the
service's UNDERPAID: expired part-paid), everything it received. It comes from the same
exceptions the close lists (`orders.exceptional`), so the dialog, the command and the report
agree.

In coin (`work_out`), at one of three bases:

- `payment`: the coin figure as the service gave it (the rate of the payment);
- `today`: the fiat figure over the order's rate now (its `exchangeRate` in a getOrder answer
  read when the resolution is made: the command's and the dialog's one source);
- `typed`: the fiat figure over a rate the person typed (fiat units for one coin).

Less a typed network fee (in coin), rounded DOWN to the coin's smallest unit
(`domain/units.py`; the payment QR rounds up, so that nobody underpays: a refund rounds down,
so that nobody is paid back more than is owed). Exact decimals throughout; a refund that would
be nothing or less is refused in one line, never negative.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal, localcontext

from orderdash.core.books.orders import BookOrder, exceptional, received_by
from orderdash.core.domain.text import amount_text
from orderdash.core.domain.units import unit_decimals
from orderdash.core.ledger import REFUND_BASES, RefundRecord
from orderdash.core.model.errors import UsageError
from orderdash.core.model.wire import to_money
from orderdash.core.safetext import clean

#: What is owed, by the exception's kind, first found first.
OWED_KINDS = (
    "overpaid",
    "paid_after_expiry",
    "expired_with_payment",
    "canceled_with_payment",
    "underpaid",
)
#: A typed amount or rate: ASCII digits and at most one point.
_TYPED = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)
_MAX_TYPED = 40
#: Digits a division keeps at least (then rounded down to the coin's unit).
_PRECISION = 60


class RefundRefused(UsageError):
    """No refund can be worked out (one line: why)."""


@dataclass(frozen=True)
class Owed:
    """What an order owes back, before any rate or fee."""

    #: The exception it comes from: one of OWED_KINDS.
    why: str
    #: The coin's code as the service names it (lower case), and the figure in coin and fiat.
    coin: str
    coin_amount: Decimal
    fiat_amount: Decimal
    currency: str

    @property
    def words(self) -> str:
        return {
            "overpaid": "the excess",
            "paid_after_expiry": "the payment after expiry",
            "expired_with_payment": "the payment into the expired order",
            "canceled_with_payment": "the payment into the canceled order",
            "underpaid": "what was received for the underpaid order",
        }[self.why]


@dataclass(frozen=True)
class Refund:
    """A refund worked out: `record` is what the ledger keeps."""

    owed: Owed
    record: RefundRecord
    #: Before the fee, rounded down.
    before_fee: Decimal

    @property
    def text(self) -> str:
        """'0.00004268 BTC (the excess at 9205.6 USD, less a fee of 0.000001)'."""
        record, owed = self.record, self.owed
        at = {
            "payment": "at the payment's rate",
            "today": f"at today's rate {amount_text(record.rate)} {owed.currency}",
            "typed": f"at {amount_text(record.rate)} {owed.currency}",
        }[record.basis]
        fee = f", less a fee of {amount_text(record.fee)}" if record.fee else ""
        return f"{amount_text(record.amount)} {record.coin} ({owed.words} {at}{fee})"


def owed_by(order: BookOrder) -> Owed | None:
    """What `order` owes back, or None when nothing (no excess, no payment it did not keep)."""
    found = {item.kind: item for item in exceptional(order)}
    for kind in OWED_KINDS:
        item = found.get(kind)
        if item is None:
            continue
        coin, fiat = item.coin, item.fiat
        if kind == "underpaid":
            # closed short (the service's UNDERPAID: expired part-paid): the goods were not
            # bought, so what came back is everything that was received
            coin, fiat = received_by(order)
        if coin > 0 or fiat > 0:
            return Owed(kind, order.coin.lower(), coin, fiat, order.currency)
    return None


def typed_decimal(text: str, what: str) -> Decimal:
    """An amount or a rate as typed: ASCII digits and at most one point (RefundRefused with
    why, otherwise)."""
    typed = text.strip() if isinstance(text, str) else ""
    shown = clean(typed, limit=_MAX_TYPED)
    if not typed:
        raise RefundRefused(f"no {what} given: type digits, such as 0.0001")
    if len(typed) > _MAX_TYPED or not _TYPED.fullmatch(typed):
        raise RefundRefused(f"the {what} {shown!r} is not digits with at most one point")
    return Decimal(typed)


def _floor(value: Decimal, decimals: int) -> Decimal:
    with localcontext() as context:
        context.prec = max(_PRECISION, value.adjusted() + decimals + 2)
        return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_FLOOR)


def work_out(
    owed: Owed,
    basis: str,
    *,
    rate: Decimal | None = None,
    fee: Decimal = Decimal(0),
) -> Refund:
    """The refund of `owed` at `basis` ("payment", "today" or "typed"; `rate`: today's or the
    typed one, fiat units for one coin), less `fee` (coin), rounded down to the coin's smallest
    unit. RefundRefused (one line) when it cannot be worked out or would be nothing."""
    if basis not in REFUND_BASES:
        raise RefundRefused(f"a refund is at payment, today or a typed rate, not {basis!r}")
    if not fee.is_finite() or fee < 0:
        raise RefundRefused("the fee must be 0 or more")
    decimals = unit_decimals(owed.coin)
    code = clean(owed.coin.upper(), limit=12)
    if basis == "payment":
        rate = None
        amount = owed.coin_amount
    else:
        if decimals is None:
            raise RefundRefused(
                f"the smallest unit of {code} is not known here: a refund at a rate could not "
                "be rounded to what a wallet sends; refund at the payment's rate"
            )
        if rate is None or not rate.is_finite() or rate <= 0:
            what = "today's rate is not known" if basis == "today" else "no rate typed"
            raise RefundRefused(f"{what}: a refund at a rate needs one above 0")
        with localcontext() as context:
            context.prec = _PRECISION
            context.rounding = ROUND_FLOOR  # then rounded down again to the unit: never up
            amount = owed.fiat_amount / rate
    before_fee = amount if decimals is None else _floor(amount, decimals)
    with localcontext() as context:
        context.prec = _PRECISION
        left = before_fee - fee
    if decimals is not None:
        left = _floor(left, decimals)
    if left <= 0:
        raise RefundRefused(
            f"nothing to refund: {amount_text(before_fee)} {code} less the fee "
            f"{amount_text(fee)} is not above 0"
        )
    for figure, value in (("refund", left), ("rate", rate), ("fee", fee)):
        try:
            # what the ledger keeps it reads back within the service's bounds: so written
            to_money(value if value is not None else 0)
        except ValueError:
            raise RefundRefused(
                f"the {figure} is beyond the amounts the service has (10^-40 to 10^40, "
                "80 digits at most)"
            ) from None
    record = RefundRecord(coin=code, amount=left, basis=basis, rate=rate, fee=fee)
    return Refund(owed=owed, record=record, before_fee=before_fee)
