"""`orderdash receipt TOKEN [--width 32|42|48] [--language L] [--escpos FILE] [--reprint]`: a
paid order's receipt from the ledger (`core/usecases/receipt.py`). Nothing is asked of the
service. Without a printer (the `receipt_printer` setting) and without `--escpos` the text is
printed to stdout; else the ESC/POS bytes go to the printer (or the file), journaled, and one
line says so on stderr. An order the ledger has not read exits 3, one not paid 2, an original
printed already 2, a printer that does not take the receipt 5: one line each.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from orderdash.cli.settings import settings_from_args
from orderdash.core.model.errors import EXIT_OK, EXIT_SERVICE, EXIT_USAGE, UsageError
from orderdash.core.service.tokens import normalize_token
from orderdash.core.usecases.reads import ledger_book
from orderdash.core.usecases.receipt import (
    ALREADY_PRINTED,
    PRINTED,
    ReceiptOptions,
    print_receipt,
    receipt_text,
)

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
    escpos = Path(args.escpos) if args.escpos else None
    if escpos is None and options.printer is None and args.reprint:
        raise UsageError("a reprint is printed: set receipt_printer or give --escpos FILE")
    book = (open_book or ledger_book)(settings)
    try:
        if escpos is None and options.printer is None:
            sys.stdout.write(receipt_text(book, token, options))
            return EXIT_OK
        result = print_receipt(book, token, options, reprint=args.reprint, escpos_file=escpos)
    finally:
        book.close_connection()
    print(f"orderdash: {result.line}", file=sys.stderr)
    if result.outcome == PRINTED:
        return EXIT_OK
    return EXIT_USAGE if result.outcome == ALREADY_PRINTED else EXIT_SERVICE
