"""The account as the App holds it: a charge at the counter (`tui/charges.py`), and account mode
(`tui/account.py`), made at start in account mode or with the access token (a refused log-in is
told on the banner); a start without them does without it, its history feed and the account's
models."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from orderdash.tui.charges import Charges

if TYPE_CHECKING:
    from orderdash.core.ledger.writer import BookWriter
    from orderdash.core.settings.model import Settings
    from orderdash.tui.account import AccountMode, AccountUi
    from orderdash.tui.host import Dashboard
    from orderdash.tui.parts import Parts
    from orderdash.tui.ui import Asks

    class Till(AccountUi, Asks, Protocol):
        """Textual's App as account mode and the charges use it."""


class AccountSwitch:
    def __init__(
        self,
        parts: Parts,
        settings: Settings,
        *,
        ui: Till,
        dashboard: Callable[[], Dashboard],
        ledger: Callable[[], BookWriter],
        to_customer: Callable[[], None],
        enabled: bool,
    ) -> None:
        """`enabled`: the watch list fills itself with the account's open orders. Account mode
        and the charges work with the session and the client of `parts`; `dashboard` is told
        of the account's orders and opens an order charged; `ledger` writes each charge down;
        `to_customer` puts the order on screen on the point of sale."""
        #: A charge at the counter (`n`): its order is watched, opened and shown to the customer.
        self.charges = Charges(
            parts,
            settings,
            ui=ui,
            ledger=ledger,
            open_order=lambda token: dashboard().load(token),
            to_customer=to_customer,
        )
        #: Account mode, once made.
        self.mode: AccountMode | None = None
        if enabled or settings.access_token is not None:
            from orderdash.tui.account import AccountMode  # only with the access token

            self.mode = AccountMode(
                parts.session, parts.client, settings, ui=ui, dashboard=dashboard, enabled=enabled
            )

    def start(self) -> None:
        """After the first paint: the account's history is read (in a worker)."""
        if self.mode is not None:
            self.mode.start()
