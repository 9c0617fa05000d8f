"""What the screens and helpers the App builds may ask of it, typed.

The App (`tui/app.py`) imports the dashboard screen, account mode and the watch-list sync, so
they cannot import it back; they see it through this Protocol instead (never as `Any`: a
back-reference the layer test cannot read is still a cycle, and this one is written down).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from orderdash.core.polling.watcher import OrderWatcher
    from orderdash.core.service.client import OrderClient
    from orderdash.core.settings.model import Settings
    from orderdash.core.watching.onscreen import Freshness, Shown
    from orderdash.core.watching.session import WatchSession
    from orderdash.core.watching.state import DashboardState
    from orderdash.tui.alarms import Alarms
    from orderdash.tui.books import AppBooks
    from orderdash.tui.desk import Desk

T = TypeVar("T")


class Dashboard(Protocol):
    """The dashboard screen as account mode tells it of the account's orders."""

    def load(self, token: str) -> None: ...

    def orders_arrived(self) -> None: ...

    def entry_changed(self, token: str) -> None: ...

    def account_problem(self, text: str | None) -> None: ...


class DashboardHost(Protocol):
    """The OrderDashApp as the dashboard screen and account mode see it."""

    settings: Settings
    client: OrderClient
    state: DashboardState
    watcher: OrderWatcher
    session: WatchSession
    #: The clipboard and the browser (`tui/desk.py`).
    desk: Desk
    #: The bell and the alerts' toasts (`tui/alarms.py`).
    alarms: Alarms
    #: The ledger (`tui/books.py`).
    books: AppBooks
    #: The order on screen as last answered (the point-of-sale screen watches it).
    shown: Shown | None
    #: How fresh the order on screen is (the status line and the point of sale watch it).
    freshness: Freshness

    @property
    def dashboard(self) -> Dashboard: ...

    @property
    def customer_facing(self) -> bool: ...

    @property
    def screen(self) -> Screen[object]: ...

    def bell(self) -> None: ...

    def action_point_of_sale(self) -> None: ...

    def action_resolve_order(self, token: str = "") -> None: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def run_worker(
        self,
        work: Coroutine[object, object, object],
        *,
        group: str = ...,
        exit_on_error: bool = ...,
        exclusive: bool = ...,
    ) -> object: ...

    def push_screen(self, screen: Screen[T], callback: Callable[[T | None], None]) -> object: ...

    def call_later(self, callback: Callable[..., object], *args: object) -> bool: ...

    @property
    def is_running(self) -> bool: ...
