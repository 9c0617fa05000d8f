"""A yes-or-no question before an action that may do harm (copying a closed order's address)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool]):
    """`question` (literal text) with y / Enter for yes and n / Esc for no."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, question: str) -> None:
        super().__init__()
        self._title = title
        self._question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-body") as body:
            body.border_title = self._title
            body.border_subtitle = "y / Enter: yes \u00b7 n / Esc: no"
            yield Static(Text(self._question))

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ConfirmOrCharge(ConfirmScreen):
    """A question with a third answer: `n`, no, and a new charge instead (its dialog opens
    once the question is gone); Esc is a plain no."""

    BINDINGS = [Binding("n", "new_charge", "New charge"), Binding("escape", "answer(False)", "No")]

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-body") as body:
            body.border_title = self._title
            body.border_subtitle = "y / Enter: yes \u00b7 n: no, a new charge \u00b7 Esc: no"
            yield Static(Text(self._question))

    def action_new_charge(self) -> None:
        app = self.app
        self.dismiss(False)
        app.call_later(app.run_action, "app.new_charge")
