"""`orderdash resolve TOKEN --as KIND --reason TEXT [--refund-at ...] [--fee ...]`: a person's
word on an order that needed one, written to the ledger (`core/usecases/resolve.py`).

The order is read once (getOrder, within the command's budget): an unknown token is refused,
and a refund is worked out from what it owes (`core/books/refund.py`; today's rate is that
order's `exchangeRate` as read, as in the dashboard's dialog). Nothing is sent to the service:
it has no endpoint for a resolution. Refused in read-only, before anything is read or written.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from orderdash.cli.settings import settings_from_args
from orderdash.core.ledger import ResolutionRecord
from orderdash.core.model.results import Fetched
from orderdash.core.service.client import OrderClient
from orderdash.core.usecases.resolve import (
    ResolutionJSON,
    ResolveOptions,
    ask,
    book_writer,
    resolution_json,
    resolve,
)

if TYPE_CHECKING:
    from orderdash.core.usecases.reads import BookOpener


@dataclass(frozen=True, slots=True)
class Resolved:
    """What `resolve` prints: one line, or one JSON object with `--json`."""

    line: str
    record: ResolutionRecord
    exit_code: int = 0

    def notes(self) -> list[str]:
        return []

    def json(self) -> ResolutionJSON:
        return resolution_json(self.record)

    def text(self) -> list[str]:
        return [self.line]

    def empty(self) -> str | None:
        return None


def run_resolve(args: argparse.Namespace, open_book: BookOpener | None = None) -> Resolved:
    settings, _ = settings_from_args(args)
    options = ResolveOptions.from_settings(settings)
    # everything typed is checked before anything is read or written
    asked = ask(options, args.token, args.kind, args.reason, refund_at=args.refund_at, fee=args.fee)
    orders_gate, private_gate = options.gates()
    # the book the other commands open, in the writer's thread
    writer = book_writer(settings, open_book)

    async def run() -> Resolved:
        await writer.open()  # a ledger that cannot be opened: nothing is read
        try:
            async with OrderClient.from_settings(settings) as client:
                client.on_extra_private_request = private_gate.spent  # the log-in
                client.on_order_read = lambda fetched: writer.saw(fetched.order.token, fetched.raw)

                async def read(token: str) -> Fetched:
                    await orders_gate.take_turn()
                    return await client.get_order(token)

                done = await resolve(asked, options, read=read, writer=writer)
                return Resolved(done.line, done.record)
        finally:
            left = await writer.aclose()  # after a Ctrl-C, waiting for it briefly only
            if left:
                print(f"orderdash: {left}", file=sys.stderr)

    return asyncio.run(run())
