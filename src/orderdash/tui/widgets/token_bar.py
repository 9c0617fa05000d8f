"""The order token input: Enter loads, a bad token gets a message under it.

Two widgets at start-up, the bar and its input: the bar draws the "Order token" label itself
(a row and a label were two more widgets to mount, style, lay out and render before the first
paint), and the line for a refused token is mounted the first time there is one."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.app import ComposeResult
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, Static

from orderdash.core.model.errors import InvalidToken
from orderdash.core.service.tokens import MAX_TOKEN_LENGTH, operator_token
from orderdash.tui.messages import TokenSubmitted
from orderdash.tui.text import literal

LABEL = "Order token"


class TokenBar(Widget, can_focus=False):
    COMPONENT_CLASSES = {"token-bar--label"}
    # the input starts after the label and one blank: `margin-left` is len(LABEL) + 1
    DEFAULT_CSS = """
    TokenBar {
        width: 1fr;
        height: auto;
        layout: vertical;
        overflow: hidden hidden;
        padding: 0 1;
        .token-bar--label {
            color: $text-muted;
        }
        #token-input {
            border: none;
            height: 1;
            padding: 0 1;
            width: 1fr;
            margin-left: 12;
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
        yield Input(
            placeholder="paste or type a token, Enter to load",
            id="token-input",
            # room for a pasted payment link or whitespace, reduced to the token on Enter
            max_length=MAX_TOKEN_LENGTH + 512,
        )

    @property
    def input(self) -> Input:
        return self.query_one("#token-input", Input)

    def render_line(self, y: int) -> Strip:
        # the label's cells as a Label widget gave them (so the screenshots stay the same):
        # its text, then its one cell of right padding in the background only
        width = self.content_size.width
        base = self.visual_style.rich_style
        if y != 0:
            return Strip.blank(width, base)
        label = Strip([Segment(LABEL, self.get_visual_style("token-bar--label").rich_style)])
        pad = Segment(" ", RichStyle(bgcolor=base.bgcolor))
        return Strip([*label.apply_offsets(0, 0), pad]).extend_cell_length(width, base)

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
