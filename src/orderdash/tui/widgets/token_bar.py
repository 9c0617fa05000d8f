"""The order token input: Enter loads, a bad token gets a message under it.

The line for a refused token is mounted the first time there is one (not at start-up)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, Static

from orderdash.core.model.errors import InvalidToken
from orderdash.core.service.tokens import MAX_TOKEN_LENGTH, operator_token
from orderdash.tui.messages import TokenSubmitted
from orderdash.tui.text import literal


class TokenBar(Vertical):
    DEFAULT_CSS = """
    TokenBar {
        height: auto;
        padding: 0 1;
        #token-row {
            height: 1;
        }
        #token-label {
            width: auto;
            padding: 0 1 0 0;
            color: $text-muted;
        }
        #token-input {
            border: none;
            height: 1;
            padding: 0 1;
            width: 1fr;
            background: $boost;
        }
        #token-input:focus {
            background: $primary 30%;
        }
        #token-error {
            display: none;
            color: $error;
            height: auto;
        }
        #token-error.-visible {
            display: block;
        }
    }
    """

    def compose(self) -> ComposeResult:
        with Horizontal(id="token-row"):
            yield Label("Order token", id="token-label")
            yield Input(
                placeholder="paste or type a token, Enter to load",
                id="token-input",
                # room for a pasted payment link or whitespace, reduced to the token on Enter
                max_length=MAX_TOKEN_LENGTH + 512,
            )

    @property
    def input(self) -> Input:
        return self.query_one("#token-input", Input)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            token = operator_token(event.value)
        except InvalidToken as error:
            self.show_error(error.message)
            return
        self.show_error(None)
        self.input.value = token
        self.post_message(TokenSubmitted(token))

    def show_error(self, message: str | None) -> None:
        """Show `message` under the input (service text included: shown literally), or hide
        the line."""
        found = self.query("#token-error")
        if not found:
            if not message:
                return
            self.mount(Static(literal(message), id="token-error", classes="-visible"))
            return
        error = found.first(Static)
        error.update(literal(message) if message else "")
        error.set_class(bool(message), "-visible")
