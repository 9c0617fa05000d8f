"""A one-line banner over the dashboard for a problem with the merchant's account (the access
token refused): hidden while there is none."""

from __future__ import annotations

from rich.text import Text
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static


class AccountBanner(Static):
    DEFAULT_CSS = """
    AccountBanner {
        display: none;
        height: 1;
        padding: 0 1;
        background: $error;
        color: $text;
        text-style: bold;
    }
    AccountBanner.-shown { display: block; }
    """

    def show_problem(self, text: str | None) -> None:
        """Show `text` (service text included: shown literally, cut to one line), or hide."""
        self.set_class(bool(text), "-shown")
        self.update(Text(text or "", no_wrap=True, overflow="ellipsis"))

    @classmethod
    def tell(cls, screen: Screen[None], text: str | None, *, before: Widget) -> None:
        """`text` on `screen`'s banner (None: hidden), mounted `before` the widget it sits
        over with the first problem."""
        banners = screen.query(cls)
        if banners:
            banners.first().show_problem(text)
        elif text:
            banner = cls()
            banner.show_problem(text)
            screen.mount(banner, before=before)
