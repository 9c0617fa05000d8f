"""The attention view (`!`): only the watched orders that need a human, one row each: what
happened, the shortfall or excess in coin and fiat (exact), how long ago, the next step
(`core/books/attention.py`, kept by `core/watching/attention.py`). Keyboard only: the arrows
move, Enter shows the order on the dashboard, `r` asks the App to resolve it (`ResolveRequested`),
Escape goes back. The rows follow the orders as they change, kept by token: rows that left
are removed, new ones added, changed cells updated, and when the keeper's order changed (a new
payment puts its order first) the rows are sorted to it by their order's cell, which knows
its token; the highlighted row stays on its order. Only a change of columns (the width), or
more rows gone than kept, rebuilds the table.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from orderdash.core.books.attention import (
    OrderAttention,
    age_text,
    counts_text,
    figure_text,
    kind_words,
)
from orderdash.core.safetext import clean, shorten_middle
from orderdash.core.watching.attention import AttentionKeeper
from orderdash.tui.bindings import READONLY_MARK
from orderdash.tui.messages import ResolveRequested
from orderdash.tui.widgets.keys_footer import KeysFooter
from orderdash.tui.widgets.title_header import TitleHeader

#: The columns, in the order they are given room: a narrow screen keeps the first ones whole
#: and says how many it left out (the highlighted order is in full below the table).
COLUMNS = ("Order", "What happened", "Fiat", "Coin", "When", "Next step")
#: The order's token in the table, shortened in the middle beyond this (whole below).
TOKEN_WIDTH = 20
#: The next step is cut to the room left, with a sign, when at least this much is left.
MIN_NEXT_STEP = 16
#: The footer's keys chosen first, whatever the width.
FOOTER_FIRST = ("help", "back", "show", "resolve", "quit")


class OrderCell(Text):
    """The order's cell, knowing its token: what the rows are sorted by (DataTable's `sort`
    hands the key function cells, never row keys)."""

    def __init__(self, token: str, text: str, style: str) -> None:
        super().__init__(text, style)
        self.token = token


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
        "When": Text(f"{age_text(item.age_seconds(now_ms))} ago", justify="right"),
        "Next step": Text(item.next_step, "dim"),
    }


def fitting(rows: list[dict[str, Text]], room: int) -> tuple[tuple[str, ...], int | None]:
    """The columns that fit `room` cells whole, in `COLUMNS`' order (the first always), and
    the width the next step is cut to (None: whole or left out)."""
    chosen: list[str] = []
    used = 0
    for name in COLUMNS:
        width = max([len(name), *(row[name].cell_len for row in rows)]) + 2  # cell padding
        if used + width <= room or not chosen:
            chosen.append(name)
            used += width
        elif name == "Next step" and room - used - 2 >= MIN_NEXT_STEP:
            chosen.append(name)
            return tuple(chosen), room - used - 2
        else:
            break
    return tuple(chosen), None


class AttentionScreen(Screen[str | None]):
    """The orders that need a human; dismissed with the token to show (Enter) or None."""

    DEFAULT_CSS = """
    AttentionScreen {
        #attention-note { height: 1; padding: 0 1; color: $text-muted; }
        #attention-table { height: 1fr; }
        #attention-detail { height: auto; max-height: 6; padding: 0 1; border-top: solid $primary; }
    }
    """
    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the dashboard"),
        Binding("enter", "show", "Show", priority=True, tooltip="Show this order"),
        Binding("r", "resolve", "Resolve", tooltip="Resolve this order, with a reason"),
    ]

    def __init__(
        self, keeper: AttentionKeeper, *, now_ms: Callable[[], int], readonly: bool = False
    ) -> None:
        super().__init__()
        self._keeper = keeper
        self._now_ms = now_ms
        self._readonly = readonly
        self._tokens: list[str] = []
        self._found: dict[str, OrderAttention] = {}
        #: The columns shown and the next step's cut (`fitting`), for the table's width.
        self._columns: tuple[str, ...] = ()
        self._cut: int | None = None

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static(id="attention-note", markup=False)
        table: DataTable[Text] = DataTable(
            id="attention-table", cursor_type="row", zebra_stripes=True
        )
        yield table
        yield Static(id="attention-detail", markup=False)
        yield KeysFooter(first=FOOTER_FIRST, mark=READONLY_MARK if self._readonly else "")

    def on_mount(self) -> None:
        self.title = "Need attention"
        table = self.query_one(DataTable)
        self.watch(self.app, "attention", lambda _: self.show_rows(), init=False)
        self.watch(self.app, "tick", lambda _: self.show_rows(), init=False)
        self.show_rows()
        table.focus()

    def on_resize(self) -> None:
        self.show_rows()

    def show_rows(self) -> None:
        """The rows as the keeper has them now, in the columns that fit whole, changed by key
        (see the module's note) with the highlight kept on its order."""
        found = self._keeper.found
        now_ms = self._now_ms()
        table: DataTable[Text] = self.query_one(DataTable)
        current = self.highlighted
        tokens = [o.token for o in found]
        rows = [row_cells(o, now_ms) for o in found]
        room = table.size.width - 2 if table.size.width else self.app.size.width - 2
        columns, cut = fitting(rows, room)
        if cut is not None:
            for row in rows:
                row["Next step"].truncate(cut, overflow="ellipsis")
        counts = f": {counts_text(found)}" if found else ""
        self.sub_title = f"{len(found)} of the watched orders{counts}"
        hidden = len(COLUMNS) - len(columns)
        note = "Enter shows the order \u00b7 r resolves it \u00b7 Esc goes back"
        if hidden:  # (short enough for 80 columns)
            columns_hidden = f"{hidden} column{'s' if hidden > 1 else ''} hidden: widen for more"
            note = f"Enter: show \u00b7 r: resolve \u00b7 Esc: back \u00b7 {columns_hidden}"
        self.query_one("#attention-note", Static).update(
            "No watched order needs attention." if not found else note
        )
        self._found = {o.token: o for o in found}
        if (columns, cut) != (self._columns, self._cut):
            self._columns, self._cut = columns, cut
            self._tokens = []
            table.clear(columns=True)
            for name in columns:
                table.add_column(name, key=name)
        wanted = set(tokens)
        kept = [token for token in self._tokens if token in wanted]
        if len(self._tokens) - len(kept) > len(kept):
            # most rows gone: each removal renumbers the rest, so adding the few anew is cheaper
            table.clear()
            kept = []
        else:
            for token in self._tokens:
                if token not in wanted:
                    table.remove_row(token)
        shown = set(kept)
        for o, row in zip(found, rows, strict=True):
            if o.token not in shown:
                table.add_row(*(row[name] for name in columns), key=o.token)
                continue
            for name in columns:
                if table.get_cell(o.token, name).plain != row[name].plain:
                    table.update_cell(o.token, name, row[name])
        if kept + [token for token in tokens if token not in shown] != tokens:
            rank = {token: index for index, token in enumerate(tokens)}
            table.sort(COLUMNS[0], key=lambda cell: rank[cell.token])
        self._tokens = tokens
        if current in wanted and table.cursor_row != (index := table.get_row_index(current)):
            table.move_cursor(row=index)
        self._show_detail()

    @on(DataTable.RowHighlighted)
    def _show_detail(self) -> None:
        """The highlighted order in full, wrapped (the table's row may be cut at the edge)."""
        found = self._found.get(self.highlighted or "")
        detail = self.query_one("#attention-detail", Static)
        if found is None:
            detail.update("")
            return
        text = Text(clean(found.token, limit=60), "bold")
        if found.first.company:
            text.append(f" \u00b7 {clean(found.first.company, limit=60)}")
        for item in found.items:
            figure = figure_text(item)
            text.append(f"\n{kind_words(item.kind)}" + (f": {figure}" if figure else ""))
        text.append(f"\nNext step: {found.first.next_step}", "italic")
        detail.update(text)

    @property
    def tokens_shown(self) -> tuple[str, ...]:
        """The orders in the view, in their order."""
        return tuple(self._tokens)

    @property
    def highlighted(self) -> str | None:
        """The token of the highlighted row (None when there is none)."""
        table = self.query_one(DataTable)
        if not self._tokens or not 0 <= table.cursor_row < len(self._tokens):
            return None
        return self._tokens[table.cursor_row]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resolve" and self._readonly:
            return False  # a read-only operator resolves nothing
        if action in ("show", "resolve") and not self._tokens:
            return None  # shown dimmed: no row
        return True

    def action_back(self) -> None:
        self.dismiss(None)

    def action_show(self) -> None:
        token = self.highlighted
        if token is not None:
            self.dismiss(token)

    def action_resolve(self) -> None:
        token = self.highlighted
        if token is not None:
            self.post_message(ResolveRequested(token))
