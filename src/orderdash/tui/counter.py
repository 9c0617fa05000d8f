"""The counter: the point of sale and the customer display, and the questions before either
goes before a customer (an order about to expire; a display a customer may be paying from).

The App's keys `p`, `x` and `X` call it; what is shown goes through the session
(`core/watching/session.py`), which keeps the watcher and the display's channel in step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from textual.screen import ModalScreen, Screen

from orderdash.core.customer.handover import may_be_paying, takeover_question
from orderdash.core.domain.text import duration_text
from orderdash.core.safetext import clean, shorten_middle
from orderdash.core.settings.model import Settings
from orderdash.tui.compat.toast import hide_below
from orderdash.tui.parts import Parts
from orderdash.tui.ui import Asks

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.timer import Timer

    from orderdash.core.customer.reading import Reading
    from orderdash.tui.notices import HeldNotices
    from orderdash.tui.ui import Notify

#: Seconds between looks at whether the other dashboard let go of the customer display.
TAKEOVER_POLL = 0.1


class CounterUi(Asks, Protocol):
    """Textual's App as the counter puts the customer's screen and its questions up, and keeps
    the operator's toasts off the customer's screen (its own notices go through `notices`)."""

    @property
    def NOTIFICATION_TIMEOUT(self) -> float: ...

    @property
    def screen_stack(self) -> Sequence[Screen[object]]: ...

    def clear_notifications(self) -> None: ...

    def call_later(self, callback: Callable[..., object], *args: object) -> bool: ...

    def set_interval(self, interval: float, callback: Callable[[], object]) -> Timer: ...


class Counter:
    def __init__(
        self,
        ui: CounterUi,
        parts: Parts,
        settings: Settings,
        *,
        show: Notify,
        standalone: bool = False,
    ) -> None:
        """`ui` shows the screens; `show` (Textual's `App.notify`) the notices, held from the
        customer's eyes while the point of sale is up; `standalone`: `orderdash pos`, the point
        of sale is all there is."""
        session = parts.session
        self._ui, self._session, self._state = ui, session, session.state
        self._settings, self._language = settings, parts.language
        self._show = show
        #: Made with the first notice (`notices`): a start that tells nothing does without it.
        self._notices: HeldNotices | None = None
        self._clock, self._monotonic, self._standalone = parts.clock, parts.monotonic, standalone
        #: The point-of-sale screen while it is up.
        self.pos: Screen[None] | None = None
        #: The order the POS screen was opened on (or a charge there turned it to).
        self._token: str | None = None
        #: At most this many toasts at once in account mode (orders pour in): the newest and
        #: one counting the others.
        self._crowd = 2 if settings.access_token is not None else None

    @property
    def customer_facing(self) -> bool:
        """A screen turned to the customer (the point of sale) is up."""
        return self._notices is not None and self._notices.customer_facing

    def notices(self) -> HeldNotices:
        """The notices, shown or held from the customer's eyes (`tui/notices.py`)."""
        if self._notices is None:
            from orderdash.tui.notices import HeldNotices  # with the first notice

            self._notices = HeldNotices.through(
                self._show,
                self._ui.NOTIFICATION_TIMEOUT,
                self._clear_toasts,
                crowd=self._crowd,
            )
        return self._notices

    def _tell(
        self,
        message: str,
        *,
        severity: SeverityLevel = "information",
        markup: bool = True,
        timeout: float | None = None,
    ) -> None:
        """The counter's own notice, held from the customer's eyes like any (`notices`)."""
        self.notices().tell(message, "", severity, timeout, markup)

    def _clear_toasts(self) -> None:
        # in turn after the toasts already posted (Textual adds one by a message)
        self._ui.call_later(self._ui.clear_notifications)

    def screen_changed(self, screen: Screen[object]) -> None:
        """A question or a dialog (a modal screen) up: the notices wait, none covers it; gone:
        they come back in one summary."""
        question = isinstance(screen, ModalScreen)
        if question and not self.notices().question:
            self.notices().question_up()
            self._clear_toasts()
            hide_below(self._ui.screen_stack[:-1])
        elif not question and self._notices is not None and self._notices.question:
            self._notices.question_down()

    def point_of_sale(self) -> None:
        """The POS screen on the order on screen, and the customer display with it: after the
        operator's yes when the order is about to expire, and when the display holds another
        order a customer may be paying. With the POS already up (a charge made from it turned
        it to the new order) the display turns with it if it showed the POS's order (one
        customer at the counter), else as for `x`."""
        token = self._state.token
        if self.pos is not None:
            before, self._token = self._token, token
            if token is None:
                return
            if self._state.customer_token == before and self._session.holds_display:
                self._session.show_on_display(token)
            else:
                self._ask_to_replace_display(token, lambda yes: self._show_if(yes, token))
            return
        if token is None:
            self._open_point_of_sale()
            return

        def answered(replace: bool) -> None:
            if replace:
                self._session.show_on_display(token)
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
        from orderdash.tui.screens.confirm import ConfirmOrCharge, ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        # a standalone point of sale makes no charges: its question has no third answer
        ask = ConfirmScreen if self._standalone else ConfirmOrCharge
        confirm = ask(f"{title}: the order is about to expire", question)
        self._ui.push_screen(confirm, callback=answered)

    def _expiring_question(self, token: str | None) -> str | None:
        """What to ask before an order near its expiry goes before a customer, or None."""
        entry = self._state.entries.get(token) if token is not None else None
        payment = entry.payment if entry is not None else None
        if payment is None or not payment.takes_payment or payment.expiry is None:
            return None
        left = payment.expiry.remaining(self._clock())
        if left is None or left >= self._settings.pos_expiry_margin:
            return None
        name = clean(token or "", limit=40)
        when = "has expired" if left <= 0 else f"expires in {duration_text(left)}"
        return (
            f"{name} {when}: a payment sent now may arrive after the order closed. "
            "Show it to the customer anyway?"
        )

    def _open_point_of_sale(self) -> None:
        if self.pos is not None:
            return
        # imported when first opened: the big digits and the screen are not needed before
        from orderdash.tui.screens.pos import PosScreen

        self._token = self._state.token
        self.pos = PosScreen(
            self._state,
            primary=self._settings.pos_primary,
            language=self._language,
            clock=self._clock,
            monotonic=self._monotonic,
            standalone=self._standalone,
            readonly=self._settings.readonly,
        )
        self._ui.push_screen(self.pos, callback=self._pos_closed)
        self._session.point_of_sale(True)
        self.notices().customer_screen_up()
        # after the toasts already posted (Textual adds a notification by a message)
        self._ui.call_later(self._ui.clear_notifications)

    def _pos_closed(self, _: None) -> None:
        self.pos = None
        self._session.point_of_sale(False)
        self.notices().customer_screen_down()

    def show_on_display(self) -> None:
        """The order on screen goes on the customer display; the operator stays here (asked
        first when the order is about to expire, or the display holds another order a customer
        may be paying)."""
        token = self._state.token
        if token is None:
            self._tell(
                "No order to show on the customer display.", severity="warning", markup=False
            )
            return
        if self._session.publisher is None:
            text = "The customer display is off: no usable runtime directory (see XDG_RUNTIME_DIR)."
            self._tell(text, severity="warning", markup=False)
            return

        def answered(replace: bool) -> None:
            if replace:
                self._session.show_on_display(token)
                text = f"On the customer display: {clean(token, limit=40)}"
                self._tell(text, timeout=3, markup=False)

        self._unless_expiring(
            token, "Customer display", lambda: self._ask_to_replace_display(token, answered)
        )

    def _ask_to_replace_display(self, token: str, then: Callable[[bool], None]) -> None:
        """`then(True)` at once when the customer display is free for `token`; while it shows
        another order a customer may be scanning or paying, or another dashboard holds it,
        `then(the operator's answer)` (after the other dashboard let go, for a yes)."""
        claim = self._session.claim_display()
        if claim.kind == "busy":
            assert claim.shown is not None
            self._ask_to_take_over(claim.shown, then)
            return
        if claim.problem:
            self._tell(claim.problem, severity="warning", markup=False)
            then(False)
            return
        showing = self._state.customer_token
        face = self._state.customer_face()
        if claim.kind == "off" or showing is None or showing == token or not may_be_paying(face):
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
        self._ui.push_screen(
            ConfirmScreen("Replace the customer display?", question),
            callback=lambda yes: then(bool(yes)),
        )

    def _ask_to_take_over(self, shown: Reading, then: Callable[[bool], None]) -> None:
        """Another dashboard holds the display: the operator is asked, from what its channel
        file shows; on a yes that dashboard is asked to let go, and `then(True)` once it has
        (`then(False)`, said why, when it does not within a few seconds)."""
        from orderdash.tui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if not yes:
                then(False)
                return
            try:
                takeover = self._session.take_over_display(shown)
            except OSError as error:
                text = f"The customer display was not taken over: {error.strerror or error}"
                self._tell(text, severity="warning", markup=False)
                then(False)
                return

            def poll() -> None:
                outcome = takeover.poll()
                if outcome == "waiting":
                    return
                timer.stop()
                if outcome == "refused":
                    self._tell(
                        "The customer display was not taken over: the other till did not let "
                        "go of it (it may be busy). Try again.",
                        severity="warning",
                        markup=False,
                    )
                then(outcome == "taken")

            timer = self._ui.set_interval(TAKEOVER_POLL, poll)

        question = takeover_question(shown)
        self._ui.push_screen(
            ConfirmScreen("Take over the customer display?", question), callback=answered
        )

    def _show_if(self, yes: bool, token: str) -> None:
        if yes:
            self._session.show_on_display(token)

    def clear_display(self) -> None:
        """The customer display goes back to its welcome screen (when it shows this
        dashboard's order: another till's is not this one's to clear)."""
        if self._session.publisher is None:
            return
        if not self._session.holds_display:
            text = "Nothing of this dashboard's is on the customer display."
            self._tell(text, timeout=3, markup=False)
            return
        self._session.clear_display()
        self._tell("Customer display cleared.", timeout=3, markup=False)
