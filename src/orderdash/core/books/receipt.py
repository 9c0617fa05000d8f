"""A receipt for a paid order, from the ledger alone (docs/receipts.md): the newest read of the
order (`orders_seen`, the service's exact digits), its resolutions and its charge. Nothing is
asked of the service.

An order has a receipt when the service says it is paid (paid, confirmed, paid / unconfirmed,
overpaid), when its shortfall is within the payment tolerance (`orders.absorbed`), or when its
latest resolution accepts it (accepted at the counter, settled). Its time is the sale's, not the
printing's: the latest payment's (the resolution's for an order accepted with no payment), so
that the same order always gives the same receipt.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.books.orders import (
    BadOrder,
    BookOrder,
    absorbed,
    paid_or_absorbed,
    read_seen,
    text,
)
from orderdash.core.books.resolve import ACCEPTED_REASON
from orderdash.core.model.errors import NotFound, UsageError
from orderdash.core.safetext import clean
from orderdash.core.service.tokens import MAX_TOKEN_LENGTH

if TYPE_CHECKING:
    from orderdash.core.ledger import ResolutionRecord, SeenOrder

#: The resolutions that make an order paid for a receipt: the person took the money as enough.
_PAID_KINDS = frozenset({"settled"})
#: The catalogue's key of each resolution kind's line.
RESOLUTION_KEYS = {
    "settled": "receipt_settled",
    "refunded": "receipt_refunded",
    "written-off": "receipt_written_off",
    "asked-customer": "receipt_asked_customer",
}
_MAX_NAME = 60
#: A sale's time is within these epoch milliseconds (1970 to 9998): a time the service sends
#: beyond them is no date a receipt can show in any zone.
_SALE_MS = range(0, int(datetime(9999, 1, 1, tzinfo=UTC).timestamp() * 1000))


class NoReceipt(UsageError):
    """The order is known but has no receipt: it is not paid."""


class UnknownOrder(NotFound):
    """The ledger has no read of the order: nothing to make a receipt from."""


@dataclass(frozen=True)
class ReceiptPayment:
    coin: str
    #: The service's digits, never rounded.
    amount: str
    fiat: str
    hash: str


@dataclass(frozen=True)
class ReceiptResolution:
    #: A key of RESOLUTION_KEYS, or "accepted" (accepted as paid at the counter).
    kind: str
    reason: str


@dataclass(frozen=True)
class Receipt:
    """What a receipt says, in no language yet (`receipt_text.py` lays it out)."""

    shop: str
    till: str
    #: When the sale was made (aware, UTC), shown in the store's zone.
    sold_at: datetime
    amount_fiat: str
    currency: str
    coin: str
    payments: tuple[ReceiptPayment, ...]
    #: The order's rate (fiat for one coin), the service's digits; "" when it sent none.
    rate: str
    #: A shortfall the tolerance absorbed, and an excess, in fiat and coin ("" when none).
    absorbed_fiat: str
    absorbed_coin: str
    excess_fiat: str
    excess_coin: str
    token: str
    resolution: ReceiptResolution | None


def _rate_of(data: object) -> str:
    """The order's `exchangeRate` as exact text, or "" (the rate is shown, never computed)."""
    if not isinstance(data, dict):
        return ""
    rate = data.get("exchangeRate")
    if isinstance(rate, bool) or not isinstance(rate, (int, Decimal, str)):
        return ""
    try:
        value = Decimal(rate)
    except ArithmeticError:
        return ""
    return format(value, "f") if value.is_finite() and value > 0 else ""


def _paid(order: BookOrder, latest: ResolutionRecord | None, tolerance: Decimal) -> bool:
    if latest is not None and (
        latest.kind in _PAID_KINDS
        or (latest.kind == "written-off" and latest.reason == ACCEPTED_REASON)
    ):
        return True
    if not order.payments:
        return False
    return paid_or_absorbed(order, tolerance)


def receipt_of(
    seen: SeenOrder | None,
    resolutions: list[ResolutionRecord],
    *,
    shop: str,
    till: str,
    tolerance: Decimal,
    token: str,
) -> Receipt:
    """The receipt of the order the ledger read (`seen`; None: never read): UnknownOrder when
    the ledger has no read of it, NoReceipt (one line) when it is not paid. `resolutions`:
    the order's, oldest first; `shop`: the shop's name ("": the order's company)."""
    shown = clean(token, limit=60)
    if seen is None:
        raise UnknownOrder(f"order {shown}: the ledger has no read of it (open it first)")
    try:
        # a row filed under another order's token is refused too: that order's figures are not
        # this receipt, and its claim would be left sending under a token no print of this ends
        order, data = read_seen(seen.token, seen.order_json)
    except BadOrder as exc:
        raise NoReceipt(f"order {shown}: the ledger's read of it is unusable: {exc}") from None
    mine = [r for r in resolutions if r.token == order.token]
    latest = mine[-1] if mine else None
    if not _paid(order, latest, tolerance):
        raise NoReceipt(f"order {shown} is not paid ({order.state}): no receipt")
    last = order.latest
    if last is not None:
        if last.at_ms not in _SALE_MS:
            raise NoReceipt(f"order {shown}: its payment's time is not a date: no receipt")
        sold_at = datetime.fromtimestamp(last.at_ms / 1000, UTC)
    else:
        assert latest is not None  # paid with no payment: accepted by a resolution
        sold_at = latest.at
    absorbed_fiat = absorbed_coin = excess_fiat = excess_coin = ""
    if last is not None:
        if last.under_paid_fiat < 0 and absorbed(order, tolerance):
            absorbed_fiat = format(last.under_paid_fiat.copy_negate(), "f")
            absorbed_coin = format(last.under_paid.copy_negate(), "f")
        if last.over_paid_fiat > 0 or last.over_paid > 0:
            excess_fiat = format(last.over_paid_fiat, "f")
            excess_coin = format(last.over_paid, "f")
    resolution = None
    if latest is not None:
        accepted = latest.kind == "written-off" and latest.reason == ACCEPTED_REASON
        resolution = ReceiptResolution(
            "accepted" if accepted else latest.kind, "" if accepted else text(latest.reason)
        )
    return Receipt(
        shop=clean(shop, limit=_MAX_NAME) or clean(order.company, limit=_MAX_NAME),
        till=clean(till, limit=64),
        sold_at=sold_at,
        amount_fiat=order.amount_fiat_text,
        currency=order.currency,
        coin=order.coin,
        payments=tuple(
            ReceiptPayment(p.coin, p.amount_text, p.fiat_text, p.hash)
            for p in sorted(order.payments, key=lambda p: (p.at_ms, p.id))
        ),
        rate=_rate_of(data),
        absorbed_fiat=absorbed_fiat,
        absorbed_coin=absorbed_coin,
        excess_fiat=excess_fiat,
        excess_coin=excess_coin,
        token=clean(order.token, limit=MAX_TOKEN_LENGTH),
        resolution=resolution,
    )


def local_time(moment: datetime, zone: tzinfo | None) -> str:
    """`moment` in the store's zone (None: this machine's), to the minute, with its offset."""
    shown = moment.astimezone(zone) if zone is not None else moment.astimezone()
    return shown.strftime("%Y-%m-%d %H:%M %z")
