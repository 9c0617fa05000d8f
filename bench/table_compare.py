"""The transactions table's row order against textual-fastdatatable: what the compat patch
`newest_first_table` buys over Textual's own DataTable, and what a performance-focused
reimplementation of the table (textual-fastdatatable, Arrow-backed) would buy instead.

Each arm shows the same 10,000 transactions, newest first, in the transactions table's twelve
columns on a 140x48 screen (the bench's counting driver: escape sequences built as for a real
terminal), then takes new payments one at a time, each on top:

- `datatable`: Textual's DataTable; a payment is `add_row` and a sort by id (the baseline);
- `newest_first`: the project's `NewestFirstTable`; a payment is `add_row` and `place_rows`
  with its key first, as `TransactionsTable` does;
- `fastdatatable`: textual-fastdatatable's DataTable over its Arrow backend; a payment is
  `add_row` (at the bottom: rows have no keys) and `sort` by id, descending. Its cells are the
  same texts without their styles (an Arrow column holds values, not Rich `Text`).

Measured on the UI thread (CPU, `time.thread_time`), from the change to the end of the paint
that follows it: the first render of the 10,000 rows, and the median of the payments. Rounds
run the arms in turn, the order reversed every other round; the ratios are against the
`datatable` arm of the same run.

textual-fastdatatable is not a dependency: install it beside the project to run this
(`.venv/bin/pip install textual-fastdatatable`), then, from the repository root:

    .venv/bin/python bench/table_compare.py --rounds 3 --payments 9
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Callable
from importlib import metadata
from typing import Any

from appkit import PaintLog, run_app
from case_big import PAID, wire_transaction
from common import median, seconds
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from orderdash.core.model.wire import Transaction
from orderdash.tui.compat.newest_first_table import NewestFirstTable
from orderdash.tui.widgets.transactions import COLUMNS, row_cells

ARMS = ("datatable", "newest_first", "fastdatatable")
SIZE = (140, 48)

Cells = list[Any]


def transactions(count: int, seed: int) -> list[Transaction]:
    """`count` transactions, ids and times rising together (the newest has the highest id)."""
    rng = random.Random(f"{seed}:table")
    now_ms = int(time.time() * 1000)
    return [
        Transaction.model_validate(
            wire_transaction(50_001 + i, now_ms - (count - i) * 1000, PAID * (i + 1), rng)
        )
        for i in range(count)
    ]


def styled(tx: Transaction) -> Cells:
    """A row as the transactions table shows it (Rich `Text` cells, the id an int)."""
    cells = {"new": Text(""), **row_cells(tx)}
    return [cells[key] for key, _ in COLUMNS]


def plain(tx: Transaction) -> Cells:
    """The same row as values an Arrow column holds."""
    return [cell.plain if isinstance(cell, Text) else cell for cell in styled(tx)]


class Arm:
    """One table kind: how it is made, filled newest first, and given a payment on top."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.keys: list[RowKey] = []

    def make(self) -> Widget:
        labels = [label for _, label in COLUMNS]
        if self.kind == "fastdatatable":
            import pyarrow as pa
            from textual_fastdatatable import ArrowBackend
            from textual_fastdatatable import DataTable as FastDataTable

            # typed empty columns (a column made from no values has Arrow's null type)
            kinds = [pa.int64() if key == "id" else pa.string() for key, _ in COLUMNS]
            empty = pa.table(
                {label: pa.array([], kind) for label, kind in zip(labels, kinds, strict=True)}
            )
            backend = ArrowBackend(empty)
            self.table: Any = FastDataTable(backend=backend, cursor_type="row")
        else:
            table_class = NewestFirstTable if self.kind == "newest_first" else DataTable
            self.table = table_class(cursor_type="row")
            for key, label in COLUMNS:
                self.table.add_column(label, key=key)
        return self.table

    def fill(self, newest_first: list[Transaction]) -> None:
        if self.kind == "fastdatatable":
            self.table.add_rows([plain(tx) for tx in newest_first])
            return
        self.keys = [self.table.add_row(*styled(tx), key=str(tx.id)) for tx in newest_first]
        if self.kind == "newest_first":
            self.table.place_rows(self.keys, on_top=False)

    def pay(self, tx: Transaction) -> None:
        if self.kind == "fastdatatable":
            self.table.add_row(*plain(tx))
            self.table.sort(by=[("ID", "descending")])
        elif self.kind == "newest_first":
            self.keys.insert(0, self.table.add_row(*styled(tx), key=str(tx.id)))
            self.table.place_rows(self.keys, on_top=True)
        else:
            self.table.add_row(*styled(tx), key=str(tx.id))
            self.table.sort("id", reverse=True)

    def top_id(self) -> int:
        """The id in the first row (the check that a payment is shown on top)."""
        return int(self.table.get_row_at(0)[COLUMN_ID])


COLUMN_ID = [key for key, _ in COLUMNS].index("id")


class TableApp(App[None]):
    def __init__(self, arm: Arm) -> None:
        super().__init__()
        self.arm = arm

    def compose(self) -> ComposeResult:
        yield self.arm.make()


async def timed(paints: PaintLog, change: Callable[[], None], shown: Callable[[], bool]) -> float:
    """UI-thread CPU from `change()` to the end of the first paint after which `shown()`."""
    found = paints.watch(shown)
    start = time.thread_time()
    change()
    paint = await asyncio.wait_for(found, 120)
    return paint.cpu - start


async def one_run(
    kind: str, rows: list[Transaction], payments: list[Transaction]
) -> dict[str, Any]:
    arm = Arm(kind)

    async def body(app: App[Any], paints: PaintLog) -> dict[str, Any]:
        await asyncio.sleep(0.1)  # the empty table's first paints
        newest = rows[-1].id
        first = await timed(
            paints, lambda: arm.fill(rows[::-1]), lambda: arm.table.row_count == len(rows)
        )
        assert arm.top_id() == newest, (kind, arm.top_id())
        paid = []
        for tx in payments:
            await asyncio.sleep(0.05)  # settled: no paint pending from the one before
            paid.append(
                await timed(paints, lambda tx=tx: arm.pay(tx), lambda tx=tx: arm.top_id() == tx.id)
            )
        return {"first": first, "payment": median(paid)}

    return await run_app(TableApp(arm), body, size=SIZE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--payments", type=int, default=9, help="payments timed per run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    options = parser.parse_args()
    every = transactions(options.rows + options.payments, options.seed)
    rows, payments = every[: options.rows], every[options.rows :]
    results: dict[str, list[dict[str, Any]]] = {kind: [] for kind in ARMS}
    for round_ in range(options.rounds):
        for kind in ARMS if round_ % 2 == 0 else ARMS[::-1]:
            results[kind].append(asyncio.run(one_run(kind, rows, payments)))
    versions = ", ".join(
        f"{name} {metadata.version(name)}" for name in ("textual", "textual-fastdatatable")
    )
    runs = f"{options.payments} payments a run, {options.rounds} rounds"
    print(f"{options.rows} rows, {runs}; {versions}")
    print(f"{'arm':<14} {'first render':>14} {'ratio':>7} {'a payment':>11} {'ratio':>7}")
    base = {
        figure: median([run[figure] for run in results["datatable"]])
        for figure in ("first", "payment")
    }
    for kind in ARMS:
        first = median([run["first"] for run in results[kind]])
        payment = median([run["payment"] for run in results[kind]])
        print(
            f"{kind:<14} {seconds(first):>14} {first / base['first']:>7.2f} "
            f"{seconds(payment):>11} {payment / base['payment']:>7.2f}"
        )


if __name__ == "__main__":
    main()
