"""The alerts log: what happened this session, newest first; alarms stand out."""

from __future__ import annotations

import time

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from orderdash.core.watching.alert import Alert
from orderdash.tui.text import literal

#: How an alarm (outage, recovery, not found, a payment taken back, another order behind a
#: token) stands apart from the ordinary payments.
ALARM_STYLE = "bold red"
ALARM_MARK = "\u26a0 "


def alert_line(alert: Alert) -> Text:
    """One log entry: time, order and company, then what happened; it wraps to the width
    (an option's prompt folds; nothing is cut)."""
    line = Text(time.strftime("%H:%M:%S", time.localtime(alert.at)), "dim")
    line.append("  ")
    if alert.alarm:
        line.append(ALARM_MARK, ALARM_STYLE)
    where = [part for part in (alert.token, alert.company) if part]
    if where:
        line.append_text(literal(" \u00b7 ".join(where), "bold", limit=80))
        line.append("  ")
    line.append_text(literal(alert.text, ALARM_STYLE if alert.alarm else ""))
    return line


class AlertsScreen(ModalScreen[str | None]):
    """The alerts of this session (the latest 1000), newest first; Enter opens the order."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close"),
        Binding("l", "dismiss(None)", show=False),
    ]

    def __init__(self, alerts: list[Alert]) -> None:
        super().__init__()
        self.alerts = alerts

    def compose(self) -> ComposeResult:
        alarms = sum(alert.alarm for alert in self.alerts)
        with Vertical(id="alerts-body") as body:
            count = f"{len(self.alerts)}, {alarms} alarms" if alarms else str(len(self.alerts))
            body.border_title = f"Alerts ({count})"
            body.border_subtitle = "Enter opens the order \u00b7 Esc closes"
            yield OptionList(id="alerts-log")

    def on_mount(self) -> None:
        log = self.query_one(OptionList)
        log.add_options(
            item
            for index, alert in reversed(list(enumerate(self.alerts)))
            for item in (Option(alert_line(alert), id=str(index)), None)
        )
        if not self.alerts:
            log.add_option(Option(Text("no alerts yet", "dim"), disabled=True))
        else:
            log.highlighted = 0
        log.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(self.alerts[int(event.option.id)].token)
