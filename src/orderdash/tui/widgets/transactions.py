"""The transactions table, updated by transaction id: rows are added or changed, never rebuilt."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter, is_

from rich.text import Text
from textual._two_way_dict import TwoWayDict
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static
from textual.widgets.data_table import RowKey

from orderdash.core.display import amount_text, server_time_text
from orderdash.core.models import Transaction
from orderdash.core.safetext import shorten_middle
from orderdash.tui.text import joined, literal

NEW_MARK = Text("\u25cf", "bold green")
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


def _amount_cell(value: object, style: str = "") -> Text:
    return Text(amount_text(value), style=style, justify="right")  # type: ignore[arg-type]


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

    def pair(name: str, coin_amount: object, fiat_amount: object) -> str:
        return f"{name} {amount_text(coin_amount)} {coin} ({amount_text(fiat_amount)} {currency})"  # type: ignore[arg-type]

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


# Everything a row (or the detail line under the table, or the explorer link) shows, read with
# C-level getters so that comparing an answer of 10,000 transactions with the previous one costs
# a few milliseconds instead of pydantic model equality (~30 ms) plus rebuilding every row's
# cells. Amounts compare by value, as the models do.
_ID = attrgetter("id")
_LINE = attrgetter("hash", "hash_url", "created_at_ms")
_AMOUNT = attrgetter("amount")
_AMOUNT_FIAT = attrgetter("amount_fiat")
_CREATED_AT = attrgetter("created_at")
_FIELDS = attrgetter("__dict__")


@dataclass(frozen=True)
class _Snapshot:
    """What the rows of a list of transactions show, column by column, in the list's order."""

    ids: list[int]
    lines: list[tuple[object, ...]]
    amounts: list[dict[str, object]]
    amounts_fiat: list[dict[str, object]]
    created: list[dict[str, object]]

    @classmethod
    def of(cls, transactions: Sequence[Transaction]) -> _Snapshot:
        return cls(
            list(map(_ID, transactions)),
            list(map(_LINE, transactions)),
            list(map(_FIELDS, map(_AMOUNT, transactions))),
            list(map(_FIELDS, map(_AMOUNT_FIAT, transactions))),
            list(map(_FIELDS, map(_CREATED_AT, transactions))),
        )

    def columns(self, start: int = 0, stop: int | None = None) -> tuple[list[object], ...]:
        return (
            self.lines[start:stop],
            self.amounts[start:stop],
            self.amounts_fiat[start:stop],
            self.created[start:stop],
        )

    def changed_rows(self, start: int, old: _Snapshot) -> list[int]:
        """Indices `start + i` whose row differs from row `i` of `old` (ids already aligned)."""
        stop = start + len(old.ids)
        if self.columns(start, stop) == old.columns():
            return []
        rows = zip(*self.columns(start, stop), strict=True)
        return [start + i for i, row in enumerate(rows) if row != old.row(i)]

    def row(self, index: int) -> tuple[object, ...]:
        return (
            self.lines[index],
            self.amounts[index],
            self.amounts_fiat[index],
            self.created[index],
        )


class TransactionsTable(DataTable):
    """A DataTable keyed by transaction id, newest first.

    `sync` touches only what changed: an answer equal to the previous one costs no table
    operation at all, a new transaction one `add_row`, and rows go on top without re-sorting
    the table.
    """

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        for key, label in COLUMNS:
            self.add_column(Text(label, justify="right" if "_" in key else "left"), key=key)
        self.transactions: dict[int, Transaction] = {}
        self._new: set[int] = set()
        # the transactions last given to sync and what their rows show
        self._synced: Sequence[Transaction] = ()
        self._snapshot: _Snapshot | None = None
        # row order, newest first: ids and their row keys
        self._order: list[int] = []
        self._keys: list[RowKey] = []

    def sync(self, transactions: Sequence[Transaction], new_ids: Iterable[int] = ()) -> list[int]:
        """Bring the table to `transactions`; returns the ids of the rows it added."""
        incoming = transactions if isinstance(transactions, tuple | list) else list(transactions)
        added: list[int] = []
        if not _same_objects(incoming, self._synced):
            snapshot = _Snapshot.of(incoming)
            if snapshot != self._snapshot:
                added = self._apply(incoming, snapshot)
            self._synced, self._snapshot = incoming, snapshot
        for tx_id in new_ids:
            if tx_id in self.transactions and tx_id not in self._new:
                self._new.add(tx_id)
                self.update_cell(str(tx_id), "new", NEW_MARK)
        return added

    def _apply(self, incoming: Sequence[Transaction], snapshot: _Snapshot) -> list[int]:
        """Add, update and remove rows so the table shows `incoming`; returns the added ids."""
        old = self._snapshot
        count = 0 if old is None else len(old.ids)
        changed: list[int] = []  # indices into incoming of rows to update
        removed: list[int] = []  # ids
        if old is None or not self.transactions:
            fresh = list(range(len(incoming)))
        elif snapshot.ids[:count] == old.ids:  # the usual answer: new transactions at the end
            changed = snapshot.changed_rows(0, old)
            fresh = list(range(count, len(incoming)))
        elif 0 < count <= len(incoming) and snapshot.ids[len(incoming) - count :] == old.ids:
            start = len(incoming) - count
            changed = snapshot.changed_rows(start, old)
            fresh = list(range(start))
        else:
            changed, fresh, removed = self._compare_by_id(snapshot)
        if len(removed) > 50:
            # remove_row re-indexes the whole table each time: rebuilding is cheaper
            self.reset()
            changed, fresh, removed = [], list(range(len(incoming))), []
        for index in changed:
            self._update_row(incoming[index])
        for tx_id in removed:
            self._remove(tx_id)
        return self._add([incoming[index] for index in fresh])

    def _compare_by_id(self, snapshot: _Snapshot) -> tuple[list[int], list[int], list[int]]:
        """(changed, fresh) indices into `snapshot` and removed ids, whatever the order."""
        old = self._snapshot
        assert old is not None
        old_rows = {tx_id: index for index, tx_id in enumerate(old.ids)}
        changed, fresh = [], []
        for index, tx_id in enumerate(snapshot.ids):
            known = old_rows.pop(tx_id, None)
            if known is None:
                if tx_id not in self.transactions:
                    fresh.append(index)
            elif snapshot.row(index) != old.row(known):
                changed.append(index)
        return changed, fresh, [tx_id for tx_id in old_rows if tx_id in self.transactions]

    def _update_row(self, tx: Transaction) -> None:
        known = self.transactions.get(tx.id)
        if known is None:
            return
        old, new = row_cells(known), row_cells(tx)
        for column, value in new.items():
            if old[column] != value:
                self.update_cell(str(tx.id), column, value)
        self.transactions[tx.id] = tx

    def _remove(self, tx_id: int) -> None:
        self.remove_row(str(tx_id))
        del self.transactions[tx_id]
        self._new.discard(tx_id)
        index = self._order.index(tx_id)
        del self._order[index]
        del self._keys[index]

    def _add(self, transactions: list[Transaction]) -> list[int]:
        """Add rows for `transactions` (ids not in the table yet) where they belong."""
        unique = {tx.id: tx for tx in transactions if tx.id not in self.transactions}
        fresh = sorted(unique.values(), key=_newest_first, reverse=True)
        if not fresh:
            return []
        top = self.transactions[self._order[0]] if self._order else None
        ids = [tx.id for tx in fresh]
        keys = [self.add_row(Text(""), *row_cells(tx).values(), key=str(tx.id)) for tx in fresh]
        self.transactions.update(unique)
        if top is None:
            # an empty table: the rows went in in order. The cursor goes where it always went:
            # to the first transaction of the answer (the row it was on before the old re-sort)
            self._order, self._keys = ids, keys
            row = ids.index(next(iter(unique)))
            if row:
                self.move_cursor(row=row, scroll=False)
        elif _newest_first(fresh[-1]) >= _newest_first(top):
            # the usual case: every new transaction is newer than what is shown
            self._place(ids + self._order, keys + self._keys, shift=len(ids))
        else:
            everything = sorted(self.transactions.values(), key=_newest_first, reverse=True)
            order = [tx.id for tx in everything]
            key_of = dict(zip(self._order + ids, self._keys + keys, strict=True))
            self._place(order, [key_of[tx_id] for tx_id in order], shift=None)
        return ids.copy()

    def _place(self, order: list[int], keys: list[RowKey], *, shift: int | None) -> None:
        """Show the rows in `order` (what DataTable.sort does once it has the order), keeping
        the cursor on the transaction it was on."""
        selected = self._order[self.cursor_row] if 0 <= self.cursor_row < len(self._order) else None
        self._order, self._keys = order, keys
        self._row_locations = TwoWayDict(dict(zip(keys, range(len(keys)), strict=True)))
        self._update_count += 1
        self.refresh()
        if selected is not None:
            row = self.cursor_row + shift if shift is not None else order.index(selected)
            self.move_cursor(row=row, scroll=False)

    def clear_new_marks(self) -> None:
        for tx_id in self._new:
            if tx_id in self.transactions:
                self.update_cell(str(tx_id), "new", Text(""))
        self._new.clear()

    def reset(self) -> None:
        self.clear()
        self.transactions.clear()
        self._new.clear()
        self._synced, self._snapshot = (), None
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
    """The same transaction objects in the same order (the same answer shown again)."""
    return a is b or (len(a) == len(b) and all(map(is_, a, b)))


class TransactionsPane(Vertical):
    """The table and, under it, the full details of the highlighted transaction."""

    def compose(self) -> ComposeResult:
        yield TransactionsTable(id="transactions")
        yield Static(Text("No transactions yet.", "dim"), id="tx-detail")

    def on_mount(self) -> None:
        self.border_title = "Transactions"
        self._coin = ""
        self._currency = ""

    @property
    def table(self) -> TransactionsTable:
        return self.query_one(TransactionsTable)

    def show(
        self, transactions: Sequence[Transaction], new_ids: Iterable[int], coin: str, currency: str
    ) -> None:
        self._coin, self._currency = coin, currency
        self.table.sync(transactions, new_ids)
        count = len(self.table.transactions)
        self.border_title = f"Transactions ({count})"
        self._describe_selected()

    def reset(self) -> None:
        self.table.reset()
        self.border_title = "Transactions"
        self.query_one("#tx-detail", Static).update(Text("No transactions yet.", "dim"))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._describe_selected()

    def _describe_selected(self) -> None:
        tx = self.table.selected()
        detail = self.query_one("#tx-detail", Static)
        if tx is None:
            detail.update(Text("No transactions yet.", "dim"))
        else:
            detail.update(transaction_line(tx, self._coin, self._currency))
