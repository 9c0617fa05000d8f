"""The books' commands (they need the access token): `orderdash close`, the close of day,
`orderdash export`, a period's orders or payments as CSV or JSON lines, and `orderdash
attention`, the orders of the last days that need a human."""

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
        from orderdash.core.model.errors import AuthRequired

        raise AuthRequired(
            f"{command} reads the order history: it needs the access token (access_token_file)"
        )


def _run_close(args: argparse.Namespace) -> CloseShown:
    import asyncio

    from orderdash.cli.progress import progress_for
    from orderdash.core.books.close import ALL_TILLS
    from orderdash.core.books.run import close_with, gates, open_book
    from orderdash.core.service.client import OrderClient

    settings, _ = _load_settings(args)
    period = _period(args, settings, default_today=True)
    _needs_account(settings, "close")
    till = args.till if args.till else ALL_TILLS
    orders_gate, private_gate = gates(settings)
    shown = progress_for("close", settings, orders_gate)
    book = open_book(settings)

    async def run() -> Any:
        async with OrderClient.from_settings(settings) as client, shown:
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
                progress=shown.orders,
                pages=shown.pages,
            )

    try:
        result = asyncio.run(run())
    finally:
        book.close_connection()
    return CloseShown(result, fmt="csv" if args.csv else "json" if args.json else "text")


def _run_export(args: argparse.Namespace) -> ExportLines:

    from orderdash.core.books.export import export_lines
    from orderdash.core.books.run import open_book

    settings, _ = _load_settings(args)
    period = _period(args, settings, default_today=False)
    _needs_account(settings, "export")
    book = open_book(settings)
    try:
        gathered = _gathered(settings, book, period, "export")
    finally:
        book.close_connection()
    lines = export_lines(gathered.orders, period, table=args.table, fmt=args.format)
    return ExportLines(lines, warnings=gathered.warnings, missing=gathered.missing)


def _gathered(settings: Any, book: Any, period: Any, what: str) -> Any:
    """The period's orders from the history and getOrder (the ledger's reads first), within the
    budgets, how far on stderr: what `export` and `attention` (`what`) show (`close` gathers in
    `core/books/run.py`)."""
    import asyncio

    from orderdash.cli.progress import progress_for
    from orderdash.core.books.gather import gather
    from orderdash.core.books.run import gates, till_name
    from orderdash.core.service.client import OrderClient

    orders_gate, private_gate = gates(settings)
    shown = progress_for(what, settings, orders_gate)

    async def run() -> Any:
        async with OrderClient.from_settings(settings) as client, shown:
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
                progress=shown.orders,
                pages=shown.pages,
            )

    return asyncio.run(run())


def _now() -> Any:
    """Now, for `attention`'s period and ages (tests put the simulator's clock here)."""
    from datetime import UTC, datetime

    return datetime.now(UTC)


def _run_attention(args: argparse.Namespace) -> Any:
    from datetime import timedelta

    from orderdash.cli.render import AttentionShown
    from orderdash.core.books.attention import needing_attention, resolution_times
    from orderdash.core.books.period import Period, zone_named
    from orderdash.core.books.run import open_book
    from orderdash.core.model.errors import UsageError

    settings, _ = _load_settings(args)
    if not 1 <= args.days <= 31:
        raise UsageError("--days is 1 to 31")
    _needs_account(settings, "attention")
    now = _now()
    period = Period(now - timedelta(days=args.days), now, zone_named(settings.timezone))
    book = open_book(settings)
    try:
        gathered = _gathered(settings, book, period, "attention")
        # the gathering reads a day before the period too (a close's look-back): only the period
        of_period = [o for o in gathered.orders if o.created_ms >= period.start_ms]
        # an order resolved in the ledger (`orderdash resolve`, `R`, any till) is no more listed,
        # unless it went wrong again after its latest resolution
        resolved = resolution_times(book.resolutions_of([o.token for o in of_period]))
    finally:
        book.close_connection()
    now_ms = int(_now().timestamp() * 1000)
    found = needing_attention(
        of_period,
        now_ms=now_ms,
        unconfirmed_after=settings.attention_unconfirmed_after,
        tolerance=settings.underpaid_tolerance,
        resolved=resolved,
        was=gathered.earlier,
    )
    return AttentionShown(
        found, now_ms, warnings=gathered.warnings, missing=gathered.missing, days=args.days
    )
