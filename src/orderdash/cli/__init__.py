"""Command line: the dashboard, the demo, the simulator and one-shot reads for scripts.

`options` holds the parsers and the settings they give; each command family has its module
(`order`: get, rates; `account`: orders, charge; `books`: close, export, attention; `verify`:
close --verify; `resolve`; `screens`: tui, watch, pos, demo, display; `notify`: notify --test;
`simulate`), and `render` prints what the one-shot commands return.
Only the command that runs is imported: `orderdash get` must stay fast and never load textual,
the simulator or qrcode, and `--help` loads neither httpx nor pydantic.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from orderdash.cli.options import (
    COMMANDS,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    SETTING_OPTIONS,
    _load_settings,
    _settings_overrides,
    build_parser,
    parse_command_line,
)

__all__ = [
    "COMMANDS",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "SETTING_OPTIONS",
    "_load_settings",
    "_settings_overrides",
    "build_parser",
    "main",
    "parse_command_line",
]

#: The exit status of a command whose output's reader went away (as if killed by SIGPIPE).
EXIT_BROKEN_PIPE = 141

#: The commands that own the terminal or run until stopped: their notifications' outcomes go
#: to the log only (a one-shot command also says them on stderr).
_SCREENS = frozenset({"tui", "pos", "watch", "demo", "display", "simulate"})

#: Names of the command modules, re-exported here on first use (importing them is deferred).
_LAZY = {
    "_run_one_shot": "order",
    "_run_orders": "account",
    "_run_charge": "account",
    "_run_charges": "account",
    "_run_dashboard": "screens",
    "_run_watch": "screens",
    "_run_demo": "screens",
    "_run_display": "screens",
    "DEMO_CUSTOMER_ID": "screens",
    "_run_close": "books",
    "_run_export": "books",
    "_run_resolve": "resolve",
    "_run_attention": "books",
    "_run_simulate": "simulate",
    "_simulator_run": "simulate",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> int:
    from orderdash.core.runtime import startup

    startup.no_pydantic_plugins()
    paused = startup.pause()  # see core/runtime/startup.py: ~70 ms of the dashboard's start
    startup.freeze_at_exit()  # the same file: ~30 ms of every command's exit
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C at any point, parsing the arguments included
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (`orderdash orders | head`): no traceback, and nothing more is
        # written at exit to the closed pipe
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    finally:
        startup.end(paused)


def _main(argv: Sequence[str] | None) -> int:
    args = parse_command_line(list(argv if argv is not None else sys.argv[1:]))
    command = args.command
    from orderdash.core.model.errors import OrderdashError

    senders = _senders_made()
    try:
        code = _run(command, args)
    except OrderdashError as exc:
        print(f"orderdash: {exc.message}", file=sys.stderr)
        code = exc.exit_code
    if _senders_made() > senders:  # this command notified: its messages may be on their way
        from orderdash.cli.notify import wait_for_notifications

        wait_for_notifications(tell=command not in _SCREENS, since=senders)
    return code


def _senders_made() -> int:
    """The notification senders this process has made (none unless the notifications were
    loaded: nothing is imported for the count)."""
    if "orderdash.core.notify.events" not in sys.modules:
        return 0
    from orderdash.core.notify.events import made

    return made()


def _run(command: str, args: argparse.Namespace) -> int:
    """Run `command` from its own module; what a one-shot command returns is rendered."""
    if command in ("get", "rates"):
        from orderdash.cli import order, render

        return render.render(order._run_one_shot(args, rates=command == "rates"), as_json=args.json)
    if command == "orders":
        from orderdash.cli import account, render

        return render.render(account._run_orders(args), as_json=args.json)
    if command == "charge":
        from orderdash.cli import account, render

        return render.render(account._run_charge(args), as_json=args.json)
    if command == "close" and args.verify:
        from orderdash.cli import render, verify

        return render.render(verify._run_verify(args), as_json=args.json)
    if command == "close":
        from orderdash.cli import books, render

        shown = books._run_close(args)
        return render.render(shown, as_json=shown.fmt == "json")
    if command == "attention":
        from orderdash.cli import books, render

        return render.render(books._run_attention(args), as_json=args.json)
    if command == "export":
        from orderdash.cli import books

        return books._run_export(args).print()
    if command == "charges":
        from orderdash.cli import account, render

        return render.render(account._run_charges(args), as_json=args.json)
    if command == "resolve":
        from orderdash.cli import render, resolve

        return render.render(resolve._run_resolve(args), as_json=args.json)

    if command == "notify":
        from orderdash.cli import notify

        return notify._run_notify_test(args)
    if command == "simulate":
        from orderdash.cli import simulate

        return simulate._run_simulate(args)
    from orderdash.cli import screens

    if command == "watch":
        return screens._run_watch(args)
    if command == "demo":
        return screens._run_demo(args)
    if command == "display":
        return screens._run_display(args)
    return screens._run_dashboard(args)  # tui, pos
