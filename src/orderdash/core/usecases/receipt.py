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
from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.books.period import zone_named
from orderdash.core.books.receipt import NoReceipt, Receipt, UnknownOrder, receipt_of
from orderdash.core.books.receipt_text import WIDTHS, receipt_lines
from orderdash.core.customer.catalogue import catalogue, resolve_language

if TYPE_CHECKING:
    from orderdash.core.ledger import Book
    from orderdash.core.settings.model import Settings

__all__ = [
    "WIDTHS",
    "NoReceipt",
    "Receipt",
    "ReceiptOptions",
    "UnknownOrder",
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


def receipt_of_book(book: Book, token: str, options: ReceiptOptions) -> Receipt:
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


def render_lines(receipt: Receipt, options: ReceiptOptions) -> list[str]:
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
    lines = render_lines(receipt_of_book(book, token, options), options)
    return "".join(f"{line}\n" for line in lines)
