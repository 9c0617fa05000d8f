"""The Textual application and the one factory that builds it (CLI, tests, screenshots).

The app owns the state (`DashboardState`, plain Python), the watcher and the client, all built
by `make_app`. Screens hold references to them. What the user does to the state (the bell,
the watch list, copying, the point-of-sale screen) is an app action here, which the keys and
the command palette both call; the clock tick and the order on screen go down as reactives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.screen import Screen

from orderdash.core.customer.catalogue import resolve_language
from orderdash.core.customer.handover import BackToWelcome, may_be_paying
from orderdash.core.domain.display import amount_text, duration_text
from orderdash.core.domain.payment import Phase
from orderdash.core.polling.watcher import OrderWatcher
from orderdash.core.runtime import startup
from orderdash.core.runtime.config import Settings
from orderdash.core.safetext import clean, shorten_middle
from orderdash.core.service.client import OrderClient
from orderdash.core.service.models import Transaction
from orderdash.core.watching.state import DashboardState, Shown
from orderdash.core.watching.store import (
    WatchListFile,
    default_path,
    first_token,
    parse_tokens,
)
from orderdash.tui import compat
from orderdash.tui.compat.held_render import HeldRenderScreen
from orderdash.tui.messages import (
    WatchListRead,
    WatchListSaved,
    WatchReporter,
    WatchStatusChanged,
)
from orderdash.tui.screens.dashboard import DashboardScreen
from orderdash.tui.watch_list_file import WatchListSync

if TYPE_CHECKING:
    from orderdash.core.customer.channel import Publisher
    from orderdash.core.watching.alert import Alert
    from orderdash.tui.account import (
        AccountBaseline,
        AccountFailed,
        AccountMode,
        AccountNewOrder,
        AccountRecovered,
        AccountWarning,
    )
    from orderdash.tui.notices import HeldNotices, Notice

log = logging.getLogger(__name__)

NO_BEARER = (
    "Rate refresh is off: it needs a bearer token (--bearer-token-file) or the access token "
    "to log in with (access_token_file). The order is still polled."
)
#: App actions that are the operator's alone: off while a customer-facing screen is up.
OPERATOR_ACTIONS = frozenset({"quit", "help", "command_palette"})
#: Off for good in a standalone point of sale (`orderdash pos`): the other orders, charges,
#: copies and the customer display are the operator's, and no operator is at that screen.
POS_ONLY_OFF = OPERATOR_ACTIONS | {
    "new_charge", "budgets", "alerts", "undo_remove", "add_tokens", "point_of_sale",
    "show_on_display", "clear_display", "copy_address", "copy_amount", "copy_token",
    "copy_hash", "toggle_bell",
}  # fmt: skip
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
        client: OrderClient,
        state: DashboardState,
        watcher: OrderWatcher,
        reporter: WatchReporter,
        *,
        tokens: Sequence[str] = (),
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        open_pos: bool = False,
        pos_only: bool = False,
        notices: Sequence[str] = (),
        publisher: Publisher | None = None,
        language: str = "en",
        account: bool = False,
    ) -> None:
        super().__init__()
        self.settings = settings
        #: The customer's language (the `language` setting resolved).
        self.language = language
        #: The customer display's channel (nothing is written until something is shown).
        self.publisher = publisher
        self._display_problem: str | None = None
        self._back_to_welcome = BackToWelcome(settings.display_welcome_after, monotonic)
        self.client = client
        self.state = state
        self.watcher = watcher
        self._reporter = reporter
        self._tokens = list(tokens)
        self._clock = clock
        self._monotonic = monotonic
        self._open_pos = open_pos or pos_only
        #: `orderdash pos`: the point of sale is all there is; Esc asks to quit.
        self.pos_only = pos_only
        self._notices = list(notices)
        self._pos: Screen[None] | None = None
        #: The order the POS screen was opened on (or a charge there turned it to).
        self._pos_token: str | None = None
        self._told_no_bearer = False
        #: Made with the first notice (`_held`): a start that tells nothing does without it.
        self._notices_held: HeldNotices | None = None
        self._file = WatchListSync(self, state, started=self._start, adopt=self._adopt)
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
        dashboard = DashboardScreen(
            self.state, self.watcher, first_paint_held=self._first is not None
        )
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
        self.watch_tokens(saved, save=False)
        self.watch_tokens(given.tokens, save=True)
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
        if self.publisher is not None:
            self.publisher.end()
        await self.client.aclose()

    def _tick(self) -> None:
        self.tick += 1
        self._file.tick()
        self.publish_display()

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

    # -- the bell: one switch, the state's -------------------------------------------------------

    def bell(self) -> None:
        if self.state.bell:
            super().bell()

    def announce(self, alert: Alert) -> None:
        """A payment or a status change: the bell and a toast (the log line is the state's).
        With the customer's screen up, only its own order rings (the toast is held). An alarm
        (outage, recovery, not found, a payment taken back) is an error toast that stays."""
        if self._pos is None or alert.token == self.state.token:
            self.bell()
        where = [part for part in (alert.company, clean(alert.token, limit=30)) if part]
        title = " \u00b7 ".join(where)
        if alert.alarm:
            title = f"\u26a0 {title}" if title else "\u26a0 Alarm"
            self.notify(alert.text, title=title, severity="error", markup=False, timeout=20)
            return
        self.notify(alert.text, title=title, markup=False, timeout=8)

    def action_toggle_bell(self) -> None:
        self.state.bell = not self.state.bell
        self.notify(f"Bell {'on' if self.state.bell else 'off'}.", timeout=2, markup=False)

    def tell_no_bearer(self) -> None:
        """Once: the order is polled, but its rate is not refreshed without the token."""
        if not self._told_no_bearer:
            self._told_no_bearer = True
            self.notify(NO_BEARER, title="No bearer token", severity="warning", markup=False)

    # -- the merchant's account (tui/account.py) --------------------------------------------------

    # A history read that ends while the app shuts down reports to screens already taken
    # apart (their widgets gone): not running, the report is dropped.

    def on_account_baseline(self, message: AccountBaseline) -> None:
        if self.is_running:
            self._account_mode().baseline(message)

    def on_account_new_order(self, message: AccountNewOrder) -> None:
        if self.is_running:
            self._account_mode().new_order(message)

    def on_account_failed(self, message: AccountFailed) -> None:
        if self.is_running:
            self._account_mode().failed(message)

    def on_account_recovered(self, _: AccountRecovered) -> None:
        if self.is_running:
            self._account_mode().recovered()

    def on_account_warning(self, message: AccountWarning) -> None:
        if self.is_running:
            self._account_mode().warned(message)

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

    def watch_tokens(self, tokens: Iterable[str], *, save: bool) -> list[str]:
        """Watch the tokens not watched yet, as many as the cap lets in; returns those. With
        `save` they join the saved list after their first good answer (`confirm_token`), or
        at once when the operator gives a token again that was dropped as not found."""
        new = [token for token in dict.fromkeys(tokens) if token not in self.state.entries]
        added = self.state.add(new[: self._file.room(len(new))])
        for token in added:
            self.watcher.add(token)
        if added:
            self.roster += 1
            if save:
                insisted = [token for token in added if token in self.state.refused]
                self.state.unsaved.update(t for t in added if t not in self.state.refused)
                self.state.refused.difference_update(insisted)
                if insisted:
                    self._file.save(added=insisted)
        return added

    def confirm_token(self, token: str) -> None:
        """A good answer for `token`: an order the service knows is kept in the saved list."""
        if self.state.confirm(token):
            self._file.save(added=[token])

    def insist(self, token: str) -> None:
        """The operator keeps a token the service does not know (Enter again on it)."""
        self.state.not_found.discard(token)
        if token in self.state.unsaved:
            self.state.unsaved.discard(token)
            self._file.save(added=[token])
        self.notify(
            f"Kept on the watch list though the service does not know it (yet): "
            f"{clean(token, limit=40)}",
            timeout=5,
            markup=False,
        )

    def token_not_found(self, token: str) -> None:
        """The service does not know an unsaved token: it is not saved; one not on screen (added
        with `a`) is not watched any longer either, and the operator is told."""
        if token not in self.state.unsaved:
            return
        self.state.not_found.add(token)
        if token != self.state.token:
            self.drop_unknown(token)

    def drop_unknown(self, token: str | None) -> None:
        """Stop watching `token` if it is an unsaved token the service does not know."""
        if token is None or not self.state.drop_unknown(token):
            return
        self.watcher.remove(token)
        self.roster += 1
        self.notify(
            f"Not found, not kept on the watch list: {clean(token, limit=40)} "
            "(give it again to keep it anyway)",
            severity="warning",
            timeout=6,
            markup=False,
        )

    def unwatch(self, token: str | None) -> None:
        if token is None or not self.state.remove(token):
            self.notify("No order selected.", severity="warning", markup=False)
            return
        self.watcher.remove(token)
        self.roster += 1
        self._file.save(removed=[token])
        if token == self.state.token:
            self.dashboard.close_order()
        text = f"Removed {clean(token, limit=40)} \u00b7 u to undo"
        self.notify(text, timeout=6, markup=False)

    def action_undo_remove(self) -> None:
        if not self.state.removed:
            self.notify("Nothing to undo.", markup=False)
            return
        entry = self.state.undo() if self._file.room(1) else None
        if entry is None:
            return
        self.watcher.add(entry.token)
        if entry.token == self.state.token:
            self.watcher.focus({entry.token})
        self.roster += 1
        if entry.fetched is not None:
            if entry.token not in self.state.from_account:  # the history brings those back
                self._file.save(added=[entry.token])
        else:  # never answered: kept after its first good answer, like any new token
            self.state.unsaved.add(entry.token)
        self.notify(f"Back on the list: {clean(entry.token, limit=40)}", timeout=3, markup=False)

    def _adopt(self, gone: list[str], new: list[str]) -> None:
        """Another dashboard changed the file: its removals and additions are taken in."""
        for token in gone:
            self.state.entries.pop(token, None)
            self.watcher.remove(token)
        if gone:
            self.roster += 1
        self.watch_tokens(new, save=False)

    def on_watch_list_read(self, message: WatchListRead) -> None:
        self._file.read_done(message)

    def on_watch_list_saved(self, message: WatchListSaved) -> None:
        self._file.save_done(message)

    def action_add_tokens(self) -> None:
        # imported when first opened: the editor is not needed before
        from orderdash.tui.screens.add_tokens import AddTokensScreen

        self.push_screen(AddTokensScreen(), callback=self.add_tokens_from)

    def add_tokens_from(self, text: str | None) -> None:
        """Tokens pasted or typed in the add dialog (one a line, or separated by spaces or
        commas) join the list; one notice says how many and what was refused."""
        if not text:
            return
        parsed = parse_tokens(text, known=self.state.entries)
        added = self.watch_tokens(parsed.tokens, save=True)
        parts = [f"Added {len(added)}"]
        if parsed.duplicates:
            parts.append(f"{len(parsed.duplicates)} already watched")
        if parsed.invalid:
            raw, reason = parsed.invalid[0]
            more = f" (and {len(parsed.invalid) - 1} more)" if len(parsed.invalid) > 1 else ""
            parts.append(f"{len(parsed.invalid)} refused: {clean(raw, limit=30)}: {reason}{more}")
        severity = "warning" if parsed.invalid else "information"
        self.notify("; ".join(parts), severity=severity, markup=False)

    # -- the order on screen ---------------------------------------------------------------------

    def action_refresh(self) -> None:
        if self.state.token is not None:
            self.watcher.refresh_now(self.state.token)
            self.notify("Refreshing\u2026", timeout=1.5, markup=False)

    def action_point_of_sale(self) -> None:
        """The POS screen on the order on screen, and the customer display with it: after the
        operator's yes when the order is about to expire, and when the display holds another
        order a customer may be paying. With the POS already up (a charge made from it turned
        it to the new order) the display turns with it if it showed the POS's order (one
        customer at the counter), else as for `x`."""
        token = self.state.token
        if self._pos is not None:
            before, self._pos_token = self._pos_token, token
            if token is None:
                return
            if self.state.customer_token == before:
                self._show_on_display(token)
            else:
                self._ask_to_replace_display(token, lambda yes: self._show_if(yes, token))
            return
        if token is None:
            self._open_point_of_sale()
            return

        def answered(replace: bool) -> None:
            if replace:
                self._show_on_display(token)
            self._open_point_of_sale()

        self._unless_expiring(
            token, "Point of sale", lambda: self._ask_to_replace_display(token, answered)
        )

    def _unless_expiring(self, token: str | None, title: str, then: Callable[[], None]) -> None:
        """`then`, at once, or after the operator says yes when `token`'s order has less than
        `pos_expiry_margin` left: a customer who scans in its last seconds pays into an order
        that closes before the payment arrives."""
        question = self._expiring_question(token)
        if question is None:
            then()
            return
        from orderdash.tui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        confirm = ConfirmScreen(f"{title}: the order is about to expire", question)
        self.push_screen(confirm, callback=answered)

    def _expiring_question(self, token: str | None) -> str | None:
        """What to ask before an order near its expiry goes before a customer, or None."""
        entry = self.state.entries.get(token) if token is not None else None
        payment = entry.payment if entry is not None else None
        if payment is None or not payment.takes_payment or payment.expiry is None:
            return None
        left = payment.expiry.remaining(self._clock())
        if left is None or left >= self.settings.pos_expiry_margin:
            return None
        name = clean(token or "", limit=40)
        when = "has expired" if left <= 0 else f"expires in {duration_text(left)}"
        return (
            f"{name} {when}: a payment sent now may arrive after the order closed. "
            "Show it to the customer anyway? (If not, `n` makes a new charge.)"
        )

    def _open_point_of_sale(self) -> None:
        if self._pos is not None:
            return
        # imported when first opened: the big digits and the screen are not needed before
        from orderdash.tui.screens.pos import PosScreen

        self._pos_token = self.state.token
        self._pos = PosScreen(
            self.state,
            primary=self.settings.pos_primary,
            language=self.language,
            clock=self._clock,
            monotonic=self._monotonic,
            standalone=self.pos_only,
        )
        self.push_screen(self._pos, callback=self._pos_closed)
        self.state.pos_up = True
        self.watcher.point_of_sale(True)
        self._held().customer_screen_up()
        # after the toasts already posted (Textual adds a notification by a message)
        self.call_later(self.clear_notifications)

    def _pos_closed(self, _: None) -> None:
        self._pos = None
        self.state.pos_up = False
        self.watcher.point_of_sale(False)
        self._held().customer_screen_down()

    # -- the customer display (`orderdash display`, another process, on the local channel) ---

    def action_show_on_display(self) -> None:
        """The order on screen goes on the customer display; the operator stays here (asked
        first when the order is about to expire, or the display holds another order a customer
        may be paying)."""
        token = self.state.token
        if token is None:
            self.notify(
                "No order to show on the customer display.", severity="warning", markup=False
            )
            return
        if self.publisher is None:
            text = "The customer display is off: no usable runtime directory (see XDG_RUNTIME_DIR)."
            self.notify(text, severity="warning", markup=False)
            return

        def answered(replace: bool) -> None:
            if replace:
                self._show_on_display(token)
                text = f"On the customer display: {clean(token, limit=40)}"
                self.notify(text, timeout=3, markup=False)

        self._unless_expiring(
            token, "Customer display", lambda: self._ask_to_replace_display(token, answered)
        )

    def _ask_to_replace_display(self, token: str, then: Callable[[bool], None]) -> None:
        """`then(True)` at once when the customer display is free for `token`; while it shows
        another order a customer may be scanning or paying, `then(the operator's answer)`."""
        showing = self.state.customer_token
        face = self.state.customer_face()
        if self.publisher is None or showing is None or showing == token or not may_be_paying(face):
            then(True)
            return
        from orderdash.tui.screens.confirm import ConfirmScreen

        assert face is not None  # (may_be_paying)
        named = f"order {face.order_id}" if face.order_id else shorten_middle(clean(showing), 17)
        if face.company:
            named += f" ({face.company})"
        question = (
            f"The customer display shows {named}, still to be paid: a customer may be "
            f"scanning it. Replace it with {shorten_middle(clean(token), 17)}?"
        )
        self.push_screen(
            ConfirmScreen("Replace the customer display?", question),
            callback=lambda yes: then(bool(yes)),
        )

    def _show_if(self, yes: bool, token: str) -> None:
        if yes:
            self._show_on_display(token)

    def _show_on_display(self, token: str) -> None:
        if self.publisher is None:
            return
        if token != self.state.customer_token:
            self._back_to_welcome.reset()
        self.state.customer_token = token
        self.watcher.customer_display({token})
        # not a repeat: `customer_display` keeps the focused set as it was, which may still
        # hold the order the display showed before (the dashboard focuses `closely_watched`)
        self.watcher.focus(self.state.closely_watched)
        self.publish_display()

    def action_clear_display(self) -> None:
        """The customer display goes back to its welcome screen."""
        if self.publisher is None:
            return
        self._clear_display()
        self.notify("Customer display cleared.", timeout=3, markup=False)

    def _clear_display(self) -> None:
        assert self.publisher is not None
        self.state.customer_token = None
        self._back_to_welcome.reset()
        self.publisher.end()
        self.watcher.customer_display(())
        self.watcher.focus(self.state.closely_watched)
        self._display_changed()

    def publish_display(self) -> None:
        """Say again what the customer display shows (each tick: the heartbeat, and after an
        answer for its order); a finished order gives way to the welcome screen in time."""
        if self.publisher is None or self.state.customer_token is None:
            return
        face = self.state.customer_face()
        if self._back_to_welcome.due(face):
            self._clear_display()
            return
        problem = self.publisher.publish(face)
        if problem != self._display_problem:
            self._display_problem = problem
            if problem:
                self.notify(problem, severity="error", markup=False)
        self._display_changed()

    def _display_changed(self) -> None:
        """The status line says what the customer display shows."""
        token = self.state.customer_token
        entry = self.state.entries.get(token) if token is not None else None
        if token is None:
            text = ""
        elif self._display_problem:
            text = "customer display: not updated"
        else:
            phase = entry.payment.phase.value if entry is not None and entry.payment else "…"
            text = f"customer display: {shorten_middle(clean(token), 17)} \u00b7 {phase}"
        try:
            self.dashboard.customer_display = text
        except LookupError:  # the app is being taken down
            pass

    def action_copy_address(self) -> None:
        self.copy_address(self.state.token)

    def action_copy_amount(self) -> None:
        self.copy_amount(self.state.token)

    def copy_address(self, token: str | None) -> None:
        """Copy the order's payment address; for a closed order (paid, expired, ...) only after
        the operator says yes: a payment to it now may be lost or pay twice."""
        entry = self.state.entries.get(token) if token is not None else None
        order = entry.order if entry is not None else None
        if order is None or not order.address:
            self.notify("No address to copy yet.", severity="warning", markup=False)
            return
        address, payment = order.address, entry.payment if entry is not None else None
        if payment is not None and payment.settled:  # nothing may be paid to it any more
            from orderdash.tui.screens.confirm import ConfirmScreen

            question = (
                f"{clean(token or '', limit=40)} is {payment.phase.value}: nothing more is to "
                "be paid to this address. Copy it anyway?"
            )

            def answered(yes: bool | None) -> None:
                if yes:
                    self._copy(address, "address", shown=address)

            self.push_screen(ConfirmScreen("Copy the address?", question), callback=answered)
            return
        self._copy(address, "address", shown=address)

    def copy_amount(self, token: str | None) -> None:
        """Copy what is due now, as a wallet can send it (rounded up to the coin's unit)."""
        entry = self.state.entries.get(token) if token is not None else None
        payment = entry.payment if entry is not None else None
        if payment is None or entry is None or entry.order is None:
            self.notify("No order loaded yet.", severity="warning", markup=False)
            return
        if payment.phase is Phase.COIN_NOT_CHOSEN:
            self.notify("No coin amount yet (coin not chosen).", severity="warning", markup=False)
            return
        if not payment.payable or payment.due_coin is None:
            self.notify(
                f"Nothing is due on {clean(entry.token, limit=40)}: {payment.headline}.",
                severity="warning",
                markup=False,
            )
            return
        send = payment.send
        figure = send.text if send is not None else amount_text(payment.due_coin)
        note = f" ({send.note})" if send is not None and send.rounded else ""
        self._copy(figure, "amount due", shown=f"{figure} {payment.coin}{note}")

    def action_copy_token(self) -> None:
        if self.state.token:
            self._copy(self.state.token, "order token", shown=self.state.token)

    def action_copy_hash(self) -> None:
        tx = self.dashboard.selected_transaction()
        if tx is not None:
            self._copy(tx.hash, "transaction hash", shown=tx.hash)

    def _copy(self, text: str, what: str, *, shown: str) -> bool:
        """Copy server text as is, or refuse: a control character would travel to wherever it is
        pasted (a wallet, a shell), and a lone surrogate cannot even be encoded for the
        terminal's clipboard sequence (it used to stop the app with UnicodeEncodeError).

        The terminal's sequence (OSC 52) is always sent; a system clipboard tool, when there is
        one, is run in a thread, and only then is the text called "copied"."""
        if not text.isprintable():
            self.notify(
                f"The {what} holds control characters or invalid text and cannot be copied: "
                f"{clean(text, limit=60)}",
                severity="error",
                markup=False,
            )
            return False
        self.copy_to_clipboard(text)
        label = f"{what[:1].upper()}{what[1:]}"
        shown = clean(shown, limit=100)
        from orderdash.tui import desktop  # the first copy looks for the desktop's tools

        tool = desktop.clipboard_tool()
        if tool is None:
            self._tell_copied(False, label, shown)
            return True

        def copy() -> None:
            done = desktop.copy_with(tool, text)
            self.call_from_thread(self._tell_copied, done, label, shown)

        self.run_worker(copy, group="clipboard", thread=True, exit_on_error=False)
        return True

    def _tell_copied(self, copied: bool, label: str, shown: str) -> None:
        if copied:
            self.notify(f"{label} copied: {shown}", timeout=3, markup=False)
        else:
            self.notify(
                f"{label} sent to the terminal's clipboard (OSC 52): {shown}. "
                "Some terminals and tmux drop it: paste to check.",
                timeout=5,
                markup=False,
            )

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        """Textual's way to the browser (a link a widget opens): Textual's own runs `webbrowser`
        on the event loop with this process's whole environment, secrets included. Here the
        browser is opened as `o` opens it (`desktop`): off the loop, http(s) links only, with
        the environment cleaned."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or not url.isprintable():
            return
        from orderdash.tui import desktop

        def open_it() -> None:
            desktop.open_in_browser(url)

        self.run_worker(open_it, group="browser", thread=True, exit_on_error=False)

    def open_transaction(self, tx: Transaction | None) -> None:
        """The transaction's explorer page in the browser: http(s) links only. With no browser
        to open it in, the link is shown as text to select or copy."""
        if tx is None:
            self.notify("Select a transaction first.", severity="warning", markup=False)
            return
        url = tx.hash_url or ""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or not url.isprintable():
            self.notify(
                f"Not opening a link that is not http(s): {clean(url, limit=80)}",
                severity="error",
                markup=False,
            )
            return
        from orderdash.tui import desktop  # (webbrowser)

        if not desktop.browser_available():
            self.show_link(url, "No browser to open it in here (no display, or over SSH).")
            return
        self.notify(f"Opening {clean(parts.netloc, limit=60)}\u2026", timeout=3, markup=False)

        def open_it() -> None:
            if not desktop.open_in_browser(url):
                self.call_from_thread(self.show_link, url, "No browser took the link.")

        self.run_worker(open_it, group="browser", thread=True, exit_on_error=False)

    def show_link(self, url: str, why: str) -> None:
        from orderdash.tui.screens.link import LinkScreen

        def closed(copy: bool | None) -> None:
            if copy:
                self._copy(url, "link", shown=url)

        self.push_screen(LinkScreen(url, why), callback=closed)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for title, help_text, action in (
            ("Refresh now", "Fetch the order and the rate now", self.action_refresh),
            ("Copy order token", "Copy the token of the order on screen", self.action_copy_token),
            ("Copy payment address", "Copy the address customers pay to", self.action_copy_address),
            (
                "Copy amount due",
                "Copy the amount due now, as a wallet can send it",
                self.action_copy_amount,
            ),
            (
                "Copy transaction hash",
                "Copy the full hash of the selected transaction",
                self.action_copy_hash,
            ),
            (
                "Point of sale",
                "Full-screen QR and amount for the customer",
                self.action_point_of_sale,
            ),
            (
                "Show on customer display",
                "Put the order on screen on the customer display (orderdash display)",
                self.action_show_on_display,
            ),
            (
                "Clear customer display",
                "Back to the welcome screen on the customer display",
                self.action_clear_display,
            ),
            (
                "New charge",
                "Make an order for an amount and show it to the customer",
                self.action_new_charge,
            ),
            ("Toggle bell", "Ring the terminal bell on payments, or not", self.action_toggle_bell),
        ):
            yield SystemCommand(title, help_text, action)
        if screen is not self._dashboard_or_none():
            return
        dashboard = self.dashboard
        # the keys a narrow footer leaves out, here too (all of them are on `?`)
        for title, help_text, action in (
            ("Add orders", "Add orders to the watch list (a)", self.action_add_tokens),
            ("Undo remove", "Put the last removed order back (u)", self.action_undo_remove),
            ("Go to the watch list", "Focus the list's rows (g)", dashboard.action_focus_list),
            (
                "Hide or show the list",
                "Hide or show the watch list (w)",
                dashboard.action_toggle_list,
            ),
            ("Filter the list", "Filter the watch list by text (f)", dashboard.action_filter),
            (
                "Show one state",
                "Show only orders in one state, cycles (t)",
                dashboard.action_state_filter,
            ),
            ("Sort the list", "Sort the watch list by the next column (s)", dashboard.action_sort),
            (
                "Open transaction",
                "The selected transaction's explorer page (o)",
                dashboard.action_open_transaction,
            ),
            (
                "Order details",
                "The service's field names and raw values (i)",
                dashboard.action_toggle_details,
            ),
            ("Alerts log", "Every alert, newest last (l)", self.action_alerts),
            ("Request budgets", "Use in the last minute and hour (b)", self.action_budgets),
        ):
            yield SystemCommand(title, help_text, action)

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
    if client is None:
        client = OrderClient.from_settings(settings, clock=clock)
    store = None
    if settings.persist_watchlist:
        path = settings.watchlist_file
        store = WatchListFile(Path(path).expanduser() if path else default_path())
    state = DashboardState(
        store=store,
        bell=settings.bell,
        qr_content=settings.qr_content,
        qr_uppercase=settings.qr_uppercase,
        refresh_interval=settings.refresh_interval,
        rates_enabled=client.has_credentials,
        clock=clock,
        monotonic=monotonic,
    )
    reporter = WatchReporter()
    watcher = OrderWatcher(
        client,
        reporter,
        poll_interval=settings.poll_interval,
        refresh_interval=settings.refresh_interval,
        concurrency=settings.concurrency,
        customer_poll_interval=settings.customer_poll_interval,
        **settings.budgets,
    )
    every = [token, *tokens] if token else list(tokens)
    from orderdash.core.customer.channel import Publisher, channel_path, channel_unusable

    language = resolve_language(settings.language, os.environ)
    publisher: Publisher | None = None
    try:
        publisher = Publisher(
            channel_path(settings.display_channel), language=language, clock=clock
        )
    except OSError as error:
        # a runtime directory another user made (or one not ours to write): the dashboard runs,
        # without the customer display
        log.warning("customer display off: %s", error)
        notices = [*notices, channel_unusable(error)]
    return OrderDashApp(
        settings,
        client,
        state,
        watcher,
        reporter,
        tokens=every,
        clock=clock,
        monotonic=monotonic,
        open_pos=open_pos,
        pos_only=pos_only,
        notices=notices,
        publisher=publisher,
        language=language,
        account=settings.access_token is not None if account is None else account,
    )
