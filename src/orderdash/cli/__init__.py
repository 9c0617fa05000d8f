"""Command line: the dashboard, the demo, the simulator and one-shot reads for scripts.

`options` holds the parsers (`settings`, the settings they give); each command has its module
and function in `RUNS` (`order`: get; `rates`; `account`: orders, charge, charges; `books`:
close, export, attention; `stats`: the day at a glance; `verify`: close --verify; `resolve`;
`receipt`; `doctor`; `receive`; `screens`: tui, pos; `watch`; `demo`; `display`; `notify`:
notify --test; `simulate`), and `render` prints what the one-shot commands return.
This is the one place that imports late: only the command that runs is imported, so that
`orderdash get` never loads textual, the simulator or qrcode, and `--help` loads neither httpx
nor pydantic. Each command's module imports what it needs at its top.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, cast

from orderdash.cli.options import (
    COMMANDS,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    SETTING_OPTIONS,
    build_parser,
    parse_command_line,
)
from orderdash.core.runtime import startup

if TYPE_CHECKING:
    from orderdash.cli.render import Result
    from orderdash.cli.render_books import CloseShown, ExportLines
    from orderdash.core.usecases.reads import BookOpener

__all__ = [
    "COMMANDS",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "RUNS",
    "SETTING_OPTIONS",
    "build_parser",
    "main",
    "parse_command_line",
]

#: The exit status of a command whose output's reader went away (as if killed by SIGPIPE).
EXIT_BROKEN_PIPE = 141

#: The commands that own the terminal or run until stopped: their notifications' outcomes go
#: to the log only (a one-shot command also says them on stderr).
_SCREENS = frozenset({"tui", "pos", "watch", "demo", "display", "simulate", "receive"})


class Run(NamedTuple):
    """Where a command runs: its module in `orderdash.cli` and the function there, and what
    becomes of what that function returns (`SHOWN`: a result, rendered as JSON with `--json`;
    `REPORT`: a result rendered as JSON when its format is; `PRINTED`: lines it prints; `EXIT`:
    the exit code itself); `book`: the function opens the shop's book, and takes `open_book`."""

    module: str
    function: str
    shown: str
    book: bool = False


SHOWN = "shown"
REPORT = "report"
PRINTED = "printed"
EXIT = "exit"

#: Each command (`close --verify` apart from `close`), and where it runs.
RUNS: dict[str, Run] = {
    "tui": Run("screens", "run_tui", EXIT, book=True),
    "pos": Run("screens", "run_tui", EXIT, book=True),
    "watch": Run("watch", "run_watch", EXIT, book=True),
    "demo": Run("demo", "run_demo", EXIT, book=True),
    "display": Run("display", "run_display", EXIT),
    "get": Run("order", "run_get", SHOWN),
    "rates": Run("rates", "run_rates", SHOWN),
    "orders": Run("account", "run_orders", SHOWN),
    "charge": Run("account", "run_charge", SHOWN),
    "charges": Run("account", "run_charges", SHOWN),
    "close": Run("books", "run_close", REPORT, book=True),
    "close --verify": Run("verify", "run_verify", SHOWN, book=True),
    "attention": Run("books", "run_attention", SHOWN, book=True),
    "export": Run("books", "run_export", PRINTED, book=True),
    "stats": Run("stats", "run_stats", SHOWN, book=True),
    "resolve": Run("resolve", "run_resolve", SHOWN, book=True),
    "receipt": Run("receipt", "run_receipt", EXIT, book=True),
    "doctor": Run("doctor", "run_doctor", EXIT),
    "receive": Run("receive", "run_receive", EXIT, book=True),
    "notify": Run("notify", "run_notify_test", EXIT),
    "simulate": Run("simulate", "run_simulate", EXIT),
}


def main(argv: Sequence[str] | None = None, *, open_book: BookOpener | None = None) -> int:
    """Run the command of `argv` (default: the process's); `open_book` opens the shop's book
    for the commands that keep one (None: the ledger the settings name)."""
    startup.no_pydantic_plugins()
    paused = startup.pause()  # see core/runtime/startup.py: ~70 ms of the dashboard's start
    startup.freeze_at_exit()  # the same file: ~30 ms of every command's exit
    try:
        return _main(argv, open_book)
    except KeyboardInterrupt:  # Ctrl-C at any point, parsing the arguments included
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (`orderdash orders | head`): no traceback, and nothing more is
        # written at exit to the closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    finally:
        startup.end(paused)


def _main(argv: Sequence[str] | None, open_book: BookOpener | None) -> int:
    args = parse_command_line(list(argv if argv is not None else sys.argv[1:]))
    command = args.command
    # the service's errors load with the command (pydantic, httpx): never for --help
    from orderdash.core.model.errors import OrderdashError

    senders = _senders_made()
    try:
        code = _run(command, args, open_book)
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


def _run(command: str, args: argparse.Namespace, open_book: BookOpener | None) -> int:
    """Run `command` from its own module (imported now), given `open_book` if it opens the
    book; what a one-shot command returns is rendered."""
    run = RUNS["close --verify" if command == "close" and args.verify else command]
    function: Callable[..., object] = getattr(
        importlib.import_module(f"{__name__}.{run.module}"), run.function
    )
    answer = function(args, open_book) if run.book else function(args)
    if run.shown == EXIT:
        assert isinstance(answer, int)
        return answer
    if run.shown == PRINTED:
        return cast("ExportLines", answer).print()
    from orderdash.cli.render import render

    if run.shown == REPORT:
        report = cast("CloseShown", answer)
        return render(report, as_json=report.fmt == "json")
    return render(cast("Result", answer), as_json=args.json)
