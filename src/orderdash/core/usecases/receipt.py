"""A receipt for a paid order, once for the command (`orderdash receipt`) and the point of
sale's and the dashboard's keys: read from the ledger alone (`core/books/receipt.py`), laid
out at 32, 42 or 48 columns in the customer's language (`core/books/receipt_text.py`), printed
as ESC/POS bytes (`core/books/receipt_escpos.py`, the `receipt` extra) and journaled in the
ledger (`core/ledger/receipts.py`): the original printed once per order whichever process asks,
a reprint the same bytes with one REPRINT line added.

Every call blocks (the ledger, the printer): a front end runs it in a thread worker. Nothing
raises but `OrderdashError` (one line: `UnknownOrder`, `NoReceipt`, a ledger's `LedgerError`)
and `print_receipt` says a printer's failure in its result, never as an exception.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.books.period import zone_named
from orderdash.core.books.receipt import NoReceipt, Receipt, UnknownOrder, receipt_of
from orderdash.core.books.receipt_escpos import (
    EXTRA_MISSING,
    Printer,
    PrinterFailed,
    ReceiptExtraMissing,
    digest_of,
    escpos_bytes,
    send,
)
from orderdash.core.books.receipt_text import WIDTHS, receipt_lines, reprint_line
from orderdash.core.customer.catalogue import catalogue, resolve_language
from orderdash.core.ledger import OriginalAsked
from orderdash.core.model.errors import UsageError
from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from pathlib import Path

    from orderdash.core.ledger import Book
    from orderdash.core.settings.model import Settings

__all__ = [
    "ALREADY_PRINTED",
    "EXTRA_MISSING",
    "PRINTED",
    "PRINTER_FAILED",
    "TOOLS",
    "WIDTHS",
    "NoReceipt",
    "PrintResult",
    "Receipt",
    "ReceiptExtraMissing",
    "ReceiptOptions",
    "UnknownOrder",
    "print_receipt",
    "receipt_text",
]

#: Who prints: the tool a journal line names with the till.
TOOLS = ("cli", "pos", "dashboard")


@dataclass(frozen=True)
class ReceiptOptions:
    """How a receipt is made: `width` in columns (one of WIDTHS), the customer's `language`
    (one of the catalogues), the `till` printing and the tool (`by`: cli, pos, dashboard), the
    `printer` (the `receipt_printer` setting; None: none), the `shop` name ("": the order's
    company), the payment `tolerance` (percent) and the store's time `zone` (an IANA name; None:
    this machine's)."""

    width: int = 42
    language: str = "en"
    till: str = "till"
    by: str = "cli"
    printer: str | None = None
    shop: str = ""
    tolerance: Decimal = Decimal(0)
    zone: str | None = None

    def __post_init__(self) -> None:
        if self.width not in WIDTHS:
            raise UsageError(f"a receipt is 32, 42 or 48 columns wide, not {self.width}")
        if self.by not in TOOLS:
            raise ValueError(f"a receipt is printed by {', '.join(TOOLS)}, not {self.by!r}")

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        by: str,
        width: int | None = None,
        language: str | None = None,
    ) -> ReceiptOptions:
        """The settings' receipt options; `width` and `language` override theirs (the
        language setting's `auto` follows LANG)."""
        return cls(
            width=width or 42,
            language=resolve_language(language or settings.language, os.environ),
            till=str(settings.till),
            by=by,
            printer=settings.receipt_printer,
            shop=settings.shop_name,
            tolerance=settings.underpaid_tolerance,
            zone=settings.timezone,
        )

    def with_zone(self, zone: str) -> ReceiptOptions:
        """The same options in the store's time `zone` (an IANA name), checked now."""
        zone_named(zone)
        return replace(self, zone=zone)


def _receipt_of_book(book: Book, token: str, options: ReceiptOptions) -> Receipt:
    """The order's receipt from `book` (its newest read, its resolutions, the till its charge
    was made at): UnknownOrder, NoReceipt."""
    seen = book.orders_seen([token])
    charge = book.charge(token)
    return receipt_of(
        seen[0] if seen else None,
        book.resolutions_of([token]),
        shop=options.shop,
        till=charge.till if charge is not None else options.till,
        tolerance=options.tolerance,
        token=token,
    )


def _render_lines(receipt: Receipt, options: ReceiptOptions) -> list[str]:
    return receipt_lines(
        receipt,
        width=options.width,
        words=catalogue(options.language),
        zone=zone_named(options.zone),
    )


def receipt_text(book: Book, token: str, options: ReceiptOptions) -> str:
    """The receipt of the order `token` as plain text (lines of at most `options.width`
    cells, each ending in a newline), from the ledger alone: UnknownOrder (exit 3) when it has
    no read of the order, NoReceipt (exit 2) when the order is not paid."""
    lines = _render_lines(_receipt_of_book(book, token, options), options)
    return "".join(f"{line}\n" for line in lines)


#: What became of a print (`PrintResult.outcome`).
PRINTED = "printed"
ALREADY_PRINTED = "already_printed"
PRINTER_FAILED = "printer_failed"


@dataclass(frozen=True)
class PrintResult:
    """What became of a print: `outcome` (PRINTED, ALREADY_PRINTED: another print of the
    original holds it, PRINTER_FAILED: a retry sends the same bytes), one `line` to show, the
    SHA-256 `digest` of the bytes (sent, or the original's) and the `copy` (original, reprint)."""

    outcome: str
    line: str
    digest: str
    copy: str

    @property
    def ok(self) -> bool:
        return self.outcome == PRINTED


def print_receipt(
    book: Book,
    token: str,
    options: ReceiptOptions,
    *,
    reprint: bool,
    escpos_file: Path | None = None,
) -> PrintResult:
    """Print the receipt of the order `token` as ESC/POS to `escpos_file`, else to
    `options.printer`, journaled in `book`. The original (`reprint` False) is claimed in the
    ledger before it is sent, so that it prints once whichever process asks; after a failed
    send the next print sends the same bytes. A reprint (`reprint`) is the original's bytes
    with one REPRINT line added. Raises (one line) UnknownOrder, NoReceipt, UsageError (no
    printer), ReceiptExtraMissing, LedgerError; a printer that fails is a PrintResult."""
    if escpos_file is not None:
        printer = Printer(path=str(escpos_file))
    elif options.printer:
        printer = Printer.named(options.printer)
    else:
        raise UsageError(
            "no printer: set receipt_printer (a device, host:port or a file) or give --escpos FILE"
        )
    if reprint:
        return _reprint(book, token, options, printer)
    receipt = _receipt_of_book(book, token, options)
    lines = _render_lines(receipt, options)
    data = escpos_bytes(lines)  # without the extra: refused before anything is claimed
    claim = book.claim_receipt(
        OriginalAsked(
            token=receipt.token,
            text="\n".join(lines),
            width=options.width,
            language=options.language,
            digest=digest_of(data),
            till=options.till,
            tool=options.by,
            at=datetime.now(UTC),
        )
    )
    shown = clean(token, limit=60)
    if not claim.held:
        where = f"at {claim.till} ({claim.tool})"
        line = (
            f"the receipt of order {shown} was printed already {where}: a reprint prints a copy"
            if claim.state == "printed"
            else f"the receipt of order {shown} is being printed {where}"
        )
        return PrintResult(ALREADY_PRINTED, line, claim.digest, "original")
    # a retry after a failed send: the original's lines as first claimed, the same bytes
    data = escpos_bytes(claim.text.split("\n"))
    return _send(book, token, claim.attempt, data, printer, "original")


def _reprint(book: Book, token: str, options: ReceiptOptions, printer: Printer) -> PrintResult:
    shown = clean(token, limit=60)
    original = book.original_receipt(token)
    if original is None:
        raise NoReceipt(f"order {shown}: no receipt was printed yet: print the original first")
    if original.state != "printed":
        raise NoReceipt(
            f"order {shown}: its original receipt has not printed ({original.state}): print "
            "it again, without a reprint"
        )
    extra = reprint_line(catalogue(original.language), original.width)
    data = escpos_bytes(original.text.split("\n"), extra=extra)
    attempt = book.receipt_reprinted(
        token, options.till, options.by, digest_of(data), datetime.now(UTC)
    )
    return _send(book, token, attempt, data, printer, "reprint")


def _send(
    book: Book, token: str, attempt: str, data: bytes, printer: Printer, copy: str
) -> PrintResult:
    digest = digest_of(data)
    try:
        send(data, printer)
    except PrinterFailed as failed:
        book.receipt_ended(token, attempt, "failed", failed.message, datetime.now(UTC))
        return PrintResult(PRINTER_FAILED, failed.message, digest, copy)
    book.receipt_ended(token, attempt, "printed", "", datetime.now(UTC))
    what = "a reprint of the receipt" if copy == "reprint" else "the receipt"
    line = f"{what} of order {clean(token, limit=60)} printed on {printer}"
    return PrintResult(PRINTED, line, digest, copy)
