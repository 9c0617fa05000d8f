"""Exports: one row per order or per payment of a period, as CSV or JSON lines.

The columns are the interface: format `EXPORT_VERSION`, named in docs/books.md "Exports" and
`export --help`, never in the rows (a spreadsheet gets the columns alone). Times are ISO-8601
with the offset of the chosen zone; every amount is the service's own digits (the decimal text
as received: exact, to be imported as text). Service text is cleaned of control characters,
and in CSV a text cell starting with = + - @ tab or CR is prefixed with ' so that no
spreadsheet runs it as a formula. A cell of a numeric column is left bare only when it is a
plain number (`-?[0-9]+(.[0-9]+)?`); anything else in it is text, and made safe as text.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import TypeAlias

from orderdash.core.books.orders import DECIMAL_TEXT, BookOrder, exact_sum, text
from orderdash.core.books.period import Period, iso

#: The export format's version: 1 had a `version` column in every row; 2 is the same columns
#: without it. A new column may be added at the end within a version; a column removed or
#: renamed, or a meaning changed, is a new version (docs/books.md "Exports").
EXPORT_VERSION = 2
TABLES = ("orders", "payments")
FORMATS = ("csv", "jsonl")

ORDER_COLUMNS: tuple[str, ...] = (
    "token",
    "id",
    "created_at",
    "state",
    "status_code",
    "status_label",
    "company",
    "currency",
    "amount_fiat",
    "coin",
    "amount",
    "expires_at",
    "payments",
    "received",
    "received_fiat",
)
PAYMENT_COLUMNS: tuple[str, ...] = (
    "order",
    "id",
    "at",
    "hash",
    "coin",
    "amount",
    "total",
    "under_paid",
    "over_paid",
    "currency",
    "fiat",
    "order_state",
    "company",
)
#: Columns holding numbers: written bare when they are plain numbers (`DECIMAL_TEXT`).
NUMERIC = frozenset(
    {
        "id",
        "amount_fiat",
        "amount",
        "payments",
        "received",
        "received_fiat",
        "total",
        "under_paid",
        "over_paid",
        "fiat",
    }
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: One row of an export: column -> its cell (text, or a count or id as a number).
Row: TypeAlias = dict[str, str | int]


def order_rows(orders: Iterable[BookOrder], period: Period) -> Iterator[Row]:
    """The orders created in `period`, oldest first."""
    for order in sorted(orders, key=lambda o: (o.created_ms, o.id, o.token)):
        if period.contains_ms(order.created_ms):
            yield order_row(order, period.local)


def order_row(order: BookOrder, local: Callable[[int], datetime]) -> Row:
    """One order's row; `local` turns epoch milliseconds into the zone's aware time."""
    return {
        "token": text(order.token),
        "id": order.id,
        "created_at": iso(local(order.created_ms)),
        "state": order.state,
        "status_code": order.status_code,
        "status_label": order.status_label,
        "company": order.company,
        "currency": order.currency,
        "amount_fiat": order.amount_fiat_text,
        "coin": order.coin,
        "amount": order.amount_text,
        "expires_at": "" if order.expires_ms is None else iso(local(order.expires_ms)),
        "payments": len(order.payments),
        "received": format(exact_sum(p.amount for p in order.payments), "f"),
        "received_fiat": format(exact_sum(p.fiat for p in order.payments), "f"),
    }


def payment_rows(orders: Iterable[BookOrder], period: Period) -> Iterator[Row]:
    """The payments made in `period` (their `createdAtMiliseconds`), oldest first."""
    found = [(p, o) for o in orders for p in o.payments if period.contains_ms(p.at_ms)]
    for payment, order in sorted(found, key=lambda po: (po[0].at_ms, po[0].id, po[0].order)):
        yield {
            "order": text(payment.order),
            "id": payment.id,
            "at": iso(period.local(payment.at_ms)),
            "hash": payment.hash,
            "coin": payment.coin,
            "amount": payment.amount_text,
            "total": format(payment.total, "f"),
            "under_paid": format(payment.under_paid, "f"),
            "over_paid": format(payment.over_paid, "f"),
            "currency": payment.currency,
            "fiat": payment.fiat_text,
            "order_state": order.state,
            "company": order.company,
        }


def safe_cell(column: str, value: object, numeric: frozenset[str] = NUMERIC) -> str:
    """One CSV cell: plain numbers as they are, text that a spreadsheet would run prefixed
    with ' (in any column: a `numeric` column's cell that is not a plain number is text)."""
    text = str(value)
    if column in numeric and DECIMAL_TEXT.fullmatch(text):
        return text
    if text.startswith(_FORMULA_START):
        return "'" + text
    return text


def write_csv(
    rows: Iterable[Mapping[str, object]],
    columns: Sequence[str],
    numeric: frozenset[str] = NUMERIC,
) -> Iterator[str]:
    """CSV text, a header line then one line per row (CRLF, as RFC 4180 says); `numeric`: the
    columns whose plain numbers are written bare."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(columns)
    yield buffer.getvalue()
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow([safe_cell(c, row[c], numeric) for c in columns])
        yield buffer.getvalue()


def write_jsonl(rows: Iterable[Mapping[str, object]]) -> Iterator[str]:
    """One JSON object a line, ASCII (no control character survives)."""
    for row in rows:
        yield json.dumps(row, ensure_ascii=True, separators=(",", ":")) + "\n"


def export_lines(
    orders: Sequence[BookOrder], period: Period, *, table: str, fmt: str
) -> Iterator[str]:
    if table == "orders":
        rows, columns = order_rows(orders, period), ORDER_COLUMNS
    else:
        rows, columns = payment_rows(orders, period), PAYMENT_COLUMNS
    return write_csv(rows, columns) if fmt == "csv" else write_jsonl(rows)
