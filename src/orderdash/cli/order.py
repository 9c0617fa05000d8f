"""`orderdash get` and `orderdash rates`: one order, read once, for a script or a person.

Loads no textual, qrcode nor simulator; `get` asks without an event loop.
"""

from __future__ import annotations

import argparse
from typing import Any

from orderdash.cli.options import _load_settings
from orderdash.cli.render import OrderRead

#: How long `get` waits for a PostgreSQL ledger to note the order it read.
LEDGER_CONNECT_SECONDS = 2


def _run_one_shot(args: argparse.Namespace, *, rates: bool) -> OrderRead:
    from orderdash.core.service.client import OrderClient
    from orderdash.core.service.tokens import normalize_token

    settings, _ = _load_settings(args)
    token = normalize_token(args.token)
    client = OrderClient.from_settings(settings)
    if rates:
        import asyncio

        async def fetch() -> Any:
            async with client:
                return await client.refresh_rate(token)

        fetched = asyncio.run(fetch())
    else:
        # one request and out: no event loop (see OrderClient.get_order_now)
        fetched = client.get_order_now(token)
    _write_seen(settings, fetched)
    return OrderRead(fetched, asked=token)


def _write_seen(settings: Any, fetched: Any) -> None:
    """The order read, in the ledger (docs/books.md); a ledger that cannot be written is a
    warning only: the read itself is done."""
    import sys
    from datetime import UTC, datetime

    from orderdash.core.ledger import LedgerError
    from orderdash.core.ledger.open import open_book
    from orderdash.core.model.jsontext import dumps

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
