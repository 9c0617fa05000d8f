"""New charge (`n`): an amount in the account's fiat, confirmed by the person, made into one
order (Generate Order), then the coin picked for the customer or left to them.

One charge makes one order: its order token is chosen once and sent again on every retry (the
retries of a lost answer inside `create`, and the person's own retry after an error), so a
create whose answer was lost never makes a second order. A changed amount is a new charge.
The requests run in workers of this screen (group "charge"): the screen stays live, errors are
one line, and the amount stays for a retry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from orderdash.core.domain.display import fiat_text
from orderdash.core.safetext import clean
from orderdash.core.service.account_models import CoinChoice
from orderdash.core.service.charge import Charge, create, new_order_token, parse_amount
from orderdash.core.service.client import Fetched, OrderClient
from orderdash.core.service.errors import OrderdashError

#: The option that leaves the coin to the customer (the checkout page asks them).
CUSTOMER_CHOOSES = "customer-chooses"


@dataclass(frozen=True)
class ChargeMade:
    """What the screen hands back: the new order's token, the order as last read, and the
    service's checkout page for it (the customer's QR while no coin is chosen)."""

    token: str
    fetched: Fetched | None
    payment_url: str | None = None


class Step(Enum):
    AMOUNT = "amount"
    CONFIRM = "confirm"
    CREATING = "creating"
    COIN = "coin"
    CHOOSING = "choosing"


def _error_line(error: BaseException) -> str:
    if isinstance(error, OrderdashError):
        return error.message
    return f"internal error: {type(error).__name__}"


class ChargeScreen(ModalScreen[ChargeMade | None]):
    DEFAULT_CSS = """
    ChargeScreen { align: center middle; }
    ChargeScreen > Vertical {
        width: 96; max-width: 100%; height: auto;
        border: round $accent; padding: 0 1; background: $surface;
    }
    ChargeScreen #charge-message { height: 1; margin-top: 1; }
    ChargeScreen #charge-message.-error { color: $error; text-style: bold; }
    ChargeScreen #charge-hint { color: $text-muted; }
    ChargeScreen OptionList { height: auto; max-height: 12; display: none; }
    ChargeScreen.-coin OptionList { display: block; }
    """

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("y", "confirm", "Confirm", show=False),
        Binding("enter", "confirm", "Confirm", show=False),
    ]

    def __init__(
        self,
        client: OrderClient,
        customer_id: str,
        currency: str = "",
        *,
        private_request: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self._client = client
        #: Counts a private request (the coins, the choice) against the shared budget.
        self._private_request = private_request
        self._customer_id = customer_id
        #: The account's fiat (from its orders); "" when not known yet.
        self.currency = clean(currency, limit=12)
        self.step = Step.AMOUNT
        self.amount: Decimal | None = None
        #: This charge's order token, kept while the amount stays the same (a retry).
        self._token: str | None = None
        self._token_amount: Decimal | None = None
        self._sent = False
        self._made: Charge | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as body:
            body.border_title = "New charge"
            body.border_subtitle = "Esc: back"
            label = f"Amount in {self.currency}" if self.currency else "Amount"
            yield Label(Text(f"{label} (e.g. 12.50):"))
            yield Input(placeholder="12.50", id="charge-amount")
            yield Static("", id="charge-message")
            yield OptionList(id="charge-coins")
            yield Static(Text("Enter: next"), id="charge-hint")

    def on_mount(self) -> None:
        self._input.focus()

    @property
    def _input(self) -> Input:
        return self.query_one("#charge-amount", Input)

    def _say(self, message: str, *, error: bool = False, hint: str = "") -> None:
        line = self.query_one("#charge-message", Static)
        line.set_class(error, "-error")
        # one line, whatever the service said: cut at the edge rather than wrapped
        line.update(Text(message, no_wrap=True, overflow="ellipsis"))
        self.query_one("#charge-hint", Static).update(Text(hint))

    def _money(self, amount: Decimal) -> str:
        return fiat_text(amount, self.currency)

    # -- the amount, then the person's yes ----------------------------------------------------

    @on(Input.Submitted, "#charge-amount")
    def _amount_entered(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            amount = parse_amount(event.value)
        except OrderdashError as error:
            self._say(f"Not an amount: {error.message}", error=True, hint="Enter: next")
            return
        # the money as people write it (at most 2 decimals: exact)
        self.amount = amount = amount.quantize(Decimal("0.01"))
        self.step = Step.CONFIRM
        self._input.disabled = True
        self._say(
            f"Charge {self._money(amount)}?",
            hint="Enter or y: make the order \u00b7 Esc: change the amount",
        )

    def action_confirm(self) -> None:
        if self.step is not Step.CONFIRM or self.amount is None:
            return
        if self._token is None or self._token_amount != self.amount:
            # a new charge (or a new amount): a new token; the same amount again is a retry
            self._token, self._token_amount, self._sent = new_order_token(), self.amount, False
        self.step = Step.CREATING
        self._say(f"Making the order for {self._money(self.amount)}\u2026")
        self._create(self.amount, self._token, self._sent)

    @work(group="charge", exclusive=True, exit_on_error=False)
    async def _create(self, amount: Decimal, token: str, sent_before: bool) -> None:
        self._sent = True
        try:
            made = await create(
                self._client,
                amount,
                customer_id=self._customer_id,
                token=token,
                sent_before=sent_before,
            )
        except Exception as error:  # noqa: BLE001 - one line, and the charge can be tried again
            self.step = Step.CONFIRM
            self._say(
                f"Not made: {_error_line(error)}",
                error=True,
                hint="Enter or y: try the same charge again \u00b7 Esc: change the amount",
            )
            return
        self._made = made
        coins: tuple[CoinChoice, ...] = ()
        problem = ""
        try:
            self._count_private(1)
            coins = await self._client.order_coins(made.token)
        except Exception as error:  # noqa: BLE001 - the customer can still choose on the page
            problem = f"The coins could not be read: {_error_line(error)}"
        self._offer_coins(coins, problem)

    def _count_private(self, requests: int) -> None:
        if self._private_request is not None:
            for _ in range(requests):
                self._private_request()

    # -- the coin ----------------------------------------------------------------------------

    def _offer_coins(self, coins: tuple[CoinChoice, ...], problem: str) -> None:
        self.step = Step.COIN
        self.add_class("-coin")
        options = self.query_one(OptionList)
        options.clear_options()
        for coin in coins:
            name = clean(coin.name or "", limit=30)
            code = clean(coin.code, limit=12)
            option = Option(Text(f"{code:<6} {name}".rstrip()), id=f"coin:{coin.code}")
            options.add_option(option)
        options.add_option(Option(Text("Let the customer choose"), id=CUSTOMER_CHOOSES))
        options.highlighted = 0
        options.focus()
        assert self.amount is not None
        made = f"Order made for {self._money(self.amount)}."
        self._say(
            f"{made} {problem}" if problem else f"{made} Which coin does the customer pay in?",
            error=bool(problem),
            hint="Enter: pick",
        )

    @on(OptionList.OptionSelected, "#charge-coins")
    def _coin_picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.step is not Step.COIN or self._made is None:
            return
        option_id = event.option.id or CUSTOMER_CHOOSES
        self.step = Step.CHOOSING
        if option_id == CUSTOMER_CHOOSES:
            self._say("Opening the order\u2026")
            self._finish(self._made, None)
        else:
            code = option_id.removeprefix("coin:")
            self._say(f"Choosing {clean(code, limit=12)}\u2026")
            self._finish(self._made, code)

    @work(group="charge", exclusive=True, exit_on_error=False)
    async def _finish(self, made: Charge, code: str | None) -> None:
        try:
            if code is not None:
                # a code from the coins the order offered (read once, for the list)
                self._count_private(1)
                fetched = await self._client.choose_coin(made.token, code)
            else:
                fetched = await self._client.get_order(made.token)
        except Exception as error:  # noqa: BLE001 - one line; the pick can be made again
            if code is None:
                # the order exists: the dashboard reads it by itself
                self.dismiss(ChargeMade(made.token, None, made.payment_url))
                return
            self.step = Step.COIN
            self._say(
                f"The coin was not chosen: {_error_line(error)}",
                error=True,
                hint="Enter: pick again",
            )
            return
        self.dismiss(ChargeMade(made.token, fetched, made.payment_url))

    # -- back --------------------------------------------------------------------------------

    def action_back(self) -> None:
        if self.step is Step.CONFIRM:
            self.step = Step.AMOUNT
            self._input.disabled = False
            self._input.focus()
            self._say("", hint="Enter: next")
        elif self.step is Step.AMOUNT:
            self.dismiss(None)
        elif self.step is Step.COIN and self._made is not None:
            # the order is made: leaving opens it, and the customer chooses the coin
            self.step = Step.CHOOSING
            self._finish(self._made, None)
