"""Point of sale: the screen turned to the customer. It shows the order on screen through the
customer panel (`tui/widgets/customer.py`, the same widget `orderdash display` uses): QR as
large as fits, the amount due in large digits, the address as text, countdowns, and a banner
that says in words, in the customer's language, what happened.

The app owns the data and the refresh; this screen binds the order on screen, its freshness
and the clock tick from the app's reactives (`data_bind`, `tui/app_data.py`), and shows them.

It faces the customer: nothing about another order reaches it (the app holds notifications
while it is up, see `customer_facing`), its footer offers only a discreet Esc for the staff,
the app's own keys (quit, help, the command palette) do nothing here, and a failure shows as
"connection problem", never as the operator's error text. Opened on its own (`orderdash pos
TOKEN`, `standalone`) it leads nowhere else: Esc asks to quit and quits; nothing of the
dashboard under it (other orders, charges, copy keys) is reachable. A payment that cannot be
checked loses its QR: at once when the service says the order does not exist, after a rate
period (`Reachability.rate_period`) when the service does not answer.

For the staff, one line under the panel says what the customer's "Paid" hides: a shortfall
absorbed (within the payment tolerance, accepted at the counter, or paid by the service's
word), in fiat and coin. `a` accepts an order short as paid (part-paid or closed short: a
question, then a written-off resolution, `tui/resolutions.py`); off while read-only. `P` prints
the paid order's receipt (again: a reprint), and with `receipt_auto` the receipt prints by itself
when the order becomes paid here (`tui/receipts.py`); a second staff line says what became of
it, and a printer that failed stays there with its retry key (`T`) as the next charge goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Static

from orderdash.core.customer.catalogue import catalogue
from orderdash.core.customer.face import CustomerFace, Trouble
from orderdash.core.domain.payment import PAID, PaymentState
from orderdash.core.domain.text import amount_text
from orderdash.core.model.wire import Order
from orderdash.core.qr.payload import offers_remaining, remaining_payload
from orderdash.core.watching.onscreen import Freshness, Shown
from orderdash.core.watching.state import DashboardState
from orderdash.tui.app_data import AppData
from orderdash.tui.resolutions import accept_as_paid
from orderdash.tui.widgets.customer import CustomerPanel
from orderdash.tui.widgets.keys_footer import KeysFooter
from orderdash.tui.widgets.payment_qr import ServerImageDecoded

if TYPE_CHECKING:
    from orderdash.tui.receipts import HasReceipts, Receipts
    from orderdash.tui.resolutions import HasResolutions

__all__ = ["CONNECTION_PROBLEM", "PosScreen"]

#: All a customer is told of a failure (English): the operator's error text stays on the
#: dashboard.
CONNECTION_PROBLEM = catalogue("en").text("connection_problem")


class PosScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the dashboard (staff)"),
        # standalone: the way out is a question, then the end of the program
        Binding("escape", "ask_quit", "Quit", tooltip="Close the point of sale (staff)"),
        Binding("p", "back", "Back", show=False),
        # staff: the next customer's charge without leaving the counter
        Binding("n", "app.new_charge", "New charge", show=False),
        # a part-paid order: a code for what is still due, and back (one key, shown when it
        # applies)
        Binding("m", "remaining(True)", "Still-due QR", tooltip="A QR for what is still due"),
        Binding("m", "remaining(False)", "Order QR", tooltip="Back to the order's own QR"),
        # staff: an order short taken as paid, the shortfall written off (shown when it applies)
        Binding("a", "accept_paid", "Accept as paid", tooltip="Accept the order as paid (staff)"),
        # staff: the paid order's receipt (shown when it applies); again, a reprint. Unpaid, the
        # key is not shown and says so in one line.
        Binding("P", "print_receipt(True)", "Receipt", tooltip="Print the order's receipt (staff)"),
        Binding("P", "print_receipt(False)", "Receipt", show=False),
    ]
    #: Read by the app: while such a screen is up, notifications are held for the operator and
    #: the app's operator keys are off.
    customer_facing = True

    #: The app's, bound (`data_bind`): the order on screen, how fresh it is, the clock tick.
    shown: var[Shown | None] = var(None, init=False)
    freshness: var[Freshness] = var(Freshness, init=False)
    tick: var[int] = var(0, init=False)
    receipt_line: var[tuple[str, str]] = var(("", ""), init=False)

    def __init__(
        self,
        state: DashboardState,
        *,
        primary: str = "coin",
        language: str = "en",
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        standalone: bool = False,
        readonly: bool = False,
    ) -> None:
        super().__init__()
        #: The `readonly` setting: nothing is accepted (`a` is off).
        self.readonly = readonly
        #: Opened by `orderdash pos`: no dashboard to go back to, only out.
        self.standalone = standalone
        self._dashboard_state = state
        self.primary = primary
        self.language = language
        self.clock = clock
        self.monotonic = monotonic
        self.state: PaymentState | None = None
        self.order: Order | None = None
        self.face: CustomerFace | None = None
        self.connection_problem = False
        self._trouble: Trouble = ""
        #: `m` applies (the footer shows it): the order is open, part-paid, checkable.
        self._remaining_applies = False
        # Made by the app (its actions): bound to its data. The binding hands the screen the
        # order on screen as it mounts; it is the one already shown, no news to flash.
        self.set_reactive(PosScreen.shown, cast(AppData, self.app).shown)
        self.data_bind(AppData.shown, AppData.freshness, AppData.tick, AppData.receipt_line)

    def compose(self) -> ComposeResult:
        yield CustomerPanel(primary=self.primary, language=self.language, id="pos-panel")
        yield Static(id="pos-staff", markup=False)
        receipt = Static(id="pos-receipt", markup=False)
        receipt.display = False  # (until there is a word on a receipt)
        yield receipt
        yield KeysFooter()

    def on_mount(self) -> None:
        # a screen's Mount can come before its children's: the order on screen once they exist
        self.call_after_refresh(self._show)

    @property
    def panel(self) -> CustomerPanel:
        return self.query_one(CustomerPanel)

    def watch_shown(self, before: Shown | None, shown: Shown | None) -> None:
        self._show()
        if shown is not None and shown is not before and shown.new_ids and self._ready:
            self.panel.flash()

    def _show(self) -> None:
        """The order on screen as the customer sees it: its face, or words when it cannot be
        checked; "Loading…" stays while nothing is known yet."""
        if not self._ready:
            return
        state = self._dashboard_state
        self._trouble = self._trouble_now()
        face = state.face_for(state.token)
        if face is None:
            return
        shown = state.shown
        if shown is not None:
            self.order, self.state = shown.order, shown.payment
            if shown.order.token == state.token:  # (a receipt by itself once it is paid here)
                self._receipts.on_pos(shown.order.token, shown.payment)
        self.connection_problem = face.connection_problem
        self.face = face
        self.panel.show(face)
        self._staff_line()
        self._receipt_line()
        if shown is not None and shown.payload.server_image and face.payable and not face.remaining:
            self.panel.decode_server_image(shown.payload.server_image, face.address)
        self._tick()

    def _staff_line(self) -> None:
        """What the staff see under the customer's panel: a shortfall absorbed, or none."""
        shown = self._dashboard_state.shown
        text = shown.payment.absorbed_text if shown is not None else ""
        line = self.query_one("#pos-staff", Static)
        line.update(f"Staff: {text}" if text else "")
        line.display = bool(text)
        self.refresh_bindings()

    @property
    def _receipts(self) -> Receipts:
        return cast("HasReceipts", self.app).receipts

    def _paid(self) -> bool:
        """The order on screen is paid, as its latest answer says: `P` applies."""
        shown, token = self._dashboard_state.shown, self._dashboard_state.token
        return shown is not None and shown.order.token == token and shown.payment.phase in PAID

    def watch_receipt_line(self) -> None:
        self._receipt_line()

    def _receipt_line(self) -> None:
        """What became of the last receipt about the order on screen (or of one `T` asked
        for), else of the newest one that failed: up whatever is on screen, until it printed."""
        if not self._ready:
            return
        token, text = self.receipt_line
        if token not in ("", self._dashboard_state.token) or not text:
            text = self._receipts.waiting()
        line = self.query_one("#pos-receipt", Static)
        line.update(f"Staff: {text}" if text else "")
        line.display = bool(text)
        self.refresh_bindings()

    def action_print_receipt(self, paid: bool) -> None:
        self._receipts.print(self._dashboard_state.token, by="pos")  # (it checks it is paid)

    def _accept_question(self) -> str:
        """The question before `a`, or "" when there is no shortfall to accept: the order on
        screen part-paid or closed short (and not paid within the tolerance)."""
        state = self._dashboard_state
        shown = state.shown
        if shown is None or shown.order.token != state.token or self.readonly:
            return ""
        short = shown.payment.shortfall
        if short is None:
            return ""
        payment, order = shown.payment, shown.order
        total = f"{amount_text(order.amount_fiat, group=True)} {payment.currency}".strip()
        fiat = f"{amount_text(short[1], group=True)} {payment.currency}".strip()
        return f"Accept {total} order as paid, {fiat} short? The shortfall is written off."

    def action_accept_paid(self) -> None:
        question = self._accept_question()
        token = self._dashboard_state.token
        if question and token is not None:
            accept_as_paid(cast("HasResolutions", self.app), token, question)

    def _trouble_now(self) -> Trouble:
        state = self._dashboard_state
        return state.trouble(state.token, has_order=state.shown is not None)

    def on_server_image_decoded(self, event: ServerImageDecoded) -> None:
        """The server's QR image is decoded (in a worker): show the order again."""
        event.stop()
        self._show()

    def watch_freshness(self, freshness: Freshness) -> None:
        problem = freshness.stale and self._dashboard_state.order is not None
        if problem != self.connection_problem or self._trouble_now() != self._trouble:
            self._show()

    @property
    def _ready(self) -> bool:
        """The widgets exist: a screen's Mount can come before its children's, and data can
        still arrive while the screen is being taken down."""
        return self.is_mounted and bool(self.query("#pos-banner"))

    def _remaining_now(self) -> bool:
        """`m` applies: the order on screen is open and part-paid by its latest answer and by
        this machine's clock, can be checked, and a code for what is still due would change
        what is scanned (or is up)."""
        state, face = self._dashboard_state, self.panel.face if self._ready else None
        shown = state.shown
        if shown is None or face is None or not face.payable or face.phase != "PARTLY_PAID":
            return False
        if face.remaining:
            return True
        remaining = remaining_payload(shown.order, shown.payment, uppercase=state.qr_uppercase)
        return offers_remaining(shown.payload, remaining)

    def _check_remaining(self) -> None:
        applies = self._remaining_now()
        if applies != self._remaining_applies:
            self._remaining_applies = applies
            self.refresh_bindings()

    def action_remaining(self, on: bool) -> None:
        """The code for what is still due (on), or the order's own code (off); the customer
        display shows the same."""
        state = self._dashboard_state
        if not self._remaining_applies or state.token is None:
            return
        state.remaining_for = state.token if on else None
        self._show()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "remaining":
            if not self._remaining_applies:
                return False
            showing = self.face is not None and self.face.remaining
            return bool(parameters) and parameters[0] is not showing
        if action == "accept_paid":
            return bool(self._ready and self._accept_question())
        if action == "print_receipt":
            return self._ready and not self.readonly and parameters[:1] == (self._paid(),)
        if action == "back":
            return not self.standalone
        if action == "ask_quit":
            return self.standalone
        return True

    def action_back(self) -> None:
        self.dismiss()

    def action_ask_quit(self) -> None:
        """Standalone: Esc asks, yes ends the program (the customer cannot wander further)."""
        from orderdash.tui.screens.confirm import ConfirmScreen

        if isinstance(self.app.screen, ConfirmScreen):
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.exit()

        question = "Close the point of sale and quit orderdash pos?"
        self.app.push_screen(ConfirmScreen("Quit?", question), callback=answered)

    def watch_tick(self) -> None:
        self._tick()

    def _tick(self) -> None:
        if not self._ready:
            return
        if self._trouble_now() != self._trouble:
            # a rate period without an answer has just passed: the QR goes
            self._show()
            return
        self.panel.tick(self.clock())
        self._check_remaining()
