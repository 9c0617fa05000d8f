"""The attention view's table: one row an order that needs a human (`screens/attention.py`).

The rows follow the orders as they change, kept by token: rows that left are removed, new ones
added, changed cells updated, and when the keeper's order changed (a new payment puts its order
first) the rows are sorted to it by their order's cell, which knows its token; the highlighted
row stays on its order. Only a change of columns (the width), or more rows gone than kept,
empties the table first (a new cut of the next step updates those cells in place).

Thousands of orders are thousands of rows to make, add and measure: the table is changed in
bounded steps (`tui/steps.py`), at most `ROWS_PER_STEP` rows added or updated in one turn
of the event loop, so the view opens on 3,000 orders without holding the screen. An order's
cells are made again only when the order changed; a second only moves its "When" cell.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from orderdash.core.safetext import clean, shorten_middle
from orderdash.core.usecases.attention import OrderAttention, age_text, kind_words
from orderdash.tui.steps import KeptRow, StepCount, Steps, under_cursor

#: The columns, in the order they are given room: a narrow screen keeps the first ones whole
#: and says how many it left out (the highlighted order is in full below the table).
COLUMNS = ("Order", "What happened", "Fiat", "Coin", "When", "Next step")
#: The order's token in the table, shortened in the middle beyond this (whole below).
TOKEN_WIDTH = 20
#: The next step is cut to the room left, with a sign, when at least this much is left.
MIN_NEXT_STEP = 16
#: Rows added or updated in one step (one turn of the event loop), and what the table measures
#: after it (every cell: DataTable's own widths): 50 rows are ~10 ms of a busy 2-core machine.
ROWS_PER_STEP = 50
#: Rows whose cells are made (or found unchanged) in one step: making is a fifth of the cost.
CELLS_PER_STEP = 5 * ROWS_PER_STEP
#: What one removal counts for against that bound (each renumbers the rows after it).
REMOVAL_COST = 10


class OrderCell(Text):
    """The order's cell, knowing its token: what the rows are sorted by (DataTable's `sort`
    hands the key function cells, never row keys)."""

    def __init__(self, token: str, text: str, style: str) -> None:
        super().__init__(text, style)
        self.token = token


def when_cell(found: OrderAttention, now_ms: int) -> Text:
    """How long ago its first trouble happened."""
    return Text(f"{age_text(found.first.age_seconds(now_ms))} ago", justify="right")


def row_cells(found: OrderAttention, now_ms: int) -> dict[str, Text]:
    """One row by column: literal text (service text cleaned, never markup), amounts
    right-aligned."""
    item = found.first
    coin = fiat = Text("")
    if item.coin_amount is not None and item.fiat_amount is not None:
        sign = "-" if item.figure == "shortfall" else "+" if item.figure == "excess" else ""
        coin = Text(
            f"{sign}{format(item.coin_amount, 'f')} {clean(item.coin, limit=12)}", justify="right"
        )
        fiat = Text(
            f"{sign}{format(item.fiat_amount, 'f')} {clean(item.currency, limit=12)}",
            justify="right",
        )
    what = ", ".join(kind_words(kind) for kind in found.kinds)
    return {
        "Order": OrderCell(
            found.token, shorten_middle(clean(found.token, limit=60), TOKEN_WIDTH), "bold"
        ),
        "What happened": Text(what, "bold"),
        "Fiat": fiat,
        "Coin": coin,
        "When": when_cell(found, now_ms),
        "Next step": Text(item.next_step, "dim"),
    }


def fitting(widths: Mapping[str, int], room: int) -> tuple[tuple[str, ...], int | None]:
    """The columns that fit `room` cells whole, in `COLUMNS`' order (the first always), given
    each column's widest cell, and the width the next step is cut to (None: whole or left
    out)."""
    chosen: list[str] = []
    used = 0
    for name in COLUMNS:
        width = max(len(name), widths.get(name, 0)) + 2  # cell padding
        if used + width <= room or not chosen:
            chosen.append(name)
            used += width
        elif name == "Next step" and room - used - 2 >= MIN_NEXT_STEP:
            chosen.append(name)
            return tuple(chosen), room - used - 2
        else:
            break
    return tuple(chosen), None


class AttentionTable(DataTable[Text]):
    """The rows, told with `show`; `highlighted` is the order under the cursor."""

    class Shown(Message):
        """The table holds the rows last told (a run of its steps ended)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self._steps = Steps(self, self._sync, group="attention-rows")
        self._found: list[OrderAttention] = []
        self._now_ms = 0
        #: The columns shown and the next step's cut (`fitting`).
        self._columns: tuple[str, ...] = ()
        self._cut: int | None = None
        #: What each row was made from: its order and its "When" (a row not here is not shown;
        #: None: to be compared cell by cell).
        self._made_from: dict[str, tuple[OrderAttention, str] | None] = {}
        #: Each order's cells but "When", while the order is the same.
        self._cells: dict[str, tuple[OrderAttention, dict[str, Text]]] = {}
        #: The order the cursor is kept on while the rows change.
        self._kept = KeptRow()
        #: How many of `COLUMNS` the width left out.
        self.hidden_columns = 0

    def show(self, found: Sequence[OrderAttention], now_ms: int) -> None:
        """These orders, in this order: the first step now, the rest in later turns of the
        loop (after the run under way, if one is)."""
        self._found, self._now_ms = list(found), now_ms
        self._steps.ask()

    @property
    def highlighted(self) -> str | None:
        """The token of the highlighted row (None when there is none)."""
        return under_cursor(self)

    @property
    def tokens_shown(self) -> tuple[str, ...]:
        """The orders in the table, in their order."""
        return tuple(str(row.key.value) for row in self.ordered_rows)

    # -- the steps --------------------------------------------------------------------------

    def _sync(self) -> Iterator[None]:
        """One run: the rows changed by key to `_found`, yielding between bounded steps."""
        found, now_ms = self._found, self._now_ms
        tokens = [o.token for o in found]
        wanted = set(tokens)
        made, count = StepCount(CELLS_PER_STEP), StepCount(ROWS_PER_STEP)
        self._kept.take(self, wanted)
        # the cells (an order's own made again only when it changed) and the columns' widths
        rows: list[dict[str, Text]] = []
        cells: dict[str, tuple[OrderAttention, dict[str, Text]]] = {}
        widths = dict.fromkeys(COLUMNS, 0)
        for o in found:
            row = self._row(o, now_ms, cells)
            rows.append(row)
            for name, cell in row.items():
                widths[name] = max(widths[name], cell.cell_len)
            if made.full():
                yield from self._turn(wanted)
        self._cells = cells
        room = (self.size.width or self.app.size.width) - 2
        columns, cut = fitting(widths, room)
        self.hidden_columns = len(COLUMNS) - len(columns)
        if columns != self._columns:
            self._columns, self._cut = columns, cut
            self.clear(columns=True)
            self._made_from.clear()
            for name in columns:
                self.add_column(name, key=name)
        elif cut != self._cut:  # every row's next step cut anew, in place
            self._cut = cut
            self._made_from = dict.fromkeys(self._made_from)
        gone = [token for token in self._made_from if token not in wanted]
        if len(gone) > len(self._made_from) - len(gone):
            # most rows gone: each removal renumbers the rest, so adding the few anew is cheaper
            self.clear()
            self._made_from.clear()
            gone = []
        for token in gone:
            self.remove_row(token)
            del self._made_from[token]
            if count.full(REMOVAL_COST):
                yield from self._turn(wanted)
        for o, row in zip(found, rows, strict=True):
            if self._put(o, row):
                if count.full():
                    yield from self._turn(wanted)
        if self.tokens_shown != tuple(tokens):
            rank = {token: index for index, token in enumerate(tokens)}
            self.sort(COLUMNS[0], key=lambda cell: rank[cell.token])
        self._kept.put(self)
        self.post_message(self.Shown())

    def _row(
        self,
        o: OrderAttention,
        now_ms: int,
        cells: dict[str, tuple[OrderAttention, dict[str, Text]]],
    ) -> dict[str, Text]:
        known = self._cells.get(o.token)
        if known is not None and known[0] == o:
            row = {**known[1], "When": when_cell(o, now_ms)}
        else:
            row = row_cells(o, now_ms)
        cells[o.token] = (o, {name: cell for name, cell in row.items() if name != "When"})
        return row

    def _put(self, o: OrderAttention, row: dict[str, Text]) -> bool:
        """The order's row added, or its changed cells updated; False when it was as shown."""
        made_from = (o, row["When"].plain)
        if self._made_from.get(o.token) == made_from:
            return False
        if self._cut is not None:
            row = {**row, "Next step": row["Next step"].copy()}
            row["Next step"].truncate(self._cut, overflow="ellipsis")
        if o.token not in self._made_from:
            self.add_row(*(row[name] for name in self._columns), key=o.token)
        else:
            for name in self._columns:
                if self.get_cell(o.token, name).plain != row[name].plain:
                    self.update_cell(o.token, name, row[name])
        self._made_from[o.token] = made_from
        return True

    def _turn(self, wanted: set[str]) -> Iterator[None]:
        """Between two steps: the cursor back on its order, then the order the person may
        have moved to meanwhile taken as the one to keep."""
        self._kept.put(self)
        yield
        self._kept.take(self, wanted)
