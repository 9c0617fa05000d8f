"""The operator's watch list: one row per watched order, newest first unless sorted otherwise,
filterable, with alerts; a line above the rows says what it shows and in which order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.reactive import var
from textual.widgets import DataTable, Input, Label

from orderdash.core.domain.columns import fit_columns
from orderdash.core.watching.entry import STATE_FILTERS, Entry
from orderdash.core.watching.state import DashboardState
from orderdash.tui.messages import OrderChosen
from orderdash.tui.steps import KeptRow, StepCount, Steps, under_cursor
from orderdash.tui.widgets.watch_rows import (
    AGE_COLUMNS,
    COLUMN_SPECS,
    COLUMNS,
    SORT_MARKS,
    age_cells,
    cells,
    natural_widths,
    sort_key,
    sort_phrase,
    view_line,
)

#: Ticks (seconds) between refreshes of the age columns.
AGE_REFRESH_TICKS = 5
#: Rows made and added (or natural widths worked out) in one step of a rebuild, one turn of
#: the event loop: the table does not measure them (`WatchTable`), ~0.15 ms a row.
ROWS_PER_STEP = 100
#: What one removal counts for against that bound (each renumbers the rows after it).
REMOVAL_COST = 10
#: Entries looked at (the filters, a row kept as it is) in one step.
ENTRIES_PER_STEP = 2_000
#: Rows whose ages are refreshed in one step.
AGES_PER_STEP = 500
#: Where a row whose order left meanwhile sorts (it goes with the next rebuild's first step).
GONE = (9,)


class WatchTable(DataTable):
    """The list's table. Its columns have the widths the pane gives them, and every cell is
    fitted to its column before it gets here: DataTable crops a longer cell with no sign."""

    def __init__(self, **kwargs: Any) -> None:
        # set here, not at mount: the pane fills the table as soon as it is built
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)

    def _update_dimensions(self, new_rows: Iterable[Any]) -> None:
        """DataTable measures every cell of the new rows for the columns' widths: 5,000 rows
        (the account's open orders) froze the screen ~1.6 s. Here every column has its width
        given and every row is one line without a label, so the measures would change nothing:
        only the scrollable size is set, as DataTable sets it."""
        if self._labelled_row_exists or any(c.auto_width for c in self.columns.values()):
            super()._update_dimensions(new_rows)
            return
        width = sum(c.get_render_width(self) for c in self.columns.values())
        header = self.header_height if self.show_header else 0
        self.virtual_size = Size(
            width + self._row_label_column_width, self._total_row_height + header
        )

    def set_columns(self, widths: Mapping[str, int], labels: Mapping[str, str]) -> None:
        """Empty the table and give it these columns (in `COLUMN_SPECS` order)."""
        self.clear(columns=True)
        for spec in COLUMN_SPECS:
            if spec.key in widths:
                self.add_column(
                    Text(labels.get(spec.key, spec.label)), width=widths[spec.key], key=spec.key
                )


class WatchListPane(Vertical):
    """The list. The app's state owns the entries (this pane holds a reference to the state);
    this pane shows them, marks an order seen when the operator is on its row, and reports
    choices. Tell it what changed: `update_entry` for one order; after orders came or went it
    rebuilds (`roster`, bound from the screen, or `rebuild`).

    The columns fit the pane's width (`fit_columns`): the least needed go first, and each
    cell is fitted to its column (`fit_amount`: whole, "\u2248" rounded or "\u2026" cut),
    so nothing is cropped silently and nothing, an error text included, widens a column past
    what the width allows.

    The filter row and the table are built the first time the list shows (or a caller needs
    them: focus, the columns): with one order the list is hidden, and the start-up does not
    mount, style and lay out five widgets nobody sees. Until then the pane keeps what it is
    told (filters, sort, where the cursor would be) and shows it when built.

    A rebuild changes the rows by key (rows whose orders left or no longer pass the filters
    removed, new ones added, the rows sorted; all of them made again only when the columns
    change), in bounded steps (`tui/steps.py`): 5,000 orders joining at once (the account's)
    never hold the screen. So do the ages' refreshes."""

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
        #watch-view {
            width: auto;
            padding: 0 1;
            text-style: bold;
        }
        #watch-table {
            height: auto;
            max-height: 100%;
        }
    }
    """

    #: Bumped when orders join or leave the watch list.
    roster: var[int] = var(0, init=False)

    def __init__(self, state: DashboardState, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state = state
        self.clock = state.clock
        self.entries = state.entries
        self.state_filter = "all"
        self.text_filter = ""
        # newest first by default, by the order's creation time: the order an operator looks for
        # is most often the one just made, and rows do not jump when alerts come in
        self.sort_column = "created"
        self.sort_reverse = False
        self._shown: dict[str, dict[str, Any]] = {}
        #: Each shown row's cells at their natural widths (what the columns are fitted from).
        self._natural: dict[str, dict[str, int]] = {}
        #: The columns on screen and their widths (None: the table has no columns yet).
        self._widths: dict[str, int] | None = None
        #: The sort key each shown row was placed by (a change of it re-sorts).
        self._sorted_as: dict[str, tuple] = {}
        #: The user hid the list (`w`); a filter shows it again.
        self.hidden_by_user = False
        self._refit_pending = False
        self._ticks = 0
        #: The table, once built (`table`); None while the list has never been needed.
        self._table: WatchTable | None = None
        #: Until the table is built: the order its cursor would be on (see `_follow_cursor`).
        self._cursor_token: str | None = None
        #: The column labels on screen (a change makes the columns again).
        self._labels_shown: dict[str, str] = {}
        self._rows = Steps(self, self._rebuilt, group="watch-rows")
        self._ages = Steps(self, self._aged, group="watch-ages")
        #: The order the cursor stays on while a rebuild changes the rows.
        self._kept = KeptRow()

    def on_mount(self) -> None:
        self.rebuild()

    def watch_roster(self) -> None:
        self.rebuild()

    def on_resize(self) -> None:
        # the table takes its new width in this refresh; fit the columns to it after
        if self._table is not None:
            self.call_after_refresh(self._fit_to_width)

    def tick(self) -> None:
        """The app's clock, once a second: the ages move every few seconds."""
        self._ticks += 1
        if self._ticks % AGE_REFRESH_TICKS == 0:
            self._refresh_ages()

    @property
    def table(self) -> WatchTable:
        """The list's table (built, with the filter row, the first time it is asked for)."""
        return self._built_table()

    def _built_table(self) -> WatchTable:
        """The table, built with the filter row and filled if it was not yet."""
        if self._table is None:
            self._table = table = WatchTable(id="watch-table")
            filter_row = Horizontal(id="watch-filter-row")
            # registered at once (queries find them, the rows go in, the focus can go to
            # them), mounted after
            self.mount(filter_row, table)
            filter_row.mount(
                Label("Filter", id="watch-filter-label"),
                Input(
                    placeholder="text in token, company, status, coin, address",
                    id="watch-filter",
                ),
                # what is shown and in which order, at every width (the title may be cut)
                Label(id="watch-view"),
            )
            self._kept.key = self._cursor_token
            self._rows.ask()
        return self._table

    @property
    def columns(self) -> tuple[str, ...]:
        """The keys of the columns on screen, left to right."""
        return tuple(self._widths or ())

    # -- the columns -----------------------------------------------------------------------------

    def _available(self) -> int:
        """Cells for the columns: the table's width, less a vertical scrollbar's (reserved
        always, so a list that grows a scrollbar does not push its last column off)."""
        table = self.table
        width = table.size.width or self.content_size.width or self.app.size.width - 4
        return max(width - table.styles.scrollbar_size_vertical, 1)

    def _labels(self) -> dict[str, str]:
        label = dict(COLUMNS)[self.sort_column].strip()
        mark = SORT_MARKS[self.sort_reverse]
        return {self.sort_column: f"{label} {mark}" if label else mark}

    def _layout(self) -> dict[str, int]:
        natural: dict[str, int] = {}
        for widths in self._natural.values():
            for key, width in widths.items():
                if width > natural.get(key, 0):
                    natural[key] = width
        return fit_columns(
            COLUMN_SPECS, natural, self._available(), padding=2, labels=self._labels()
        )

    def _fit_to_width(self) -> None:
        self._refit_pending = False
        if self._table is not None and self._layout() != self._widths:
            self.rebuild()

    def _refit_soon(self) -> None:
        if not self._refit_pending:
            self._refit_pending = True
            self.call_after_refresh(self._fit_to_width)

    # -- data from the screen --------------------------------------------------------------------

    def update_entry(self, token: str) -> None:
        """One order changed: update its cells in place (re-sort or re-filter only if needed)."""
        entry = self.entries.get(token)
        if entry is None:
            self.rebuild()
            return
        if self._table is None:  # the rows are made from the entries when it is built
            return
        visible = entry.in_filter(self.state_filter, self.text_filter)
        if visible != (entry.token in self._shown):
            self.rebuild()
            return
        if visible:
            now = self.clock()
            self._natural[entry.token] = natural_widths(entry, now)
            if self._layout() != self._widths:
                # the columns change: every row is refitted, once for a burst of answers
                # (500 orders loading would otherwise refill the table again and again); the
                # row meanwhile fits the columns it is in
                self._refit_soon()
            self._update_row(entry, now)
            # (a rebuild under way sorts every row at its end)
            if self._sorted_as.get(entry.token) != sort_key(entry, self.sort_column):
                if not self._rows.under_way:
                    self._sort()
        self._retitle()

    def _update_row(self, entry: Entry, now: float) -> None:
        widths = self._widths or {}
        old = self._shown[entry.token]
        fitted = cells(entry, now, widths, is_open=entry.token == self.state.token)
        new = {k: v for k, v in fitted.items() if k in widths}
        for column, value in new.items():
            if old.get(column) != value:
                self.table.update_cell(entry.token, column, value)
        self._shown[entry.token] = new

    def _update_display(self) -> None:
        # one order is the single-order dashboard: the list appears from the second one on
        self.display = len(self.entries) > 1 and not self.hidden_by_user
        if self.display:
            self._built_table()  # the first time the list shows

    def toggle_hidden(self) -> None:
        self.hidden_by_user = not self.hidden_by_user
        self._update_display()

    def rebuild(self) -> None:
        """Show the entries that pass the filters, sorted, in columns fitted to the width;
        keeps the cursor on its order. In steps: the first now, the rest in later turns of
        the event loop (after the rebuild under way, if one is)."""
        built = self._table is not None
        self._update_display()  # builds and fills the table the first time the list shows
        if self._table is None:
            self._follow_cursor()
        elif built:
            self._rows.ask()

    def _follow_cursor(self) -> None:
        """The table is not built: note the order its cursor would be on, as a table rebuilt
        all along would have it (on its order while that is shown, else on the first row)."""
        shown = self._passing()
        if not any(entry.token == self._cursor_token for entry in shown):
            column = self.sort_column
            rows = sorted(
                shown,
                key=lambda entry: (sort_key(entry, column), entry.token),
                reverse=self.sort_reverse,
            )
            self._cursor_token = rows[0].token if rows else None

    def _passing(self) -> list[Entry]:
        """The entries that pass the state and text filters, in the list's order."""
        return [
            entry
            for entry in self.entries.values()
            if entry.in_filter(self.state_filter, self.text_filter)
        ]

    def _rebuilt(self) -> Iterator[None]:
        """One rebuild, yielding between bounded steps (see the class's note)."""
        table = self.table
        looked, count = StepCount(ENTRIES_PER_STEP), StepCount(ROWS_PER_STEP)
        passing: list[Entry] = []
        for entry in list(self.entries.values()):
            if entry.in_filter(self.state_filter, self.text_filter):
                passing.append(entry)
            if looked.full():
                yield
        wanted = {entry.token for entry in passing}
        self._kept.take(table, wanted)
        now = self.clock()
        # the natural widths of the rows kept are kept up to date by `update_entry`
        for entry in passing:
            if entry.token in self._shown and entry.token in self._natural:
                full = looked.full()
            else:
                self._natural[entry.token] = natural_widths(entry, now)
                full = count.full()
            if full:
                yield from self._turn(wanted)
        for token in [token for token in self._natural if token not in wanted]:
            del self._natural[token]
        scrolled = table.scroll_y
        emptied = False
        widths, labels = self._layout(), self._labels()
        if widths != self._widths or labels != self._labels_shown:
            self._widths, self._labels_shown = widths, labels
            table.set_columns(widths, labels)
            self._shown.clear()
            emptied = True
        gone = [token for token in self._shown if token not in wanted]
        if len(gone) > len(self._shown) - len(gone):
            # most rows gone: each removal renumbers the rest, so adding the few anew is cheaper
            table.clear()
            self._shown.clear()
            gone, emptied = [], True
        for token in gone:
            table.remove_row(token)
            del self._shown[token]
            if count.full(REMOVAL_COST):
                yield from self._turn(wanted)
        for entry in passing:
            if entry.token in self._shown or entry.token not in self.entries:
                continue  # (an order that left meanwhile: the next rebuild, asked for, sees to it)
            fitted = cells(entry, now, widths, is_open=entry.token == self.state.token)
            row = {key: fitted[key] for key in widths}  # in the columns' order
            self._shown[entry.token] = row
            table.add_row(*row.values(), key=entry.token)
            if count.full():
                yield from self._turn(wanted)
        self._sort()
        self._kept.put(table, scroll=False)
        if emptied and scrolled:  # emptying the table scrolled it to the top; the rows stay
            table.call_after_refresh(table.scroll_to, y=scrolled, animate=False)
        self._retitle()

    def _turn(self, wanted: set[str]) -> Iterator[None]:
        """Between two steps: the cursor back on its order, then the order the person may
        have moved to meanwhile taken as the one to keep."""
        table = self.table
        self._kept.put(table, scroll=False)
        yield
        self._kept.take(table, wanted)

    def _sort(self) -> None:
        if not self._shown:
            self._sorted_as = {}
            return
        column, entries = self.sort_column, self.entries
        self._sorted_as = {
            token: sort_key(entry, column)
            for token in self._shown
            if (entry := entries.get(token)) is not None
        }
        keys = self._sorted_as
        # ties keep the order of the token, so equal rows do not swap places between updates
        self.table.sort(
            "token",
            key=lambda cell: (keys.get(cell.token, GONE), cell.token),
            reverse=self.sort_reverse,
        )

    def _refresh_ages(self) -> None:
        """The age columns move on, in steps (`_aged`)."""
        self._ages.ask()

    def _aged(self) -> Iterator[None]:
        """One refresh of the ages. Their texts ("<1m", "59m", "23h") are never wider than
        their labels, so this changes no width; a span past 999 days refits the columns."""
        now = self.clock()
        widths = self._widths or {}
        ages = [key for key in AGE_COLUMNS if key in widths]
        count = StepCount(AGES_PER_STEP)
        for token in list(self._shown):
            if self._widths is not widths:
                return  # the columns were made again meanwhile: every row with them
            shown, entry = self._shown.get(token), self.entries.get(token)
            if shown is None or entry is None:  # left; the next rebuild drops its row
                continue
            fresh = age_cells(entry, now)
            for column in ages:
                if fresh[column] != shown[column]:
                    if cell_len(fresh[column].plain) > widths[column]:
                        self.rebuild()
                        return
                    self.table.update_cell(token, column, fresh[column])
                    shown[column] = fresh[column]
            if count.full():
                yield

    def _retitle(self) -> None:
        entries = self.entries.values()
        health = Counter(entry.health for entry in entries)
        counts = Counter(entry.payment.phase.value for entry in entries if entry.payment)
        # what is not current comes first: it is what a title cut at the edge must still say
        parts = [f"Watching {len(self.entries)}"]
        if health["stale"]:
            parts.append(f"{health['stale']} stale")
        if health["error"]:
            parts.append(f"{health['error']} failing")
        parts += [f"{n} {state}" for state, n in counts.most_common()]
        if health["loading"]:
            parts.append(f"{health['loading']} loading")
        self.border_title = " \u00b7 ".join(parts)
        hidden = len(COLUMN_SPECS) - len(self.columns)
        columns = "column" if hidden == 1 else "columns"
        self.border_subtitle = (
            f"{hidden} {columns} hidden: widen for more" if self._widths and hidden else ""
        )
        if self._table is not None:
            # (none while the pane is taken down: a rebuild's last step may come after it)
            for view in self.query("#watch-view").results(Label):
                view.update(Text(self.view_text()))

    def view_text(self) -> str:
        """What the list shows and in which order: "showing 5 of 30 \u00b7 partly paid \u00b7
        newest first"."""
        shown = len(self._shown) if self._table is not None else len(self._passing())
        sort = sort_phrase(self.sort_column, self.sort_reverse)
        return view_line(shown, len(self.entries), self.state_filter, sort)

    # -- user actions --------------------------------------------------------------------------

    def selected_token(self) -> str | None:
        table = self._table
        if table is None or not self._shown:
            return None
        return under_cursor(table)

    def shown_tokens(self) -> list[str]:
        """The tokens of the rows shown, in the order shown: what the filters let through,
        sorted as the list is (without a table yet, at most one order passes)."""
        if self._table is None:
            return [entry.token for entry in self._passing()]
        return [str(row.key.value) for row in self._table.ordered_rows]

    def highlighted_token(self) -> str | None:
        """The highlighted row's order while the list has the focus (the keys act on it),
        else None (they act on the order open in the panes)."""
        table = self._table
        return self.selected_token() if self.display and table and table.has_focus else None

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
        self._built_table()  # with the filter row
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
        self.rebuild()  # the header's mark moves, and a wider label may take a column's room

    def reverse_sort(self) -> None:
        self.sort_by(self.sort_column)

    def cycle_sort(self) -> str:
        """Sort by the next column on screen (a hidden one would sort by what nobody sees)."""
        self._built_table()  # the columns on screen are the table's
        keys = list(self.columns) or [key for key, _ in COLUMNS]
        at = keys.index(self.sort_column) if self.sort_column in keys else -1
        self.sort_by(keys[(at + 1) % len(keys)])
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
