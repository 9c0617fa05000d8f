"""The Textual application and the one factory that builds it (CLI, tests, screenshots)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen

from orderdash.core import startup
from orderdash.core.client import OrderClient
from orderdash.core.config import Settings
from orderdash.tui import textual_fixes
from orderdash.tui.messages import CustomerScreen
from orderdash.tui.screens.dashboard import DashboardScreen
from orderdash.tui.screens.help import HelpScreen

#: Notifications kept for the operator while the customer's screen is up (the alerts log has all).
MAX_HELD = 50
#: Shown one by one when the operator comes back; the rest are summed up in one line.
MAX_REPLAYED = 5
#: App actions that are the operator's alone: off while a customer-facing screen is up.
OPERATOR_ACTIONS = frozenset({"quit", "help", "command_palette"})


@dataclass(frozen=True)
class _Notice:
    message: str
    title: str
    severity: SeverityLevel
    timeout: float | None
    markup: bool


class OrderDashApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "orderdash"
    BINDINGS = [
        Binding("q", "quit", "Quit", tooltip="Quit orderdash"),
        Binding("question_mark", "help", "Help", tooltip="Keys and what the screen shows"),
    ]

    def __init__(
        self,
        settings: Settings,
        client: OrderClient,
        *,
        tokens: Sequence[str] = (),
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        open_pos: bool = False,
        notices: Sequence[str] = (),
    ) -> None:
        super().__init__()
        self._notices = list(notices)
        self._open_pos = open_pos
        self.settings = settings
        self.client = client
        self._tokens = list(tokens)
        self._clock = clock
        self._monotonic = monotonic
        self._bell = settings.bell
        #: Notifications held while a customer-facing screen is up, shown when it goes.
        self.held_notices: deque[_Notice] = deque(maxlen=MAX_HELD)
        #: How many were held, the ones the bounded deque let go included.
        self._held_count = 0
        #: Notifications shown lately, with when they expire (monotonic): the ones still on
        #: screen when the customer's screen comes up are taken off and held.
        self._recent: deque[tuple[_Notice, float]] = deque(maxlen=MAX_HELD)

    def on_mount(self) -> None:
        dashboard = DashboardScreen(
            self.client,
            self.settings,
            tokens=self._tokens,
            clock=self._clock,
            monotonic=self._monotonic,
            open_pos=self._open_pos,
        )
        self.push_screen(dashboard)
        # the first paint is the end of the start-up (core/startup.py)
        self.call_after_refresh(startup.resume)
        for notice in self._notices:
            self.notify(notice, title="Settings", severity="warning", timeout=20, markup=False)

    async def on_unmount(self) -> None:
        await self.client.aclose()

    @property
    def dashboard(self) -> DashboardScreen:
        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen):
                return screen
        raise LookupError("the dashboard is not on the screen stack")

    @property
    def customer_facing(self) -> bool:
        """A screen turned to the customer (the point of sale) is on the stack."""
        return any(getattr(screen, "customer_facing", False) for screen in self.screen_stack)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # hidden from the customer's footer, and the keys do nothing there (Esc first)
        return not (action in OPERATOR_ACTIONS and self.customer_facing)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Textual's notify, except that while the customer's screen is up the notification
        is held for the operator: nothing about another order may reach the customer."""
        notice = _Notice(message, title, severity, timeout, markup)
        if self.customer_facing:
            self.held_notices.append(notice)
            self._held_count += 1
            return
        seconds = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        self._recent.append((notice, time.monotonic() + seconds))
        self._show(notice)

    def _show(self, notice: _Notice) -> None:
        super().notify(
            notice.message,
            title=notice.title,
            severity=notice.severity,
            timeout=notice.timeout,
            markup=notice.markup,
        )

    def on_customer_screen(self, message: CustomerScreen) -> None:
        if message.up:
            # what the operator had on screen goes away from the customer's eyes, and waits
            now = time.monotonic()
            still_shown = [notice for notice, until in self._recent if until > now]
            self.held_notices.extendleft(reversed(still_shown))
            self._held_count += len(still_shown)
            self._recent.clear()
            self.clear_notifications()
            return
        held, count = list(self.held_notices), self._held_count
        self.held_notices.clear()
        self._held_count = 0
        if count > MAX_REPLAYED:
            older = count - MAX_REPLAYED + 1
            self._show(
                _Notice(
                    f"{older} more while the point-of-sale screen was up: see the alerts log (l)",
                    "Held notifications",
                    "information",
                    20,
                    False,
                )
            )
            held = held[-(MAX_REPLAYED - 1) :]
        for notice in held:
            self._show(notice)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def bell(self) -> None:
        if self._bell:
            super().bell()

    def action_toggle_bell(self) -> None:
        self._bell = not self._bell
        self.notify(f"Bell {'on' if self._bell else 'off'}.", timeout=2, markup=False)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        dashboard = self.dashboard
        yield SystemCommand(
            "Refresh now", "Fetch the order and the rate now", dashboard.action_refresh
        )
        yield SystemCommand(
            "Copy order token", "Copy the token of the order on screen", dashboard.action_copy_token
        )
        yield SystemCommand(
            "Copy payment address",
            "Copy the address customers pay to",
            dashboard.action_copy_address,
        )
        yield SystemCommand(
            "Copy coin amount",
            "Copy the amount in coin, exact digits",
            dashboard.action_copy_amount,
        )
        yield SystemCommand(
            "Copy transaction hash",
            "Copy the full hash of the selected transaction",
            dashboard.action_copy_hash,
        )
        yield SystemCommand(
            "Point of sale",
            "Full-screen QR and amount for the customer",
            dashboard.action_point_of_sale,
        )
        yield SystemCommand(
            "Toggle bell", "Ring the terminal bell on payments, or not", self.action_toggle_bell
        )


def make_app(
    settings: Settings,
    *,
    client: OrderClient | None = None,
    token: str | None = None,
    tokens: Sequence[str] = (),
    clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
    open_pos: bool = False,
    notices: Sequence[str] = (),
) -> OrderDashApp:
    """Build the app; pass `client` to inject one (tests), else it is made from `settings`.

    `token` (or the first of `tokens`) opens in the detail panes; all of them join the watch list.
    `clock` is the wall clock (times shown, expiry); `monotonic` times the countdowns on screen,
    so a wall-clock step cannot skew them. `notices` are warnings shown once the screen is up
    (the terminal's earlier output is hidden behind it).
    """
    textual_fixes.install()
    if client is None:
        client = OrderClient.from_settings(settings, clock=clock)
    every = [token, *tokens] if token else list(tokens)
    return OrderDashApp(
        settings,
        client,
        tokens=every,
        clock=clock,
        monotonic=monotonic,
        open_pos=open_pos,
        notices=notices,
    )
