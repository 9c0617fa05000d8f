"""The settlement (`core/books/settlement.py`, `koinly.py`): over generated days its payment
rows sum to the close's `received` and its adjustment rows to its `difference`, exactly, per
currency, read back from the CSV text as a spreadsheet gets it; its header ties it to a close
or says there is none; a cell cannot become a formula; Koinly's layout is the published one,
column by column, each row's cells what the payment says."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_books_sales import CI, PERIOD, order, orders, resolutions_for

from orderdash.core.books.export import safe_cell
from orderdash.core.books.koinly import KOINLY_COLUMNS, KOINLY_INCOME, koinly_lines
from orderdash.core.books.orders import BookOrder
from orderdash.core.books.report import build_report
from orderdash.core.books.resolve import ACCEPTED_REASON
from orderdash.core.books.sales import BooksDoNotAddUp, PartEntry, part_entries
from orderdash.core.books.settlement import (
    NO_CLOSE,
    SETTLEMENT_COLUMNS,
    Settlement,
    check_sums,
    header,
    settlement_lines,
    settlement_rows,
)
from orderdash.core.books.shape import CloseReport
from orderdash.core.ledger import RESOLUTION_KINDS, ResolutionRecord

#: Koinly's universal template, its columns in their order, as its help pages publish it:
#: https://support.koinly.io/en/articles/9489976-how-to-create-a-custom-csv-file-with-your-data
PUBLISHED_UNIVERSAL = (
    "Date",
    "Sent Amount",
    "Sent Currency",
    "Received Amount",
    "Received Currency",
    "Fee Amount",
    "Fee Currency",
    "Net Worth Amount",
    "Net Worth Currency",
    "Label",
    "Description",
    "TxHash",
)
CLOSED_AT = datetime(2026, 11, 29, tzinfo=UTC)


def settle(
    made: list[BookOrder], resolutions: list[ResolutionRecord], tolerance: Decimal
) -> tuple[CloseReport, list[dict[str, str | int]]]:
    report = build_report(
        made,
        PERIOD,
        till="*",
        closed_at=CLOSED_AT,
        resolutions=resolutions,
        currency="EUR",
        tolerance=tolerance,
    )
    entries = part_entries(made, PERIOD, tolerance=tolerance, resolutions=resolutions)
    return report, settlement_rows(report, made, entries, PERIOD, resolutions)


def csv_sums(text: str) -> dict[tuple[str, str], Decimal]:
    sums: dict[tuple[str, str], Decimal] = {}
    for row in csv.DictReader(io.StringIO(text, newline="")):
        key = (row["row"], row["currency"])
        sums[key] = sums.get(key, Decimal(0)) + Decimal(row["fiat"])
    return sums


@CI
@given(
    made=orders(),
    kinds=st.lists(st.sampled_from(("", *RESOLUTION_KINDS)), max_size=12),
    tolerance=st.sampled_from((Decimal(0), Decimal("0.5"), Decimal(5))),
)
def test_the_rows_sum_to_received_and_the_difference_on_every_generated_day(
    made: list[BookOrder], kinds: list[str], tolerance: Decimal
) -> None:
    resolutions = resolutions_for(made, kinds)
    report, rows = settle(made, resolutions, tolerance)
    sums = csv_sums("".join(settlement_lines(Settlement(rows, {}), "csv")))
    for unit, stated in report["received"]["fiat"].items():
        assert sums.get(("payment", unit), Decimal(0)) == Decimal(stated["amount"])
    for unit, row in report["sales"]["fiat"].items():
        assert sums.get(("adjustment", unit), Decimal(0)) == Decimal(row["difference"])
        for part, entry in row["parts"].items():  # each part is its rows summed
            mine = [Decimal(str(r["fiat"])) for r in rows if r["part"] == part
                    and r["currency"] == unit]  # fmt: skip
            assert sum(mine, Decimal(0)) == Decimal(entry["amount"])
    paid = [(r["order"], r["payment"]) for r in rows if r["row"] == "payment"]
    assert paid == [(p["order"], p["id"]) for p in report["payments"]]
    assert all(tuple(r) == SETTLEMENT_COLUMNS for r in rows)


def test_rows_that_would_not_sum_to_the_close_are_refused() -> None:
    made = [order("a", "underpaid", "30.00", ("29.86", "-0.14", "0"))]
    report, rows = settle(made, [], Decimal(0))
    assert [r["part"] for r in rows] == ["received", "closed_short"]
    with pytest.raises(BooksDoNotAddUp):
        check_sums(rows[:1], report)  # the shortfall's row gone
    entries = {"EUR": [PartEntry("closed_short", "a", Decimal("0.13"))]}
    with pytest.raises(BooksDoNotAddUp):
        settlement_rows(report, made, entries, PERIOD)  # a share that is not the close's


def test_the_header_names_the_close_or_says_there_is_none() -> None:
    made = [order("a", "paid", "22.00", ("11.00", "-11.00", "0"), ("10.97", "0", "0"))]
    report, rows = settle(made, [], Decimal(0))
    alone = header(report, None)
    assert alone["close"] == NO_CLOSE and alone["agrees"] is None
    assert alone["received"] == {"EUR": "21.97"} and alone["difference"] == {"EUR": "0.03"}
    assert alone["period"]["zone"] == "Europe/Berlin" and alone["till"] == "*"  # type: ignore[index]
    tied = header(report, report)
    assert tied["close"] == report["digest"] and tied["agrees"] is True
    # a close made before the second payment came: the rows sum to the books now, not to it
    first_only = dataclasses.replace(made[0], payments=made[0].payments[:1])
    earlier, _ = settle([first_only], [], Decimal(0))
    moved = header(report, earlier)
    assert moved["close"] == earlier["digest"] and moved["agrees"] is False
    first = next(settlement_lines(Settlement(rows, tied), "jsonl"))
    assert json.loads(first) == tied


def test_an_order_accepted_at_the_counter_is_named_so() -> None:
    made = [
        order("c", "in_progress", "30.00", ("10.00", "-20.00", "0")),
        order("d", "underpaid", "30.00", ("29.00", "-1.00", "0")),
    ]
    at = datetime(2026, 11, 28, 12, tzinfo=UTC)
    resolutions = [
        ResolutionRecord("r1", "c", "written-off", ACCEPTED_REASON, "front", "anna", at),
        ResolutionRecord("r2", "d", "written-off", "lost", "front", "anna", at),
    ]
    _, rows = settle(made, resolutions, Decimal(0))
    notes = {r["order"]: (r["part"], r["note"]) for r in rows if r["row"] == "adjustment"}
    assert notes == {
        "c": ("written_off", ACCEPTED_REASON),
        "d": ("written_off", "written off"),
    }


def test_no_cell_becomes_a_formula() -> None:
    hostile = order("=cmd|'/c calc'!A1", "overpaid", "10.00", ("12.00", "0", "2.00"))
    pays = tuple(dataclasses.replace(p, hash="@SUM(A1)") for p in hostile.payments)
    _, rows = settle([dataclasses.replace(hostile, payments=pays)], [], Decimal(0))
    text = "".join(settlement_lines(Settlement(rows, {}), "csv"))
    cells = [cell for line in csv.reader(io.StringIO(text, newline="")) for cell in line]
    assert "'=cmd|'/c calc'!A1" in cells and "'@SUM(A1)" in cells
    assert "-2.00" in cells  # a negative plain number stays a number
    assert not [c for c in cells if c[:1] in ("=", "+", "@")]
    koinly = "".join(koinly_lines(rows))
    cells = [cell for line in csv.reader(io.StringIO(koinly, newline="")) for cell in line]
    assert "'@SUM(A1)" in cells and not [c for c in cells if c[:1] in ("=", "+", "@")]
    assert safe_cell("Net Worth Amount", "-1") == "'-1"  # the exports' rule: text unless numeric


def test_the_koinly_profile_is_the_published_universal_layout() -> None:
    made = [
        order("tok-1", "paid", "22.00", ("11.00", "-11.00", "0"), ("10.97", "0", "0")),
        order("tok-2", "expired", "5.00"),
    ]
    _, rows = settle(made, [], Decimal(0))
    table = list(csv.reader(io.StringIO("".join(koinly_lines(rows)), newline="")))
    assert len(KOINLY_COLUMNS) == len(PUBLISHED_UNIVERSAL)
    for index, name in enumerate(PUBLISHED_UNIVERSAL):
        assert KOINLY_COLUMNS[index] == name and table[0][index] == name
    # one income row per payment: none for an adjustment
    payments = made[0].payments
    assert len(table) == 1 + len(payments)
    for cells, payment in zip(table[1:], payments, strict=True):
        at = datetime.fromtimestamp(payment.at_ms / 1000, tz=UTC)
        assert dict(zip(PUBLISHED_UNIVERSAL, cells, strict=True)) == {
            "Date": at.strftime("%Y-%m-%d %H:%M UTC"),
            "Sent Amount": "",
            "Sent Currency": "",
            "Received Amount": payment.amount_text,
            "Received Currency": payment.coin,
            "Fee Amount": "",
            "Fee Currency": "",
            "Net Worth Amount": payment.fiat_text,
            "Net Worth Currency": payment.currency,
            "Label": KOINLY_INCOME,
            "Description": "order tok-1",
            "TxHash": payment.hash,
        }
