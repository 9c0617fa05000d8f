"""The books' commands (they need the access token): `orderdash close`, the close of day,
`orderdash export`, a period's orders or payments as CSV or JSON lines, and `orderdash
attention`, the orders of the last days that need a human. Each runs its use case
(`core/usecases`) through a client of its own, its reads paced by the command's budgets and
told on stderr, and renders what it returns."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from orderdash.cli.progress import Progress, progress_for
from orderdash.cli.render_books import AttentionShown, CloseShown, ExportLines
from orderdash.cli.settings import settings_from_args
from orderdash.core.model.errors import AuthRequired, UsageError
from orderdash.core.safetext import clean
from orderdash.core.service.client import OrderClient
from orderdash.core.usecases.attention import (
    AttentionOptions,
    attention_period,
    needing_attention_in,
)
from orderdash.core.usecases.close import ALL_TILLS, CloseOptions, close, closed_notice
from orderdash.core.usecases.export import export, header_line, settlement
from orderdash.core.usecases.reads import (
    Period,
    ReadOptions,
    choose_period,
    command_gates,
    ledger_book,
    zone_named,
)

if TYPE_CHECKING:
    from orderdash.core.ledger import Book
    from orderdash.core.polling.account import CommandBudget
    from orderdash.core.settings.model import Settings
    from orderdash.core.usecases.reads import BookOpener

T = TypeVar("T")

#: A use case run with the command's client, book and gates, and the progress it tells.
Run = Callable[[OrderClient, "CommandBudget", "CommandBudget", Progress], Awaitable[T]]


def _period(args: argparse.Namespace, settings: Settings, *, default_today: bool) -> Period:
    zone = zone_named(args.tz or settings.timezone)
    today = datetime.now(zone).date() if default_today else None
    return choose_period(
        day=getattr(args, "day", None), since=args.since, until=args.until, zone=zone, today=today
    )


def _needs_account(settings: Settings, command: str) -> None:
    if settings.access_token is None and settings.bearer_token is None:
        raise AuthRequired(
            f"{command} reads the order history: it needs the access token (access_token_file)"
        )


def _run_with(settings: Settings, book: Book, what: str, run: Run[T]) -> T:
    """`run` through a client of the command's own, within its budgets, how far on stderr; the
    book closed at the end whatever happened."""
    orders_gate, private_gate = command_gates(settings)
    shown = progress_for(what, settings, orders_gate)

    async def running() -> T:
        async with OrderClient.from_settings(settings) as client, shown:
            client.on_extra_private_request = private_gate.spent  # the log-in
            return await run(client, orders_gate, private_gate, shown)

    try:
        return asyncio.run(running())
    finally:
        book.close_connection()


def run_close(args: argparse.Namespace, open_book: BookOpener | None = None) -> CloseShown:
    settings, _ = settings_from_args(args)
    period = _period(args, settings, default_today=True)
    _needs_account(settings, "close")
    till = args.till if args.till else ALL_TILLS
    options = CloseOptions.from_settings(settings)
    book = (open_book or ledger_book)(settings)
    result = _run_with(
        settings,
        book,
        "close",
        lambda client, orders, private, shown: close(
            client,
            book,
            period,
            options,
            till=till,
            dry_run=args.dry_run,
            order_gate=orders,
            private_gate=private,
            progress=shown.orders,
            pages=shown.pages,
            on_closed=closed_notice(settings),
        ),
    )
    return CloseShown(result, fmt="csv" if args.csv else "json" if args.json else "text")


def run_export(args: argparse.Namespace, open_book: BookOpener | None = None) -> ExportLines:
    settings, _ = settings_from_args(args)
    period = _period(args, settings, default_today=False)
    settling = args.table == "settlement"
    if not settling and (args.till or args.profile):
        raise UsageError("--till and --profile are the settlement's: --table settlement")
    if args.profile and args.format != "csv":
        raise UsageError(f"--profile {args.profile} is CSV: leave out --format jsonl")
    output = _new_file(args.output)
    side = output.with_name(output.name + ".digest") if output and settling else None
    if side is not None:
        _new_file(str(side))
    _needs_account(settings, "export")
    book = (open_book or ledger_book)(settings)
    if settling:
        options = CloseOptions.from_settings(settings)
        settled = _run_with(
            settings,
            book,
            "export",
            lambda client, orders, private, shown: settlement(
                client,
                book,
                period,
                options,
                till=args.till or ALL_TILLS,
                fmt=args.format,
                profile=args.profile,
                order_gate=orders,
                private_gate=private,
                progress=shown.orders,
                pages=shown.pages,
            ),
        )
        # a CSV has no line for it: the header goes beside the file (or to stderr)
        head = header_line(settled.header) if args.format == "csv" else None
        return ExportLines(
            settled.lines,
            warnings=settled.warnings,
            missing=settled.missing,
            output=output,
            header=head,
            side=side,
        )
    exported = _run_with(
        settings,
        book,
        "export",
        lambda client, orders, private, shown: export(
            client,
            book,
            period,
            ReadOptions.from_settings(settings),
            table=args.table,
            fmt=args.format,
            order_gate=orders,
            private_gate=private,
            progress=shown.orders,
            pages=shown.pages,
        ),
    )
    return ExportLines(
        exported.lines, warnings=exported.warnings, missing=exported.missing, output=output
    )


def _new_file(name: str | None) -> Path | None:
    """`--output`'s path, refused before anything is read when a file is there already."""
    if name is None:
        return None
    path = Path(name)
    if path.exists():
        raise UsageError(f"{clean(name, limit=200)} exists already: the export writes a new file")
    return path


def _now() -> datetime:
    """Now, for `attention`'s period and ages (tests put the simulator's clock here)."""
    return datetime.now(UTC)


def run_attention(args: argparse.Namespace, open_book: BookOpener | None = None) -> AttentionShown:
    settings, _ = settings_from_args(args)
    if not 1 <= args.days <= 31:
        raise UsageError("--days is 1 to 31")
    _needs_account(settings, "attention")
    options = AttentionOptions.from_settings(settings)
    period = attention_period(options, days=args.days, now=_now())
    book = (open_book or ledger_book)(settings)
    found = _run_with(
        settings,
        book,
        "attention",
        lambda client, orders, private, shown: needing_attention_in(
            client,
            book,
            period,
            options,
            now=_now,
            order_gate=orders,
            private_gate=private,
            progress=shown.orders,
            pages=shown.pages,
        ),
    )
    return AttentionShown(
        found.found, found.now_ms, warnings=found.warnings, missing=found.missing, days=args.days
    )
