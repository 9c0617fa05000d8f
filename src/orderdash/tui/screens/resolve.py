"""The resolve dialog (`R`, the palette, or any screen through the App's `resolve_order`): a
person's word on one order, written to the ledger (`core/usecases/resolve.py`).

Choose how it was resolved, type the reason, and for an order that owes something back (an
excess, a payment after expiry) work the refund out: at the payment's rate, today's or a
typed rate, less a typed network fee, shown live as it is typed (`core/books/refund.py`, exact
decimals, rounded down to the coin's unit); `ctrl+y` copies the amount. Today's rate is what
`orderdash resolve --refund-at today` takes too: the `exchangeRate` of the order read (getOrder,
through `read`) when the dialog opens, never an older one on screen. Confirming writes through
the ledger's writer, off the event loop, and says the result in one line; while it writes, Esc
and Cancel wait (the write cannot be called back, and its outcome is always told). The
resolution's id is made once: confirming again after a failed write sends the same one
(written once however often it is tried). Nothing is sent to the service.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import tzinfo
from decimal import Decimal
from typing import Any, Protocol

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, RadioButton, RadioSet, Static

from orderdash.core.domain.text import amount_text
from orderdash.core.ledger import RESOLUTION_KINDS, LedgerError, ResolutionRecord
from orderdash.core.ledger.schema import MAX_REASON
from orderdash.core.model.errors import OrderdashError
from orderdash.core.safetext import clean
from orderdash.core.usecases.resolve import (
    KIND_WORDS,
    Owed,
    Refund,
    RefundRefused,
    clean_reason,
    new_resolution,
    owed_of,
    resolution_line,
    typed_refund,
)

log = logging.getLogger(__name__)

#: The refund's bases, in the order the dialog offers them ("" : no refund).
BASES = ("", "payment", "today", "typed")


class Writer(Protocol):
    """What the dialog needs of the ledger's writer (`core/ledger/writer.py`)."""

    async def resolution_made(self, record: ResolutionRecord) -> ResolutionRecord: ...


#: The dialog's first word on what confirming does.
NOTHING_SENT = "Written to the ledger only: nothing is sent to the service."


def _line(text: str, style: str = "") -> Text:
    return Text(clean(text, limit=400), style)


class ChoiceSet(RadioSet):
    """A radio group whose arrows choose, as radio groups usually do (Textual's arrows only
    move a highlight that looks like a choice; Space or Enter then made it one). Focus alone
    chooses nothing: a set with nothing chosen stays so until a key or a click."""

    BINDINGS = [
        Binding("down,right", "choose(1)", "Next option", show=False),
        Binding("up,left", "choose(-1)", "Previous option", show=False),
    ]

    def action_choose(self, step: int) -> None:
        if step > 0:
            self.action_next_button()
        else:
            self.action_previous_button()
        self.action_toggle_button()


class ResolveScreen(ModalScreen[ResolutionRecord | None]):
    """Dismissed with the resolution written, or None when left without one."""

    DEFAULT_CSS = """
    ResolveScreen { align: center middle; }
    ResolveScreen > #resolve-body {
        width: 100%; max-width: 96; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    ResolveScreen RadioSet { width: 100%; height: auto; layout: horizontal; border: none; }
    /* focused: the same room (Textual's focus border squeezed the choices: "Payment's rat…") */
    ResolveScreen RadioSet:focus { border: none; }
    ResolveScreen RadioButton { width: auto; }
    ResolveScreen #resolve-figures { height: auto; }
    ResolveScreen #resolve-figures Input { width: 1fr; }
    ResolveScreen #resolve-refund { color: $success; }
    ResolveScreen #resolve-refund.-refused { color: $warning; }
    ResolveScreen #resolve-status.-failed { color: $error; text-style: bold; }
    ResolveScreen #resolve-buttons { height: auto; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Back, nothing written"),
        Binding("ctrl+s", "confirm", "Resolve", tooltip="Write the resolution down"),
        Binding("ctrl+y", "copy_refund", "Copy refund", tooltip="Copy the refund's amount"),
    ]

    def __init__(
        self,
        token: str,
        *,
        writer: Writer,
        till: str,
        operator: str,
        order: dict[str, Any] | None = None,
        today_rate: Decimal | None = None,
        read: Callable[[], Awaitable[Any]] | None = None,
        zone: tzinfo | None = None,
    ) -> None:
        """`order`: getOrder's `data` as last read, shown at once; `read` reads the order now
        (a `Fetched`), and its answer replaces `order` and gives today's rate; `today_rate`:
        today's rate when there is no `read`."""
        super().__init__()
        self.token = token
        self._writer = writer
        self._till, self._operator = till, operator
        self._raw = order
        self._read = read
        #: Today's rate: from the order read now (None until it is read).
        self._today = today_rate if read is None else None
        self._zone = zone
        #: What the order owes back (None: nothing, or not read yet).
        self.owed: Owed | None = None
        #: The refund as last worked out (None: none asked, or refused).
        self.refund: Refund | None = None
        #: The resolution made at a confirm whose write failed: confirming the same again
        #: writes it, with its id (never a second one).
        self._pending: ResolutionRecord | None = None
        #: Why no refund can be worked out for what is chosen ("" when one can).
        self.refusal = ""
        #: The resolution written (the dialog is done).
        self.written: ResolutionRecord | None = None
        self.writing = False
        #: The order was read (and what it owes worked out): it can be resolved.
        self.known = False
        #: Why today's rate is not known ("": it is, or no read was asked).
        self._today_unread = "" if read is None else "reading the order for today's rate\u2026"

    def compose(self) -> ComposeResult:
        with Vertical(id="resolve-body") as body:
            body.border_title = "Resolve an order"
            body.border_subtitle = (
                "\u2190\u2192: choose \u00b7 ctrl+s: resolve \u00b7 ctrl+y: copy refund "
                "\u00b7 Esc: back"
            )
            yield Static(_line(f"Order {self.token}", "bold"), id="resolve-title")
            yield Static(id="resolve-owed")
            yield ChoiceSet(
                # nothing chosen beforehand: what was done is the person's word, never a default
                *(RadioButton(KIND_WORDS[k]) for k in RESOLUTION_KINDS),
                id="resolve-kind",
            )
            yield Input(
                placeholder="Why (required, one line)", max_length=MAX_REASON, id="resolve-reason"
            )
            yield ChoiceSet(
                RadioButton("No refund", value=True),
                RadioButton("Payment's rate"),
                RadioButton("Today's rate"),
                RadioButton("Typed rate"),
                id="resolve-basis",
            )
            with Horizontal(id="resolve-figures"):
                yield Input(
                    placeholder="rate: fiat for one coin",
                    restrict=r"[0-9.]*",
                    max_length=40,
                    id="resolve-rate",
                )
                yield Input(
                    placeholder="network fee in coin (0)",
                    restrict=r"[0-9.]*",
                    max_length=40,
                    id="resolve-fee",
                )
            yield Static(id="resolve-refund")
            yield Static(id="resolve-status")
            with Horizontal(id="resolve-buttons"):
                yield Button("Resolve", variant="primary", id="resolve-confirm")
                yield Button("Copy refund", id="resolve-copy")
                yield Button("Cancel", id="resolve-cancel")

    AUTO_FOCUS = "#resolve-reason"

    def on_mount(self) -> None:
        self._status(NOTHING_SENT)
        self._work_out()
        self._fetch()

    @work(group="resolve-read", exclusive=True, exit_on_error=False)
    async def _fetch(self) -> None:
        """What the order owes back: from the order given at once, then from the order read
        now (with today's rate); worked out in a thread (its cost grows with its payments)."""
        raw = self._raw
        if raw is not None:
            await self._owes(raw)
        if self._read is None:
            return
        if raw is None:
            self._owed_line("Reading the order\u2026")
        try:
            fetched = await self._read()
        except OrderdashError as error:
            self._today_unread = (
                f"today's rate is not known: the order could not be read now ({error.message})"
            )
            if raw is None:
                self._owed_line(f"The order could not be read: {error.message}")
            self._work_out()
            return
        self._today, self._today_unread = fetched.order.exchange_rate, ""
        await self._owes(fetched.raw)

    async def _owes(self, raw: dict[str, Any]) -> None:
        self.owed, unreadable = await asyncio.to_thread(owed_of, raw)
        if unreadable:
            self._owed_line(f"Its figures cannot be read for a refund: {unreadable}")
        else:
            self._know()
        self.known = True
        self._work_out()

    def _know(self) -> None:
        owed = self.owed
        if owed is None:
            self._owed_line(
                "It owes nothing back: no excess, and no payment into an order that closed "
                "unpaid or after it expired."
            )
            return
        self._owed_line(
            f"Owes back {owed.words}: {amount_text(owed.coin_amount)} "
            f"{owed.coin.upper()} ({amount_text(owed.fiat_amount)} {owed.currency})"
        )

    def _owed_line(self, text: str) -> None:
        self.query_one("#resolve-owed", Static).update(_line(text))

    def _status(self, text: str, *, failed: bool = False) -> None:
        status = self.query_one("#resolve-status", Static)
        status.update(_line(text))
        status.set_class(failed, "-failed")

    # -- the refund, live -------------------------------------------------------------------

    @property
    def basis(self) -> str:
        return BASES[max(0, self.query_one("#resolve-basis", RadioSet).pressed_index)]

    @on(RadioSet.Changed, "#resolve-basis")
    @on(Input.Changed, "#resolve-rate, #resolve-fee")
    def _changed(self) -> None:
        self._work_out()

    def _work_out(self) -> None:
        """The refund for what is chosen and typed, or why there is none (one line)."""
        shown = self.query_one("#resolve-refund", Static)
        self.refund, self.refusal = None, ""
        try:
            self.refund = self._refund()
        except RefundRefused as refused:
            self.refusal = refused.message
            shown.update(_line(refused.message))
            shown.add_class("-refused")
            return
        shown.remove_class("-refused")
        shown.update(_line(f"Refund: {self.refund.text}" if self.refund else ""))

    def _refund(self) -> Refund | None:
        return typed_refund(
            self.owed,
            self.basis,
            rate=self.query_one("#resolve-rate", Input).value,
            fee=self.query_one("#resolve-fee", Input).value,
            today=self._today,
            today_unknown=self._today_unread,
        )

    def action_copy_refund(self) -> None:
        # said in the dialog's own line: toasts wait while a dialog is up (tui/notices.py)
        if self.refund is None:
            self._status("No refund worked out to copy.")
            return
        amount = amount_text(self.refund.record.amount)
        self.app.copy_to_clipboard(amount)
        self._status(f"Refund amount sent to the clipboard: {amount}")

    # -- confirm ----------------------------------------------------------------------------

    @on(Button.Pressed, "#resolve-confirm")
    def action_confirm(self) -> None:
        if self.written is not None:
            self.dismiss(self.written)
            return
        if self.writing:
            return
        if not self.known:
            self._status("The order is not known yet: nothing to resolve.", failed=True)
            return
        try:
            record = self._record()
        except OrderdashError as error:
            self._status(error.message, failed=True)
            return
        self.writing = True
        self._status("Writing it down\u2026")
        self._write(record)

    def _record(self) -> ResolutionRecord:
        reason = clean_reason(self.query_one("#resolve-reason", Input).value)
        chosen = self.query_one("#resolve-kind", RadioSet).pressed_index
        if chosen < 0:
            raise OrderdashError(
                "Choose what was done: " + ", ".join(KIND_WORDS[kind] for kind in RESOLUTION_KINDS)
            )
        kind = RESOLUTION_KINDS[chosen]
        self._work_out()
        if self.basis and self.refund is None:
            raise RefundRefused(self.refusal or "the refund cannot be worked out")
        refund = self.refund.record if self.refund is not None else None
        pending = self._pending
        if pending is not None and (pending.kind, pending.reason, pending.refund) == (
            kind,
            reason,
            refund,
        ):
            return pending  # a retry of the write that failed: the same id
        self._pending = new_resolution(
            self.token, kind, reason, till=self._till, operator=self._operator, refund=refund
        )
        return self._pending

    @work(group="resolve-write", exclusive=True, exit_on_error=False)
    async def _write(self, record: ResolutionRecord) -> None:
        try:
            written = await self._writer.resolution_made(record)
        except LedgerError as error:
            self._status(f"Not written: {error.message} (confirm again to retry)", failed=True)
            return
        except Exception as error:  # never the app's end: said, and the dialog stays
            log.exception("resolution %s not written", record.id)
            self._status(f"Not written: {type(error).__name__}", failed=True)
            return
        finally:
            self.writing = False
        self.written = written
        self._pending = None
        self._status(resolution_line(written, self._zone))
        self.query_one("#resolve-confirm", Button).label = "Done"
        self.query_one("#resolve-cancel", Button).display = False

    @on(Button.Pressed, "#resolve-copy")
    def _copy_pressed(self) -> None:
        self.action_copy_refund()

    @on(Button.Pressed, "#resolve-cancel")
    def action_cancel(self) -> None:
        if self.writing:
            # the ledger's thread commits whatever happens here: leaving now would hide whether
            # the resolution was written
            self._status("Writing it down\u2026 (wait)")
            return
        self.dismiss(self.written)
