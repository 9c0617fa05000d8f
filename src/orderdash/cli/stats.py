"""`orderdash stats`: the day (`--day`, default today) or the week (`--week`) at a glance, read
from the ledger alone (nothing is asked of the service: no token needed)."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from orderdash.cli.render_stats import StatsShown
from orderdash.cli.settings import settings_from_args
from orderdash.core.usecases.reads import ledger_book
from orderdash.core.usecases.stats import StatsOptions, read_stats

if TYPE_CHECKING:
    from orderdash.core.usecases.reads import BookOpener


def _now() -> datetime:
    """Now, for the hour in progress (tests put a fixed time here)."""
    return datetime.now(UTC)


def run_stats(args: argparse.Namespace, open_book: BookOpener | None = None) -> StatsShown:
    settings, _ = settings_from_args(args)
    options = StatsOptions.from_settings(settings)
    if args.tz:
        options = StatsOptions(args.tz, options.currency, options.tolerance)
    book = (open_book or ledger_book)(settings)
    try:
        stats = read_stats(book, options, day=args.day, week=args.week, now=_now())
    finally:
        book.close_connection()
    return StatsShown(stats)
