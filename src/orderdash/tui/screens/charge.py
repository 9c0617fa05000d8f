"""New charge (`n`): an amount in the till's currency, confirmed by the person, made into one
order (Generate Order), its currency checked, then the coin picked for the customer or left to
them.

One charge makes one order: its order token is chosen once and sent again on every retry (the
retries of a lost answer inside `create`, and the person's own retry after an error), so a
create whose answer was lost never makes a second order. A changed amount is a new charge.
The requests run in workers of this screen (group "charge"): the screen stays live, shows the
try and the seconds since the yes, errors are one line, and the amount stays for a retry.
"Not made" is said only when the service said so; when nobody can say, the order "may exist",
and `l` looks it up by its token (then the charge goes on if it does).

The made order's currency (as the service reports it) must be the one the person confirmed
(the till's `currency` setting, or the one the first order made this session told): otherwise
the charge stops here, before any QR reaches the customer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from orderdash.core.domain.fiat import minor_digits
from orderdash.core.domain.text import amount_text, fiat_text
from orderdash.core.ledger.charges import outcome_of
from orderdash.core.model.account import CoinChoice
from orderdash.core.model.errors import (
    ChargeOutcomeUnknown,
    ChargeStopped,
    NotFound,
    OrderdashError,
)
from orderdash.core.safetext import clean
from orderdash.core.service.client import Fetched, OrderClient
from orderdash.core.usecases.charge import (
    Charge,
    check_currency,
    create,
    new_order_token,
    parse_amount,
)
from orderdash.tui.notices import answer

if TYPE_CHECKING:
    from orderdash.core.ledger.writer import BookWriter

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
    #: Nobody can say whether the order was made: `l` looks it up, Enter tries again.
    UNKNOWN = "unknown"
    LOOKING = "looking"
    #: Made, but its currency could not be read: `l` reads it again.
    UNCHECKED = "unchecked"
    #: Made in another currency than the one confirmed: the charge goes no further.
    STOPPED = "stopped"
    COIN = "coin"
    CHOOSING = "choosing"


#: The account's currency, before the setting or a made order names it.
UNNAMED_CURRENCY = "the account's currency"


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
        Binding("l", "look_up", "Look up", show=False),
    ]

    def __init__(
        self,
        client: OrderClient,
        customer_id: str,
        currency: str = "",
        *,
        private_request: Callable[[], None] | None = None,
        on_currency: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        ledger: BookWriter | None = None,
    ) -> None:
        super().__init__()
        self._client = client
        #: Where each charge is written before its create is sent, and its outcome after.
        self._ledger = ledger
        #: Counts a private request (the coins, the choice) against the shared budget.
        self._private_request = private_request
        self._customer_id = customer_id
        #: The till's currency (the setting, or what this session's first order said); ""
        #: when not known yet: then the first order made tells it (`on_currency`).
        self.currency = clean(currency, limit=12)
        self._on_currency = on_currency
        self._clock = clock
        #: While the order is being made: when the yes was given, and the try under way.
        self._since = 0.0
        self._attempt = (1, 1)
        self._progress: Timer | None = None
        self.step = Step.AMOUNT
        self.amount: Decimal | None = None
        #: This charge's order token, kept while the amount stays the same (a retry).
        self._token: str | None = None
        self._token_amount: Decimal | None = None
        self._sent = False
        #: This try's charge is written down (its create may have been sent).
        self._sent_now = False
        self._made: Charge | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as body:
            body.border_title = "New charge"
            body.border_subtitle = "Esc: back"
            example = self._example()
            yield Label(Text(f"Amount in {self.currency or UNNAMED_CURRENCY} (e.g. {example}):"))
            yield Input(placeholder=example, id="charge-amount")
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
        if self.currency:
            return fiat_text(amount, self.currency)
        return f"{amount_text(amount, group=True)} in {UNNAMED_CURRENCY}"

    def _example(self) -> str:
        digits = minor_digits(self.currency or None)
        return "1250" if digits == 0 else "12." + "50".ljust(digits, "0")

    # -- the amount, then the person's yes ----------------------------------------------------

    @on(Input.Submitted, "#charge-amount")
    def _amount_entered(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            amount = parse_amount(event.value, self.currency or None)
        except OrderdashError as error:
            self._say(f"Not an amount: {error.message}", error=True, hint="Enter: next")
            return
        # the money as people write it (at most the currency's minor digits: exact)
        digits = minor_digits(self.currency or None)
        self.amount = amount = amount.quantize(Decimal(1).scaleb(-digits))
        self.step = Step.CONFIRM
        self._input.disabled = True
        self._say(
            f"Charge {self._money(amount)}?",
            hint="Enter or y: make the order \u00b7 Esc: change the amount",
        )

    def action_confirm(self) -> None:
        if self.step not in (Step.CONFIRM, Step.UNKNOWN) or self.amount is None:
            return
        if self._token is None or self._token_amount != self.amount:
            # a new charge (or a new amount): a new token; the same amount again is a retry
            self._token, self._token_amount, self._sent = new_order_token(), self.amount, False
        self.step = Step.CREATING
        self._since, self._attempt = self._clock(), (1, 1)
        self._show_progress()
        self._progress = self.set_interval(1.0, self._show_progress)
        self._create(self.amount, self._token, self._sent)

    def _attempt_started(self, attempt: int, attempts: int) -> None:
        self._attempt = (attempt, attempts)
        self._show_progress()

    def _show_progress(self) -> None:
        if self.step is not Step.CREATING or self.amount is None:
            return
        attempt, attempts = self._attempt
        seconds = max(0, int(self._clock() - self._since))
        # the token from the first second: whatever happens next, the clerk can name the order
        self._say(
            f"Making order {clean(self._token or '', limit=40)}\u2026 "
            f"attempt {attempt} of {attempts} \u00b7 {seconds} s",
            hint=f"{self._money(self.amount)} \u00b7 the order's token is kept: it is made once",
        )

    def quit_held(self) -> str:
        """Why the app must not quit now (one line), or "": while the order is being made,
        quitting would leave an order that may exist and that nobody saw named."""
        if self.step is not Step.CREATING:
            return ""
        return (
            f"Not quitting: order {clean(self._token or '', limit=40)} is being made; "
            "quit once the dialog says how it went"
        )

    def _stop_progress(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    @work(group="charge", exclusive=True, exit_on_error=False)
    async def _create(self, amount: Decimal, token: str, sent_before: bool) -> None:
        self._sent = True
        self._sent_now = False
        try:
            made = await create(
                self._client,
                amount,
                customer_id=self._customer_id,
                token=token,
                sent_before=sent_before,
                on_attempt=self._attempt_started,
                before_send=self._write_down if self._ledger is not None else None,
            )
        except ChargeOutcomeUnknown as unknown:
            self._stop_progress()
            await self._outcome(token, *outcome_of(unknown))
            self._unknown(unknown.token, unknown.reason)
            return
        except Exception as error:  # noqa: BLE001 - one line, and the charge can be tried again
            self._stop_progress()
            if self._sent_now:
                await self._outcome(token, *outcome_of(error))
            if not isinstance(error, OrderdashError):
                # not the service's refusal: nobody can say what it did
                self._unknown(token, _error_line(error))
                return
            self.step = Step.CONFIRM
            self._say(
                f"Not made: {_error_line(error)}",
                error=True,
                hint="Enter or y: try the same charge again \u00b7 Esc: change the amount",
            )
            return
        self._stop_progress()
        await self._outcome(token, "made")
        await self._check(made)

    async def _write_down(self, token: str) -> None:
        """Before the create is sent: the charge in the ledger (if that fails, nothing is
        sent and the error is the dialog's "Not made" line)."""
        assert self._ledger is not None and self.amount is not None
        await self._ledger.charge_started(token, self.amount, self.currency)
        self._sent_now = True

    async def _outcome(
        self, token: str, outcome: str, detail: str = "", *, currency: str = ""
    ) -> None:
        if self._ledger is None:
            return
        problem = await self._ledger.charge_ended(token, outcome, detail, currency=currency)
        if problem:
            answer(self.app, problem, "Ledger", "warning")

    def _unknown(self, token: str, why: str) -> None:
        self.step = Step.UNKNOWN
        self._say(
            f"Unknown: order {clean(token, limit=40)} may exist ({why})",
            error=True,
            hint="l: look it up \u00b7 Enter or y: try the same charge again \u00b7 Esc: back",
        )

    def action_look_up(self) -> None:
        """`l`: read the order whose outcome is unknown (or whose currency was not read) by its
        token; the charge goes on when it exists."""
        if self.step not in (Step.UNKNOWN, Step.UNCHECKED):
            return
        made = self._made if self.step is Step.UNCHECKED else None
        token = made.token if made is not None else self._token
        if token is None:
            return
        self.step = Step.LOOKING
        self._say(f"Looking up order {clean(token, limit=40)}\u2026")
        self._look_up(made or Charge(token, None))

    @work(group="charge", exclusive=True, exit_on_error=False)
    async def _look_up(self, made: Charge) -> None:
        if self._made is None:
            try:
                await self._client.get_order(made.token)
            except NotFound:
                # the service says there is no such order: now, and only now, "not made"
                await self._outcome(made.token, "not_made", "the service has no such order")
                self.step = Step.CONFIRM
                self._say(
                    f"Not made: the service has no order {clean(made.token, limit=40)}",
                    error=True,
                    hint="Enter or y: try the same charge again \u00b7 Esc: change the amount",
                )
                return
            except Exception as error:  # noqa: BLE001 - still unknown, said in one line
                self._unknown(made.token, f"still no answer: {_error_line(error)}")
                return
            await self._outcome(made.token, "made")
        await self._check(made)

    async def _check(self, made: Charge) -> None:
        """The made order read (the UI's get order: its coins too), its currency checked
        against the one the person confirmed, then the coins offered."""
        self._made = made
        coins: tuple[CoinChoice, ...] = ()
        problem = ""
        try:
            self._count_private(1)
            fetched, coins = await self._client.order_offer(made.token)
        except Exception as error:  # noqa: BLE001 - the customer can still choose on the page
            problem = f"The coins could not be read: {_error_line(error)}"
            try:
                fetched = await self._client.get_order(made.token)
            except Exception as again:  # noqa: BLE001 - the currency is not known: stop here
                self.step = Step.UNCHECKED
                self._say(
                    f"Order {clean(made.token, limit=40)} made; its currency could not be read: "
                    f"{_error_line(again)}",
                    error=True,
                    hint="l: read it again \u00b7 Esc: leave (the customer is shown nothing)",
                )
                return
        try:
            self._made = check_currency(
                made, fetched.order.currency.abbreviation, self.currency or None
            )
        except ChargeStopped as stopped:
            await self._outcome(made.token, *outcome_of(stopped))
            self.step = Step.STOPPED
            self._say(f"Stopped: {stopped.message}", error=True, hint="Esc: close")
            return
        if made.link_refused:
            # the POS gets no checkout QR for this order: say why, once
            answer(self.app, made.link_refused, "New charge", "warning")
        if not self.currency and self._made.currency:
            # the first order made tells the account's currency: kept for the session
            self.currency = clean(self._made.currency, limit=12)
            await self._outcome(made.token, "made", currency=self.currency)
            if self._on_currency is not None:
                self._on_currency(self.currency)
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
        if self.step in (Step.CONFIRM, Step.UNKNOWN):
            # after an unknown outcome the message named the order; a new amount is a new charge
            self.step = Step.AMOUNT
            self._input.disabled = False
            self._input.focus()
            self._say("", hint="Enter: next")
        elif self.step in (Step.AMOUNT, Step.STOPPED, Step.UNCHECKED):
            self._stop_progress()
            self.dismiss(None)
        elif self.step is Step.COIN and self._made is not None:
            # the order is made: leaving opens it, and the customer chooses the coin
            self.step = Step.CHOOSING
            self._finish(self._made, None)
