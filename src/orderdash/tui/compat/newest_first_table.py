"""Textual 8.2.8: a DataTable whose row order we keep ourselves, for tables of many rows where
new rows go on top (the transactions of a 10,000-payment order). Performance, not a bug: no
upstream issue.

After every change DataTable rebuilds the list of its rows in order and the y-offset of every
line, through a key lookup and a small list per row (~8 ms at 10,000 rows, for each new
payment), and keeps its row locations in a `TwoWayDict` that has to be rebuilt for a row on
top, hashing every key (~3 ms). Here the subclass keeps the row keys in order (`_keys`), and
`ordered_rows`, the line lookups (`_get_offsets`, `_total_row_height`, which no longer build a
list of 10,000 y-offsets: ~3 ms a payment) and `_row_locations` (private to DataTable) are read
from it.

DataTable also renders every visible cell again after any change (its cell cache is keyed by
its update count and by the row's place, which a row on top shifts for every row below): ~11 ms
a payment for the ~14 rows the pane shows on a 140x48 screen, whose cells did not change.
`_render_cell` here keeps each cell's rendered text by what it shows (its value object and
width) and only lays the row's styles (zebra stripe, cursor, the row and column in the mouse
metadata) over it again.

Tests: tests/tui/test_compat.py (the order DataTable computes itself agrees with ours; cells render
exactly as DataTable renders them) and tests/perf/test_perf_transactions.py (what it buys).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import repeat
from typing import Any

from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from textual._two_way_dict import TwoWayDict
from textual.cache import LRUCache
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, Row, RowKey

#: Rendered cells kept by what they show: the visible cells of a tall terminal, many times over.
CELL_TEXTS = 4096


class NewestFirstTable(DataTable):
    """A DataTable that shows its rows in the order of `_keys`, which the subclass keeps.

    Every row must be one line high. `place_rows` puts the rows in a new order without
    DataTable's sort; a row added while `adds_on_top` holds lands on top at once. A cell's value
    is replaced (`update_cell`), never changed in place: the same object shows the same text.
    """

    #: The row keys, top to bottom (while it has as many keys as the table has rows).
    _keys: list[RowKey]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # (row, column, width) -> (the cell's value, its lines rendered without the row's styles)
        self._cell_texts: LRUCache[tuple[RowKey, ColumnKey, int], tuple[object, list[Any]]]
        self._cell_texts = LRUCache(CELL_TEXTS)

    @property
    def adds_on_top(self) -> bool:
        """The next `add_row` lands on top (DataTable has not re-indexed its rows since the
        last `place_rows`: a removal, a clear or a sort does)."""
        return isinstance(self._row_locations, _NewestOnTop)

    def place_rows(self, keys: list[RowKey], *, on_top: bool) -> None:
        """Show the rows in the order of `keys`. `on_top`: the only change since the last
        placing is rows added on top (their keys first in `keys`)."""
        self._keys = keys
        if not on_top or not self.adds_on_top:
            self._row_locations = _NewestOnTop(keys)
        self._update_count += 1
        self.refresh()

    @property
    def ordered_rows(self) -> list[Row]:
        keys: list[RowKey] | None = getattr(self, "_keys", None)
        if keys is None or len(keys) != len(self.rows):
            return super().ordered_rows
        cache_key = (len(keys), self._update_count)
        rows = self._ordered_row_cache.get(cache_key)
        if rows is None:
            every = self.rows
            rows = [every[key] for key in keys]
            self._ordered_row_cache[cache_key] = rows
        return rows

    def _placed_keys(self) -> list[RowKey] | None:
        """`_keys` while they are all the rows, in order (else DataTable's own ways apply)."""
        keys: list[RowKey] | None = getattr(self, "_keys", None)
        return keys if keys is not None and len(keys) == len(self.rows) else None

    @property
    def _total_row_height(self) -> int:
        keys = self._placed_keys()
        return super()._total_row_height if keys is None else len(keys)

    def _get_offsets(self, y: int) -> tuple[RowKey, int]:
        keys = self._placed_keys()
        if keys is None:
            return super()._get_offsets(y)
        if self.show_header:
            if y < self.header_height:
                return self._header_row_key, y
            y -= self.header_height
        if not 0 <= y < len(keys):
            raise LookupError(f"Y coord {y!r} is greater than total height")
        return keys[y], 0  # every row is one line high

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> list[list[Segment]]:
        # What DataTable._render_cell does for a one-line header or body cell; other cells (row
        # labels, fixed rows and columns, taller rows) are left to it.
        header = row_index == -1
        if column_index < 0 or (
            not header and (row_index < self.fixed_rows or column_index < self.fixed_columns)
        ):
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._header_row_key if header else self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        cache_key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        lines: list[list[Segment]] | None = self._cell_render_cache.get(cache_key)
        if lines is not None:
            return lines
        if self.get_row_height(row_key) != 1:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        value = self.columns[column_key].label if header else self._data[row_key].get(column_key)
        text_key = (row_key, column_key, width)
        held = self._cell_texts.get(text_key)
        if held is None or held[0] is not value:
            cell = self._get_row_renderables(row_index).cells[column_index]
            options = self.app.console_options.update_dimensions(width, 1).update(no_wrap=True)
            plain = self.app.console.render_lines(Padding(cell, (0, self.cell_padding)), options)
            held = (value, plain)
            self._cell_texts[text_key] = held
        component_style, post_style = self._get_styles_to_render_cell(
            header,
            False,
            False,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        # the styles DataTable lays over the cell's own (textual's Styled), in the same order
        pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index})
        pre_style += component_style
        lines = [list(Segment.apply_style(line, pre_style, post_style)) for line in held[1]]
        self._cell_render_cache[cache_key] = lines
        return lines

    def _clear_caches(self) -> None:
        super()._clear_caches()
        self._cell_texts.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cell_texts.clear()

    @property
    def _y_offsets(self) -> list[tuple[RowKey, int]]:
        keys: list[RowKey] | None = getattr(self, "_keys", None)
        if keys is None or len(keys) != len(self.rows):
            return super()._y_offsets
        offsets = self._offset_cache.get(self._update_count)
        if offsets is None:
            # every row is one line high
            offsets = list(zip(keys, repeat(0)))
            self._offset_cache[self._update_count] = offsets
        return offsets


class _NewestOnTop(TwoWayDict[RowKey, int]):
    """DataTable's row locations for a table that shows its rows newest first.

    Each row keeps the place in which it was added; its index counts from the last added. A row
    that DataTable adds (at what it takes for the end) is on top at once, and no other entry
    changes: a plain TwoWayDict has to be rebuilt for a row on top, hashing every key (~3 ms
    at 10,000 rows, for each payment). DataTable only adds rows through `__setitem__`; a
    removal or a sort replaces this object with a plain TwoWayDict.
    """

    def __init__(self, newest_first: Sequence[RowKey]) -> None:
        # the plain dicts of TwoWayDict are not kept: these two replace them
        self._added: list[RowKey] = list(reversed(newest_first))
        self._place_of: dict[RowKey, int] = {key: n for n, key in enumerate(self._added)}

    def __setitem__(self, key: RowKey, value: int) -> None:
        # DataTable.add_row passes the row count: a new row, which goes on top
        self._place_of[key] = len(self._added)
        self._added.append(key)

    def __delitem__(self, key: RowKey) -> None:
        del self._added[self._place_of.pop(key)]
        self._place_of = {key: n for n, key in enumerate(self._added)}

    def __iter__(self) -> Iterator[RowKey]:
        return iter(self._place_of)

    def __len__(self) -> int:
        return len(self._added)

    def __contains__(self, key: object) -> bool:
        return key in self._place_of

    def get(self, key: RowKey) -> int | None:
        place = self._place_of.get(key)
        return None if place is None else len(self._added) - 1 - place

    def get_key(self, value: int) -> RowKey | None:
        if not 0 <= value < len(self._added):
            return None
        return self._added[len(self._added) - 1 - value]

    def contains_value(self, value: int) -> bool:
        return 0 <= value < len(self._added)
