"""One order of the books, read from getOrder's `data` object (exact digits): its state for
the books (`core/domain/status.py` `state_of`), its payments, and what is exceptional about it.
Untrusted input: a member that is missing or of the wrong type leaves the order out of the sums
with a warning, never a crash.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, Inexact, localcontext
from typing import TYPE_CHECKING

from orderdash.core.domain.expiry import EPOCH_MS_FLOOR
from orderdash.core.domain.status import state_of
from orderdash.core.domain.tolerance import within_tolerance
from orderdash.core.ledger import MAX_ORDER_JSON
from orderdash.core.model import jsontext
from orderdash.core.model.errors import OrderdashError
from orderdash.core.model.jsontext import MAX_NUMBER_TEXT
from orderdash.core.model.wire import MONEY_MAX_DIGITS, MONEY_MAX_EXPONENT, to_money
from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.books.shape import ExceptionJSON, FigureName
    from orderdash.core.jsontypes import JSONValue

_MAX_TEXT = 200
#: An amount as the books write it (`format(amount, "f")`): ASCII digits, one dot at most.
DECIMAL_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?")
#: Digits a sum keeps: every amount is within 10^-(exponent + digits) .. 10^exponent (the
#: models' bounds), so a sum of up to 10^40 of them is exact with this many.
SUM_PRECISION = 2 * (MONEY_MAX_EXPONENT + MONEY_MAX_DIGITS) + 40


class BadOrder(ValueError):
    """The order's data does not have what the books need."""


class InexactSum(OrderdashError):
    """A sum of amounts would have been rounded: the books refuse rather than round."""


def exact_sum(amounts: Iterable[Decimal]) -> Decimal:
    """The exact sum of `amounts`; InexactSum (one line) where it would have been rounded."""
    total = Decimal(0)
    with localcontext() as context:
        context.prec = SUM_PRECISION
        context.traps[Inexact] = True
        try:
            for amount in amounts:
                total += amount
        except Inexact:
            raise InexactSum(
                f"a sum of amounts needs more than {SUM_PRECISION} digits: not rounded"
            ) from None
    return total


def money(value: object) -> Decimal:
    """An exact amount: a Decimal as parsed, or decimal text, within the bounds of every money
    value of the service (`wire.to_money`); never a float or a bool."""
    if value is None or (isinstance(value, str) and len(value) > MAX_NUMBER_TEXT):
        raise BadOrder("an amount is missing or not a number")
    try:
        return to_money(value)
    except ValueError as exc:
        raise BadOrder(f"amount {clean(str(value), limit=40)!r}: {exc}") from None


def text(value: object) -> str:
    """Service text as one printable line (control characters replaced), bounded."""
    return clean(value, limit=_MAX_TEXT)


def _int(value: object, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise BadOrder(f"{what} is not an integer")


@dataclass(frozen=True)
class Payment:
    order: str
    id: int
    at_ms: int
    hash: str
    coin: str
    amount: Decimal
    currency: str
    fiat: Decimal
    total: Decimal
    under_paid: Decimal
    over_paid: Decimal
    under_paid_fiat: Decimal
    over_paid_fiat: Decimal
    #: The amounts as the service wrote them (its digits): base in coin and in fiat.
    amount_text: str
    fiat_text: str


@dataclass(frozen=True)
class BookOrder:
    token: str
    id: int
    created_ms: int
    state: str
    status_code: str
    status_label: str
    company: str
    coin: str
    currency: str
    amount_fiat: Decimal
    amount: Decimal | None
    expires_ms: int | None
    payments: tuple[Payment, ...]
    amount_fiat_text: str
    amount_text: str

    @property
    def latest(self) -> Payment | None:
        return max(self.payments, key=lambda p: (p.at_ms, p.id), default=None)


def _digits(value: object) -> str:
    return format(money(value), "f")


def read_seen(token: str, text: str) -> tuple[BookOrder, JSONValue]:
    """The ledger's read of the order `token` (its JSON `text`) as the books read it, and the
    JSON it was read from; BadOrder (one line) when it cannot stand for that order: too long,
    not an order, or another order's (a row filed under another token)."""
    if len(text) > MAX_ORDER_JSON:
        raise BadOrder(f"the read is over {MAX_ORDER_JSON >> 20} MiB")
    try:
        data = jsontext.loads(text)
        order = read_order(data)
    except ValueError as exc:  # BadOrder among them
        raise BadOrder(str(exc)) from None
    if order.token != token:
        raise BadOrder("the read is another order's")
    return order, data


def read_order(data: object) -> BookOrder:
    """The books' view of one getOrder `data` object; BadOrder when it lacks what they need."""
    if not isinstance(data, dict):
        raise BadOrder("the order is not an object")
    token = data.get("token")
    if not isinstance(token, str) or not token:
        raise BadOrder("the order has no token")
    status = data.get("status")
    if not isinstance(status, dict):
        raise BadOrder("the order has no status")
    currency = data.get("currency")
    if not isinstance(currency, dict):
        raise BadOrder("the order has no currency")
    coin = text(data.get("coinBaseName") or "").upper()
    fiat_code = text(currency.get("abbreviation") or "")
    expires = data.get("expiresAt")
    expires_ms = expires if isinstance(expires, int) and expires >= EPOCH_MS_FLOOR else None
    raw_amount = data.get("amount")
    payments = []
    transactions = data.get("transactions") or []
    if not isinstance(transactions, list):
        raise BadOrder("transactions is not a list")
    for tx in transactions:
        payments.append(_payment(token, coin, fiat_code, tx))
    return BookOrder(
        token=token,
        id=_int(data.get("id"), "id"),
        created_ms=_int(data.get("createdAtMiliseconds"), "createdAtMiliseconds"),
        state=state_of(status.get("code"), status.get("label")),
        status_code=text(status.get("code")),
        status_label=text(status.get("label")),
        company=text(data.get("companyName")),
        coin=coin,
        currency=fiat_code,
        amount_fiat=money(data.get("amountFiat")),
        amount=None if raw_amount is None else money(raw_amount),
        expires_ms=expires_ms,
        payments=tuple(payments),
        amount_fiat_text=_digits(data.get("amountFiat")),
        amount_text="" if raw_amount is None else _digits(raw_amount),
    )


def _payment(token: str, coin: str, currency: str, tx: object) -> Payment:
    if not isinstance(tx, dict):
        raise BadOrder("a transaction is not an object")
    amount, fiat = tx.get("amount"), tx.get("amountFiat")
    if not isinstance(amount, dict) or not isinstance(fiat, dict):
        raise BadOrder("a transaction has no amounts")
    return Payment(
        order=token,
        id=_int(tx.get("id"), "a transaction's id"),
        at_ms=_int(tx.get("createdAtMiliseconds"), "a transaction's createdAtMiliseconds"),
        hash=text(tx.get("hash")),
        coin=coin,
        amount=money(amount.get("base")),
        currency=currency,
        fiat=money(fiat.get("base")),
        total=money(amount.get("total")),
        under_paid=money(amount.get("underPaid")),
        over_paid=money(amount.get("overPaid")),
        under_paid_fiat=money(fiat.get("underPaid")),
        over_paid_fiat=money(fiat.get("overPaid")),
        amount_text=_digits(amount.get("base")),
        fiat_text=_digits(fiat.get("base")),
    )


@dataclass(frozen=True)
class Exceptional:
    """One thing exceptional about an order (docs/books.md "Exceptions"): its kind, the name
    of its figure (shortfall, excess or received), the figure in coin and in fiat (the
    service's own digits) and when it happened (the payment that made it, epoch ms)."""

    kind: str
    figure: FigureName
    coin: Decimal
    fiat: Decimal
    at_ms: int | None


def received_by(order: BookOrder) -> tuple[Decimal, Decimal]:
    """The sum of an order's payments, in coin and in fiat (exact)."""
    return exact_sum(p.amount for p in order.payments), exact_sum(p.fiat for p in order.payments)


def exceptional(order: BookOrder, *, open_shortfall: bool = False) -> list[Exceptional]:
    """What is exceptional about one order, the one definition the close of day and the
    attention view share. `open_shortfall`: an order still in progress whose latest payment
    left a shortfall counts as underpaid too (the attention view; the close leaves it, the
    customer may still pay)."""
    found: list[Exceptional] = []
    latest = order.latest
    at = latest.at_ms if latest is not None else None

    if latest is not None and (order.state == "underpaid" or latest.under_paid < 0):
        if order.state != "expired" and (open_shortfall or order.state != "in_progress"):
            shortfall = latest.under_paid.copy_negate()
            fiat = latest.under_paid_fiat.copy_negate()
            found.append(Exceptional("underpaid", "shortfall", shortfall, fiat, at))
    if latest is not None and (order.state == "overpaid" or latest.over_paid > 0):
        found.append(Exceptional("overpaid", "excess", latest.over_paid, latest.over_paid_fiat, at))
    if order.state in ("expired", "canceled") and order.payments:
        # a canceled order takes money as an expired one does (a payment sent before the
        # customer canceled, or after): it needs a human just the same
        coin, fiat = received_by(order)
        kind = "expired_with_payment" if order.state == "expired" else "canceled_with_payment"
        found.append(Exceptional(kind, "received", coin, fiat, at))
    if order.expires_ms is not None:
        late = [p for p in order.payments if p.at_ms > order.expires_ms]
        if late:
            coin = exact_sum(p.amount for p in late)
            fiat = exact_sum(p.fiat for p in late)
            first = min(p.at_ms for p in late)
            found.append(Exceptional("paid_after_expiry", "received", coin, fiat, first))
    if order.state == "unconfirmed":
        total = latest.total if latest is not None else Decimal(0)
        fiat = exact_sum(p.fiat for p in order.payments)
        found.append(Exceptional("unconfirmed", "received", total, fiat, at))
    return found


#: States in which nothing more is to come, or the service said paid: a shortfall within the
#: payment tolerance is absorbed.
_SHORT_SETTLED = frozenset({"underpaid", "expired", "paid", "confirmed", "unconfirmed"})
#: The kinds a shortfall absorbed by the tolerance no longer is: the order is paid.
ABSORBED_KINDS = frozenset({"underpaid", "expired_with_payment"})


#: The states (the books' lower-case names) in which the service counts the order as paid.
PAID_STATES = frozenset({"unconfirmed", "paid", "confirmed", "overpaid"})


def paid_or_absorbed(order: BookOrder, tolerance: Decimal) -> bool:
    """`order` is paid: by the service's word, or short by no more than the tolerance."""
    return order.state in PAID_STATES or absorbed(order, tolerance)


def absorbed(order: BookOrder, tolerance: Decimal) -> bool:
    """`order` is paid within the payment tolerance (`tolerance`, percent): closed short, or
    paid by the service's word, by no more than that share of its fiat amount."""
    latest = order.latest
    # judged on the fiat figures, as the merchant's tolerance is
    if latest is None or latest.under_paid_fiat >= 0 or order.state not in _SHORT_SETTLED:
        return False
    return within_tolerance(latest.under_paid_fiat.copy_negate(), order.amount_fiat, tolerance)


def exceptions_of(order: BookOrder, tolerance: Decimal = Decimal(0)) -> list[ExceptionJSON]:
    """What is exceptional about one order as the close of day lists it (`exceptional`), each
    with its figure (coin and fiat, the service's own digits): shortfall, excess or what was
    received. A shortfall absorbed by the payment tolerance (`absorbed`) is none: the order
    is paid, and the close counts it apart (`sales.py`), as the attention view leaves it."""
    paid_short = absorbed(order, tolerance)
    return [
        _exception_entry(order, e)
        for e in exceptional(order)
        if not (paid_short and e.kind in ABSORBED_KINDS)
    ]


def _exception_entry(order: BookOrder, found: Exceptional) -> ExceptionJSON:
    entry: ExceptionJSON = {
        "kind": found.kind,
        "order": order.token,
        "state": order.state,
        "coin": order.coin,
        "currency": order.currency,
    }
    entry[found.figure] = {"coin": format(found.coin, "f"), "fiat": format(found.fiat, "f")}
    return entry
