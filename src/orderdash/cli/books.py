"""The books' commands (they need the access token): `orderdash close`, the close of day, and
`orderdash export`, a period's orders or payments as CSV or JSON lines."""

from __future__ import annotations

import argparse
from typing import Any

from orderdash.cli.options import _load_settings
from orderdash.cli.render import CloseShown, ExportLines


def _period(args: argparse.Namespace, settings: Any, *, default_today: bool) -> Any:
    from datetime import datetime

    from orderdash.core.books.period import choose_period, zone_named

    zone = zone_named(args.tz or settings.timezone)
    today = datetime.now(zone).date() if default_today else None
    return choose_period(
        day=getattr(args, "day", None), since=args.since, until=args.until, zone=zone, today=today
    )


def _needs_account(settings: Any, command: str) -> None:
    if settings.access_token is None and settings.bearer_token is None:
        from orderdash.core.service.errors import AuthRequired

        raise AuthRequired(
            f"{command} reads the order history: it needs the access token (access_token_file)"
        )


def _run_close(args: argparse.Namespace) -> CloseShown:
    import asyncio

    from orderdash.core.books.close import ALL_TILLS
    from orderdash.core.books.run import close_with, gates, open_book
    from orderdash.core.service.client import OrderClient

    settings, _ = _load_settings(args)
    period = _period(args, settings, default_today=True)
    _needs_account(settings, "close")
    till = args.till if args.till else ALL_TILLS
    orders_gate, private_gate = gates(settings)
    book = open_book(settings)

    async def run() -> Any:
        async with OrderClient.from_settings(settings) as client:
            client.on_extra_private_request = private_gate.spent  # the log-in
            return await close_with(
                client,
                book,
                settings,
                period,
                till=till,
                dry_run=args.dry_run,
                order_gate=orders_gate,
                private_gate=private_gate,
            )

    try:
        result = asyncio.run(run())
    finally:
        book.close_connection()
    return CloseShown(result, fmt="csv" if args.csv else "json" if args.json else "text")


def _run_export(args: argparse.Namespace) -> ExportLines:
    import asyncio

    from orderdash.core.books.export import export_lines
    from orderdash.core.books.gather import gather
    from orderdash.core.books.run import gates, open_book, till_name
    from orderdash.core.service.client import OrderClient

    settings, _ = _load_settings(args)
    period = _period(args, settings, default_today=False)
    _needs_account(settings, "export")
    orders_gate, private_gate = gates(settings)
    book = open_book(settings)

    async def run() -> Any:
        async with OrderClient.from_settings(settings) as client:
            client.on_extra_private_request = private_gate.spent
            return await gather(
                client,
                book,
                period,
                till=till_name(settings),
                order_gate=orders_gate,
                private_gate=private_gate,
                concurrency=settings.concurrency,
                max_pages=settings.history_max_pages,
            )

    try:
        gathered = asyncio.run(run())
    finally:
        book.close_connection()
    lines = export_lines(gathered.orders, period, table=args.table, fmt=args.format)
    return ExportLines(lines, warnings=gathered.warnings, missing=gathered.missing)
