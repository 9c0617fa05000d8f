"""The Textual application and the one factory that builds it (CLI, tests, screenshots).

`make_app` builds the parts (`tui/factory.py`): the client, the state, the watcher and the
session that owns every change to what is watched (`core/watching/session.py`). The App runs
the start-up (the first paint), the clock tick and the notices, and hands each action to its
owner: the session, the counter (point of sale, customer display), the desk (clipboard,
browser), the alarms; the clock tick and the order on screen go down as reactives.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.screen import Screen

from orderdash.core.runtime import startup
from orderdash.core.runtime.config import Settings
from orderdash.core.service.client import OrderClient
from orderdash.core.watching.state import Shown
from orderdash.core.watching.watchlist_file import (
    first_token,
    parse_tokens,
)
from orderdash.tui import compat
from orderdash.tui.alarms import Alarms
from orderdash.tui.bindings import OPERATOR_ACTIONS, POS_ONLY_OFF
from orderdash.tui.compat.held_render import HeldRenderScreen
from orderdash.tui.counter import Counter
from orderdash.tui.desk import Desk
from orderdash.tui.factory import Parts, build_parts
from orderdash.tui.messages import (
    WatchStatusChanged,
)
from orderdash.tui.screens.dashboard import DashboardScreen
from orderdash.tui.watchlist_sync import WatchListSync

if TYPE_CHECKING:
    from orderdash.core.watching.alert import Alert
    from orderdash.tui.account import AccountMode
    from orderdash.tui.notices import HeldNotices, Notice


#: At start-up the screen paints nothing until the order it opens is on it, or for this long.
FIRST_PAINT_WAIT = 0.5


class OrderDashApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "orderdash"
    BINDINGS = [
        Binding("q", "quit", "Quit", tooltip="Quit orderdash"),
        Binding("question_mark", "help", "Help", tooltip="Keys and what the screen shows"),
    ]

    # `var`s: app-level state that widgets watch; setting one repaints nothing by itself
    #: One clock for every countdown on screen: it ticks once a second.
    tick: var[int] = var(0, init=False)
    #: The order on screen as last answered (the point-of-sale screen watches it).
    shown: var[Shown | None] = var(None, init=False, always_update=True)
    #: Bumped when orders join or leave the watch list (the list pane rebuilds).
    roster: var[int] = var(0, init=False)

    def __init__(
        self,
        settings: Settings,
        parts: Parts,
        *,
        tokens: Sequence[str] = (),
        open_pos: bool = False,
        pos_only: bool = False,
        account: bool = False,
    ) -> None:
        super().__init__()
        self.settings = settings
        language = parts.language  # the customer's (the `language` setting resolved)
        #: Every change to what is watched (core/watching/session.py).
        self.session = session = parts.session
        #: The customer display's channel (nothing is written until something is shown).
        self.publisher = session.publisher
        self.client = client = parts.client
        self.state = state = parts.state
        self.watcher = parts.watcher
        self.desk = Desk(self, state)
        #: The bell and the alerts' toasts (tui/alarms.py).
        self.alarms = Alarms(self, state)
        self._reporter = parts.reporter
        self._tokens = list(tokens)
        self._open_pos = open_pos or pos_only
        #: `orderdash pos`: the point of sale is all there is; Esc asks to quit.
        self.pos_only = pos_only
        self._notices = list(parts.notices)
        #: The point of sale and the customer display (`p`, `x`, `X`).
        self.counter = Counter(
            self,
            session,
            settings,
            held=self._held,
            language=language,
            clock=parts.clock,
            monotonic=parts.monotonic,
            standalone=pos_only,
        )
        #: Made with the first notice (`_held`): a start that tells nothing does without it.
        self._notices_held: HeldNotices | None = None
        self._file = WatchListSync(self, state, started=self._start, adopt=session.adopt)
        session.attach(self, self._file)
        #: Account mode (the access token): the watch list fills itself; `n` charges. Made
        #: when first needed (`_account_mode`): at once with the access token (a refused
        #: log-in is told on the banner), else only if `n` is pressed.
        self._account: AccountMode | None = None
        self._account_on = account
        if account or settings.access_token is not None:
            self._account_mode()
        # a log-in waits for the first paint: it must not make the start-up slower
        client.login_after = asyncio.Event()
        #: The order the start-up opens (asked for before any screen composes), and the hold on
        #: painting until its first read is on the dashboard.
        self._first: str | None = None
        self._first_paint = contextlib.ExitStack()
        self._painted = False

    async def on_load(self) -> None:
        # The first event in the running loop, before any screen composes: the order that
        # opens is asked for now, and its answer arrives while the dashboard is being built
        # (the watcher's first read of it takes this answer: `OrderWatcher.prefetch`).
        self._first = first_token(self._tokens)
        if self._first is not None:
            self.watcher.prefetch(self._first)
            self.watcher.hold()  # the rest is sent after the first paint
            await asyncio.sleep(0)  # the request starts (connects) before the screen composes

    def get_default_screen(self) -> DashboardScreen:
        # The dashboard is the first screen: Textual's default, an empty screen under it, was
        # mounted, styled, resumed and styled again for nothing. Made after `on_load`.
        dashboard = DashboardScreen(self.session, first_paint_held=self._first is not None)
        self._reporter.target = dashboard
        if self.state.store is not None:
            # the saved list is read in a worker while the dashboard mounts: its answer is
            # handled (`_start`) once `on_mount` is done
            self._file.start()
        return dashboard

    async def on_mount(self) -> None:
        if self._first is not None:
            # One first paint, with the order: the empty dashboard painted first and then
            # again with the order cost a whole layout and render in between (~50 ms).
            self._first_paint.enter_context(self.batch_update())
            self.set_timer(FIRST_PAINT_WAIT, self._paint)
        await self.dashboard.composed.wait()  # what follows uses its widgets
        self.run_worker(self.watcher.run(), group="watch", exclusive=True, exit_on_error=False)
        self.set_interval(1.0, self._tick)
        if self.state.store is None:
            self._file.start()  # no file: the list is known at once
        if self._first is None:
            self._paint()
        for notice in self._notices:
            self.notify(notice, title="Settings", severity="warning", timeout=20, markup=False)

    def _start(self, saved: list[str]) -> None:
        """The saved list is known: it and the given tokens are watched, the first given opens.
        The watcher has not run yet, so its first read of that order is the focused one."""
        given = parse_tokens("\n".join(self._tokens), known=saved)
        self.session.watch(saved, save=False)
        self.session.watch(given.tokens, save=True)
        first = next(iter(given.tokens + given.duplicates), None)
        self.dashboard.start(first, [reason for _, reason in given.invalid])
        if first is None or first not in self.state.entries:
            self._paint()  # no first read to wait for
        if self._open_pos and (first is not None or self.pos_only):
            # (standalone: the point of sale even without an order, never the dashboard)
            self.action_point_of_sale()

    def _paint(self) -> None:
        """The hold on painting ends (if there was one): what waits for the first paint
        follows it, once."""
        self._first_paint.close()
        if not self._painted:
            self._painted = True
            for screen in self.screen_stack:
                if isinstance(screen, HeldRenderScreen):
                    screen.end_of_hold()  # the renders skipped under the hold, now
            # the first paint is the end of the start-up (core/runtime/startup.py)
            self.call_after_refresh(startup.resume)
            self.call_after_refresh(self._after_first_paint)

    def _after_first_paint(self) -> None:
        """Up: the requests held back go, a log-in may go now, and the account's history is
        read (in a worker)."""
        self.watcher.release()
        if self.client.login_after is not None:
            self.client.login_after.set()
        if self._account is not None:
            self._account.start()

    def on_watch_status_changed(self, message: WatchStatusChanged) -> None:
        # bubbled up after the dashboard handled the read's report (the order, or why not, is
        # on it): the first read of the order that opens ends the hold on painting
        if message.token == self._first:
            self._paint()

    async def on_unmount(self) -> None:
        self._first_paint.close()  # quit before the first read came: no hold left behind
        self._file.flush_at_exit()
        self.session.end_display()
        await self.client.aclose()

    def _tick(self) -> None:
        self.tick += 1
        self._file.tick()
        self.session.publish_display()

    # -- what the session tells (core/watching/session.py: SessionEvents) ----------------------

    def announce(self, alert: Alert) -> None:
        self.alarms.announce(alert)

    def roster_changed(self) -> None:
        self.roster += 1

    def order_closed(self) -> None:
        self.dashboard.close_order()

    def display_changed(self, text: str) -> None:
        """The status line says what the customer display shows."""
        try:
            self.dashboard.customer_display = text
        except LookupError:  # the app is being taken down
            pass

    @property
    def dashboard(self) -> DashboardScreen:
        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen):
                return screen
        raise LookupError("the dashboard is not on the screen stack")

    # -- the customer's screen: no other order's news, only its own bell, no operator keys -----

    @property
    def customer_facing(self) -> bool:
        """A screen turned to the customer (the point of sale) is up."""
        return self._notices_held is not None and self._notices_held.customer_facing

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.pos_only and action in POS_ONLY_OFF:
            return False
        # hidden from the customer's footer, and the keys do nothing there (Esc first)
        return not (action in OPERATOR_ACTIONS and self.customer_facing)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Textual's notify, except that while the customer's screen is up the notification
        is held for the operator (`tui/notices.py`)."""
        from orderdash.tui.notices import Notice

        self._held().notify(Notice(message, title, severity, timeout, markup))

    def _held(self) -> HeldNotices:
        """The notices held from the customer's eyes (`tui/notices.py`), made on first use."""
        if self._notices_held is None:
            from orderdash.tui.notices import HeldNotices

            self._notices_held = HeldNotices(self._show_notice, self.NOTIFICATION_TIMEOUT)
        return self._notices_held

    def _show_notice(self, notice: Notice) -> None:
        super().notify(
            notice.message,
            title=notice.title,
            severity=notice.severity,
            timeout=notice.timeout,
            markup=notice.markup,
        )

    async def action_quit(self) -> None:
        """q, Ctrl+Q: quit, except while a charge's order is being made (the charge dialog's
        `quit_held` says why, in one line): its outcome is shown first, naming the order."""
        held = getattr(self.screen, "quit_held", None)
        reason = held() if callable(held) else ""
        if reason:
            self.notify(reason, title="Quit", severity="warning", markup=False)
            return
        await super().action_quit()

    def action_help(self) -> None:
        from orderdash.tui.screens.help import HelpScreen  # when first asked for

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    # -- the bell: one switch, the state's (its alerts: tui/alarms.py) --------------------------

    def bell(self) -> None:
        if self.state.bell:
            super().bell()

    def action_toggle_bell(self) -> None:
        self.state.bell = not self.state.bell
        self.notify(f"Bell {'on' if self.state.bell else 'off'}.", timeout=2, markup=False)

    # -- the merchant's account (tui/account.py) --------------------------------------------------

    def action_new_charge(self) -> None:
        self._account_mode().new_charge()

    def _account_mode(self) -> AccountMode:
        """Account mode, made on first use: a start without the access token does without
        it, its history feed and the account's models (`tui/account.py`)."""
        if self._account is None:
            from orderdash.tui.account import AccountMode

            self._account = AccountMode(self, enabled=self._account_on)
        return self._account

    # -- the watch list ---------------------------------------------------------------------------

    def action_budgets(self) -> None:
        # imported when first opened, like the other rare screens
        from orderdash.tui.screens.budgets import BudgetsScreen

        if not isinstance(self.screen, BudgetsScreen):
            self.push_screen(BudgetsScreen(self.watcher.budget_use))

    def action_alerts(self) -> None:
        from orderdash.tui.screens.alerts import AlertsScreen  # when first asked for

        self.push_screen(AlertsScreen(list(self.state.alerts)), callback=self._alert_chosen)

    def _alert_chosen(self, token: str | None) -> None:
        if token is not None and token in self.state.entries:
            self.dashboard.load(token)

    def action_close_day(self) -> None:
        from orderdash.tui.books import close_day  # the books: tui/books.py

        close_day(self)

    def action_export_list(self) -> None:
        from orderdash.tui.books import export_list

        export_list(self)

    def action_undo_remove(self) -> None:
        self.session.undo()

    def action_add_tokens(self) -> None:
        # imported when first opened: the editor is not needed before
        from orderdash.tui.screens.add_tokens import AddTokensScreen

        self.push_screen(AddTokensScreen(), callback=self.session.add_from_text)

    # -- the order on screen ---------------------------------------------------------------------

    def action_refresh(self) -> None:
        self.session.refresh()

    def action_point_of_sale(self) -> None:
        self.counter.point_of_sale()

    def action_show_on_display(self) -> None:
        self.counter.show_on_display()

    def action_clear_display(self) -> None:
        self.counter.clear_display()

    # -- the clipboard and the browser (tui/desk.py) --------------------------------------------

    def action_copy_address(self) -> None:
        self.desk.copy_address(self.state.token)

    def action_copy_amount(self) -> None:
        self.desk.copy_amount(self.state.token)

    def action_copy_token(self) -> None:
        self.desk.copy_token()

    def action_copy_hash(self) -> None:
        self.desk.copy_hash(self.dashboard.selected_transaction())

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        self.desk.open_url(url)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from orderdash.tui.commands import system_commands  # when the palette first opens

        yield from super().get_system_commands(screen)
        yield from system_commands(self, screen, self._dashboard_or_none())

    def _dashboard_or_none(self) -> Screen | None:
        try:
            return self.dashboard
        except LookupError:
            return None


def make_app(
    settings: Settings,
    *,
    client: OrderClient | None = None,
    token: str | None = None,
    tokens: Sequence[str] = (),
    clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
    open_pos: bool = False,
    pos_only: bool = False,
    notices: Sequence[str] = (),
    account: bool | None = None,
) -> OrderDashApp:
    """Build the app, its state, its watcher and the watch list's store; pass `client` to
    inject one (tests), else it is made from `settings`.

    `token` (or the first of `tokens`) opens in the detail panes; all of them join the watch list.
    `clock` is the wall clock (times shown, expiry); `monotonic` times the countdowns on screen,
    so a wall-clock step cannot skew them. `notices` are warnings shown once the screen is up
    (the terminal's earlier output is hidden behind it). `account`: the watch list fills
    itself with the account's open orders (default: when the access token is configured).
    """
    compat.install()
    parts = build_parts(settings, client=client, clock=clock, monotonic=monotonic, notices=notices)
    return OrderDashApp(
        settings,
        parts,
        tokens=[token, *tokens] if token else list(tokens),
        open_pos=open_pos,
        pos_only=pos_only,
        account=settings.access_token is not None if account is None else account,
    )
