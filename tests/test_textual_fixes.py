"""The DataTable column-width mend of `orderdash.tui.textual_fixes` (Textual issue #3533).

A DataTable measures its columns on idle. When a frame is drawn between a change and that idle
(CI caught it on the watch list: "ACME [/]" for "ACME [/] Corp"), Textual 8.2 keeps serving the
lines it cached at the old widths. Each test here draws that frame on purpose, then checks the
row as the screen shows it after the idle. The leak mends are checked in tests/test_soak.py.
"""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from orderdash.tui import textual_fixes

LONG = "ACME [/] Corp"


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield DataTable()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("Company", key="company")
        table.add_column("Coin", key="coin")
        table.add_row(Text("Good Shop"), Text("BTC"), key="good")


def row_line(table: DataTable, row_key: str) -> str:
    """The row's line as the table renders it now (header is line 0)."""
    y = table.get_row_index(row_key) + 1
    return "".join(segment.text for segment in table.render_line(y))


@pytest.fixture(autouse=True)
def mended() -> None:
    textual_fixes.install()


async def test_a_longer_value_widens_its_column_even_after_a_frame_in_between() -> None:
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(DataTable)
        await pilot.pause()
        table.update_cell("good", "company", Text(LONG), update_width=True)
        assert LONG not in row_line(table, "good")  # the frame drawn before the idle
        await pilot.pause()
        assert f"{LONG}  BTC" in row_line(table, "good")


async def test_a_new_wider_row_widens_the_rows_drawn_before_it() -> None:
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(DataTable)
        await pilot.pause()
        table.add_row(Text(LONG), Text("LTC"), key="long")
        before = row_line(table, "good")
        await pilot.pause()
        after = row_line(table, "good")
        assert before.index("BTC") < after.index("BTC") == len(f" {LONG}  ")
        assert f"{LONG}  LTC" in row_line(table, "long")


async def test_install_wraps_once() -> None:
    measure = DataTable._update_column_widths
    textual_fixes.install()
    assert DataTable._update_column_widths is measure
    assert measure.__wrapped__.__name__ == "_update_column_widths"
