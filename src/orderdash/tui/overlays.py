"""The screens the operator opens over the dashboard and closes again: the keys and what the
screen shows, the alerts log, the orders that need a human, the request budgets, the token
editor. Each is imported when first
opened: the start-up does without them."""

from __future__ import annotations

from collections.abc import Callable

from orderdash.core.watching.attention import AttentionKeeper
from orderdash.core.watching.session import WatchSession
from orderdash.tui.ui import Asks


class Overlays:
    def __init__(
        self,
        ui: Asks,
        session: WatchSession,
        *,
        load: Callable[[str], None],
        readonly: bool = False,
    ) -> None:
        """`ui` shows the screens; `load` opens an order on the dashboard (an alert chosen);
        `readonly`: the help says which keys are off."""
        self._ui, self._session, self._load = ui, session, load
        self._readonly = readonly

    def help(self) -> None:
        from orderdash.tui.screens.help import HelpScreen

        if not isinstance(self._ui.screen, HelpScreen):
            self._ui.push_screen(HelpScreen(readonly=self._readonly))

    def budgets(self) -> None:
        from orderdash.tui.screens.budgets import BudgetsScreen

        if not isinstance(self._ui.screen, BudgetsScreen):
            self._ui.push_screen(BudgetsScreen(self._session.watcher.budget_use))

    def alerts(self) -> None:
        from orderdash.tui.screens.alerts import AlertsScreen

        alerts = AlertsScreen(list(self._session.state.alerts))
        self._ui.push_screen(alerts, callback=self._alert_chosen)

    def _alert_chosen(self, token: str | None) -> None:
        if token is not None and token in self._session.state.entries:
            self._load(token)

    def attention(self, keeper: AttentionKeeper) -> None:
        """The watched orders that need a human (`!`); Enter there opens one here."""
        from orderdash.tui.screens.attention import AttentionScreen

        if isinstance(self._ui.screen, AttentionScreen):
            return
        clock = self._session.state.clock
        screen = AttentionScreen(
            keeper, now_ms=lambda: int(clock() * 1000), readonly=self._readonly
        )
        self._ui.push_screen(screen, callback=self._alert_chosen)

    def add_tokens(self) -> None:
        from orderdash.tui.screens.add_tokens import AddTokensScreen

        self._ui.push_screen(AddTokensScreen(), callback=self._session.add_from_text)
