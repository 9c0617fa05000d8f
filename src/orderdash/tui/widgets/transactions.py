"""The transactions table, updated by transaction id: rows are added or changed, never rebuilt."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
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


class TransactionsTable(DataTable):
    """A DataTable keyed by transaction id, newest first."""

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        for key, label in COLUMNS:
            self.add_column(Text(label, justify="right" if "_" in key else "left"), key=key)
        self.transactions: dict[int, Transaction] = {}
        self._new: set[int] = set()

    def sync(self, transactions: Sequence[Transaction], new_ids: Iterable[int] = ()) -> list[int]:
        """Bring the table to `transactions`; returns the ids of the rows it added."""
        incoming = {tx.id: tx for tx in transactions}
        added: list[int] = []
        for tx_id, tx in incoming.items():
            known = self.transactions.get(tx_id)
            if known is None:
                self.add_row(Text(""), *row_cells(tx).values(), key=str(tx_id))
                added.append(tx_id)
            elif known != tx:
                old, new = row_cells(known), row_cells(tx)
                for column, value in new.items():
                    if old[column] != value:
                        self.update_cell(str(tx_id), column, value)
            self.transactions[tx_id] = tx
        for gone in [tx_id for tx_id in self.transactions if tx_id not in incoming]:
            self.remove_row(str(gone))
            del self.transactions[gone]
            self._new.discard(gone)
        for tx_id in new_ids:
            if tx_id in self.transactions:
                self._new.add(tx_id)
                self.update_cell(str(tx_id), "new", NEW_MARK)
        if added:
            self._sort_newest_first()
        return added

    def clear_new_marks(self) -> None:
        for tx_id in self._new:
            if tx_id in self.transactions:
                self.update_cell(str(tx_id), "new", Text(""))
        self._new.clear()

    def reset(self) -> None:
        self.clear()
        self.transactions.clear()
        self._new.clear()

    def selected(self) -> Transaction | None:
        if not self.transactions or self.cursor_row < 0 or self.cursor_row >= self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return self._transaction_for(row_key)

    def _transaction_for(self, row_key: RowKey) -> Transaction | None:
        if row_key.value is None:
            return None
        return self.transactions.get(int(row_key.value))

    def _sort_newest_first(self) -> None:
        # keep the cursor on the row the user was on, not on the same position
        selected = self.selected() if self.row_count else None
        order = {tx_id: (tx.created_at_ms, tx_id) for tx_id, tx in self.transactions.items()}
        self.sort("id", key=lambda tx_id: order[tx_id], reverse=True)
        if selected is not None:
            self.move_cursor(row=self.get_row_index(str(selected.id)), scroll=False)


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
