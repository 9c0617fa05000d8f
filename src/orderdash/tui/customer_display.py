"""`orderdash display`: the customer display. A read-only full-screen app that follows the
order a dashboard on the same machine puts on it (`x`, `p`), through the local channel
(`core/customer/channel.py`). It makes no request to the service and holds no token: it reads
the channel file when a cheap `stat` says it changed, and shows the face through the same
panel as the point-of-sale screen. Nothing published, an unreadable file, or a dashboard gone
quiet (no heartbeat for a few seconds): the welcome screen, never a stale QR.

It speaks its own language (`--language`, the `language` setting) on every screen, whatever
language the dashboard publishes in: the display is set up for the customers who face it.

No key changes anything; Ctrl+C (or Ctrl+Q) ends it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from orderdash.core.customer.catalogue import catalogue
from orderdash.core.customer.face import CustomerFace
from orderdash.core.customer.reading import Reader, Reading
from orderdash.tui.text import literal
from orderdash.tui.widgets.customer import CustomerPanel

#: Seconds between looks at the channel file (a stat; a read only when it changed).
POLL_INTERVAL = 0.5


class IdleView(Vertical):
    """The welcome screen: the shop's name, and that the payment will show here."""

    DEFAULT_CSS = """
    IdleView {
        align: center middle;
        height: 1fr;
    }
    IdleView > Static {
        width: 100%;
        content-align: center middle;
        text-align: center;
    }
    IdleView #idle-welcome { text-style: bold; color: $text; height: 3; }
    IdleView #idle-title { text-style: bold; color: $primary; }
    IdleView #idle-hint { color: $text-muted; margin-top: 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="idle-welcome")
        yield Static(id="idle-title")
        yield Static(id="idle-hint")

    def show(self, language: str, title: str) -> None:
        if getattr(self, "_shown", None) == (language, title):
            return  # looked at twice a second: repaint only what changed
        self._shown = (language, title)
        words = catalogue(language)
        self.query_one("#idle-welcome", Static).update(Text(words.text("welcome")))
        self.query_one("#idle-title", Static).update(literal(title, limit=60))
        self.query_one("#idle-hint", Static).update(Text(words.text("idle_hint")))


class DisplayApp(App[None]):
    TITLE = "orderdash display"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]
    CSS = """
    Screen { layers: base; }
    """

    def __init__(
        self,
        path: Path,
        *,
        language: str = "en",
        title: str = "",
        primary: str = "coin",
        clock: Callable[[], float] = time.time,
        poll_interval: float = POLL_INTERVAL,
    ) -> None:
        super().__init__()
        self.reader = Reader(path, clock=clock)
        self.language = language
        self.shop_title = title
        self.primary = primary
        self.clock = clock
        self.poll_interval = poll_interval
        #: What is on screen: a face, or None for the welcome screen.
        self.face: CustomerFace | None = None
        self.reading = Reading(None)

    def compose(self) -> ComposeResult:
        yield IdleView(id="idle")
        yield CustomerPanel(primary=self.primary, language=self.language, id="customer")

    def on_mount(self) -> None:
        self.query_one(IdleView).show(self.language, self.shop_title)
        self.query_one(CustomerPanel).display = False
        self.poll()
        self.set_interval(self.poll_interval, self.poll)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # a customer's screen: nothing to open, focus or change, only the way out
        return action in ("quit", "help_quit") or None

    def poll(self) -> None:
        """Look at the channel; show what it says."""
        if not self.is_running:
            # shutting down: the interval can still fire while the screen is being removed
            return
        reading = self.reader.poll()
        self.reading = reading
        panel = self.query_one(CustomerPanel)
        idle = self.query_one(IdleView)
        face = reading.face
        if face is None:
            if self.face is not None or not idle.display:
                self.face = None
                panel.display = False
                idle.display = True
            idle.show(self.language, self.shop_title)
            return
        previous = self.face
        panel.show(face)
        panel.tick(self.clock())
        idle.display = False
        panel.display = True
        self.face = face
        if (
            previous is not None
            and previous.order_id == face.order_id
            and face.payments > previous.payments
        ):
            panel.flash()
            self.bell()
