"""The settlement: a period's close as rows an accountant can sum (docs/books.md "Exports").

One row per payment the close counts in `received` (the report's own `payments`, with the
transaction's hash), and one row per order's share of each part of the difference (`sales.py`
`part_entries`: the same sharing out the close's `sales` sums), each with its fiat figure. So,
per fiat currency, the payment rows' `fiat` sum to the close's `received` and the adjustment
rows' to its `difference`, exactly: `settlement_rows` checks both before a row is written, and a
settlement that would not add up is an error, never written.

The file is tied to its close by a header (the first JSON line; for CSV, a side file): the
period, the till, the digest of the close of exactly that period and till in the ledger (or
"no close"), whether that close counts the same figures, and the totals the rows sum to.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TypeAlias

from orderdash.core.books.export import write_csv, write_jsonl
from orderdash.core.books.orders import BookOrder, exact_sum, text
from orderdash.core.books.period import Period, iso
from orderdash.core.books.resolve import ACCEPTED_REASON
from orderdash.core.books.sales import PART_WORDS, BooksDoNotAddUp, PartEntry, currencies
from orderdash.core.books.shape import CloseReport
from orderdash.core.ledger import ResolutionRecord

#: The settlement's own format version (its header says it; the other tables' rows keep
#: `export.EXPORT_VERSION`). A column added at the end keeps it; anything else is a new one.
SETTLEMENT_VERSION = 1
SETTLEMENT_COLUMNS: tuple[str, ...] = (
    "row",
    "part",
    "at",
    "order",
    "payment",
    "coin",
    "amount",
    "currency",
    "fiat",
    "hash",
    "note",
)
SETTLEMENT_NUMERIC = frozenset({"payment", "amount", "fiat"})
#: What the header says where the ledger holds no close of the period and till.
NO_CLOSE = "no close"
#: A payment row's part: it is part of what was received.
RECEIVED = "received"

#: One row of the settlement: column -> its cell.
SettlementRow: TypeAlias = dict[str, str | int]
#: The header: the close it belongs to and the totals its rows sum to.
Header: TypeAlias = dict[str, object]


@dataclass(frozen=True)
class Settlement:
    """The rows (payments first, then the adjustments) and the header that ties them to a
    close."""

    rows: list[SettlementRow]
    header: Header


def settlement_rows(
    report: CloseReport,
    orders: Sequence[BookOrder],
    entries: Mapping[str, Sequence[PartEntry]],
    period: Period,
    resolutions: Sequence[ResolutionRecord] = (),
) -> list[SettlementRow]:
    """The rows of `report` (built from `orders`; `entries` the shares of its difference,
    `sales.part_entries` of the same orders): each payment of `received`, then each non-zero
    share of a part, per currency (the till's first), in the parts' order. BooksDoNotAddUp
    unless they sum to the report's received and difference exactly."""
    found = {(p.order, p.id): p.hash for o in orders for p in o.payments}
    by_token = {o.token: o for o in orders}
    accepted = _accepted(resolutions)
    rows: list[SettlementRow] = []
    for payment in report["payments"]:
        rows.append(
            {
                "row": "payment",
                "part": RECEIVED,
                "at": payment["at"],
                "order": text(payment["order"]),
                "payment": payment["id"],
                "coin": payment["coin"],
                "amount": payment["amount"],
                "currency": payment["currency"],
                "fiat": payment["fiat"],
                "hash": found.get((payment["order"], payment["id"]), ""),
                "note": "",
            }
        )
    sales = report.get("sales")
    units = currencies(sales) if sales is not None else []
    for unit in units:
        for part in PART_WORDS:  # the parts in the report's own order
            for entry in entries.get(unit, ()):
                if entry.part != part or entry.amount == 0:
                    continue
                order = by_token[entry.order]
                note = PART_WORDS[part]
                if part == "written_off" and entry.order in accepted:
                    note = ACCEPTED_REASON
                rows.append(
                    {
                        "row": "adjustment",
                        "part": part,
                        "at": iso(period.local(order.created_ms)),
                        "order": text(entry.order),
                        "payment": "",
                        "coin": order.coin,
                        "amount": "",
                        "currency": unit,
                        "fiat": format(entry.amount, "f"),
                        "hash": "",
                        "note": note,
                    }
                )
    check_sums(rows, report)
    return rows


def _accepted(resolutions: Iterable[ResolutionRecord]) -> set[str]:
    """The orders whose latest resolution is their acceptance as paid at the counter."""
    latest = {r.token: r for r in resolutions}
    return {
        token
        for token, r in latest.items()
        if r.kind == "written-off" and r.reason == ACCEPTED_REASON
    }


def totals(rows: Iterable[Mapping[str, object]]) -> dict[str, dict[str, Decimal]]:
    """Per kind of row ("payment", "adjustment") and fiat currency: the exact sum of `fiat`."""
    sums: dict[str, dict[str, list[Decimal]]] = {}
    for row in rows:
        by_unit = sums.setdefault(str(row["row"]), {})
        by_unit.setdefault(str(row["currency"]), []).append(Decimal(str(row["fiat"])))
    return {
        kind: {unit: exact_sum(amounts) for unit, amounts in by_unit.items()}
        for kind, by_unit in sums.items()
    }


def check_sums(rows: Sequence[Mapping[str, object]], report: CloseReport) -> None:
    """BooksDoNotAddUp unless, per fiat currency, the payment rows sum to the report's
    `received` and the adjustment rows to its `difference` (a currency without rows: 0)."""
    summed = totals(rows)
    received = {u: Decimal(s["amount"]) for u, s in report["received"]["fiat"].items()}
    sales = report.get("sales")
    difference = {u: Decimal(r["difference"]) for u, r in sales["fiat"].items()} if sales else {}
    for kind, expected in (("payment", received), ("adjustment", difference)):
        got = summed.get(kind, {})
        for unit in set(got) | set(expected):
            if got.get(unit, Decimal(0)) != expected.get(unit, Decimal(0)):
                raise BooksDoNotAddUp(
                    f"the settlement's {text(unit)[:12]} {kind} rows do not sum to the close: "
                    "not written"
                )


def header(report: CloseReport, closed: CloseReport | None) -> Header:
    """The settlement's header: `closed` the close of exactly the report's period and till in
    the ledger (None: "no close"); `agrees` whether it counts the same payments and figures as
    the rows (None without a close); the totals the rows sum to, per fiat currency."""
    sales = report.get("sales")
    difference = {} if sales is None else {u: r["difference"] for u, r in sales["fiat"].items()}
    agrees: bool | None = None
    if closed is not None:
        closed_sales = closed.get("sales")
        agrees = (
            closed["payments"] == report["payments"]
            and closed["received"] == report["received"]
            and closed_sales is not None
            and sales is not None
            and closed_sales["fiat"] == sales["fiat"]
        )
    return {
        "row": "settlement",
        "version": SETTLEMENT_VERSION,
        "period": dict(report["period"]),
        "till": report["till"],
        "close": NO_CLOSE if closed is None else closed["digest"],
        "agrees": agrees,
        "received": {u: s["amount"] for u, s in report["received"]["fiat"].items()},
        "difference": difference,
    }


def header_line(head: Header) -> str:
    """The header as one JSON line (the JSONL's first line; the CSV's side file)."""
    return next(write_jsonl([head]))


def settlement_lines(settlement: Settlement, fmt: str) -> Iterator[str]:
    """CSV (a header line of column names, then the rows) or JSON lines (the settlement's
    header first, then one object per row)."""
    if fmt == "csv":
        return write_csv(settlement.rows, SETTLEMENT_COLUMNS, SETTLEMENT_NUMERIC)
    return write_jsonl([settlement.header, *settlement.rows])
