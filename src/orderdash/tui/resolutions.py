"""Opening the resolve dialog (`screens/resolve.py`) on one order: `R` on the dashboard's
highlighted order, the palette, or any screen through the App's `resolve_order(token)` (the
attention view's rows). The order comes from the watch list's last answer, or is read once
through the App's client within the watcher's getOrder budget; the resolution is written
through the ledger's writer (`tui/books.py`). Nothing is sent to the service.

`accept_as_paid`: the point of sale's `a`, an order short accepted as paid after one question,
written down the same way as a resolution (written off, "accepted at the counter", the
operator); the customer's screens then say paid.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from orderdash.core.model.errors import OrderdashError
from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.ledger import ResolutionRecord
    from orderdash.tui.host import DashboardHost


def open_resolve(
    app: DashboardHost,
    token: str | None,
    *,
    then: Callable[[ResolutionRecord | None], None] | None = None,
) -> None:
    """The dialog on `token` (a notice when there is none); `then` is told what was written
    (None: nothing) when the dialog closes."""
    from orderdash.core.books.period import zone_named
    from orderdash.core.books.run import BudgetGate
    from orderdash.core.polling.refresh import Kind
    from orderdash.tui.screens.resolve import ResolveScreen

    if app.settings.readonly:  # (its key and the palette's entry are off already)
        app.notify("Read-only: no resolution is written.", timeout=3, markup=False)
        return
    if not token:
        app.notify("No order to resolve: choose one first.", timeout=3, markup=False)
        return
    if isinstance(app.screen, ResolveScreen):
        return
    entry = app.state.entries.get(token)
    fetched = entry.fetched if entry is not None else None
    gate = BudgetGate(app.watcher.scheduler.budgets[Kind.ORDER])

    async def read() -> Any:
        await gate.take_turn()
        return await app.client.get_order(token)

    try:
        zone = zone_named(app.settings.timezone)
    except OrderdashError:
        zone = None
    screen = ResolveScreen(
        token,
        writer=app.books.writer,
        till=app.settings.till,
        operator=app.settings.operator,
        order=fetched.raw if fetched is not None else None,
        read=read,
        zone=zone,
    )

    def closed(record: ResolutionRecord | None) -> None:
        if record is not None:
            # it leaves the attention view until it goes wrong again
            app.books.resolved({record.token: int(record.at.timestamp() * 1000)})
            app.notify(
                f"Resolved {clean(record.token, limit=40)}: {clean(record.kind, limit=20)}",
                title="Ledger",
                timeout=4,
                markup=False,
            )
        if then is not None:
            then(record)

    app.push_screen(screen, callback=closed)


def accept_as_paid(app: DashboardHost, token: str, question: str) -> None:
    """Ask `question` once; yes writes `token` off as accepted at the counter (the ledger's
    writer, off the event loop), then shows it paid on every screen of the customer's and
    takes it out of the attention view. Refused while read-only."""
    from orderdash.core.books.resolve import ACCEPTED_REASON, new_resolution
    from orderdash.tui.screens.confirm import ConfirmScreen

    if app.settings.readonly:  # (its key is off already)
        app.notify("Read-only: nothing is accepted.", timeout=3, markup=False)
        return
    if isinstance(app.screen, ConfirmScreen):
        return
    record = new_resolution(
        token,
        "written-off",
        ACCEPTED_REASON,
        till=app.settings.till,
        operator=app.settings.operator,
    )

    async def write() -> None:
        try:
            written = await app.books.writer.resolution_made(record)
        except OrderdashError as error:
            app.notify(f"Not accepted: {error.message}", severity="error", markup=False)
            return
        except Exception as error:  # never the app's end: said, and nothing changes
            app.notify(f"Not accepted: {type(error).__name__}", severity="error", markup=False)
            return
        app.state.accept(token)
        app.books.resolved({token: int(written.at.timestamp() * 1000)})
        show_accepted(app, token)

    def answered(yes: bool | None) -> None:
        if yes:
            app.run_worker(write(), group="accept-write", exit_on_error=False)

    app.push_screen(ConfirmScreen("Accept as paid?", question), callback=answered)


def show_accepted(app: DashboardHost, token: str) -> None:
    """`token`, accepted as paid (`state.accept` done), shown so on every screen: the order on
    screen, the customer's, its row in the list."""
    app.shown = app.state.shown
    app.session.publish_display()
    app.dashboard.entry_changed(token)
