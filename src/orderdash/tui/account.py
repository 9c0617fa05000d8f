"""Account mode: with the access token, the dashboard's watch list fills itself, and `n` makes a
charge at the counter.

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
from typing import TYPE_CHECKING

from textual.message import Message

from orderdash.core.domain.text import fiat_text
from orderdash.core.model.errors import AuthError, OrderdashError
from orderdash.core.polling.account import AccountFeed, AccountOrder
from orderdash.core.polling.watcher import Change
from orderdash.core.runtime.bulk import bulk_objects, let_go
from orderdash.core.safetext import clean
from orderdash.core.watching.watchlist_file import MAX_TOKENS

if TYPE_CHECKING:
    from orderdash.tui.host import DashboardHost
    from orderdash.tui.screens.charge import ChargeMade

#: How long a notice that the list is incomplete stays up.
NOTICE_SECONDS = 20
#: Orders of the first read looked at in one turn of the event loop (is it open?).
LOOKED_AT_A_TIME = 5_000
#: Orders of the first read joining the watch list in one turn of the event loop (each is
#: scheduled, and the list's rebuild asked for: its rows are added in steps of their own).
JOINED_AT_A_TIME = 250

NEEDS_CREDENTIALS = (
    "A new charge needs the access token and the customer id (access_token_file, "
    "customer_id): both are in the service's cabinet."
)


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

    def __init__(self, app: DashboardHost, mode: AccountMode) -> None:
        self._app, self._mode = app, mode

    def _report(self, handle: Callable[..., None], *args: object) -> None:
        self._app.call_later(self._deliver, handle, *args)

    def _deliver(self, handle: Callable[..., None], *args: object) -> None:
        # A history read that ends while the app shuts down reports to screens already taken
        # apart (their widgets gone): not running, the report is dropped.
        if self._app.is_running:
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
    def __init__(self, app: DashboardHost, *, enabled: bool) -> None:
        """`app`: the OrderDashApp (its state, watcher, client, dashboard and notices);
        `enabled`: read the account's history (account mode)."""
        self._app = app
        self._feed = (
            AccountFeed(
                app.client,
                AccountReporter(app, self),
                interval=app.settings.account_interval,
                budget=app.watcher,
                max_pages=app.settings.history_max_pages,
            )
            if enabled
            else None
        )
        self._problem: str | None = None
        #: The till's currency: the `currency` setting, else what the first order a charge
        #: made this session said (never guessed from other orders: the access token decides).
        self._currency = app.settings.currency or ""
        app.client.on_login_refused = self.login_refused

    def start(self) -> None:
        """After the first paint: the history is read in a worker."""
        if self._feed is not None:
            self._app.run_worker(
                self._feed.run(), group="account", exclusive=True, exit_on_error=False
            )

    # -- the feed's reports --------------------------------------------------------------------

    def baseline(self, message: AccountBaseline) -> None:
        """The open orders of the first read join the watch list, in a worker a few hundred at
        a time (a page may list 50,000: joined at once, they held the screen a second)."""
        self._app.run_worker(
            self._join(message.orders), group="account-baseline", exit_on_error=False
        )

    async def _join(self, orders: list[AccountOrder]) -> None:
        app, state = self._app, self._app.state
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
            app.notify(
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
                    app.session.watch(new[start : start + JOINED_AT_A_TIME], save=False)
                )
        try:
            app.dashboard.orders_arrived()
        except LookupError:  # the app is being taken down
            pass

    def new_order(self, message: AccountNewOrder) -> None:
        app, state = self._app, self._app.state
        item = message.order.item
        if item.token in state.entries:
            return  # made here (a charge) or added by hand: nothing new to tell
        state.from_account.update(app.session.watch([item.token], save=False))
        alert = state.new_order(item.token, fiat_text(item.amount, item.currency.abbreviation))
        try:
            app.dashboard.entry_changed(item.token)
        except LookupError:  # the app is being taken down
            return
        if not app.customer_facing:
            app.bell()
        app.notify(alert.text, title=clean(item.token, limit=40), markup=False, timeout=8)

    def failed(self, message: AccountFailed) -> None:
        if self._app.client.login_refused is not None:
            return  # the banner says it already
        error = message.error
        if isinstance(error, AuthError):
            self._show_problem(f"The account's orders cannot be read: {error.message}")
            return
        self._app.notify(
            f"The account's order history cannot be read: {error.message}",
            title="Account",
            severity="warning",
            markup=False,
        )

    def recovered(self) -> None:
        self._app.notify("The account's order history reads again.", title="Account", markup=False)

    def warned(self, message: AccountWarning) -> None:
        """An incomplete history read: one notice (the feed reports it again only if it
        changes)."""
        self._app.notify(
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
            self._app.dashboard.account_problem(f"{text}; then restart orderdash")
        except LookupError:  # the app is being taken down
            pass

    def _learned_currency(self, currency: str) -> None:
        """The first order a charge made told the account's currency: kept for the session."""
        self._currency = currency

    # -- a charge at the counter ---------------------------------------------------------------

    def new_charge(self) -> None:
        """New charge (`n`): an amount, confirmed, made into an order, a coin; then the order
        on the POS screen (it stays up if it is up)."""
        app = self._app
        customer_id = app.settings.customer_id
        if app.settings.access_token is None or not customer_id:
            app.notify(NEEDS_CREDENTIALS, title="New charge", severity="warning", markup=False)
            return
        # imported when first opened, like the other rare screens
        from orderdash.tui.screens.charge import ChargeScreen

        if isinstance(app.screen, ChargeScreen):
            return
        screen = ChargeScreen(
            app.client,
            str(customer_id),
            self._currency,
            private_request=app.watcher.spent_private_request,
            on_currency=self._learned_currency,
            ledger=app.books.writer,
        )
        app.push_screen(screen, callback=self._charge_made)

    def _charge_made(self, made: ChargeMade | None) -> None:
        """None: the person left before an order was made."""
        if made is None:
            return
        app, state = self._app, self._app.state
        if made.payment_url:
            state.set_payment_url(made.token, made.payment_url)
        app.session.watch([made.token], save=True)
        if made.fetched is not None and made.token in state.entries:
            # the order as the charge last read it: on screen at once, not at the next poll (a
            # good answer like any other: the order is kept in the saved list)
            app.session.fetched(made.token, made.fetched, Change(), looking=True)
        app.dashboard.load(made.token)
        app.action_point_of_sale()
