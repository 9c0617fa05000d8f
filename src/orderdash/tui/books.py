"""The dashboard's side of the books: `Z` opens the close of day (`screens/close_day.py`), `e`
exports the watch list's rows as shown (`tui/export.py`). The App's actions hand over here.

The book comes from the one factory the commands use (`orderdash.cli.books.open_book`, with
its `BOOK_FACTORY` for tests); the reads go through the App's client and the dashboard's own
budgets (the watcher's): the history through its rate budget, getOrder through its getOrder
budget, so that the close and the watch list together stay within the service's limits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from orderdash.core.service.errors import OrderdashError

if TYPE_CHECKING:
    from orderdash.tui.host import DashboardHost


def close_day(app: DashboardHost) -> None:
    """`Z`: the close of day screen, on today's report."""
    from orderdash.core.books.period import zone_named
    from orderdash.core.books.run import BudgetGate
    from orderdash.core.polling.refresh import Kind
    from orderdash.tui.screens.close_day import CloseDayScreen, today_in

    if isinstance(app.screen, CloseDayScreen):
        return
    settings = app.settings
    try:
        zone = zone_named(settings.timezone)
    except OrderdashError as error:
        app.notify(error.message, title="Close of day", severity="error", markup=False)
        return
    order_gate = BudgetGate(app.watcher.scheduler.budgets[Kind.ORDER])

    def open_book() -> Any:
        from orderdash.cli.books import open_book

        return open_book(settings)

    screen = CloseDayScreen(
        client=app.client,
        settings=settings,
        zone=zone,
        today=today_in(zone, app.state.clock),
        open_book=open_book,
        order_gate=order_gate,
        private_gate=app.watcher,
    )
    app.push_screen(screen, callback=lambda _: None)


def export_list(app: DashboardHost) -> None:
    """`e`: the watch list's rows, as shown, to a CSV file (`tui/export.py`)."""
    from orderdash.tui.export import export_shown

    export_shown(app)
