"""Textual 8.2.8: a DataTable whose row order we keep ourselves, for tables of many rows where
new rows go on top (the transactions of a 10,000-payment order). Performance, not a bug: no
upstream issue.

After every change DataTable rebuilds the list of its rows in order and the y-offset of every
line, through a key lookup and a small list per row (~8 ms at 10,000 rows, for each new
payment), and keeps its row locations in a `TwoWayDict` that has to be rebuilt for a row on
top, hashing every key (~3 ms). Here the subclass keeps the row keys in order (`_keys`), and
`ordered_rows`, `_y_offsets` and `_row_locations` (private to DataTable) are read from it.

Tests: tests/test_compat.py (the order DataTable computes itself agrees with ours) and
tests/test_perf_transactions.py (what it buys).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import repeat

from textual._two_way_dict import TwoWayDict
from textual.widgets import DataTable
from textual.widgets.data_table import Row, RowKey


class NewestFirstTable(DataTable):
    """A DataTable that shows its rows in the order of `_keys`, which the subclass keeps.

    Every row must be one line high. `place_rows` puts the rows in a new order without
    DataTable's sort; a row added while `adds_on_top` holds lands on top at once.
    """

    #: The row keys, top to bottom (while it has as many keys as the table has rows).
    _keys: list[RowKey]

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
