"""`orderdash resolve TOKEN --as KIND --reason TEXT [--refund-at ...] [--fee ...]`: a person's
word on an order that needed one, written to the ledger (`core/books/resolve.py`).

The order is read once (getOrder, within the command's budget): an unknown token is refused,
and a refund is worked out from what it owes (`core/books/refund.py`; today's rate is that
order's `exchangeRate` as read, as in the dashboard's dialog). Nothing is sent to the service:
it has no endpoint for a resolution. Refused in read-only, before anything is read or written.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from orderdash.cli.settings import settings_from_args


@dataclass(frozen=True, slots=True)
class Resolved:
    """What `resolve` prints: one line, or one JSON object with `--json`."""

    line: str
    record: Any
    exit_code: int = 0

    def notes(self) -> list[str]:
        return []

    def json(self) -> Any:
        from orderdash.core.books.report import refund_entry

        record = self.record
        return {
            "id": record.id,
            "token": record.token,
            "kind": record.kind,
            "reason": record.reason,
            "till": record.till,
            "operator": record.operator,
            "at": record.at.isoformat(),
            "refund": refund_entry(record.refund),
        }

    def text(self) -> list[str]:
        return [self.line]

    def empty(self) -> str | None:
        return None


def run_resolve(args: argparse.Namespace) -> Resolved:
    import asyncio
    from decimal import Decimal

    from orderdash.core.books.period import zone_named
    from orderdash.core.books.refund import RefundRefused, typed_decimal
    from orderdash.core.books.resolve import (
        check_kind,
        clean_reason,
        refund_basis,
        resolution_line,
    )
    from orderdash.core.books.run import gates, open_book
    from orderdash.core.ledger.writer import BookWriter
    from orderdash.core.model.errors import UsageError
    from orderdash.core.service.tokens import normalize_token

    settings, _ = settings_from_args(args)
    # everything typed is checked before anything is read or written
    token = normalize_token(args.token)
    kind = check_kind(args.kind)
    reason = clean_reason(args.reason)
    basis, rate = (None, None)
    if args.refund_at is not None or args.fee is not None:
        basis, rate = refund_basis(args.refund_at or "payment")
    fee = typed_decimal(args.fee, "fee") if args.fee is not None else Decimal(0)
    if basis == "today" and settings.bearer_token is None and settings.access_token is None:
        raise RefundRefused(
            "today's rate comes from the rate endpoint, which needs the bearer token or the "
            "access token: give one, or type the rate (--refund-at RATE)"
        )
    try:
        zone = zone_named(settings.timezone)
    except UsageError:
        zone = None
    orders_gate, private_gate = gates(settings)
    # the book the other commands open (`core/books/run.py`), in the writer's thread
    writer = BookWriter(lambda: open_book(settings), settings.till)

    async def run() -> Any:
        await writer.open()  # a ledger that cannot be opened: nothing is read
        try:
            async with _client(settings) as client:
                client.on_extra_private_request = private_gate.spent  # the log-in
                client.on_order_read = lambda fetched: writer.saw(fetched.order.token, fetched.raw)
                await orders_gate.take_turn()
                fetched = await client.get_order(token)
                refund = None
                if basis is not None:
                    refund = _refund(fetched, basis, rate, fee)
                from orderdash.core.books.resolve import new_resolution

                record = new_resolution(
                    fetched.order.token,
                    kind,
                    reason,
                    till=settings.till,
                    operator=settings.operator,
                    refund=refund,
                )
                return await writer.resolution_made(record)
        finally:
            left = await writer.aclose()  # after a Ctrl-C, waiting for it briefly only
            if left:
                import sys

                print(f"orderdash: {left}", file=sys.stderr)

    record = asyncio.run(run())
    return Resolved(resolution_line(record, zone), record)


def _client(settings: Any) -> Any:
    from orderdash.core.service.client import OrderClient

    return OrderClient.from_settings(settings)


def _refund(fetched: Any, basis: str, rate: Any, fee: Any) -> Any:
    """The refund of the order read (RefundRefused, one line, when it owes nothing back)."""
    from orderdash.core.books.orders import BadOrder, read_order
    from orderdash.core.books.refund import RefundRefused, owed_by, work_out
    from orderdash.core.safetext import clean

    try:
        owed = owed_by(read_order(fetched.raw))
    except BadOrder as error:
        raise RefundRefused(f"the order cannot be read for a refund: {error}") from None
    if owed is None:
        raise RefundRefused(
            f"order {clean(fetched.order.token, limit=60)} has no excess and no payment "
            "to give back"
        )
    if basis == "today":
        # the order's rate as just read, as the dialog takes it (docs/books.md "Resolutions")
        rate = fetched.order.exchange_rate
    return work_out(owed, basis, rate=rate, fee=fee).record
