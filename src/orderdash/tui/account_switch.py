"""Account mode as the App holds it: made when first needed (`tui/account.py`), at once with
the access token (a refused log-in is told on the banner), else only if `n` is pressed; a start
without the access token does without it, its history feed and the account's models."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orderdash.tui.account import AccountMode
    from orderdash.tui.host import DashboardHost


class AccountSwitch:
    def __init__(self, app: DashboardHost, *, enabled: bool) -> None:
        """`enabled`: the watch list fills itself with the account's open orders."""
        self._app, self._enabled = app, enabled
        #: Account mode, once made.
        self.mode: AccountMode | None = None
        if enabled or app.settings.access_token is not None:
            self.made()

    def made(self) -> AccountMode:
        if self.mode is None:
            from orderdash.tui.account import AccountMode

            self.mode = AccountMode(self._app, enabled=self._enabled)
        return self.mode

    def new_charge(self) -> None:
        """`n`: a new charge (or what it needs, told)."""
        self.made().new_charge()

    def start(self) -> None:
        """After the first paint: the account's history is read (in a worker)."""
        if self.mode is not None:
            self.mode.start()
