"""`orderdash receipt TOKEN [--width 32|42|48] [--language L] [--escpos FILE] [--reprint]`: a
paid order's receipt from the ledger (`core/usecases/receipt.py`). Nothing is asked of the
service. Without a printer (the `receipt_printer` setting) and without `--escpos` the text is
printed to stdout; an order the ledger has not read exits 3, one not paid 2, in one line.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from orderdash.cli.settings import settings_from_args
from orderdash.core.model.errors import EXIT_OK
from orderdash.core.service.tokens import normalize_token
from orderdash.core.usecases.reads import ledger_book
from orderdash.core.usecases.receipt import ReceiptOptions, receipt_text

if TYPE_CHECKING:
    from orderdash.core.usecases.reads import BookOpener


def run_receipt(args: argparse.Namespace, open_book: BookOpener | None = None) -> int:
    settings, _ = settings_from_args(args)
    token = normalize_token(args.token)
    options = ReceiptOptions.from_settings(
        settings, by="cli", width=args.width, language=args.language
    )
    if args.tz:
        options = options.with_zone(args.tz)
    book = (open_book or ledger_book)(settings)
    try:
        sys.stdout.write(receipt_text(book, token, options))
    finally:
        book.close_connection()
    return EXIT_OK
