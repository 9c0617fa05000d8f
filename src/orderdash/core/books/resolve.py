"""A resolution: a person's word on an order that needed one (settled, refunded, written off,
the customer asked), with the reason, the till, who, when, and the refund worked out
(`core/books/refund.py`). Written to the ledger once (its id is made once, here); nothing is
sent to the service, which has no endpoint for it. The command (`orderdash resolve`) and the
dashboard's dialog (`R`) both make it here and say it in the same line.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime, tzinfo
from decimal import Decimal

from orderdash.core.books.refund import RefundRefused, typed_decimal
from orderdash.core.domain.text import amount_text
from orderdash.core.ledger import REFUND_BASES, RESOLUTION_KINDS, RefundRecord, ResolutionRecord
from orderdash.core.ledger.schema import MAX_OPERATOR, MAX_REASON
from orderdash.core.model.errors import UsageError
from orderdash.core.safetext import clean

#: Each kind in a few words, for a person.
KIND_WORDS = {
    "settled": "settled",
    "refunded": "refunded",
    "written-off": "written off",
    "asked-customer": "customer asked",
}


#: The reason an order accepted as paid at the counter is written off with (the point of
#: sale's `a`): what tells such a write-off from others, when the ledger is read again.
ACCEPTED_REASON = "accepted at the counter"


def accepted_at_counter(records: Iterable[ResolutionRecord]) -> set[str]:
    """The tokens whose latest resolution (`records` oldest first, as the ledger reads them) is
    an acceptance at the counter: shown paid, whichever process or start accepted them."""
    latest: dict[str, ResolutionRecord] = {}
    for record in records:
        latest[record.token] = record
    return {
        token
        for token, record in latest.items()
        if record.kind == "written-off" and record.reason == ACCEPTED_REASON
    }


def check_kind(kind: str) -> str:
    if kind not in RESOLUTION_KINDS:
        raise UsageError(
            f"a resolution is {', '.join(RESOLUTION_KINDS)}, not {clean(kind, limit=20)!r}"
        )
    return kind


#: Letters or digits a reason holds at least: one that says nothing (only control or
#: invisible characters, which cleaning turns into U+FFFD, or "ok") is no reason.
MIN_REASON_WORDS = 3


def clean_reason(text: str) -> str:
    """The reason as one line of printable text: required, with at least MIN_REASON_WORDS
    letters or digits, at most MAX_REASON characters (UsageError otherwise: a reason is never
    cut without saying). The command and the dashboard's dialog both check it here."""
    line = clean(" ".join(str(text).split()))
    if not line:
        raise UsageError("a resolution needs a reason: say why, in a few words")
    if len(line) > MAX_REASON:
        raise UsageError(f"the reason is {len(line)} characters: at most {MAX_REASON}")
    if sum(ch.isalnum() for ch in line) < MIN_REASON_WORDS:
        raise UsageError(
            f"a resolution needs a reason of at least {MIN_REASON_WORDS} letters or digits: "
            "say why, in a few words"
        )
    return line


def refund_basis(text: str) -> tuple[str, Decimal | None]:
    """`--refund-at`: "payment", "today", or a typed rate (fiat units for one coin)."""
    if text in REFUND_BASES and text != "typed":
        return text, None
    rate = typed_decimal(text, "rate")
    if rate <= 0:
        raise RefundRefused("the rate must be above 0")
    return "typed", rate


def new_resolution(
    token: str,
    kind: str,
    reason: str,
    *,
    till: str,
    operator: str,
    refund: RefundRecord | None = None,
    now: datetime | None = None,
) -> ResolutionRecord:
    """The resolution to write, its id made now, once: a retry of the write reuses it."""
    return ResolutionRecord(
        id=uuid.uuid4().hex,
        token=token,
        kind=check_kind(kind),
        reason=clean_reason(reason),
        till=till,
        operator=clean(operator, limit=MAX_OPERATOR),
        at=now or datetime.now(UTC),
        refund=refund,
    )


def refund_words(refund: RefundRecord | None) -> str:
    """'0.00004268 BTC at 9205.6, fee 0.000001' (what the ledger keeps of a refund)."""
    if refund is None:
        return ""
    at = {"payment": "at the payment's rate", "today": "at today's rate", "typed": "at"}
    rate = f" {amount_text(refund.rate)}" if refund.rate is not None else ""
    words = at.get(refund.basis, clean(refund.basis, limit=12))
    fee = f", fee {amount_text(refund.fee)}" if refund.fee else ""
    return f"{amount_text(refund.amount)} {clean(refund.coin, limit=12)} {words}{rate}{fee}"


def resolution_line(record: ResolutionRecord, zone: tzinfo | None = None) -> str:
    """One line: 'order abc resolved: refunded (0.00004268 BTC at the payment's rate), by anna
    at till front, 2026-11-27 10:02: the customer asked for it back'."""
    when = record.at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    refund = refund_words(record.refund)
    kind = KIND_WORDS.get(record.kind, clean(record.kind, limit=20))
    what = f"{kind} ({refund})" if refund else kind
    return (
        f"order {clean(record.token, limit=60)} resolved: {what}, by {clean(record.operator)} "
        f"at till {clean(record.till, limit=64)}, {when}: {clean(record.reason, limit=300)}"
    )
