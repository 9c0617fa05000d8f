"""The dialog to add orders to the watch list: paste or type one or more tokens."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen

# the editor costs ~25 ms to import: paid when the dialog first opens (the overlays import this
# module then), not at start-up
from textual.widgets import Label, TextArea


class AddTokensScreen(ModalScreen[str | None]):
    """Paste or type one or more order tokens (one per line, or separated by spaces or commas)."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("ctrl+s", "submit", "Add", priority=True),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="add-body") as body:
            body.border_title = "Add orders to the watch list"
            body.border_subtitle = "ctrl+s adds \u00b7 Esc cancels"
            yield Label("One token per line (or separated by spaces or commas):")
            yield TextArea(id="add-tokens", soft_wrap=True, show_line_numbers=False)

    @property
    def _editor(self) -> TextArea:
        return self.query_one("#add-tokens", TextArea)

    def on_mount(self) -> None:
        self._editor.focus()

    def action_submit(self) -> None:
        text = self._editor.text
        self.dismiss(text if text.strip() else None)
