"""A charge at the counter (`n`): the charge dialog (`screens/charge.py`: an amount, confirmed,
made into an order, a coin), then, in this one place, the order it made is watched (the
session), opened on the dashboard, and put before the customer on the point of sale
(`tui/counter.py`; it stays up if it is up, and the customer display turns with it).

The dialog is imported when first opened, like the other rare screens.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from orderdash.core.polling.watcher import Change

if TYPE_CHECKING:
    from orderdash.core.ledger.writer import BookWriter
    from orderdash.core.settings.model import Settings
    from orderdash.tui.parts import Parts
    from orderdash.tui.screens.charge import ChargeMade
    from orderdash.tui.ui import Asks, Tells

    class ChargeUi(Asks, Tells, Protocol):
        """Textual's App as the charges show the dialog and tell what a charge needs."""


NEEDS_CREDENTIALS = (
    "A new charge needs the access token and the customer id (access_token_file, "
    "customer_id): both are in the service's cabinet."
)


class Charges:
    def __init__(
        self,
        parts: Parts,
        settings: Settings,
        *,
        ui: ChargeUi,
        ledger: Callable[[], BookWriter],
        open_order: Callable[[str], None],
        to_customer: Callable[[], None],
    ) -> None:
        """The client of `parts` makes the order, within the watcher's private budget; `ledger`
        writes each charge down (asked for when a charge is made); `open_order` opens the order
        made on the dashboard and `to_customer` puts the order on screen on the point of sale;
        `ui` shows the dialog and tells what a charge needs."""
        self._session, self._client, self._settings = parts.session, parts.client, settings
        self._ui, self._ledger = ui, ledger
        self._open_order, self._to_customer = open_order, to_customer
        #: The till's currency: the `currency` setting, else what the first order a charge
        #: made this session said (never guessed from other orders: the access token decides).
        self._currency = settings.currency or ""

    def new_charge(self) -> None:
        """New charge (`n`): the dialog, unless it is up already (or what a charge needs, told)."""
        customer_id = self._settings.customer_id
        if self._settings.access_token is None or not customer_id:
            self._ui.notify(NEEDS_CREDENTIALS, title="New charge", severity="warning", markup=False)
            return
        # imported when first opened, like the other rare screens
        from orderdash.tui.screens.charge import ChargeScreen

        if isinstance(self._ui.screen, ChargeScreen):
            return
        screen = ChargeScreen(
            self._client,
            str(customer_id),
            self._currency,
            private_request=self._session.watcher.spent_private_request,
            on_currency=self._learned_currency,
            ledger=self._ledger(),
        )
        self._ui.push_screen(screen, callback=self.charge_made)

    def _learned_currency(self, currency: str) -> None:
        """The first order a charge made told the account's currency: kept for the session."""
        self._currency = currency

    def charge_made(self, made: ChargeMade | None) -> None:
        """The order made is watched (and saved in the list), on screen at once as the charge
        last read it, opened, and shown to the customer. None: the person left before an order
        was made."""
        if made is None:
            return
        session, state = self._session, self._session.state
        if made.payment_url:
            state.set_payment_url(made.token, made.payment_url)
        session.watch([made.token], save=True)
        if made.fetched is not None and made.token in state.entries:
            # the order as the charge last read it: on screen at once, not at the next poll (a
            # good answer like any other: the order is kept in the saved list)
            session.fetched(made.token, made.fetched, Change(), looking=True)
        self._open_order(made.token)
        self._to_customer()
