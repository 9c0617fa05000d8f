"""The attention view (`!`): only the watched orders that need a human, one row each: what
happened, the shortfall or excess in coin and fiat (exact), how long ago, the next step
(`core/books/attention.py`, kept by `core/watching/attention.py`). Keyboard only: the arrows
move, Enter shows the order on the dashboard, `r` asks the App to resolve it (`ResolveRequested`),
Escape goes back. The rows follow the orders as they change, kept by token, the highlighted
row on its order, changed in bounded steps so that thousands of orders do not hold the screen
(`widgets/attention_table.py`).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from orderdash.core.safetext import clean
from orderdash.core.usecases.attention import OrderAttention, counts_text, figure_text, kind_words
from orderdash.core.watching.attention import AttentionKeeper
from orderdash.tui.bindings import READONLY_MARK
from orderdash.tui.messages import ResolveRequested
from orderdash.tui.widgets.attention_table import AttentionTable
from orderdash.tui.widgets.keys_footer import KeysFooter
from orderdash.tui.widgets.title_header import TitleHeader

#: The footer's keys chosen first, whatever the width.
FOOTER_FIRST = ("help", "back", "show", "resolve", "quit")


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
        self._found: dict[str, OrderAttention] = {}

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static(id="attention-note", markup=False)
        yield AttentionTable(id="attention-table")
        yield Static(id="attention-detail", markup=False)
        yield KeysFooter(first=FOOTER_FIRST, mark=READONLY_MARK if self._readonly else "")

    def on_mount(self) -> None:
        self.title = "Need attention"
        table = self.query_one(AttentionTable)
        self.watch(self.app, "attention", lambda _: self.show_rows(), init=False)
        self.watch(self.app, "tick", lambda _: self.show_rows(), init=False)
        self.show_rows()
        table.focus()

    def on_resize(self) -> None:
        self.show_rows()

    def show_rows(self) -> None:
        """The rows as the keeper has them now (the table changes by key, in bounded steps:
        `widgets/attention_table.py`)."""
        found = self._keeper.found
        counts = f": {counts_text(found)}" if found else ""
        self.sub_title = f"{len(found)} of the watched orders{counts}"
        self._found = {o.token: o for o in found}
        self.query_one(AttentionTable).show(found, self._now_ms())
        self._show_note()
        self._show_detail()

    @on(AttentionTable.Shown)
    def _shown(self) -> None:
        self._show_note()
        self._show_detail()

    def _show_note(self) -> None:
        hidden = self.query_one(AttentionTable).hidden_columns
        note = "Enter shows the order \u00b7 r resolves it \u00b7 Esc goes back"
        if hidden:  # (short enough for 80 columns)
            columns_hidden = f"{hidden} column{'s' if hidden > 1 else ''} hidden: widen for more"
            note = f"Enter: show \u00b7 r: resolve \u00b7 Esc: back \u00b7 {columns_hidden}"
        self.query_one("#attention-note", Static).update(
            "No watched order needs attention." if not self._found else note
        )

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
        return self.query_one(AttentionTable).tokens_shown

    @property
    def highlighted(self) -> str | None:
        """The token of the highlighted row (None when there is none)."""
        return self.query_one(AttentionTable).highlighted

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resolve" and self._readonly:
            return False  # a read-only operator resolves nothing
        if action in ("show", "resolve") and not self.query_one(AttentionTable).row_count:
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
