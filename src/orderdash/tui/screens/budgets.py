"""The request budgets (`b`): each one's use in the last minute and hour, and the hour ahead."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from orderdash.core.domain.text import duration_text
from orderdash.core.polling.budget_use import BudgetUse


def budgets_text(uses: list[BudgetUse]) -> Text:
    """One block per budget: now, the last hour, the hour's projection, and a hold if any."""
    text = Text()
    for index, use in enumerate(uses):
        if index:
            text.append("\n\n")
        text.append(f"{use.name}\n", "bold")
        text.append(f"  last minute  {use.last_minute:>6,} of {use.per_minute:,}\n")
        text.append(f"  last hour    {use.last_hour:>6,} of {use.per_hour:,}\n")
        text.append(f"  next hour    {use.projected_hour:>6,} planned, paced evenly")
        if use.held_for > 0:
            text.append(
                f"\n  held {duration_text(use.held_for)}: the service refused for its limit",
                "bold #de935f",
            )
    return text


class BudgetsScreen(ModalScreen[None]):
    """The budgets' use, renewed every second while open."""

    DEFAULT_CSS = """
    BudgetsScreen { align: center middle; }
    BudgetsScreen > Vertical {
        width: 50; max-width: 100%; height: auto;
        border: round $accent; padding: 0 1; background: $surface;
    }
    """

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close"),
        Binding("b", "dismiss(None)", show=False),
    ]

    def __init__(self, uses: Callable[[], list[BudgetUse]]) -> None:
        super().__init__()
        self._uses = uses

    def compose(self) -> ComposeResult:
        with Vertical() as body:
            body.border_title = "Request budgets"
            body.border_subtitle = "Esc closes"
            yield Static(budgets_text(self._uses()), id="budgets-text")

    def on_mount(self) -> None:
        self.set_interval(1.0, self._renew)

    def _renew(self) -> None:
        self.query_one("#budgets-text", Static).update(budgets_text(self._uses()))
