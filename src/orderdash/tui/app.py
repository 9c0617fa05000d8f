"""The Textual application. `make_app` (`tui/factory.py`) builds it and its parts for the CLI,
the tests and the screenshots: the client, the state, the watcher and the
session that owns every change to what is watched (`core/watching/session.py`). The App runs
the clock tick and hands each action to its owner: the start-up (`first_paint.py`), the
session, the counter (point of sale, customer display, notices), the desk (clipboard, browser),
the alarms; the clock tick and the order on screen go down as reactives (`tui/app_data.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen

from orderdash.core.settings.model import Settings
from orderdash.tui.account_switch import AccountSwitch
from orderdash.tui.alarms import Alarms
from orderdash.tui.app_data import AppData
from orderdash.tui.bindings import app_action_on
from orderdash.tui.books import books_for
from orderdash.tui.counter import Counter
from orderdash.tui.desk import Desk
from orderdash.tui.first_paint import FirstPaint
from orderdash.tui.messages import ResolveRequested, WatchStatusChanged
from orderdash.tui.overlays import Overlays
from orderdash.tui.parts import Parts
from orderdash.tui.screens.dashboard import DashboardScreen
from orderdash.tui.watchlist_sync import WatchListSync

if TYPE_CHECKING:
    from orderdash.core.watching.alert import Alert
    from orderdash.tui.receipts import Receipts
    from orderdash.tui.resolutions import Resolutions


class OrderDashApp(AppData):
    CSS_PATH = "app.tcss"
    TITLE = "orderdash"
    BINDINGS = [
        Binding("q", "quit", "Quit", tooltip="Quit orderdash"),
        Binding("question_mark", "help", "Help", tooltip="Keys and what the screen shows"),
        # shown while a receipt failed to print, on every screen (the counter goes on meanwhile)
        Binding("T", "retry_receipt", "Retry receipt", tooltip="Print the failed receipts again"),
    ]

    resolutions: Resolutions  # the resolve dialog, the counter's acceptance (made by make_app)
    receipts: Receipts  # `P`, `T` and `receipt_auto` (tui/receipts.py, made by make_app)

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
        #: Every change to what is watched (core/watching/session.py).
        self.session = session = parts.session
        #: The customer display's channel (nothing is written until something is shown).
        self.publisher = session.publisher
        self.client = parts.client
        self.state = state = parts.state
        self.watcher = parts.watcher
        self.desk = Desk(self, state)
        #: The bell and the alerts' toasts (tui/alarms.py).
        self.alarms = Alarms(self, state, settings)
        self._reporter = parts.reporter
        #: `orderdash pos`: the point of sale is all there is; Esc asks to quit.
        self.pos_only = pos_only
        #: Help, the alerts log, the budgets, the token editor (tui/overlays.py).
        self.overlays = Overlays(
            self, session, load=lambda token: self.dashboard.load(token), readonly=settings.readonly
        )
        #: The point of sale and the customer display (`p`, `x`, `X`).
        self.counter = Counter(self, parts, settings, show=super().notify, standalone=pos_only)
        #: A charge (`n`): its order watched, opened and shown to the customer (tui/charges.py);
        #: account mode (the access token): the watch list fills itself.
        self.account = AccountSwitch(
            parts,
            settings,
            ui=self,
            dashboard=lambda: self.dashboard,
            ledger=lambda: self.books.writer,
            to_customer=self.counter.point_of_sale,
            enabled=account,
        )
        #: The ledger: orders read, charges made, earlier charges resolved (`tui/books.py`).
        self.books = books_for(self, settings, parts, self.alarms.notices)
        self.attention_keeper = self.books.attention
        #: The start-up until its one first paint, with the order it opens (tui/first_paint.py);
        #: then the ledger writes the orders read down, and the account's history is read.
        self.first_paint = FirstPaint(
            self,
            parts,
            tokens,
            dashboard=lambda: self.dashboard,
            point_of_sale=self.action_point_of_sale if open_pos or pos_only else None,
            standalone=pos_only,
            after=(self.books.start, self.account.start),
        )
        self._file = WatchListSync(self, session, started=self.first_paint.list_known)
        session.attach(self, self._file)

    async def on_load(self) -> None:
        await self.first_paint.prefetch()  # before any screen composes

    def get_default_screen(self) -> DashboardScreen:
        # The dashboard is the first screen: Textual's default, an empty screen under it, was
        # mounted, styled, resumed and styled again for nothing. Made after `on_load`.
        dashboard = DashboardScreen(
            self.session, first_paint_held=self.first_paint.held, readonly=self.settings.readonly
        )
        self._reporter.target = dashboard
        self._file.start(mounted=False)
        return dashboard

    async def on_mount(self) -> None:
        self.first_paint.hold()
        await self.dashboard.composed.wait()  # what follows uses its widgets
        self.run_worker(self.watcher.run(), group="watch", exclusive=True, exit_on_error=False)
        self.set_interval(1.0, self._tick)
        self.screen_change_signal.subscribe(self, self.counter.screen_changed, immediate=True)
        self._file.start(mounted=True)
        self.first_paint.mounted()

    def on_watch_status_changed(self, message: WatchStatusChanged) -> None:
        self.first_paint.read(message.token)  # (after the dashboard handled it)

    async def on_unmount(self) -> None:
        self.first_paint.close()
        self._file.flush_at_exit()
        self.session.end_display()
        await self.books.aclose()
        await self.client.aclose()

    def _tick(self) -> None:
        self.tick += 1
        self._file.tick()
        self.books.tick()  # the attention count, classified off the loop
        self.session.publish_display()

    # -- what the session tells (core/watching/session.py: SessionEvents) ----------------------

    def announce(self, alert: Alert) -> None:
        self.alarms.announce(alert)

    def roster_changed(self) -> None:
        self.roster += 1

    def order_closed(self) -> None:
        self.dashboard.close_order()

    def display_changed(self, text: str) -> None:
        self.customer_display = text

    @property
    def dashboard(self) -> DashboardScreen:
        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen):
                return screen
        raise LookupError("the dashboard is not on the screen stack")

    # -- the customer's screen: no other order's news, only its own bell, no operator keys -----

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry_receipt":
            return bool(self.receipts.failed)
        facing, readonly = self.counter.customer_facing, self.settings.readonly
        return app_action_on(action, pos_only=self.pos_only, readonly=readonly, facing=facing)

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
        is held for the operator (`Counter.notices`)."""
        self.counter.notices().tell(message, title, severity, timeout, markup)

    async def action_quit(self) -> None:
        """q, Ctrl+Q: quit, except while a charge's order is being made (the charge dialog's
        `quit_held` says why, in one line): its outcome is shown first, naming the order."""
        from orderdash.tui.notices import quit_held  # (nothing of it before the first paint)

        if not quit_held(self):
            await super().action_quit()

    def action_help(self) -> None:
        self.overlays.help()

    def bell(self) -> None:  # one switch, the state's (its alerts: tui/alarms.py)
        if self.state.bell:
            super().bell()

    def action_toggle_bell(self) -> None:
        self.alarms.toggle_bell()

    def action_new_charge(self) -> None:
        self.account.charges.new_charge()

    # -- the watch list ---------------------------------------------------------------------------

    def action_budgets(self) -> None:
        self.overlays.budgets()

    def action_alerts(self) -> None:
        self.overlays.alerts()

    def action_attention(self) -> None:
        self.overlays.attention(self.attention_keeper)

    def action_close_day(self) -> None:
        self.books.close_day(self.screen, self.push_screen)  # the books: tui/books.py

    def action_export_list(self) -> None:
        self.books.export_list(self.screen)

    def action_resolve_order(self, token: str = "") -> None:
        self.resolutions.open(token or self.state.token)

    def on_resolve_requested(self, message: ResolveRequested) -> None:
        self.resolutions.open(message.token)  # from the attention view

    def action_retry_receipt(self) -> None:
        self.receipts.retry()

    def action_undo_remove(self) -> None:
        self.session.undo()

    def action_add_tokens(self) -> None:
        self.overlays.add_tokens()

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
        yield from system_commands(self, screen)
