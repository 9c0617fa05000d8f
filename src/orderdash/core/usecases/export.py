"""The exports: a period's orders or payments as CSV or JSON lines (`orderdash export`), and the
watch list's rows as shown to a new CSV file (the dashboard's `e`). The columns are the books'
(`core/books/export.py`, docs/books.md "Exports"), their cells spreadsheet-safe."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING

from orderdash.core.books.export import ORDER_COLUMNS, export_lines, order_row, write_csv
from orderdash.core.books.orders import BadOrder, read_order, text
from orderdash.core.usecases.reads import ReadOptions, read_period

if TYPE_CHECKING:
    from pathlib import Path

    from orderdash.core.books.export import Row
    from orderdash.core.books.gather import Gate, OrderReader
    from orderdash.core.books.period import Period
    from orderdash.core.jsontypes import JSONValue
    from orderdash.core.ledger import Book

#: Names tried before giving up (name.csv, name-2.csv, ...).
__all__ = ["Exported", "export", "export_list", "write_csv"]

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
