"""The dashboard's commands: `orderdash tui` (the default command) and `orderdash pos`, the
point of sale alone. `watch` (`watch.py`), the demo (`demo.py`) and the customer display
(`display.py`) hold a screen too, each from its own module."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from orderdash.cli.settings import settings_from_args
from orderdash.core.service.tokens import operator_token
from orderdash.tui import run as tui_run

if TYPE_CHECKING:
    from orderdash.core.usecases.reads import BookOpener


def run_tui(args: argparse.Namespace, open_book: BookOpener | None = None) -> int:
    """`orderdash tui` (the default command) and `orderdash pos`; `open_book`: as `make_app`
    takes it."""
    tokens = args.token if isinstance(args.token, list) else [args.token]
    if args.command == "pos":
        # refused here: a point of sale with no order to open must not start at all
        operator_token(args.token)
    settings, warnings = settings_from_args(args)
    return tui_run.run_dashboard(
        settings, tokens, pos=args.command == "pos", notices=warnings, open_book=open_book
    )
