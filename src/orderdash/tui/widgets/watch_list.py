"""The operator's watch list: one row per watched order, sortable, filterable, with alerts."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Label

from orderdash.core.domain.display import amount_text, coin_code
from orderdash.core.domain.status import tone_of
from orderdash.core.safetext import clean, shorten_middle
from orderdash.core.watching.entry import STATE_FILTERS, Entry
from orderdash.core.watching.state import DashboardState
from orderdash.tui.messages import OrderChosen
from orderdash.tui.styles import TONE_STYLES
from orderdash.tui.text import literal

ALERT_MARK = Text("\u25cf", "bold #de935f")
#: The order open in the panes below: its row is marked so the operator sees which one it is.
OPEN_MARK = Text("\u25b6", "bold #81a2be")
#: Ticks (seconds) between refreshes of the age columns.
AGE_REFRESH_TICKS = 5


def age_text(seconds: float | None) -> str:
    """Coarse on purpose: the cell changes at most once a minute."""
    if seconds is None:
        return "\u2014"
    if seconds < 60:
        return "<1m"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    return f"{int(seconds // 86400)}d"


HEALTH_STYLES = {"ok": "green", "stale": "bold #de935f", "error": "bold #cc6666", "loading": "dim"}
COLUMNS = (
    ("alert", " "),
    ("token", "Token"),
    ("company", "Company"),
    ("coin", "Coin"),
    ("fiat", "Fiat"),
    ("amount", "Amount"),
    ("status", "Status"),
    ("payment", "Payment"),
    ("txs", "Txs"),
    ("last_tx", "Last tx"),
    ("age", "Data"),
    ("health", "Health"),
)


class TokenCell(Text):
    """The token column's cell: shows the token shortened, carries it whole for sorting."""

    def __init__(self, token: str) -> None:
        super().__init__(shorten_middle(clean(token), 16))
        self.token = token


def cells(entry: Entry, now: float, *, is_open: bool = False) -> dict[str, Any]:
    order, payment = entry.order, entry.payment
    last_tx = entry.last_tx_ms
    token = TokenCell(entry.token)
    if is_open:
        token.stylize("bold")
    values: dict[str, Any] = {
        "alert": ALERT_MARK if entry.unseen else OPEN_MARK if is_open else Text(""),
        "token": token,
        "age": Text(age_text(None if entry.updated_at is None else now - entry.updated_at)),
        "last_tx": Text(age_text(None if last_tx is None else now - last_tx / 1000)),
        "health": Text(entry.health, HEALTH_STYLES[entry.health]),
    }
    if order is None:
        blank = Text(clean(entry.error or "", limit=40), "dim")
        values.update({k: Text("") for k in ("coin", "fiat", "amount", "status", "txs")})
        values.update({"company": blank, "payment": Text("")})
        return values
    values.update(
        {
            "company": literal(order.company_name, limit=24),
            "coin": Text(coin_code(order) or "\u2014"),
            "fiat": Text(
                f"{amount_text(order.amount_fiat, group=True)} "
                f"{clean(order.currency.abbreviation, limit=8)}",
                justify="right",
            ),
            "amount": Text(
                amount_text(order.amount) if order.amount is not None else "\u2014", justify="right"
            ),
            "status": literal(
                f" {order.status.label} ",
                TONE_STYLES[tone_of(order.status.code, order.status.label)],
                limit=24,
            ),
            "payment": literal(payment.headline if payment else "", limit=40),
            "txs": Text(str(len(order.transactions)), justify="right"),
        }
    )
    return values


def sort_key(entry: Entry, column: str) -> tuple:
    order = entry.order
    missing = (1,)
    match column:
        case "token":
            return (0, entry.token)
        case "company":
            return (0, order.company_name.lower()) if order else missing
        case "coin":
            return (0, order.coin_base_name or "") if order else missing
        case "fiat":
            return (0, order.currency.abbreviation, order.amount_fiat) if order else missing
        case "amount":
            return (0, order.amount) if order and order.amount is not None else missing
        case "status":
            return (0, order.status.code) if order else missing
        case "payment":
            return (0, entry.payment.phase.value) if entry.payment else missing
        case "txs":
            return (0, len(order.transactions)) if order else missing
        case "last_tx":
            return (0, -(entry.last_tx_ms or 0))
        case "age":
            return (0, -(entry.updated_at or 0))
        case "health":
            return (0, ["error", "stale", "loading", "ok"].index(entry.health))
        case _:  # alert
            return (0, not entry.unseen)


class WatchTable(DataTable):
    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        for key, label in COLUMNS:
            self.add_column(label, key=key)


class WatchListPane(Vertical):
    """The list. The app's state owns the entries (this pane holds a reference to the state);
    this pane shows them, marks an order seen when the operator is on its row, and reports
    choices. Tell it what changed: `update_entry` for one order, `rebuild` after orders came or
    went."""

    DEFAULT_CSS = """
    WatchListPane {
        border: round $primary 50%;
        border-subtitle-color: $text-muted;
        #watch-filter-row {
            height: 1;
        }
        #watch-filter-label {
            width: auto;
            padding: 0 1;
            color: $text-muted;
        }
        #watch-filter {
            border: none;
            height: 1;
            padding: 0 1;
            width: 1fr;
            background: $boost;
        }
        #watch-table {
            height: auto;
            max-height: 100%;
        }
    }
    """

    def __init__(self, state: DashboardState, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state = state
        self.clock = state.clock
        self.entries = state.entries
        self.state_filter = "all"
        self.text_filter = ""
        # a stable order by default: rows do not jump under the cursor when alerts come in
        self.sort_column = "token"
        self.sort_reverse = False
        self._shown: dict[str, dict[str, Any]] = {}
        #: The sort key each shown row was placed by (a change of it re-sorts).
        self._sorted_as: dict[str, tuple] = {}
        #: The user hid the list (`w`); a filter shows it again.
        self.hidden_by_user = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="watch-filter-row"):
            yield Label("Filter", id="watch-filter-label")
            yield Input(
                placeholder="text in token, company, status, coin, address", id="watch-filter"
            )
        yield WatchTable(id="watch-table")

    def on_mount(self) -> None:
        self._ticks = 0
        self._retitle()

    def tick(self) -> None:
        """The app's clock, once a second: the ages move every few seconds."""
        self._ticks += 1
        if self._ticks % AGE_REFRESH_TICKS == 0:
            self._refresh_ages()

    @property
    def table(self) -> WatchTable:
        return self.query_one(WatchTable)

    # -- data from the screen --------------------------------------------------------------------

    def update_entry(self, token: str) -> None:
        """One order changed: update its cells in place (re-sort or re-filter only if needed)."""
        entry = self.entries.get(token)
        if entry is None:
            self.rebuild()
            return
        visible = entry.in_filter(self.state_filter, self.text_filter)
        if visible != (entry.token in self._shown):
            self.rebuild()
            return
        if visible:
            old = self._shown[entry.token]
            new = cells(entry, self.clock(), is_open=entry.token == self.state.token)
            for column, value in new.items():
                if old.get(column) != value:
                    self.table.update_cell(entry.token, column, value, update_width=True)
            self._shown[entry.token] = new
            if self._sorted_as.get(entry.token) != sort_key(entry, self.sort_column):
                self._sort()
        self._retitle()

    def _update_display(self) -> None:
        # one order is the single-order dashboard: the list appears from the second one on
        self.display = len(self.entries) > 1 and not self.hidden_by_user

    def toggle_hidden(self) -> None:
        self.hidden_by_user = not self.hidden_by_user
        self._update_display()

    def rebuild(self) -> None:
        """Show the entries that pass the filters, sorted; keeps the cursor on its order."""
        self._update_display()
        table = self.table
        selected = self.selected_token()
        table.clear()
        self._shown.clear()
        now = self.clock()
        for entry in self.entries.values():
            if entry.in_filter(self.state_filter, self.text_filter):
                row = cells(entry, now, is_open=entry.token == self.state.token)
                self._shown[entry.token] = row
                table.add_row(*(row[key] for key, _ in COLUMNS), key=entry.token)
        self._sort()
        if selected in self._shown:
            table.move_cursor(row=table.get_row_index(selected), scroll=False)
        self._retitle()

    def _sort(self) -> None:
        if not self._shown:
            self._sorted_as = {}
            return
        column, entries = self.sort_column, self.entries
        self._sorted_as = {token: sort_key(entries[token], column) for token in self._shown}
        # ties keep the order of the token, so equal rows do not swap places between updates
        self.table.sort(
            "token",
            key=lambda cell: (sort_key(entries[cell.token], column), cell.token),
            reverse=self.sort_reverse,
        )

    def _refresh_ages(self) -> None:
        now = self.clock()
        for token, shown in self._shown.items():
            entry = self.entries.get(token)
            if entry is None:  # removed; the next rebuild drops its row
                continue
            fresh = cells(entry, now, is_open=token == self.state.token)
            for column in ("age", "last_tx"):
                if fresh[column] != shown[column]:
                    self.table.update_cell(token, column, fresh[column])
                    shown[column] = fresh[column]

    def _retitle(self) -> None:
        counts = Counter(
            entry.payment.phase.value if entry.payment else entry.health
            for entry in self.entries.values()
        )
        parts = [f"Watching {len(self.entries)}"] + [
            f"{n} {state}" for state, n in counts.most_common()
        ]
        shown = (
            f" \u00b7 showing {len(self._shown)}" if len(self._shown) != len(self.entries) else ""
        )
        filters = f" \u00b7 filter: {self.state_filter}" if self.state_filter != "all" else ""
        self.border_title = " \u00b7 ".join(parts) + shown + filters
        sort = f"sorted by {dict(COLUMNS)[self.sort_column].strip() or 'alerts'}"
        self.border_subtitle = f"{sort}{' (reversed)' if self.sort_reverse else ''}"

    # -- user actions --------------------------------------------------------------------------

    def selected_token(self) -> str | None:
        table = self.table
        if not self._shown or table.cursor_row < 0 or table.cursor_row >= table.row_count:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return row_key.value

    def highlighted_token(self) -> str | None:
        """The highlighted row's order while the list has the focus (the keys act on it),
        else None (they act on the order open in the panes)."""
        return self.selected_token() if self.display and self.table.has_focus else None

    def focus_rows(self) -> bool:
        """Show the list if hidden and focus its rows, the open order's highlighted; False
        when there is no list to go to (it appears from the second order on)."""
        self.hidden_by_user = False
        self._update_display()
        if not self.display:
            return False
        table = self.table
        if self.state.token in self._shown:
            table.move_cursor(row=table.get_row_index(self.state.token))
        table.focus()
        return True

    def focus_filter(self) -> None:
        self.hidden_by_user = False
        self._update_display()
        self.query_one("#watch-filter", Input).focus()

    def cycle_state_filter(self) -> str:
        names = list(STATE_FILTERS)
        self.state_filter = names[(names.index(self.state_filter) + 1) % len(names)]
        self.rebuild()
        return self.state_filter

    def sort_by(self, column: str) -> None:
        if column == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = column, False
        self._sort()
        self._retitle()

    def cycle_sort(self) -> str:
        keys = [key for key, _ in COLUMNS]
        self.sort_by(keys[(keys.index(self.sort_column) + 1) % len(keys)])
        return self.sort_column

    @on(Input.Changed, "#watch-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.text_filter = event.value.strip()
        self.rebuild()

    @on(Input.Submitted, "#watch-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.table.focus()

    @on(DataTable.HeaderSelected)
    def _header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.sort_by(str(event.column_key.value))

    def mark_seen(self, token: str) -> None:
        if self.state.mark_seen(token) is not None:
            self.update_entry(token)

    @on(DataTable.RowHighlighted, "#watch-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        # seen = the operator is on the list, on that row (not a row moving under an idle cursor)
        if event.row_key.value is not None and event.data_table.has_focus:
            self.mark_seen(event.row_key.value)

    @on(DataTable.RowSelected, "#watch-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(OrderChosen(event.row_key.value))
