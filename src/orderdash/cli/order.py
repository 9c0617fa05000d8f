"""`orderdash get`: one order, read once, for a script or a person (and what `rates` shares
with it: the settings, the token, the ledger's note of the order read).

Loads no textual, qrcode nor simulator; `get` asks without an event loop.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, datetime

from orderdash.cli.render_order import OrderRead
from orderdash.cli.settings import settings_from_args
from orderdash.core.ledger import LedgerError
from orderdash.core.ledger.open import open_book
from orderdash.core.model.jsontext import dumps
from orderdash.core.model.results import Fetched
from orderdash.core.service.client import OrderClient
from orderdash.core.service.tokens import normalize_token
from orderdash.core.settings.model import Settings

#: How long `get` waits for a PostgreSQL ledger to note the order it read.
LEDGER_CONNECT_SECONDS = 2


def run_get(args: argparse.Namespace) -> OrderRead:
    # one request and out: no event loop (see OrderClient.get_order_now)
    return read_once(args, OrderClient.get_order_now)


def read_once(args: argparse.Namespace, fetch: Callable[[OrderClient, str], Fetched]) -> OrderRead:
    """The order of the command line's token, read once by `fetch`, and noted in the ledger."""
    settings, _ = settings_from_args(args)
    token = normalize_token(args.token)
    fetched = fetch(OrderClient.from_settings(settings), token)
    write_seen(settings, fetched)
    return OrderRead(fetched, asked=token)


def write_seen(settings: Settings, fetched: Fetched) -> None:
    """The order read, in the ledger (docs/books.md); a ledger that cannot be written is a
    warning only: the read itself is done."""
    try:
        # the read is done: a ledger server that is away delays its answer a little only
        book = open_book(settings, connect_seconds=LEDGER_CONNECT_SECONDS)
        try:
            at = datetime.now(UTC)
            book.order_seen(fetched.order.token, settings.till, at, dumps(fetched.raw))
        finally:
            book.close_connection()
    except (LedgerError, TypeError, ValueError) as error:
        message = error.message if isinstance(error, LedgerError) else "not JSON text"
        print(f"orderdash: warning: the order was not written down: {message}", file=sys.stderr)
