"""Alerts as the operator hears and sees them: the bell and a toast for each, and the one
notice that the rate is not refreshed. (Which alert an answer makes is the state's:
`core/watching/state.py`.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from orderdash.core.safetext import clean
from orderdash.core.watching.state import DashboardState

if TYPE_CHECKING:
    from orderdash.core.watching.alert import Alert

NO_BEARER = (
    "Rate refresh is off: it needs a bearer token (--bearer-token-file) or the access token "
    "to log in with (access_token_file). The order is still polled."
)


class Alarms:
    def __init__(self, app: App[None], state: DashboardState) -> None:
        """`app` rings (its `bell` keeps to the state's switch) and shows the toasts."""
        self._app, self._state = app, state
        self._told_no_bearer = False

    def announce(self, alert: Alert) -> None:
        """A payment or a status change: the bell and a toast (the log line is the state's).
        With the customer's screen up, only its own order rings (the toast is held). An alarm
        (outage, recovery, not found, a payment taken back) is an error toast that stays."""
        if not self._state.pos_up or alert.token == self._state.token:
            self._app.bell()
        where = [part for part in (alert.company, clean(alert.token, limit=30)) if part]
        title = " \u00b7 ".join(where)
        if alert.alarm:
            title = f"\u26a0 {title}" if title else "\u26a0 Alarm"
            self._app.notify(alert.text, title=title, severity="error", markup=False, timeout=20)
            return
        self._app.notify(alert.text, title=title, markup=False, timeout=8)

    def tell_no_bearer(self) -> None:
        """Once: the order is polled, but its rate is not refreshed without the token."""
        if not self._told_no_bearer:
            self._told_no_bearer = True
            self._app.notify(NO_BEARER, title="No bearer token", severity="warning", markup=False)

    def toggle_bell(self) -> None:
        """The bell's one switch, the state's."""
        self._state.bell = not self._state.bell
        self._app.notify(f"Bell {'on' if self._state.bell else 'off'}.", timeout=2, markup=False)
