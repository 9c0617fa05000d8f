"""What the screens may ask of the App, typed; and the dashboard as account mode tells it.

The App (`tui/app.py`) imports the dashboard screen, so it cannot import the App back; it sees
it through this Protocol instead (never as `Any`: a back-reference the layer test cannot read is
still a cycle, and this one is written down). The helpers the App builds are given what they
use instead (`tui/ui.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from orderdash.tui.ui import Asks, Tells, Works

if TYPE_CHECKING:
    from orderdash.core.polling.watcher import OrderWatcher
    from orderdash.core.service.client import OrderClient
    from orderdash.core.settings.model import Settings
    from orderdash.core.watching.onscreen import Freshness, Shown
    from orderdash.core.watching.session import WatchSession
    from orderdash.core.watching.state import DashboardState
    from orderdash.tui.alarms import Alarms
    from orderdash.tui.books import AppBooks
    from orderdash.tui.desk import Desk
    from orderdash.tui.receipts import Receipts


class Dashboard(Protocol):
    """The dashboard screen as account mode tells it of the account's orders (and opens an order
    a charge made)."""

    def load(self, token: str) -> None: ...

    def orders_arrived(self) -> None: ...

    def entry_changed(self, token: str) -> None: ...

    def account_problem(self, text: str | None) -> None: ...


class DashboardHost(Tells, Asks, Works, Protocol):
    """The OrderDashApp as the dashboard screen, the point of sale and the resolve dialog's opener
    see it: Textual's App's calls of `tui/ui.py`, and the parts below."""

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
    #: Receipts: `P`, `T` and `receipt_auto` (`tui/receipts.py`).
    receipts: Receipts
    #: The order on screen as last answered (the point-of-sale screen watches it).
    shown: Shown | None
    #: How fresh the order on screen is (the status line and the point of sale watch it).
    freshness: Freshness

    @property
    def dashboard(self) -> Dashboard: ...

    def action_resolve_order(self, token: str = "") -> None: ...
