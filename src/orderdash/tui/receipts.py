"""Receipts at the counter. `P` prints the receipt of an order (the point of sale: the order on
screen; the dashboard: the highlighted row's order, else the open one) through the receipt use
case (`core/usecases/receipt.py`): the original the first time, a reprint (the same receipt and
one REPRINT line) once the original is on paper. With `receipt_auto` the point of sale prints
the original by itself, once, when the order on its screen becomes paid (or is accepted at the
counter); with several tills on one book the ledger's claim of the original decides who prints
it, and the others print nothing and say nothing.

The ledger and the printer are used in a thread, never on the event loop, and nothing waits for
them: a sale goes on while a receipt prints. A printer that is off, out of paper or unreachable
is one line (`T` tries again: every receipt that failed, whatever order is on screen now).

`Receipts` holds no App: it is given the settings, the state, the printer (`Printer`: the use
case, opened on the book in the worker's thread) and what it tells through. The use case is
imported at the first print, off the start-up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal, Protocol

from orderdash.core.domain.payment import PAID
from orderdash.core.model.errors import OrderdashError
from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.domain.payment import PaymentState
    from orderdash.core.settings.model import Settings
    from orderdash.core.usecases.reads import BookOpener
    from orderdash.core.watching.state import DashboardState
    from orderdash.tui.ui import Notify, RunWorker

#: `P` (or `receipt_auto`) with no printer set.
NO_PRINTER = "No receipt printer: set receipt_printer (a device, host:port or a file)."

#: How long the dashboard's line about a receipt that failed stays up (the retry key stays on
#: until it printed).
FAILED_SECONDS = 30

Outcome = Literal["printed", "reprinted", "elsewhere", "failed", "refused"]


class Printed:
    """What became of one receipt: printed (or reprinted), printed by another till (it holds the
    original), the printer failed, or refused (the order is not paid); `message` is the one
    line that says why, for the last two."""

    __slots__ = ("message", "outcome")

    def __init__(self, outcome: Outcome, message: str = "") -> None:
        self.outcome: Outcome = outcome
        self.message = message


#: Who asks for a receipt, as the ledger's journal names it: the point of sale (its key, or by
#: itself) or the dashboard.
By = Literal["pos", "dashboard"]


class Printer(Protocol):
    """Prints `token`'s receipt (a reprint when `reprint`) for `by`, blocking: called in a
    thread."""

    def __call__(self, token: str, *, reprint: bool, by: By) -> Printed: ...


def receipt_printer(settings: Settings, open_book: BookOpener | None, language: str) -> Printer:
    """The receipt use case on the shop's book (`open_book`, else the ledger the settings name),
    in the customer's `language`: the book is opened in the calling thread and closed after."""

    def print_one(token: str, *, reprint: bool, by: By) -> Printed:
        from orderdash.core.ledger import LedgerError
        from orderdash.core.usecases import receipt
        from orderdash.core.usecases.reads import ledger_book

        try:
            options = receipt.ReceiptOptions.from_settings(settings, by=by, language=language)
            book = (open_book or ledger_book)(settings)
        except LedgerError as error:  # the ledger out of reach: `T` tries again
            return Printed("failed", error.message)
        except OrderdashError as error:  # a setting the receipt cannot take
            return Printed("refused", error.message)
        try:
            result = receipt.print_receipt(book, token, options, reprint=reprint)
        except LedgerError as error:
            return Printed("failed", error.message)
        except OrderdashError as error:  # not paid or not read yet, no printer, no extra
            return Printed("refused", error.message)
        finally:
            book.close_connection()
        if result.outcome == receipt.ALREADY_PRINTED:
            return Printed("elsewhere", result.line)
        if result.outcome == receipt.PRINTER_FAILED:
            return Printed("failed", result.line)
        return Printed("reprinted" if reprint else "printed")

    return print_one


class _Job:
    """One receipt asked for: the order, a reprint or the original, who asks, and whether the
    point of sale asked by itself (`receipt_auto`)."""

    __slots__ = ("auto", "by", "reprint", "retried", "token")

    def __init__(self, token: str, *, reprint: bool, by: By, auto: bool = False) -> None:
        self.token, self.reprint, self.by, self.auto = token, reprint, by, auto
        #: Asked again by `T`: what becomes of it is news whatever order is on screen now.
        self.retried = False


class Receipts:
    def __init__(
        self,
        settings: Settings,
        state: DashboardState,
        *,
        printer: Printer,
        written: Callable[[], Awaitable[object]],
        run_worker: RunWorker,
        notify: Notify,
        facing: Callable[[], bool],
        line_changed: Callable[[tuple[str, str]], None],
    ) -> None:
        """`printer` prints one receipt (in a worker's thread) once `written` says the orders
        read so far are in the book (the receipt is made from the book alone); what happened is
        told through `notify`, or, while the customer's screen is up (`facing`), only on its
        staff line: `line_changed` is given (the order it is about, the line)."""
        self._settings, self._state = settings, state
        self._printer, self._written = printer, written
        self._run_worker, self._notify = run_worker, notify
        self._facing, self._line_changed = facing, line_changed
        #: Orders whose receipt is printing now: a second `P` meanwhile is not a reprint.
        self._printing: set[str] = set()
        #: Receipts the printer failed, by order, for `T`.
        self.failed: dict[str, _Job] = {}
        #: What was said of each of them, the newest last.
        self._failures: dict[str, str] = {}
        #: Orders the point of sale showed unpaid: printed by themselves when they become paid.
        self._unpaid_seen: set[str] = set()
        #: Orders whose original was printed by themselves (or tried) in this process.
        self._auto_done: set[str] = set()

    # -- the keys --------------------------------------------------------------------------------

    def print(self, token: str | None, *, by: By) -> None:
        """`P`: `token`'s receipt, the original unless it is on paper already (then a reprint);
        refused in one line for an order not paid (as far as this till knows; the use case
        checks it against the book)."""
        if self._settings.readonly:  # (its key is off already)
            return
        if not token:
            self._tell("", "No order to print a receipt for: choose one first.")
            return
        entry = self._state.entries.get(token)
        payment = entry.payment if entry is not None else None
        if payment is not None and payment.phase not in PAID:
            state = payment.phase.value
            self._tell(token, f"No receipt for {_named(token)}: it is not paid ({state}).")
            return
        if not self._settings.receipt_printer:
            self._tell(token, NO_PRINTER)
            return
        self._start(_Job(token, reprint=False, by=by))

    def retry(self) -> None:
        """`T`: every receipt the printer failed, printed again (as it was asked: an original or
        a reprint)."""
        for job in list(self.failed.values()):
            job.retried = True
            self._start(job)

    def on_pos(self, token: str, payment: PaymentState) -> None:
        """The point of sale shows `token` in `payment`'s state: with `receipt_auto`, an order
        seen unpaid there is printed once it becomes paid (the original only: the ledger's claim
        makes it once on the book)."""
        if not self._settings.receipt_auto or self._settings.readonly:
            return
        if payment.phase not in PAID:
            self._unpaid_seen.add(token)
        elif token in self._unpaid_seen and token not in self._auto_done:
            self._unpaid_seen.discard(token)
            self._auto_done.add(token)
            if not self._settings.receipt_printer:
                self._tell(token, NO_PRINTER)
                return
            self._start(_Job(token, reprint=False, by="pos", auto=True))

    # -- the work, in a thread -------------------------------------------------------------------

    def _start(self, job: _Job) -> None:
        if job.token in self._printing:
            return
        self._printing.add(job.token)
        self._run_worker(self._print(job), group="receipt", exit_on_error=False)

    async def _print(self, job: _Job) -> None:
        try:
            await self._written()
            printed = await asyncio.to_thread(self._print_blocking, job)
        except OrderdashError as error:  # the ledger: one line, and `T` tries again
            printed = Printed("failed", error.message)
        except Exception as error:  # never the app's end
            printed = Printed("failed", type(error).__name__)
        finally:
            self._printing.discard(job.token)
        self._printed(job, printed)

    def _print_blocking(self, job: _Job) -> Printed:
        printed = self._printer(job.token, reprint=job.reprint, by=job.by)
        if printed.outcome == "elsewhere" and not job.auto:
            # the original is on paper already (here or at another till): the person asked for
            # paper, a reprint it is
            printed = self._printer(job.token, reprint=True, by=job.by)
        return printed

    def _printed(self, job: _Job, printed: Printed) -> None:
        token = job.token
        named = _named(token)
        about = "" if job.retried else token  # (the line's order; "": whichever is on screen)
        if printed.outcome != "failed":
            self.failed.pop(token, None)
            self._failures.pop(token, None)
        match printed.outcome:
            case "printed" | "reprinted":
                self._tell(about, f"Receipt {printed.outcome}: {named}.")
            case "elsewhere":  # the original is another till's: nothing to say
                self._line_changed((about, ""))
            case "refused":
                self._tell(about, f"No receipt for {named}: {printed.message}")
            case "failed":
                self.failed[token] = job
                text = f"Receipt for {named} not printed: {printed.message} \u00b7 T tries again"
                self._failures.pop(token, None)
                self._failures[token] = text
                self._tell(about, text, failure=True)

    def waiting(self) -> str:
        """The line of the newest receipt the printer failed and `T` has not printed yet ("":
        none): the point of sale keeps it up while other orders come and go."""
        return next(reversed(self._failures.values()), "")

    def _tell(self, token: str, text: str, *, failure: bool = False) -> None:
        """One line: on the customer's screen's staff line while it is up, else a toast; a
        failure is a toast too (held while the customer's screen is up, told on the way back)."""
        self._line_changed((token, text))
        if failure:
            self._notify(
                text, title="Receipt", severity="error", timeout=FAILED_SECONDS, markup=False
            )
        elif not self._facing():
            self._notify(text, title="Receipt", timeout=4, markup=False)


def _named(token: str) -> str:
    return clean(token, limit=40)


class HasReceipts(Protocol):
    """The App as the point of sale reaches the receipts (`make_app` gives it its own)."""

    receipts: Receipts
