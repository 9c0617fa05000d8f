"""Textual 8.2.8, issue #3533: a DataTable measures column widths on idle, after the cells
changed. A frame drawn in between caches the row's lines under the table's update count, and
the later widening does not change that count: the row keeps showing the longer value cut at
the old width ("ACME [/]" for "ACME [/] Corp", seen in CI on the watch list) until some other
change. The measuring steps are wrapped here to count as an update when they change a width.

The watch list no longer leans on this: it gives its columns fixed widths (`fit_columns`) and
every cell is fitted to its column before it is handed over, because a DataTable also crops a
cell to its column with no sign, and never narrows a column once widened. The transactions
table keeps measured widths (its cells are whole; what does not fit the pane is dropped).

Tests: tests/tui/test_compat.py (a longer value, a new wider row).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from textual.widgets import DataTable


def _column_widths(table: DataTable) -> list[int]:
    return [column.content_width for column in table.columns.values()] + [
        table._label_column.content_width
    ]


def _counting_width_changes(measure: Callable[..., None]) -> Callable[..., None]:
    @wraps(measure)
    def measure_and_invalidate(self: DataTable, *args: Any) -> None:
        before = _column_widths(self)
        measure(self, *args)
        if _column_widths(self) != before:
            # every row and line cache of DataTable is keyed by this count
            self._update_count += 1
            self.refresh()

    return measure_and_invalidate


def install() -> None:
    for name in ("_update_column_widths", "_update_dimensions"):
        setattr(DataTable, name, _counting_width_changes(getattr(DataTable, name)))
