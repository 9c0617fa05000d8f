"""Account mode: with the access token, the dashboard's watch list fills itself with the account's
open orders (a charge at the counter, `n`, is `tui/charges.py`'s).

The account's history is read in a worker after the first paint (`AccountFeed`, every
`account_interval`, through the private budget); its open orders join the watch list, not the
watch list file. A later order joins with an alert. A refused log-in is one banner line (the
client sends no log-in again). The feed's reports reach this module through the app's message queue.
Those messages are this module's, not `messages.py`'s: a start without account mode does not
define them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from textual.message import Message

from orderdash.core.domain.text import fiat_text
from orderdash.core.model.errors import AuthError, OrderdashError
from orderdash.core.polling.account import AccountFeed, AccountOrder
from orderdash.core.runtime.bulk import bulk_objects, let_go
from orderdash.core.safetext import clean
from orderdash.core.watching.watchlist_file import MAX_TOKENS
from orderdash.tui.ui import Tells, Works

if TYPE_CHECKING:
    from orderdash.core.service.client import OrderClient
    from orderdash.core.settings.model import Settings
    from orderdash.core.watching.session import WatchSession
    from orderdash.tui.host import Dashboard

#: How long a notice that the list is incomplete stays up.
NOTICE_SECONDS = 20
#: Orders of the first read looked at in one turn of the event loop (is it open?).
LOOKED_AT_A_TIME = 5_000
#: Orders of the first read joining the watch list in one turn of the event loop (each is
#: scheduled, and the list's rebuild asked for: its rows are added in steps of their own).
JOINED_AT_A_TIME = 250


class AccountUi(Tells, Works, Protocol):
    """Textual's App as account mode reads in workers, hears the feed through the message queue
    (while the App runs), rings and tells."""

    @property
    def is_running(self) -> bool: ...

    def bell(self) -> None: ...


class AccountBaseline(Message):
    """The account's first history read: the orders there at start."""

    def __init__(self, orders: list[AccountOrder]) -> None:
        self.orders = orders
        super().__init__()


class AccountNewOrder(Message):
    """An order the history lists for the first time since start."""

    def __init__(self, order: AccountOrder) -> None:
        self.order = order
        super().__init__()


class AccountFailed(Message):
    """Reading the account's history failed (once per failure streak)."""

    def __init__(self, error: OrderdashError) -> None:
        self.error = error
        super().__init__()


class AccountWarning(Message):
    """A history read was incomplete (the page bound, items left out): once per change."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__()


class AccountReporter:
    """Turns the account feed's callbacks into reports to account mode, through the app's
    message queue (in order with its other messages)."""

    def __init__(self, ui: AccountUi, mode: AccountMode) -> None:
        self._ui, self._mode = ui, mode

    def _report(self, handle: Callable[..., None], *args: object) -> None:
        self._ui.call_later(self._deliver, handle, *args)

    def _deliver(self, handle: Callable[..., None], *args: object) -> None:
        # A history read that ends while the app shuts down reports to screens already taken
        # apart (their widgets gone): not running, the report is dropped.
        if self._ui.is_running:
            handle(*args)

    def on_baseline(self, orders: list[AccountOrder]) -> None:
        # a copy: the feed empties its list once this returns
        self._report(self._mode.baseline, AccountBaseline(list(orders)))

    def on_new_order(self, order: AccountOrder) -> None:
        self._report(self._mode.new_order, AccountNewOrder(order))

    def on_account_failure(self, error: OrderdashError) -> None:
        self._report(self._mode.failed, AccountFailed(error))

    def on_account_recovered(self) -> None:
        self._report(self._mode.recovered)

    def on_account_warning(self, text: str) -> None:
        self._report(self._mode.warned, AccountWarning(text))


class AccountMode:
    def __init__(
        self,
        session: WatchSession,
        client: OrderClient,
        settings: Settings,
        *,
        ui: AccountUi,
        dashboard: Callable[[], Dashboard],
        enabled: bool,
    ) -> None:
        """The account's orders join the `session`'s watch list, read through `client` within
        the watcher's budget; `dashboard` is told of them (it raises LookupError while the App
        is taken down); `enabled`: read the account's history (account mode)."""
        self._session, self._state, self._client = session, session.state, client
        self._ui, self._dashboard = ui, dashboard
        self._feed = (
            AccountFeed(
                client,
                AccountReporter(ui, self),
                interval=settings.account_interval,
                budget=session.watcher,
                max_pages=settings.history_max_pages,
            )
            if enabled
            else None
        )
        self._problem: str | None = None
        client.on_login_refused = self.login_refused

    def start(self) -> None:
        """After the first paint: the history is read in a worker."""
        if self._feed is not None:
            self._ui.run_worker(
                self._feed.run(), group="account", exclusive=True, exit_on_error=False
            )

    # -- the feed's reports --------------------------------------------------------------------

    def baseline(self, message: AccountBaseline) -> None:
        """The open orders of the first read join the watch list, in a worker a few hundred at
        a time (a page may list 50,000: joined at once, they held the screen a second)."""
        self._ui.run_worker(
            self._join(message.orders), group="account-baseline", exit_on_error=False
        )

    async def _join(self, orders: list[AccountOrder]) -> None:
        state = self._state
        # orders already final at start stay out
        tokens: list[str] = []
        for start in range(0, len(orders), LOOKED_AT_A_TIME):
            tokens += [
                order.item.token for order in orders[start : start + LOOKED_AT_A_TIME] if order.open
            ]
            await asyncio.sleep(0)
        let_go(orders)  # tens of thousands, freed at once, would freeze the screen
        new = [token for token in dict.fromkeys(tokens) if token not in state.entries]
        room = max(MAX_TOKENS - len(state.entries), 0)
        if len(new) > room:
            # said here, in the account's words: the watch list's own notice asks to remove some
            self._ui.notify(
                f"{len(new) - room:,} orders not shown: the list holds at most {MAX_TOKENS:,}",
                title="Account",
                severity="warning",
                timeout=NOTICE_SECONDS,
                markup=False,
            )
        new = new[:room]
        for start in range(0, len(new), JOINED_AT_A_TIME):
            if start:
                await asyncio.sleep(0)  # one turn of the loop between two
            with bulk_objects():  # (see tui/steps.py: the collector, for objects that stay)
                state.from_account.update(
                    self._session.watch(new[start : start + JOINED_AT_A_TIME], save=False)
                )
        try:
            self._dashboard().orders_arrived()
        except LookupError:  # the app is being taken down
            pass

    def new_order(self, message: AccountNewOrder) -> None:
        state = self._state
        item = message.order.item
        if item.token in state.entries:
            return  # made here (a charge) or added by hand: nothing new to tell
        state.from_account.update(self._session.watch([item.token], save=False))
        alert = state.new_order(item.token, fiat_text(item.amount, item.currency.abbreviation))
        try:
            self._dashboard().entry_changed(item.token)
        except LookupError:  # the app is being taken down
            return
        if not state.pos_up:  # (no bell for another order while the customer's screen is up)
            self._ui.bell()
        self._ui.notify(alert.text, title=clean(item.token, limit=40), markup=False, timeout=8)

    def failed(self, message: AccountFailed) -> None:
        if self._client.login_refused is not None:
            return  # the banner says it already
        error = message.error
        if isinstance(error, AuthError):
            self._show_problem(f"The account's orders cannot be read: {error.message}")
            return
        self._ui.notify(
            f"The account's order history cannot be read: {error.message}",
            title="Account",
            severity="warning",
            markup=False,
        )

    def recovered(self) -> None:
        self._ui.notify("The account's order history reads again.", title="Account", markup=False)

    def warned(self, message: AccountWarning) -> None:
        """An incomplete history read: one notice (the feed reports it again only if it
        changes)."""
        self._ui.notify(
            f"The account's order history: {message.text}",
            title="Account",
            severity="warning",
            timeout=NOTICE_SECONDS,
            markup=False,
        )

    def login_refused(self, error: AuthError) -> None:
        """The service refused the access token (the client sends no log-in again)."""
        self._show_problem(f"Log-in refused: {error.message}")

    def _show_problem(self, text: str) -> None:
        """One banner line, once: never a notice a minute for the same refusal."""
        if self._problem == text:
            return
        self._problem = text
        try:
            self._dashboard().account_problem(f"{text}; then restart orderdash")
        except LookupError:  # the app is being taken down
            pass
