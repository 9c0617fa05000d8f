"""Point of sale: the screen turned to the customer. QR as large as fits, the amount due in
large digits, the address as text, countdowns, and a banner that says in words what happened.

The app owns the data and the refresh; this screen watches the order on screen (`app.shown`)
and the app's clock tick, and shows them.

It faces the customer: nothing about another order reaches it (the app holds notifications
while it is up, see `customer_facing`), its footer offers only a discreet Esc for the staff,
the app's own keys (quit, help, the command palette) do nothing here, and a failure shows as
"connection problem", never as the operator's error text.

The coin amount to send is the amount due rounded up to the coin's smallest unit
(`PaymentState.send`); when that changed the figure, the server's exact digits are printed
under it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Digits, Static

from orderdash.core.domain.display import amount_text, duration_text
from orderdash.core.domain.payment import PaymentState, Phase
from orderdash.core.qr.payload import QRPayload
from orderdash.core.service.models import Order
from orderdash.core.watching.state import DashboardState, Freshness, Shown
from orderdash.tui.compat.keys_footer import KeysFooter
from orderdash.tui.text import joined, literal
from orderdash.tui.widgets.payment_qr import ServerImageDecoded, show_payload
from orderdash.tui.widgets.qr import QRView

#: Banner colour class per phase (see app.tcss).
BANNER_CLASSES = {
    Phase.AWAITING: "-open",
    Phase.COIN_NOT_CHOSEN: "-neutral",
    Phase.PARTLY_PAID: "-partial",
    Phase.UNCLEAR: "-partial",
    Phase.CONFIRMING: "-good",
    Phase.CONFIRMED: "-good",
    Phase.OVERPAID: "-partial",
    Phase.UNDERPAID: "-bad",
    Phase.EXPIRED: "-bad",
    Phase.CANCELED: "-bad",
    Phase.UNKNOWN: "-neutral",
}
FLASHES = 6
FLASH_PERIOD = 0.25
#: All a customer is told of a failure: the operator's error text stays on the dashboard.
CONNECTION_PROBLEM = "Connection problem, amounts may be out of date"


def digits_width(text: str) -> int:
    return sum(3 if ch.isdigit() else 1 for ch in text)


class PosSide(Vertical):
    """The amounts column. Its width follows the code beside it (which grows and shrinks with
    the amount), not only the terminal's: it reports each resize, so the screen shows the big
    digits only while they fit."""

    class Resized(Message):
        pass

    def on_resize(self, event: Resize) -> None:
        self.post_message(self.Resized())


class PosScreen(Screen[None]):
    #: Short terminals get a one-row banner so the code keeps its rows (see app.tcss).
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    #: Below 72 columns the code may take three quarters of the width (see app.tcss).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (72, "-wide")]
    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the dashboard (staff)"),
        Binding("p", "back", "Back", show=False),
    ]
    #: Read by the app: while such a screen is up, notifications are held for the operator and
    #: the app's operator keys are off.
    customer_facing = True

    def __init__(
        self,
        state: DashboardState,
        *,
        primary: str = "coin",
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self._dashboard_state = state
        self.primary = primary
        self.clock = clock
        self.monotonic = monotonic
        self.state: PaymentState | None = None
        self.order: Order | None = None
        self.next_rate_at: float | None = None
        self.connection_problem = False
        self._payload: QRPayload | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Loading\u2026"), id="pos-banner", classes="-neutral")
        with Horizontal(id="pos-body"):
            yield QRView(id="pos-qr", max_scale=3)
            with PosSide(id="pos-side"):
                yield Static("Amount due", id="pos-due-label")
                yield Digits("", id="pos-digits")
                yield Static(id="pos-primary")
                yield Static(id="pos-secondary")
                yield Static(id="pos-address")
                yield Static(id="pos-times")
                yield Static(id="pos-merchant")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.watch(self.app, "tick", self._tick, init=False)
        self.watch(self.app, "shown", self._shown_changed, init=False)
        self.watch(self.app.dashboard, "freshness", self._freshness_changed, init=False)  # type: ignore[attr-defined]
        # a screen's Mount can come before its children's: the order on screen once they exist
        self.call_after_refresh(self._show, self._dashboard_state.shown)

    def _shown_changed(self, shown: Shown | None) -> None:
        self._show(shown)
        if shown is not None and shown.new_ids:
            self.payment_arrived()

    def _show(self, shown: Shown | None) -> None:
        if shown is not None:
            next_rate_at = self._dashboard_state.freshness.next_rate_at
            self.show(shown.order, shown.payment, shown.payload, next_rate_at)
            self._freshness_changed(self._dashboard_state.freshness)

    def _freshness_changed(self, freshness: Freshness) -> None:
        if self._ready:
            self.set_connection_problem(freshness.stale and self._dashboard_state.order is not None)

    @property
    def _ready(self) -> bool:
        """The widgets exist: a screen's Mount can come before its children's, and data can
        still arrive while the screen is being taken down."""
        return self.is_mounted and bool(self.query("#pos-banner"))

    def action_back(self) -> None:
        self.dismiss()

    def on_server_image_decoded(self, event: ServerImageDecoded) -> None:
        """The server's QR image is decoded (in a worker): show what is on screen again."""
        event.stop()
        if self.order is not None and self.state is not None and self._payload is not None:
            self.show(self.order, self.state, self._payload, self.next_rate_at)

    def show(
        self,
        order: Order,
        state: PaymentState,
        payload: QRPayload,
        next_rate_at: float | None,
    ) -> None:
        if not self._ready:
            return
        self.order, self.state, self.next_rate_at = order, state, next_rate_at
        self._payload = payload
        banner = self.query_one("#pos-banner", Static)
        banner.update(literal(state.headline, limit=120))
        for name in set(BANNER_CLASSES.values()):
            banner.set_class(name == BANNER_CLASSES[state.phase], name)

        qr = self.query_one("#pos-qr", QRView)
        qr.display = state.payable
        # nothing to pay: the banner takes the room the code had, readable across the shop
        self.set_class(not state.payable, "-settled")
        note = show_payload(qr, payload) if state.payable else ""

        self._show_amounts(state)
        address = literal(order.address or "\u2014", "bold", limit=200)
        if note:
            address.append("\n")
            address.append_text(literal(note, "italic"))
        heading = Text("Pay to\n" if state.payable else "Address\n", "dim")
        self.query_one("#pos-address", Static).update(joined(heading, address))
        merchant = joined(
            literal(order.company_name, "bold", limit=60), f"  \u00b7  order {order.id}"
        )
        self.query_one("#pos-merchant", Static).update(merchant)
        self._tick()

    def _show_amounts(self, state: PaymentState) -> None:
        if state.payable:
            coin, fiat = state.due_coin, state.due_fiat
            label = "Still due" if state.phase is Phase.PARTLY_PAID else "Amount due"
        elif state.excess_coin is not None:
            coin, fiat, label = state.excess_coin, state.excess_fiat, "Paid too much"
        elif state.latest is not None:
            # the server's running total of what arrived
            coin, fiat = state.latest.amount.total, state.latest.amount_fiat.total
            label = "Received"
        else:
            coin = fiat = None
            label = ""
        coin_text = f"{amount_text(coin)}" if coin is not None else ""
        send = state.send
        if send is not None:
            # what a wallet can send: the amount due rounded up to the coin's unit
            coin_text = send.text
        # small type under the coin figure when it is not the server's own (money truth)
        note = Text(f"\n{send.note}", "dim italic") if send is not None and send.rounded else None
        fiat_text = f"{amount_text(fiat, group=True)}" if fiat is not None else ""
        if self.primary == "fiat":
            big, big_unit, small = fiat_text, state.currency, f"{coin_text} {state.coin}"
        else:
            big, big_unit, small = coin_text, state.coin, f"{fiat_text} {state.currency}"
        self.query_one("#pos-due-label", Static).update(Text(label, "dim"))
        digits = self.query_one("#pos-digits", Digits)
        digits.update(big)
        self._big_text = big
        primary = self.query_one("#pos-primary", Static)
        secondary = self.query_one("#pos-secondary", Static)
        if big:
            primary_text = Text(f"{big} {big_unit}", "bold")
            secondary_text = Text(small.strip(), "bold")
            if note is not None:
                (secondary_text if self.primary == "fiat" else primary_text).append_text(note)
            primary.update(primary_text)
            secondary.update(secondary_text)
        else:
            primary.update("")
            secondary.update("")
        self._fit_digits()

    def _fit_digits(self) -> None:
        """Large digits when they fit the side panel; plain bold text otherwise."""
        big = getattr(self, "_big_text", "")
        width = self.query_one("#pos-side").content_size.width
        fits = bool(big) and digits_width(big) <= width
        self.query_one("#pos-digits", Digits).display = fits
        self.query_one("#pos-primary", Static).set_class(fits, "-under-digits")

    def on_pos_side_resized(self, event: PosSide.Resized) -> None:
        self._fit_digits()

    def _tick(self) -> None:
        if self.state is None:
            return
        now = self.clock()
        parts = []
        if self.connection_problem:
            parts.append(CONNECTION_PROBLEM)
        if self.state.payable and self.next_rate_at is not None:
            left = max(self.next_rate_at - self.monotonic(), 0)
            parts.append(f"Rate renews in {duration_text(left + 0.999)}")
        if self.state.payable and self.state.expiry is not None:
            countdown = self.state.expiry.countdown(now)
            if countdown:
                parts.append(countdown[0].upper() + countdown[1:])
        self.query_one("#pos-times", Static).update(Text("\n".join(parts)))

    def set_connection_problem(self, problem: bool) -> None:
        """The data on screen is stale: say so in the customer's words."""
        if problem != self.connection_problem:
            self.connection_problem = problem
            if self._ready:
                self._tick()

    def payment_arrived(self) -> None:
        """Flash the banner: the customer and the cashier both look up."""
        if not self._ready:
            return
        banner = self.query_one("#pos-banner", Static)
        banner.add_class("-flash")
        for step in range(1, FLASHES):  # Textual refuses a timer of 0 s: step 0 is done above
            self.set_timer(
                FLASH_PERIOD * step, lambda on=step % 2 == 0: banner.set_class(on, "-flash")
            )
        self.set_timer(FLASH_PERIOD * FLASHES, lambda: banner.remove_class("-flash"))
