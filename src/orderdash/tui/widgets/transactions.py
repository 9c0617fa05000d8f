"""The transactions table, updated by transaction id: rows are added or changed, never rebuilt."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.reactive import reactive
from textual.widgets import DataTable, Static
from textual.widgets.data_table import RowKey

from orderdash.core.domain.columns import KEEP, ColumnSpec, fit_columns
from orderdash.core.domain.text import amount_text, server_time_text
from orderdash.core.model.wire import Transaction
from orderdash.core.safetext import shorten_middle
from orderdash.tui.compat.newest_first_table import NewestFirstTable
from orderdash.tui.text import joined, literal, text_shape

if TYPE_CHECKING:
    from decimal import Decimal

    from rich.console import JustifyMethod

NEW_MARK = Text("\u25cf", "bold green")
#: How long a new transaction keeps its mark in the table.
NEW_MARK_SECONDS = 30.0
HASH_WIDTH = 13
# (key, label): the server's own names for the four amounts, coin then fiat
COLUMNS = (
    ("new", " "),
    ("id", "ID"),
    ("time", "Time"),
    ("hash", "Hash"),
    ("coin_base", "base"),
    ("coin_total", "total"),
    ("coin_under", "underPaid"),
    ("coin_over", "overPaid"),
    ("fiat_base", "fiat base"),
    ("fiat_total", "fiat total"),
    ("fiat_under", "fiat underPaid"),
    ("fiat_over", "fiat overPaid"),
)
#: When the pane is narrow, columns go (the highest `drop` first) rather than be cropped at its
#: edge, where a cut figure looks whole ("-0.0001" for -0.00010437). What was paid and what is
#: still due stay; every amount of the highlighted payment is in the line under the table.
_DROP = {
    "fiat_over": 11,
    "fiat_total": 10,
    "coin_total": 9,
    "fiat_under": 8,
    "coin_over": 7,
    "fiat_base": 6,
    "id": 5,
    "hash": 4,
    "time": 3,
}
COLUMN_SPECS = tuple(ColumnSpec(key, label, drop=_DROP.get(key, KEEP)) for key, label in COLUMNS)


def _amount_cell(value: Decimal, style: str = "") -> Text:
    return Text(amount_text(value), style=style, justify="right")


def row_cells(tx: Transaction) -> dict[str, Text | int]:
    return {
        "id": tx.id,
        "time": literal(server_time_text(tx.created_at)),
        "hash": literal(shorten_middle(tx.hash, HASH_WIDTH)),
        "coin_base": _amount_cell(tx.amount.base, "bold"),
        "coin_total": _amount_cell(tx.amount.total),
        "coin_under": _amount_cell(tx.amount.under_paid),
        "coin_over": _amount_cell(tx.amount.over_paid),
        "fiat_base": _amount_cell(tx.amount_fiat.base, "bold"),
        "fiat_total": _amount_cell(tx.amount_fiat.total),
        "fiat_under": _amount_cell(tx.amount_fiat.under_paid),
        "fiat_over": _amount_cell(tx.amount_fiat.over_paid),
    }


def transaction_line(tx: Transaction, coin: str, currency: str) -> Text:
    """Two lines under the table: id, time and the four amounts; then the full hash."""

    def pair(name: str, coin_amount: Decimal, fiat_amount: Decimal) -> str:
        return f"{name} {amount_text(coin_amount)} {coin} ({amount_text(fiat_amount)} {currency})"

    amounts = "  \u00b7  ".join(
        (
            pair("base", tx.amount.base, tx.amount_fiat.base),
            pair("total", tx.amount.total, tx.amount_fiat.total),
            pair("underPaid", tx.amount.under_paid, tx.amount_fiat.under_paid),
            pair("overPaid", tx.amount.over_paid, tx.amount_fiat.over_paid),
        )
    )
    line = joined(
        Text(f"#{tx.id}  ", "bold"), literal(server_time_text(tx.created_at)), "  ", Text(amounts)
    )
    line.append("\n")
    line.append_text(joined(Text("hash ", "dim"), literal(tx.hash, "bold")))
    return line


def _newest_first(tx: Transaction) -> tuple[int, int]:
    return (tx.created_at_ms, tx.id)


# Everything a row, the line under the table or the explorer link shows, read with C-level
# getters (map over attrgetter) and compared column by column: about 10 ms for an answer of
# 10,000 transactions, where pydantic model equality costs ~30 ms. Amounts compare by value, as
# the models do (an amount re-sent with other trailing zeros is not re-rendered).
_ID = attrgetter("id")
_SHOWN = (
    (attrgetter("hash"),),
    (attrgetter("hash_url"),),
    (attrgetter("created_at_ms"),),
    (attrgetter("amount"), attrgetter("__dict__")),
    (attrgetter("amount_fiat"), attrgetter("__dict__")),
    (attrgetter("created_at"), attrgetter("__dict__")),
)


def _column(getters: tuple[Callable[[Any], Any], ...], transactions: Sequence[Any]) -> list[Any]:
    values: Iterable[Any] = transactions
    for getter in getters:
        values = map(getter, values)
    return list(values)


@dataclass(eq=False, repr=False)
class _Snapshot:
    """What the rows of a list of transactions show, column by column, in the list's order."""

    ids: list[int]
    columns: tuple[list[Any], ...]

    @classmethod
    def of(cls, transactions: Sequence[Transaction]) -> _Snapshot:
        columns = tuple(_column(getters, transactions) for getters in _SHOWN)
        return cls(list(map(_ID, transactions)), columns)

    def row(self, index: int) -> tuple[Any, ...]:
        return tuple(column[index] for column in self.columns)

    def changed_rows(self, start: int, old: _Snapshot) -> list[int]:
        """Indices `start + i` whose row shows something else than row `i` of `old` (the ids
        are aligned already)."""
        stop = start + len(old.ids)
        if all(
            mine[start:stop] == theirs
            for mine, theirs in zip(self.columns, old.columns, strict=True)
        ):
            return []
        return [start + i for i in range(len(old.ids)) if self.row(start + i) != old.row(i)]

    def take(self, index: int, other: _Snapshot, other_index: int) -> None:
        """Row `index` shows what row `other_index` of `other` shows from now on."""
        for mine, theirs in zip(self.columns, other.columns, strict=True):
            mine[index] = theirs[other_index]

    def extend(self, other: _Snapshot) -> None:
        self.ids.extend(other.ids)
        for mine, theirs in zip(self.columns, other.columns, strict=True):
            mine.extend(theirs)

    def part(self, start: int, stop: int | None = None) -> _Snapshot:
        return _Snapshot(self.ids[start:stop], tuple(c[start:stop] for c in self.columns))

    def __add__(self, other: _Snapshot) -> _Snapshot:
        return _Snapshot(
            self.ids + other.ids,
            tuple(a + b for a, b in zip(self.columns, other.columns, strict=True)),
        )


class TransactionsTable(NewestFirstTable):
    """A DataTable keyed by transaction id, newest first.

    `sync` touches only what changed: an answer that shows the same as the previous one costs
    no table operation at all, a new transaction one `add_row`, and new rows go on top without
    re-sorting the table. The table keeps the transaction objects it first saw as long as they
    show the same (`transactions`, `selected()` return those).
    """

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        #: The columns shown (all until the table knows its width), and the widest text of
        #: each column's cells so far (what decides which fit).
        self.shown_columns: tuple[str, ...] = tuple(key for key, _ in COLUMNS)
        self._natural: dict[str, int] = {key: len(label) for key, label in COLUMNS}
        self._add_columns()
        self.transactions: dict[int, Transaction] = {}
        self._new: set[int] = set()
        self._marking: set[int] = set()  # ids to mark as new while a sync adds rows
        self._grew = False  # a sync measured a longer cell than any before
        self._shrunk = False  # a sync changed or removed a row: a column may be narrower now
        self._last_first: Transaction | None = None  # the first object of the last answer
        # the answer as the table holds it (the objects it keeps), in the answer's order, and
        # what those rows show
        self._synced: list[Transaction] = []
        self._snapshot: _Snapshot | None = None
        # row order, newest first: ids and their row keys
        self._order: list[int] = []
        self._keys: list[RowKey] = []

    def _add_columns(self) -> None:
        for key, label in COLUMNS:
            if key in self.shown_columns:
                justify: JustifyMethod = "right" if "_" in key else "left"
                self.add_column(Text(label, justify=justify), key=key)

    def on_resize(self) -> None:
        # the widths held are those of the rows held (each sync keeps them so): measuring
        # 10,000 rows again on every resize cost ~1 s of the first render of a big order
        self._fit_columns(measured=True)

    def _fit_columns(self, *, measured: bool = False) -> None:
        """Show the columns that fit the width whole; when that set changes, the table is
        filled again (a resize across a boundary, or a much longer amount: seldom).
        `measured`: the widths known are those of the rows held (else they are measured again
        first, as they are before any change: a long amount gone must give its room back)."""
        if not self.size.width:
            return
        shown = self._fitting()
        if shown == self.shown_columns and measured:
            return
        if not measured or shown != self.shown_columns:
            self._natural = self._measured()
            shown = self._fitting()
        if shown == self.shown_columns:
            return
        transactions, new = list(self._synced), set(self._new)
        self.reset()
        self.clear(columns=True)
        self.shown_columns = shown
        self._add_columns()
        if transactions:
            self.sync(transactions, new)

    def _fitting(self) -> tuple[str, ...]:
        """The columns that fit the width with the cells measured so far."""
        available = self.size.width - self.styles.scrollbar_size_vertical
        return tuple(fit_columns(COLUMN_SPECS, self._natural, available))

    def _fit_empty(self) -> None:
        """Fit the columns of the empty table to the rows about to go in (measured): changing
        columns costs nothing yet, where after the rows it means filling the table again."""
        if self.size.width and (shown := self._fitting()) != self.shown_columns:
            self.clear(columns=True)
            self.shown_columns = shown
            self._add_columns()

    def _measured(self) -> dict[str, int]:
        """The widest text of each column over the rows held (and its label)."""
        natural = {key: len(label) for key, label in COLUMNS}
        for tx in self.transactions.values():
            for key, cell in row_cells(tx).items():
                width = cell_len(cell.plain) if isinstance(cell, Text) else len(str(cell))
                if width > natural[key]:
                    natural[key] = width
        return natural

    def _measure(self, cells: dict[str, Text | int]) -> bool:
        """Count a row's cells into the columns' widths; True if one grew."""
        grew = False
        natural = self._natural
        for key, cell in cells.items():
            width = cell_len(cell.plain) if isinstance(cell, Text) else len(str(cell))
            if width > natural[key]:
                natural[key], grew = width, True
        return grew

    def sync(self, transactions: Sequence[Transaction], new_ids: Iterable[int] = ()) -> list[int]:
        """Bring the table to `transactions`; returns the ids of the rows it added."""
        incoming = transactions if isinstance(transactions, tuple | list) else list(transactions)
        # new rows get their mark as they are added (one table change less per payment)
        self._marking = set(new_ids)
        self._grew = self._shrunk = False
        try:
            added = [] if _same_objects(incoming, self._synced) else self._sync(incoming)
        finally:
            marking, self._marking = self._marking, set()
        if self._grew or self._shrunk:
            self._fit_columns(measured=not self._shrunk)
        for tx_id in marking:
            if tx_id in self.transactions and tx_id not in self._new:
                self._new.add(tx_id)
                self.update_cell(str(tx_id), "new", NEW_MARK)
        return added

    def _sync(self, incoming: Sequence[Transaction]) -> list[int]:
        old, count = self._snapshot, len(self._synced)
        # Does the source hand back the same objects for unchanged transactions? Then the table
        # takes its objects, and the next answer is recognised by identity alone. Fresh objects
        # in every answer (the client today) are compared and then dropped: the table keeps
        # the ones it has, so nothing is freed here.
        first = incoming[0] if incoming else None
        reused, self._last_first = first is not None and first is self._last_first, first
        if old is None:
            return self._replace(incoming, _Snapshot.of(incoming))
        if count <= len(incoming) and _same_objects(incoming[:count], self._synced):
            # the objects the table holds, and more after them: only the new ones need reading
            return self._extend(incoming, _Snapshot.of(incoming[count:]), start=count)
        snapshot = _Snapshot.of(incoming)
        if snapshot.ids[:count] == old.ids:  # the usual answer: new transactions at the end
            self._take_changed(incoming, snapshot, snapshot.changed_rows(0, old), start=0)
            if reused:
                self._adopt(incoming[:count], snapshot.part(0, count))
            return self._extend(incoming, snapshot.part(count), start=count)
        start = len(incoming) - count
        if count and start >= 0 and snapshot.ids[start:] == old.ids:  # or at the start
            self._take_changed(incoming, snapshot, snapshot.changed_rows(start, old), start=start)
            self._synced = list(incoming[:start]) + self._synced
            self._snapshot = snapshot.part(0, start) + old
            return self._add(incoming[:start])
        return self._replace(incoming, snapshot)

    def _adopt(self, transactions: Sequence[Transaction], snapshot: _Snapshot) -> None:
        """Hold these objects (showing what the held rows show) instead of the held ones."""
        self._synced = list(transactions)
        self._snapshot = snapshot
        self.transactions.update(zip(snapshot.ids, transactions, strict=True))

    def _take_changed(
        self, incoming: Sequence[Transaction], snapshot: _Snapshot, changed: list[int], start: int
    ) -> None:
        """Rows whose transaction shows something new: update their cells and hold the new
        object. `changed` index `incoming`; its row `start + i` is the held row `i`."""
        assert self._snapshot is not None
        for index in changed:
            self._update_row(incoming[index])
            self._synced[index - start] = incoming[index]
            self._snapshot.take(index - start, snapshot, index)

    def _extend(self, incoming: Sequence[Transaction], tail: _Snapshot, *, start: int) -> list[int]:
        """The held rows, then `incoming[start:]` (whose snapshot is `tail`)."""
        assert self._snapshot is not None
        fresh = incoming[start:]
        if not fresh:
            return []
        self._synced.extend(fresh)
        self._snapshot.extend(tail)
        return self._add(fresh)

    def _replace(self, incoming: Sequence[Transaction], snapshot: _Snapshot) -> list[int]:
        """Any other answer (or the first): compare by id, then hold this answer."""
        changed, removed = self._compare_by_id(snapshot) if self._snapshot is not None else ([], [])
        if len(removed) > 50:
            # remove_row re-indexes the whole table each time: rebuilding is cheaper
            self.reset()
            changed, removed = [], []
        for index in changed:
            self._update_row(incoming[index])
        for tx_id in removed:
            self._remove(tx_id)
        added = self._add(incoming)
        self.transactions.update(zip(snapshot.ids, incoming, strict=True))
        self._synced, self._snapshot = list(incoming), snapshot
        return added

    def _compare_by_id(self, snapshot: _Snapshot) -> tuple[list[int], list[int]]:
        """Indices into `snapshot` of rows that changed, and the ids no longer there."""
        old = self._snapshot
        assert old is not None
        old_rows = {tx_id: index for index, tx_id in enumerate(old.ids)}
        changed = []
        for index, tx_id in enumerate(snapshot.ids):
            known = old_rows.pop(tx_id, None)
            if known is not None and snapshot.row(index) != old.row(known):
                changed.append(index)
        return changed, [tx_id for tx_id in old_rows if tx_id in self.transactions]

    def _update_row(self, tx: Transaction) -> None:
        known = self.transactions.get(tx.id)
        if known is None:
            return
        old, new = row_cells(known), row_cells(tx)
        self._grew |= self._measure(new)
        self._shrunk = True
        for column, value in new.items():
            if old[column] != value and column in self.shown_columns:
                # a longer amount must widen its column, never be cut to the old width
                self.update_cell(str(tx.id), column, value, update_width=True)
        self.transactions[tx.id] = tx

    def _remove(self, tx_id: int) -> None:
        self._shrunk = True
        self.remove_row(str(tx_id))
        del self.transactions[tx_id]
        self._new.discard(tx_id)
        index = self._order.index(tx_id)
        del self._order[index]
        del self._keys[index]

    def _add(self, transactions: Sequence[Transaction]) -> list[int]:
        """Add rows for those of `transactions` not in the table yet, where they belong."""
        unique = {tx.id: tx for tx in transactions if tx.id not in self.transactions}
        fresh = sorted(unique.values(), key=_newest_first, reverse=True)
        if not fresh:
            return []
        top = self.transactions[self._order[0]] if self._order else None
        ids = [tx.id for tx in fresh]
        on_top = top is not None and _newest_first(fresh[-1]) >= _newest_first(top)
        if on_top and self.adds_on_top:
            # each added row lands on top: the oldest first, so the newest ends up there
            keys = [self._add_row(tx) for tx in reversed(fresh)][::-1]
        elif top is None:
            # an empty table (the first answer): measured and fitted before the rows go in
            cells = [self._cells(tx) for tx in fresh]
            self._fit_empty()
            keys = [self._add_row(tx, row) for tx, row in zip(fresh, cells, strict=True)]
        else:
            keys = [self._add_row(tx) for tx in fresh]
        self.transactions.update(unique)
        if top is None:
            # an empty table: the rows went in newest first, and the cursor (row 0) is on the
            # newest payment, the one the line under the table then describes
            self._order, self._keys = ids, keys
        elif on_top:
            # the usual case: every new transaction is newer than what is shown
            self._place(ids + self._order, keys + self._keys, shift=len(ids))
        else:
            everything = sorted(self.transactions.values(), key=_newest_first, reverse=True)
            order = [tx.id for tx in everything]
            key_of = dict(zip(self._order + ids, self._keys + keys, strict=True))
            self._place(order, [key_of[tx_id] for tx_id in order], shift=None)
        return ids

    def _cells(self, tx: Transaction) -> dict[str, Text | int]:
        """A row's cells (its new mark too), counted into the columns' widths."""
        mark = NEW_MARK if tx.id in self._marking else Text("")
        if tx.id in self._marking:
            self._new.add(tx.id)
        cells: dict[str, Text | int] = {"new": mark, **row_cells(tx)}
        self._grew |= self._measure(cells)
        return cells

    def _add_row(self, tx: Transaction, cells: dict[str, Text | int] | None = None) -> RowKey:
        cells = self._cells(tx) if cells is None else cells
        return self.add_row(*(cells[key] for key in self.shown_columns), key=str(tx.id))

    def _place(self, order: list[int], keys: list[RowKey], *, shift: int | None) -> None:
        """Show the rows in `order`: what DataTable.sort does once it has the order, without
        sorting 10,000 rows through a Python key. The cursor stays on its transaction."""
        row = self.cursor_row
        selected = self._order[row] if 0 <= row < len(self._order) else None
        self._order = order
        self.place_rows(keys, on_top=shift is not None)
        if selected is not None:
            # The same transaction stays selected, one row further down: no highlight to post,
            # and the rows are all repainted anyway. `move_cursor` would refresh the old and
            # new rows, each walking every row above (15 ms at 10,000 rows).
            moved = row + shift if shift is not None else order.index(selected)
            self.set_reactive(
                DataTable.cursor_coordinate, Coordinate(moved, self.cursor_coordinate.column)
            )

    def clear_new_marks(self) -> None:
        for tx_id in self._new:
            if tx_id in self.transactions:
                self.update_cell(str(tx_id), "new", Text(""))
        self._new.clear()

    def reset(self) -> None:
        self.clear()
        self._natural = {key: len(label) for key, label in COLUMNS}
        self.transactions.clear()
        self._new.clear()
        self._synced, self._snapshot, self._last_first = [], None, None
        self._order, self._keys = [], []

    def selected(self) -> Transaction | None:
        if not self.transactions or self.cursor_row < 0 or self.cursor_row >= self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return self._transaction_for(row_key)

    def _transaction_for(self, row_key: RowKey) -> Transaction | None:
        if row_key.value is None:
            return None
        return self.transactions.get(int(row_key.value))


def _same_objects(a: Sequence[object], b: Sequence[object]) -> bool:
    """The same objects in the same order: an answer the table holds already."""
    return a is b or (len(a) == len(b) and all(map(is_, a, b)))


class TransactionsPane(Vertical):
    """The table and, under it, the full details of the highlighted transaction."""

    #: How many transactions the table holds (None: no order), in the border title.
    count: reactive[int | None] = reactive(None, init=False, layout=False, repaint=False)

    DEFAULT_CSS = """
    TransactionsPane {
        border: round $primary 50%;
        #transactions {
            height: 1fr;
        }
        #tx-detail {
            height: 2;
            text-wrap: nowrap;
            text-overflow: ellipsis;
            color: $text-muted;
            padding: 0 1;
        }
    }
    """

    def compose(self) -> ComposeResult:
        yield TransactionsTable(id="transactions")
        yield Static(Text("No transactions yet.", "dim"), id="tx-detail")

    def on_mount(self) -> None:
        self.border_title = "Transactions"
        self._coin = ""
        self._currency = ""
        self._described: tuple[object, ...] | None = None
        self._shape: str | None = None

    @property
    def table(self) -> TransactionsTable:
        return self.query_one(TransactionsTable)

    def show(
        self, transactions: Sequence[Transaction], new_ids: Iterable[int], coin: str, currency: str
    ) -> None:
        self._coin, self._currency = coin, currency
        new_ids = tuple(new_ids)
        self.table.sync(transactions, new_ids)
        if new_ids:
            self.set_timer(NEW_MARK_SECONDS, self.table.clear_new_marks)
        self.count = len(self.table.transactions)
        self._describe_selected()

    def reset(self) -> None:
        self.table.reset()
        self.count = None
        self._describe_selected()

    def watch_count(self, count: int | None) -> None:
        # a reactive: a poll with as many transactions as before repaints no border
        self.border_title = "Transactions" if count is None else f"Transactions ({count})"

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._describe_selected()

    def _describe_selected(self) -> None:
        tx = self.table.selected()
        # the table keeps a transaction's object while it shows the same: same object, same line
        described = (id(tx), tx, self._coin, self._currency)
        if described == self._described:
            return
        self._described = described
        if tx is None:
            line = Text("No transactions yet.", "dim")
        else:
            line = transaction_line(tx, self._coin, self._currency)
        shape = text_shape(line)
        self.query_one("#tx-detail", Static).update(line, layout=shape != self._shape)
        self._shape = shape
