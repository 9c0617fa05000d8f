"""Rows read back from the ledger, made into records: untrusted like anything on disk (a damaged
or altered file), so every text is one bounded line, every time one the ledger writes and
every amount a finite decimal within the service's bounds (LedgerError, one line, otherwise).
The SELECTs already cut each column in SQL (`schema.py`); these read what came.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from orderdash.core.ledger import (
    MAX_SERVICE_URL,
    ChargeRecord,
    ChargeService,
    CloseRecord,
    LedgerError,
    RefundRecord,
    ResolutionRecord,
)
from orderdash.core.ledger.schema import MAX_ACCOUNT, MAX_DETAIL, MAX_OPERATOR, MAX_REASON, MAX_TILL
from orderdash.core.model.jsontext import MAX_NUMBER_TEXT
from orderdash.core.model.wire import to_money
from orderdash.core.safetext import clean

#: The fixed-width UTC form every time is stored in (text order is time order).
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def time_text(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("the ledger stores aware times only")
    return moment.astimezone(UTC).strftime(TIME_FORMAT)


def parse_time(text: Any) -> datetime:
    try:
        return datetime.strptime(str(text), TIME_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        raise LedgerError(
            f"the ledger holds a time that is not one: {clean(text, limit=40)!r}"
        ) from None


def amount_of(text: Any) -> Decimal:
    """An amount read back, within the bounds of every money value of the service
    (`wire.to_money`): a row holding 1E+999999999 would cost minutes to print in full."""
    raw = str(text)
    try:
        if len(raw) > MAX_NUMBER_TEXT:
            raise ValueError("too long")
        return to_money(raw)
    except ValueError:
        raise LedgerError(
            f"the ledger holds an amount that is not one within bounds: {clean(raw, limit=40)!r}"
        ) from None


def version_of(text: Any) -> int:
    try:
        return int(str(text))
    except ValueError:
        raise LedgerError(
            f"the ledger's schema version is not a number: {clean(text, limit=40)!r}"
        ) from None


def one_line(text: str, limit: int = MAX_DETAIL) -> str:
    return clean(" ".join(str(text).split()), limit=limit)


def charge_row(row: tuple[Any, ...]) -> ChargeRecord:
    token, amount, currency, till, started, outcome, detail, ended, url, account, sent = row
    service = None
    if url is not None:  # a charge written before the ledger kept its service has none
        service = ChargeService(
            one_line(url, MAX_SERVICE_URL), one_line(account or "", MAX_ACCOUNT)
        )
    return ChargeRecord(
        token=str(token),
        amount=amount_of(amount),
        currency=str(currency),
        till=str(till),
        started_at=parse_time(started),
        outcome=str(outcome),
        detail=str(detail),
        ended_at=parse_time(ended) if ended is not None else None,
        service=service,
        sent_at=parse_time(sent) if sent is not None else None,
    )


def close_row(row: tuple[Any, ...]) -> CloseRecord:
    till, period_from, period_until, closed_at, report, digest = row
    return CloseRecord(
        till=str(till),
        period_from=parse_time(period_from),
        period_until=parse_time(period_until),
        closed_at=parse_time(closed_at),
        report_json=str(report),
        digest=str(digest),
    )


def resolution_row(row: tuple[Any, ...]) -> ResolutionRecord:
    """A row read back: untrusted like anything on disk, so every text is one bounded line
    and every amount a finite decimal (LedgerError otherwise)."""
    ident, token, kind, reason, till, operator, at, coin, amount, basis, rate, fee = row
    refund = None
    if amount is not None:
        refund = RefundRecord(
            coin=one_line(coin or "", 12),
            amount=amount_of(amount),
            basis=one_line(basis or "", 12),
            rate=None if rate is None else amount_of(rate),
            fee=amount_of(fee if fee is not None else "0"),
        )
    return ResolutionRecord(
        id=one_line(ident, 64),
        token=one_line(token, 200),
        kind=one_line(kind, 20),
        reason=one_line(reason, MAX_REASON),
        till=one_line(till, MAX_TILL),
        operator=one_line(operator, MAX_OPERATOR),
        at=parse_time(at),
        refund=refund,
    )
