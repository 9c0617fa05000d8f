"""The attention view's table follows the keeper by key: rows that left are removed, new ones
added, changed cells updated, the rows sorted to the keeper's order, and the highlight stays on
its order; never cleared and rebuilt for a change of rows (docs/library-pitfalls.md: a rebuild
of thousands of rows costs the loop hundreds of ms and jumps the cursor)."""

from __future__ import annotations

from types import SimpleNamespace as NS

from textual.widgets import DataTable

from orderdash.tui.screens.attention import AttentionScreen
from support.attention_host import Host, needs


def rows_of(table: DataTable) -> list[str]:
    return [str(row.key.value) for row in table.ordered_rows]


async def test_rows_change_by_key_and_the_highlight_stays_on_its_order() -> None:
    keeper = NS(found=[needs("a", 1), needs("b", 2), needs("c", 3)])
    app = Host(keeper)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AttentionScreen)
        table = screen.query_one(DataTable)
        assert rows_of(table) == ["a", "b", "c"]
        await pilot.press("down")
        assert screen.highlighted == "b"
        cleared: list[bool] = []
        real_clear = table.clear
        table.clear = lambda columns=False: cleared.append(columns) or real_clear(columns)
        added: list[str] = []
        real_add = table.add_row
        table.add_row = lambda *cells, key=None, **kw: (
            added.append(key) or real_add(*cells, key=key, **kw)
        )
        # a new payment: "d" comes first, "c" is resolved, "b" is overpaid by more
        keeper.found = [needs("d", 0), needs("a", 1), needs("b", 2, excess="0.0003")]
        app.attention += 1
        await pilot.pause()
        assert rows_of(table) == ["d", "a", "b"] == list(screen.tokens_shown)
        assert cleared == [] and added == ["d"]
        assert screen.highlighted == "b" and table.cursor_row == 2
        assert "+0.0003 BTC" in table.get_cell("b", "Coin").plain
        # "b" pays again: it moves first, sorted there, and the highlight goes with it
        keeper.found = [needs("b", 0, excess="0.0004"), needs("d", 0), needs("a", 1)]
        app.attention += 1
        await pilot.pause()
        assert rows_of(table) == ["b", "d", "a"] and cleared == [] and added == ["d"]
        assert screen.highlighted == "b" and table.cursor_row == 0
        # all gone: no row, nothing highlighted
        keeper.found = []
        app.attention += 1
        await pilot.pause()
        assert rows_of(table) == [] and screen.highlighted is None
