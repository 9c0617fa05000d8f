"""The alerts log: what happened this session, newest first."""

from __future__ import annotations

import time

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable

from orderdash.core.watching.state import Alert
from orderdash.tui.text import literal


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
        with Vertical(id="alerts-body") as body:
            body.border_title = f"Alerts ({len(self.alerts)})"
            body.border_subtitle = "Enter opens the order \u00b7 Esc closes"
            yield DataTable(id="alerts-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("Time", key="time")
        table.add_column("Order", key="order")
        table.add_column("Company", key="company")
        table.add_column("What happened", key="text")
        for index, alert in enumerate(reversed(self.alerts)):
            table.add_row(
                Text(time.strftime("%H:%M:%S", time.localtime(alert.at))),
                literal(alert.token, limit=24),
                literal(alert.company, limit=30),
                literal(alert.text, limit=120),
                key=str(len(self.alerts) - 1 - index),
            )
        if not self.alerts:
            table.add_row(Text(""), Text("no alerts yet", "dim"), Text(""), Text(""))
        table.focus()

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None and self.alerts:
            self.dismiss(self.alerts[int(event.row_key.value)].token)
