"""Alerts as the operator hears and sees them: the bell and a toast for each, and the one
notice that the rate is not refreshed; and as an owner who is away hears of them, through the
notification rules (`core/notify/events.py`). (Which alert an answer makes is the state's:
`core/watching/state.py`.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from orderdash.core.polling.watcher import is_outage
from orderdash.core.safetext import clean
from orderdash.core.watching.state import DashboardState
from orderdash.tui.ui import Tells

if TYPE_CHECKING:
    from orderdash.core.notify.events import Notices
    from orderdash.core.polling.watcher import Failure
    from orderdash.core.settings.model import Settings
    from orderdash.core.watching.alert import Alert

NO_BEARER = (
    "Rate refresh is off: it needs a bearer token (--bearer-token-file) or the access token "
    "to log in with (access_token_file). The order is still polled."
)


class Speaker(Tells, Protocol):
    """Rings (the App's `bell` keeps to the state's switch) and shows the toasts."""

    def bell(self) -> None: ...


class Alarms:
    def __init__(
        self, speaker: Speaker, state: DashboardState, settings: Settings | None = None
    ) -> None:
        """`speaker` rings and shows the toasts; the `settings`' notification rules, if any,
        hear of each alert too (a read-only dashboard's only with `notify_readonly`: the till's
        dashboard tells the owner)."""
        self._speaker, self._state = speaker, state
        self._told_no_bearer = False
        #: The notification rules' sender (None without rules: nothing is loaded for it).
        self.notices: Notices | None = None
        if (
            settings is not None
            and settings.notify
            and (not settings.readonly or settings.notify_readonly)
        ):
            from orderdash.core.notify.events import notices_for  # only with notification rules

            self.notices = notices_for(settings)

    def announce(self, alert: Alert) -> None:
        """A payment or a status change: the bell and a toast (the log line is the state's).
        With the customer's screen up, only its own order rings (the toast is held). An alarm
        (outage, recovery, not found, a payment taken back) is an error toast that stays."""
        if self.notices is not None:
            entry = self._state.entries.get(alert.token)
            payment = entry.payment if entry is not None else None
            self.notices.alert(
                alert,
                order=entry.order if entry is not None else None,
                phase=payment.phase if payment is not None else None,
                outage=self._state.outage,
            )
        if not self._state.pos_up or alert.token == self._state.token:
            self._speaker.bell()
        where = [part for part in (alert.company, clean(alert.token, limit=30)) if part]
        title = " \u00b7 ".join(where)
        if alert.alarm:
            title = f"\u26a0 {title}" if title else "\u26a0 Alarm"
            self._speaker.notify(
                alert.text, title=title, severity="error", markup=False, timeout=20
            )
            return
        self._speaker.notify(alert.text, title=title, markup=False, timeout=8)

    def failed_read(self, failure: Failure) -> None:
        """A read failed: if the service is out, the owner hears of it once it has lasted."""
        if self.notices is not None and is_outage(failure.error):
            self.notices.outage(failure.error.message)

    def tell_no_bearer(self) -> None:
        """Once: the order is polled, but its rate is not refreshed without the token."""
        if not self._told_no_bearer:
            self._told_no_bearer = True
            self._speaker.notify(
                NO_BEARER, title="No bearer token", severity="warning", markup=False
            )

    def toggle_bell(self) -> None:
        """The bell's one switch, the state's."""
        self._state.bell = not self._state.bell
        self._speaker.notify(
            f"Bell {'on' if self._state.bell else 'off'}.", timeout=2, markup=False
        )
