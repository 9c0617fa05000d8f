"""A link there is no browser to open: shown whole, as text the operator can select."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class LinkScreen(ModalScreen[bool]):
    """Shows `url` literally; `c` asks for it to be copied (dismisses with True), Esc closes."""

    BINDINGS = [
        Binding("escape,enter,q", "dismiss(False)", "Close"),
        Binding("c", "dismiss(True)", "Copy"),
    ]

    def __init__(self, url: str, why: str) -> None:
        super().__init__()
        self.url = url
        self._why = why

    def compose(self) -> ComposeResult:
        with Vertical(id="link-body") as body:
            body.border_title = "Open this link yourself"
            body.border_subtitle = "c copies \u00b7 Esc closes"
            yield Static(Text(self._why, "dim"))
            yield Static(Text(self.url, "bold"), id="link-url")
