"""The dashboard's side of the books (core/ledger, core/books).

`AppBooks`: every order the dashboard reads is written down (only when its answer changed, in
the ledger's own thread), a charge (`n`) is written before its create is sent, and after the
first paint this till's charges a crash left unresolved are looked up and each named in a
notice ("12.50 EUR at 10:02: made, awaiting payment"). Nothing here blocks the event loop: the
book is opened, read and written in the writer's thread (`BookWriter`).

`Z` opens the close of day (`screens/close_day.py`), `e` exports the watch list's rows as shown
(`tui/export.py`). The book comes from the factory the commands use (`core/books/run.py`); the
reads go through the App's client and the dashboard's own budgets (the watcher's): the history
through its rate budget, getOrder through its getOrder budget, so that the close and the watch
list together stay within the service's limits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orderdash.core.service.errors import OrderdashError

if TYPE_CHECKING:
    from textual.app import App

    from orderdash.core.ledger.writer import BookWriter
    from orderdash.core.runtime.config import Settings
    from orderdash.core.service.results import Fetched
    from orderdash.tui.parts import Parts

#: How long the notice of an earlier charge stays up.
NOTICE_SECONDS = 30


class AppBooks:
    def __init__(self, app: App[object], settings: Settings, parts: Parts) -> None:
        """`app`: where notices, workers and screens go; `parts.client`: whose order reads are
        written, and through which the close of day reads."""
        self._app, self._client, self._settings = app, parts.client, settings
        self._state, self._watcher = parts.state, parts.watcher
        self._writer: BookWriter | None = None

    @property
    def writer(self) -> BookWriter:
        """Made when first needed (after the first paint, or at `n`): the ledger's modules are
        no part of the start-up."""
        if self._writer is None:
            from orderdash.core.ledger.open import writer_for

            self._writer = writer_for(self._settings)
        return self._writer

    def start(self) -> None:
        """After the first paint: orders read from now on are written down, and this till's
        unresolved charges are looked up (in a worker)."""
        self._client.on_order_read = self._read
        self._app.run_worker(self._resolve(), group="ledger", exclusive=True, exit_on_error=False)

    def _read(self, fetched: Fetched) -> None:
        self.writer.saw(fetched.order.token, fetched.raw)

    async def _resolve(self) -> None:
        from orderdash.core.ledger import LedgerError
        from orderdash.core.ledger.charges import resolve_unresolved

        try:
            found = await resolve_unresolved(self.writer, self._client)
        except LedgerError as error:
            self._app.notify(error.message, title="Ledger", severity="warning", markup=False)
            return
        for resolved in found:
            self._app.notify(
                f"An earlier charge: {resolved.line}",
                title="Ledger",
                severity="information" if resolved.outcome else "warning",
                timeout=NOTICE_SECONDS,
                markup=False,
            )

    async def aclose(self) -> None:
        """At exit: what is pending written, the book closed."""
        self._client.on_order_read = None
        if self._writer is not None:
            await self._writer.aclose()

    def close_day(self) -> None:
        """`Z`: the close of day screen, on today's report."""
        from orderdash.core.books.period import zone_named
        from orderdash.core.books.run import BudgetGate, open_book
        from orderdash.core.polling.refresh import Kind
        from orderdash.tui.screens.close_day import CloseDayScreen, today_in

        app, settings = self._app, self._settings
        if isinstance(app.screen, CloseDayScreen):
            return
        try:
            zone = zone_named(settings.timezone)
        except OrderdashError as error:
            app.notify(error.message, title="Close of day", severity="error", markup=False)
            return
        screen = CloseDayScreen(
            client=self._client,
            settings=settings,
            zone=zone,
            today=today_in(zone, self._state.clock),
            open_book=lambda: open_book(settings),
            order_gate=BudgetGate(self._watcher.scheduler.budgets[Kind.ORDER]),
            private_gate=self._watcher,
        )
        app.push_screen(screen, callback=lambda _: None)

    def export_list(self) -> None:
        """`e`: the watch list's rows, as shown, to a CSV file (`tui/export.py`)."""
        from orderdash.tui.export import export_shown

        export_shown(self._app, self._state, self._settings)
