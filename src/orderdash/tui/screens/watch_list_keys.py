"""The dashboard's keys on the watch list, and on the order a key acts on (`tui/bindings.py`):
`d`, `c`, `y`, `o` and `R` act on the list's highlighted row while the list has the focus, else on
the order open in the panes; `g`, `f`, `t`, `s`, `S` and `w` on the list itself. The list pane
(`widgets/watch_list.py`) keeps the rows, the session (`core/watching/session.py`) what is
watched, the desk (`tui/desk.py`) the clipboard and the browser: these keys hand each its part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.screen import Screen

from orderdash.core.model.wire import Transaction
from orderdash.core.watching.session import WatchSession
from orderdash.core.watching.state import DashboardState
from orderdash.tui.bindings import READONLY_OFF
from orderdash.tui.widgets.order_view import OrderView
from orderdash.tui.widgets.watch_list import WatchListPane

if TYPE_CHECKING:
    from orderdash.tui.host import DashboardHost


class WatchListKeys(Screen[None]):
    """The keys' half of the dashboard screen (`screens/dashboard.py`), which sets these:"""

    session: WatchSession
    state: DashboardState
    #: A read-only operator: the keys that change the list or turn to a customer are off.
    readonly: bool = False

    @property
    def _app(self) -> DashboardHost:
        """The app (OrderDashApp, which imports the dashboard: seen through its Protocol)."""
        return cast("DashboardHost", self.app)

    def target_token(self) -> str | None:
        """The order a key acts on: the list's highlighted row while the list has the focus,
        else the order open in the panes."""
        return self.query_one(WatchListPane).highlighted_token() or self.state.token

    def selected_transaction(self) -> Transaction | None:
        return self.query_one(OrderView).selected_transaction()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.readonly and action in READONLY_OFF)

    def action_remove_order(self) -> None:
        self.session.unwatch(self.target_token())

    def action_resolve_order(self) -> None:
        self._app.action_resolve_order(self.target_token() or "")

    def action_copy_address(self) -> None:
        self._app.desk.copy_address(self.target_token())

    def action_copy_amount(self) -> None:
        self._app.desk.copy_amount(self.target_token())

    def action_open_transaction(self) -> None:
        token = self.query_one(WatchListPane).highlighted_token()
        if token is None:
            self._app.desk.open_transaction(self.selected_transaction())
        else:  # the list's row: its newest payment
            self._app.desk.open_transaction(self.state.newest_transaction(token))

    def action_focus_list(self) -> None:
        if not self.query_one(WatchListPane).focus_rows():
            self.notify(
                "The watch list shows from the second order on (a adds orders).",
                timeout=3,
                markup=False,
            )

    def action_filter(self) -> None:
        self.query_one(WatchListPane).focus_filter()

    def action_state_filter(self) -> None:
        state = self.query_one(WatchListPane).cycle_state_filter()
        self.notify(f"Showing: {state}", timeout=2, markup=False)

    def action_sort(self) -> None:
        self.query_one(WatchListPane).cycle_sort()

    def action_reverse_sort(self) -> None:
        self.query_one(WatchListPane).reverse_sort()

    def action_toggle_list(self) -> None:
        self.query_one(WatchListPane).toggle_hidden()
