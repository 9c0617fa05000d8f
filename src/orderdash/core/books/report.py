"""The close report (a "Z report"): built from the orders read, canonical JSON, its digest.

The keys are the interface (docs/books.md "Close of day", `REPORT_VERSION`). Every amount is
exact decimal text; the digest is the SHA-256 of the canonical JSON of the report without
`digest` (sorted keys, no spaces, ASCII). A close never changes once saved: the earlier closes'
reports are read back to find the payments that came after them (`adjustments`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from orderdash.core.books.orders import STATES, BookOrder, Payment, exceptions_of
from orderdash.core.books.period import Period, iso

REPORT_VERSION = 1


@dataclass(frozen=True)
class EarlierClose:
    """What an earlier close of the same till counted: its period and payments."""

    start_ms: int
    end_ms: int
    period: dict[str, str]
    #: (order token, payment id) counted in its `received` or listed in its `adjustments`.
    counted: frozenset[tuple[str, int]]

    @classmethod
    def from_report(cls, report: dict[str, Any]) -> EarlierClose:
        period = report["period"]
        counted = {(p["order"], p["id"]) for p in report.get("payments", [])}
        counted |= {(a["order"], a["id"]) for a in report.get("adjustments", [])}
        return cls(
            int(datetime.fromisoformat(period["from"]).timestamp() * 1000),
            int(datetime.fromisoformat(period["until"]).timestamp() * 1000),
            {"from": period["from"], "until": period["until"]},
            frozenset(counted),
        )


def canonical(report: dict[str, Any]) -> str:
    """The canonical JSON text of `report` without its `digest`."""
    body = {key: value for key, value in report.items() if key != "digest"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def digest_of(report: dict[str, Any]) -> str:
    return hashlib.sha256(canonical(report).encode("ascii")).hexdigest()


def _sums(payments: Iterable[Payment]) -> dict[str, dict[str, dict[str, Any]]]:
    coins: dict[str, list[Any]] = {}
    fiat: dict[str, list[Any]] = {}
    for payment in payments:
        for table, unit, amount in (
            (coins, payment.coin, payment.amount),
            (fiat, payment.currency, payment.fiat),
        ):
            row = table.setdefault(unit, [Decimal(0), 0])
            row[0] += amount
            row[1] += 1
    return {
        "coins": {k: {"amount": format(v[0], "f"), "payments": v[1]} for k, v in coins.items()},
        "fiat": {k: {"amount": format(v[0], "f"), "payments": v[1]} for k, v in fiat.items()},
    }


def _payment_entry(payment: Payment, period: Period) -> dict[str, Any]:
    return {
        "order": payment.order,
        "id": payment.id,
        "at": iso(period.local(payment.at_ms)),
        "coin": payment.coin,
        "amount": payment.amount_text,
        "currency": payment.currency,
        "fiat": payment.fiat_text,
    }


def build_report(
    orders: Sequence[BookOrder],
    period: Period,
    *,
    till: str,
    closed_at: datetime,
    earlier: Sequence[EarlierClose] = (),
    warnings: Sequence[str] = (),
) -> dict[str, Any]:
    """The close of `period` from `orders` (those created in it and in the look-back before
    it), its digest included."""
    of_period = [o for o in orders if period.contains_ms(o.created_ms)]
    counts = dict.fromkeys(STATES, 0)
    for order in of_period:
        counts[order.state] += 1
    received = [p for o in orders for p in o.payments if period.contains_ms(p.at_ms)]
    received.sort(key=lambda p: (p.at_ms, p.id, p.order))
    exceptions = [e for o in sorted(of_period, key=_when) for e in exceptions_of(o)]
    report: dict[str, Any] = {
        "version": REPORT_VERSION,
        "period": {
            "from": iso(period.start),
            "until": iso(period.end),
            "zone": str(period.zone),
        },
        "till": till,
        "closed_at": iso(closed_at.astimezone(period.zone)),
        "orders": {"total": len(of_period), "by_state": counts},
        "received": _sums(received),
        "exceptions": exceptions,
        "adjustments": _adjustments(orders, period, earlier),
        "payments": [_payment_entry(p, period) for p in received],
        "warnings": list(warnings),
    }
    report["digest"] = digest_of(report)
    return report


def _when(order: BookOrder) -> tuple[int, int, str]:
    return (order.created_ms, order.id, order.token)


def _adjustments(
    orders: Sequence[BookOrder], period: Period, earlier: Sequence[EarlierClose]
) -> list[dict[str, Any]]:
    """Payments to an order of an earlier close that this close is the first to see: made in
    this period, or made within an earlier closed period but after its close (counted by no
    close so far). Each names the close that covered its order."""
    found: list[dict[str, Any]] = []
    closes = [c for c in earlier if c.end_ms <= period.start_ms]
    if not closes:
        return found
    counted = frozenset().union(*(c.counted for c in closes))
    for order in sorted(orders, key=_when):
        covering = next((c for c in closes if c.start_ms <= order.created_ms < c.end_ms), None)
        if covering is None:
            continue
        for payment in sorted(order.payments, key=lambda p: (p.at_ms, p.id)):
            if (payment.order, payment.id) in counted:
                continue
            in_closed = any(c.start_ms <= payment.at_ms < c.end_ms for c in closes)
            if period.contains_ms(payment.at_ms) or in_closed:
                entry = _payment_entry(payment, period)
                entry["closed_period"] = covering.period
                found.append(entry)
    return found


def summary_rows(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(kind, unit, amount and count) rows of the received sums: the human table's lines."""
    rows = []
    for kind in ("coins", "fiat"):
        for unit, row in sorted(report["received"][kind].items()):
            rows.append((kind, unit, f"{row['amount']} ({row['payments']} payments)"))
    return rows
