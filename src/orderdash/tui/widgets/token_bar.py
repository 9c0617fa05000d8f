"""The order token input: Enter loads, a bad token gets a message under it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, Static

from orderdash.core.service.errors import InvalidToken
from orderdash.core.service.tokens import MAX_TOKEN_LENGTH, normalize_token
from orderdash.tui.messages import TokenSubmitted
from orderdash.tui.text import literal


class TokenBar(Vertical):
    def compose(self) -> ComposeResult:
        with Horizontal(id="token-row"):
            yield Label("Order token", id="token-label")
            yield Input(
                placeholder="paste or type a token, Enter to load",
                id="token-input",
                max_length=MAX_TOKEN_LENGTH + 64,  # room for pasted whitespace, trimmed on Enter
            )
        yield Static(id="token-error")

    @property
    def input(self) -> Input:
        return self.query_one("#token-input", Input)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            token = normalize_token(event.value)
        except InvalidToken as error:
            self.show_error(error.message)
            return
        self.show_error(None)
        self.input.value = token
        self.post_message(TokenSubmitted(token))

    def show_error(self, message: str | None) -> None:
        error = self.query_one("#token-error", Static)
        error.update(literal(message) if message else Text(""))
        error.set_class(bool(message), "-visible")
