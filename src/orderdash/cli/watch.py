"""`orderdash watch`: many orders watched, on the dashboard's list or (`--jsonl`, no screen) as
JSON lines on stdout until Ctrl-C; `--account` follows the account's orders."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from orderdash.cli.settings import settings_from_args
from orderdash.core.model.errors import UsageError
from orderdash.core.watching.watchlist_file import parse_tokens
from orderdash.headless import run_jsonl
from orderdash.tui import run as tui_run

if TYPE_CHECKING:
    from orderdash.core.usecases.reads import BookOpener


def run_watch(args: argparse.Namespace, open_book: BookOpener | None = None) -> int:
    """`open_book`: the dashboard's book, as `make_app` takes it (`--jsonl` writes through the
    settings' own ledger)."""
    text = "\n".join(args.token)
    if args.from_file:
        try:
            if args.from_file == "-":
                text += "\n" + sys.stdin.read()
            else:
                with open(args.from_file, encoding="utf-8") as handle:
                    text += "\n" + handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"cannot read tokens from {args.from_file}: {error}") from None
    parsed = parse_tokens(text)
    for raw, reason in parsed.invalid:
        print(f"orderdash: skipped {raw[:40]!r}: {reason}", file=sys.stderr)
    settings, _ = settings_from_args(args)
    if args.account and settings.access_token is None:
        raise UsageError(
            "watch --account needs the access token (access_token_file, or "
            "ORDERDASH_ACCESS_TOKEN_FILE): the service's cabinet shows it once, when made"
        )
    if args.jsonl:
        if not parsed.tokens and not args.account:
            raise UsageError("no order tokens to watch")
        return run_jsonl(settings, parsed.tokens, account=args.account)
    return tui_run.run_dashboard(settings, parsed.tokens, open_book=open_book)
