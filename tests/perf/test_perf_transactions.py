"""The transactions table does only the work an answer calls for (bench/ measures the time).

Each test counts the DataTable operations a `show` makes: an unchanged answer makes none, a new
transaction one `add_row` and no sort, a changed amount one `update_cell`.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from decimal import Decimal
from typing import Any

import pytest
from rich.padding import Padding
from textual.pilot import Pilot
from textual.widgets import DataTable

from orderdash.core.model.wire import Transaction
from orderdash.tui.widgets import transactions
from orderdash.tui.widgets.transactions import NEW_MARK, TransactionsPane, TransactionsTable
from support.transactions_pane import PaneApp, parsed, wire

OPERATIONS = ("add_row", "add_rows", "update_cell", "remove_row", "clear", "sort", "move_cursor")


@asynccontextmanager
async def showing(count: int) -> AsyncIterator[tuple[Pilot[None], TransactionsPane, list[Any]]]:
    """A pane that shows `count` transactions (ids 100 up), settled; and their wire form."""
    wires = [wire(100 + i, i) for i in range(count)]
    app = PaneApp()
    # wide enough for every column (a narrower pane drops some: test_columns.py)
    async with app.run_test(size=(200, 24)) as pilot:
        pane = app.query_one(TransactionsPane)
        pane.show(parsed(wires), (), "BTC", "EUR")
        await pilot.pause()
        yield pilot, pane, wires


@contextmanager
def counting(table: TransactionsTable) -> Iterator[Counter[str]]:
    """Counts the DataTable operations called on `table` from outside the DataTable."""
    counts: Counter[str] = Counter()
    depth = 0
    originals = {name: getattr(table, name) for name in OPERATIONS}

    def counted(name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            nonlocal depth
            if depth == 0:
                counts[name] += 1
            depth += 1
            try:
                return originals[name](*args, **kwargs)
            finally:
                depth -= 1

        return call

    for name in OPERATIONS:
        setattr(table, name, counted(name))
    try:
        yield counts
    finally:
        for name in OPERATIONS:
            delattr(table, name)


def order_of(table: TransactionsTable) -> list[int]:
    keys = (table.coordinate_to_cell_key((row, 0)).row_key for row in range(table.row_count))
    return [int(key.value) for key in keys if key.value is not None]


async def test_an_unchanged_answer_touches_nothing() -> None:
    async with showing(40) as (pilot, pane, wires):
        table = pane.table
        rows = dict(table.rows)
        with counting(table) as counts:
            # equal content in new objects (a poll), then the very same objects again
            again = parsed(wires)
            assert pane.table.sync(again) == []
            pane.show(again, (), "BTC", "EUR")
            pane.show(again, (), "BTC", "EUR")
        assert not counts, f"an unchanged answer made table operations: {dict(counts)}"
        assert dict(table.rows) == rows


async def test_a_new_transaction_is_one_row_on_top_without_a_sort() -> None:
    async with showing(40) as (pilot, pane, wires):
        table = pane.table
        await pilot.press("up", "up")  # from the answer's first (oldest) transaction
        selected = table.selected()
        assert selected is not None
        with counting(table) as counts:
            added = table.sync(parsed([*wires, wire(999, 50)]), new_ids=(999,))
        assert added == [999]
        assert counts["add_row"] == 1 and not counts["update_cell"], "the mark comes with the row"
        assert not counts["sort"] and not counts["clear"] and not counts["remove_row"]
        assert order_of(table) == [999, *range(139, 99, -1)], "newest first"
        assert table.get_cell("999", "new") == NEW_MARK
        selected_now = table.selected()
        assert selected_now is not None and selected_now.id == selected.id, "the cursor stays"


async def test_a_new_transaction_renders_and_measures_its_own_row_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rows below a payment are drawn again one line lower (their place and zebra stripe
    change), from the text each of their cells keeps: only the new row's cells are made,
    measured and rendered. DataTable alone renders every visible cell again (~11 ms a payment
    at 10,000 rows, bench big)."""
    async with showing(40) as (pilot, pane, wires):
        table = pane.table
        await pilot.pause()
        rendered: list[str] = []
        made: list[int] = []
        render_lines = pane.app.console.render_lines

        def rendering(renderable: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(renderable, Padding):  # a cell: DataTable pads every one
                rendered.append(getattr(renderable.renderable, "plain", ""))
            return render_lines(renderable, *args, **kwargs)

        def counted_row_cells(tx: Transaction) -> Any:
            made.append(tx.id)
            return row_cells(tx)

        def never(*args: Any) -> Any:
            raise AssertionError("the rows held were measured again")

        row_cells = transactions.row_cells
        monkeypatch.setattr(pane.app.console, "render_lines", rendering)
        monkeypatch.setattr(transactions, "row_cells", counted_row_cells)
        monkeypatch.setattr(table, "_measured", never)
        table.sync(parsed([*wires, wire(999, 50)]), new_ids=(999,))
        await pilot.pause()
        assert made == [999]
        assert order_of(table)[:2] == [999, 139]
        assert len(rendered) == len(table.shown_columns), rendered
        assert "999" in rendered


async def test_a_wider_new_amount_widens_its_column_on_every_row() -> None:
    """A cell keeps its rendered text at its column's width: a wider payment's column is drawn
    wider on the rows below it too, the figures right-aligned under the new header."""
    async with showing(5) as (pilot, pane, wires):
        table = pane.table
        await pilot.pause()
        longer = wire(999, 50, base="0.000123456789012")
        table.sync(parsed([*wires, longer]), new_ids=(999,))
        await pilot.pause()
        lines = ["".join(segment.text for segment in table.render_line(y)) for y in range(7)]
        header, new, below = lines[0], lines[1], lines[2]
        end = header.index("base") + len("base")
        assert new[:end].endswith("0.000123456789012")
        assert below[:end].endswith("0.0001") and below[end] == " "


async def test_a_changed_amount_updates_its_cells_only() -> None:
    async with showing(10) as (pilot, pane, wires):
        table = pane.table
        changed = copy.deepcopy(wires)
        changed[3]["amount"]["base"] = "0.00012"
        changed[5]["amount"]["total"] = "0.0003"
        with counting(table) as counts:
            assert table.sync(parsed(changed)) == []
        assert counts == Counter(update_cell=2)
        assert table.get_cell("103", "coin_base").plain == "0.00012"
        assert table.get_cell("105", "coin_total").plain == "0.0003"
        assert table.transactions[105].amount.total == Decimal("0.0003")


def assert_row_bookkeeping(table: TransactionsTable) -> None:
    """The table's own row order (which it hands DataTable, see `_NewestOnTop`) is the one
    DataTable renders and maps keys with: checked against DataTable's own computations."""
    locations = table._row_locations
    assert len(locations) == table.row_count == len(table._keys)
    for index, key in enumerate(table._keys):
        assert locations.get_key(index) == key and locations.get(key) == index
    assert locations.get_key(-1) is None and locations.get_key(table.row_count) is None
    assert table.ordered_rows == DataTable.ordered_rows.fget(table)  # type: ignore[attr-defined]
    assert table._y_offsets == DataTable._y_offsets.fget(table)  # type: ignore[attr-defined]
    lines = range(table.header_height + table._total_row_height)
    stock_offsets = [DataTable._get_offsets(table, y) for y in lines]
    assert [table._get_offsets(y) for y in lines] == stock_offsets
    assert order_of(table) == [int(key.value) for key in table._keys if key.value is not None]


async def test_other_answers_still_come_out_right() -> None:
    async with showing(10) as (pilot, pane, wires):
        table = pane.table
        # newest first from the service, and an older transaction that arrives late
        late = [wire(90, 0), *reversed(wires[1:]), wire(120, 30)]
        assert sorted(table.sync(parsed(late))) == [90, 120]
        assert order_of(table) == [120, *range(109, 100, -1), 90]
        assert 100 not in table.transactions, "a transaction the service dropped goes"
        assert_row_bookkeeping(table)
        # the same, but the identical objects extended (a client that reuses what it read)
        held = table._synced
        assert table.sync([*held, *parsed([wire(121, 31)])]) == [121]
        assert order_of(table)[0] == 121
        assert_row_bookkeeping(table)
        # two more on top at once, then one more: rows added on top in place
        held = table._synced
        assert table.sync([*held, *parsed([wire(122, 32), wire(123, 33)])]) == [123, 122]
        assert table.sync([*table._synced, *parsed([wire(124, 34)])]) == [124]
        assert order_of(table)[:4] == [124, 123, 122, 121]
        assert_row_bookkeeping(table)
        pane.reset()
        assert table.row_count == 0 and not table.transactions
        pane.show(parsed(wires), (), "BTC", "EUR")
        assert order_of(table) == list(range(109, 99, -1))
        assert_row_bookkeeping(table)
        assert table.sync([*table._synced, *parsed([wire(130, 40)])]) == [130]
        assert order_of(table) == [130, *range(109, 99, -1)]
        assert_row_bookkeeping(table)


async def test_the_line_under_the_table_is_rebuilt_only_when_it_changes() -> None:
    async with showing(5) as (pilot, pane, wires):
        detail = pane.query_one("#tx-detail")
        updates = []
        original = detail.update
        detail.update = lambda *a, **k: (updates.append(k), original(*a, **k))  # type: ignore[method-assign]
        pane.show(parsed(wires), (), "BTC", "EUR")
        assert updates == []
        await pilot.press("down")  # the cursor starts on the newest transaction
        await pilot.pause()
        assert updates == [{"layout": False}], "another transaction, same shape: no layout"
