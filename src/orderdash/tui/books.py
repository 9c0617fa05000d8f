"""The dashboard's ledger (core/ledger): every order the dashboard reads is written down (only
when its answer changed, in the ledger's own thread), a charge (`n`) is written before its
create is sent, and after the first paint this till's charges a crash left unresolved are
looked up and each named in a notice ("12.50 EUR at 10:02: made, awaiting payment").

Nothing here blocks the event loop: the book is opened, read and written in the writer's
thread (`BookWriter`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    from orderdash.core.ledger.writer import BookWriter
    from orderdash.core.runtime.config import Settings
    from orderdash.core.service.client import OrderClient
    from orderdash.core.service.results import Fetched

#: How long the notice of an earlier charge stays up.
NOTICE_SECONDS = 30


class AppBooks:
    def __init__(self, app: App[object], settings: Settings, client: OrderClient) -> None:
        """`app`: where notices and the worker go; `client`: whose order reads are written."""
        self._app, self._client, self._settings = app, client, settings
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
