"""The exports: a period's orders or payments as CSV or JSON lines (`orderdash export`), the
settlement of a period and till (its close's figures as rows that sum to it, tied to the close
by its digest; or Koinly's layout), and the watch list's rows as shown to a new CSV file (the
dashboard's `e`). The columns are the books' (`core/books/export.py`, `settlement.py`,
`koinly.py`, docs/books.md "Exports"), their cells spreadsheet-safe."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING

from orderdash.core.books.close import Prepared, prepare_close
from orderdash.core.books.export import ORDER_COLUMNS, export_lines, order_row, write_csv
from orderdash.core.books.frozen import find_frozen
from orderdash.core.books.koinly import koinly_lines
from orderdash.core.books.orders import BadOrder, read_order, text
from orderdash.core.books.sales import part_entries
from orderdash.core.books.settlement import (
    Header,
    Settlement,
    header,
    header_line,
    settlement_lines,
    settlement_rows,
)
from orderdash.core.usecases.reads import ReadOptions, read_period

if TYPE_CHECKING:
    from pathlib import Path

    from orderdash.core.books.export import Row
    from orderdash.core.books.gather import Gate, OrderReader
    from orderdash.core.books.period import Period
    from orderdash.core.books.shape import CloseReport
    from orderdash.core.jsontypes import JSONValue
    from orderdash.core.ledger import Book
    from orderdash.core.usecases.close import CloseOptions

#: Names tried before giving up (name.csv, name-2.csv, ...).
__all__ = [
    "PROFILES",
    "Exported",
    "Settled",
    "export",
    "export_list",
    "header_line",
    "settlement",
    "write_csv",
]

MAX_SUFFIX = 1000


@dataclass(frozen=True)
class Exported:
    """An export's lines (formatted, made as they are read), what went wrong reading, and how
    many of the period's orders could not be read (the export is incomplete then)."""

    lines: Iterator[str]
    warnings: list[str]
    missing: int


async def export(
    client: OrderReader,
    book: Book,
    period: Period,
    options: ReadOptions,
    *,
    table: str,
    fmt: str,
    order_gate: Gate,
    private_gate: Gate,
    progress: Callable[[int, int], None] | None = None,
    pages: Callable[[int], None] | None = None,
) -> Exported:
    """`table` ("orders" or "payments") of `period` in `fmt` ("csv" or "jsonl")."""
    gathered = await read_period(
        client,
        book,
        period,
        options,
        order_gate=order_gate,
        private_gate=private_gate,
        progress=progress,
        pages=pages,
    )
    lines = export_lines(gathered.orders, period, table=table, fmt=fmt)
    return Exported(lines, gathered.warnings, gathered.missing)


#: The layouts the settlement can be written in besides its own.
PROFILES = ("koinly",)


@dataclass(frozen=True)
class Settled:
    """A settlement's lines (formatted), its header (the close it is tied to, the totals its
    rows sum to), what went wrong reading, and how many orders could not be read."""

    lines: Iterator[str]
    header: Header
    warnings: list[str]
    missing: int


async def settlement(
    client: OrderReader,
    book: Book,
    period: Period,
    options: CloseOptions,
    *,
    till: str,
    fmt: str,
    profile: str | None,
    order_gate: Gate,
    private_gate: Gate,
    progress: Callable[[int, int], None] | None = None,
    pages: Callable[[int], None] | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> Settled:
    """The settlement of `period` for `till` in `fmt` ("csv" or "jsonl"), or in `profile`'s
    layout ("koinly": CSV): built from what the close of the period reads and builds
    (`core/books/close.py` `prepare_close`, `build_report`), as a dry run of it would show it,
    tied to the close of the period and till in the ledger if there is one."""
    prepared = await prepare_close(
        client,
        book,
        period,
        till=till,
        recorder=options.recorder,
        order_gate=order_gate,
        private_gate=private_gate,
        dry_run=True,
        concurrency=options.concurrency,
        max_pages=options.max_pages,
        progress=progress,
        pages=pages,
    )
    report = await prepared.report(
        book, period, till, now(), currency=options.currency, tolerance=options.tolerance
    )
    closed = await asyncio.to_thread(find_frozen, book, till, period)
    settled = await asyncio.to_thread(_settle, report, prepared, period, options, closed)
    warnings = list(prepared.warnings)
    if settled.header["agrees"] is False:
        warnings.append(
            f"the close of this period (digest {closed['digest'] if closed else ''}) counts "
            "other payments or figures than the books do now: the rows sum to the books now, "
            "not to that close"
        )
    lines = koinly_lines(settled.rows) if profile == "koinly" else settlement_lines(settled, fmt)
    return Settled(lines, settled.header, warnings, prepared.gathered.missing)


def _settle(
    report: CloseReport,
    prepared: Prepared,
    period: Period,
    options: CloseOptions,
    closed: CloseReport | None,
) -> Settlement:
    """In a thread (its cost grows with the orders): the rows and their header."""
    orders = prepared.gathered.orders
    entries = part_entries(
        orders, period, tolerance=options.tolerance, resolutions=prepared.resolutions
    )
    rows = settlement_rows(report, orders, entries, period, prepared.resolutions)
    return Settlement(rows, header(report, closed))


def list_rows(shown: Sequence[tuple[str, JSONValue]], zone: tzinfo) -> tuple[list[Row], int]:
    """One row per (token, getOrder data) in the given order; an order not read yet (or not
    readable) keeps its row with the token alone. Returns the rows and how many are such."""
    rows: list[Row] = []
    bare = 0

    def local(ms: int) -> datetime:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone(zone)

    for token, raw in shown:
        try:
            rows.append(order_row(read_order(raw), local))
        except BadOrder:
            bare += 1
            row: Row = dict.fromkeys(ORDER_COLUMNS, "")
            row.update(token=text(token))
            rows.append(row)
    return rows, bare


def write_new(directory: Path, stem: str, lines: Sequence[str]) -> Path:
    """Write `lines` to `directory/stem.csv`, or the first free `stem-N.csv`: never over a
    file that exists (opened with "x", so a file made meanwhile is not overwritten either)."""
    for n in range(1, MAX_SUFFIX + 1):
        path = directory / (f"{stem}.csv" if n == 1 else f"{stem}-{n}.csv")
        try:
            with path.open("x", encoding="utf-8", newline="") as file:
                file.writelines(lines)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"{directory / stem}.csv and {MAX_SUFFIX - 1} more exist already")


def export_list(
    shown: Sequence[tuple[str, JSONValue]], zone: tzinfo, directory: Path, now: datetime
) -> tuple[Path, int, int]:
    """The list's rows written to a new file in `directory` (blocking: run in a thread): the
    path, the rows, the bare rows. Times in `zone`, the file named after `now` there."""
    rows, bare = list_rows(shown, zone)
    lines = list(write_csv(rows, ORDER_COLUMNS))
    stem = f"orderdash-list-{now.astimezone(zone):%Y%m%d-%H%M%S}"
    return write_new(directory, stem, lines), len(rows), bare
