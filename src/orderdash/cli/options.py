"""The command line's options: the parser of each command, built alone, and the options that
name settings (the settings they give, over the settings file and the environment, are made in
`settings`).

Light on purpose: argparse only, so that `--help` and `--version` load neither httpx nor
pydantic; the settings' modules load with the command that runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import NoReturn

from orderdash import __version__
from orderdash.cli.options_books import (
    attention_arguments,
    close_arguments,
    export_arguments,
    receipt_arguments,
    resolve_arguments,
    stats_arguments,
)

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

#: Options that map one to one onto settings of the same name.
SETTING_OPTIONS = (
    "base_url",
    "bearer_token_file",
    "access_token_file",
    "customer_id",
    "timeout",
    "allow_insecure_http",
    "poll_interval",
    "refresh_interval",
    "bell",
    "readonly",
    "qr_content",
    "qr_uppercase",
    "pos_primary",
    "log_file",
    "account_interval",
    "create_url",
    "currency",
    "budget_per_minute",
    "budget_per_hour",
    "rate_budget_per_minute",
    "rate_budget_per_hour",
    "language",
    "display_channel",
    "display_title",
    "operator",
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _add_connection_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("connection")
    group.add_argument("--base-url", help="service base URL (default: the local simulator)")
    group.add_argument(
        "--bearer-token-file",
        metavar="PATH",
        help="file holding the bearer token for the rate endpoint (or ORDERDASH_BEARER_TOKEN_FILE)",
    )
    group.add_argument(
        "--access-token-file",
        metavar="PATH",
        help="file holding the merchant's access token, to log in with (or "
        "ORDERDASH_ACCESS_TOKEN_FILE)",
    )
    group.add_argument(
        "--customer-id",
        metavar="ID",
        help="the merchant's account number, from the service's cabinet: what a charge is made "
        "for (or ORDERDASH_CUSTOMER_ID)",
    )
    group.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="overall deadline per request"
    )
    group.add_argument(
        "--allow-insecure-http",
        action="store_true",
        default=None,
        help="allow plain http:// to a host other than loopback",
    )
    group.add_argument("--config", metavar="PATH", help="TOML config file (or ORDERDASH_CONFIG)")
    # not --profile: `export --profile` names a CSV layout
    group.add_argument(
        "--hosts",
        metavar="PROFILE",
        help="the profile of hosts to use: production, sandbox or one of the config file's "
        "[profiles.NAME] (or ORDERDASH_PROFILE)",
    )
    group.add_argument(
        "--log",
        dest="log_file",
        metavar="FILE",
        help="log request outcomes and timings to FILE, secrets redacted (or ORDERDASH_LOG_FILE)",
    )


def _add_dashboard_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("refresh")
    group.add_argument(
        "--poll-interval", type=float, metavar="SECONDS", help="getOrder poll period (10)"
    )
    group.add_argument(
        "--refresh-interval", type=float, metavar="SECONDS", help="rate refresh period (60)"
    )
    for option, default, what in (
        ("--budget-per-minute", 200, "getOrder requests a minute, all orders"),
        ("--budget-per-hour", "10,000", "getOrder requests an hour, paced evenly"),
        ("--rate-budget-per-minute", 200, "rate refreshes a minute"),
        ("--rate-budget-per-hour", "1,000", "rate refreshes an hour (shared by every till)"),
    ):
        group.add_argument(option, type=int, metavar="N", help=f"{what} ({default})")
    group.add_argument(
        "--no-bell", dest="bell", action="store_false", default=None, help="no terminal bell"
    )
    group.add_argument(
        "--qr-content",
        choices=("auto", "address", "uri", "server"),
        help="what the QR encodes: auto (payment URI where the coin has one, else the address), "
        "address, uri, or server (the service's own image)",
    )
    group.add_argument(
        "--no-qr-uppercase",
        dest="qr_uppercase",
        action="store_false",
        default=None,
        help="keep a bech32 payment URI in lower case inside the QR (upper case scans smaller)",
    )
    group.add_argument(
        "--pos-primary", choices=("coin", "fiat"), help="which amount the POS screen shows large"
    )
    _add_customer_options(group)


def _add_customer_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--language",
        metavar="LANG",
        help="the customer's language: en, de, fr, es, it, pt, nl, ja, or auto (follows LANG)",
    )
    group.add_argument(
        "--channel",
        dest="display_channel",
        metavar="NAME",
        help="the customer display's channel (default: default)",
    )


def _add_readonly_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--readonly",
        action="store_true",
        default=None,
        help="read-only: watch and read, but no charge, no removing from the list, no point of "
        "sale or customer display, no closing the day, no resolving (or ORDERDASH_READONLY)",
    )


def _tui_arguments(tui: argparse.ArgumentParser) -> None:
    tui.add_argument("token", nargs="*", help="order tokens to watch; the first one opens")
    _add_connection_options(tui)
    _add_dashboard_options(tui)
    _add_readonly_option(tui)


def _watch_arguments(watch: argparse.ArgumentParser) -> None:
    watch.add_argument("token", nargs="*", help="order tokens to watch")
    watch.add_argument(
        "--from",
        dest="from_file",
        metavar="FILE",
        help="read tokens from FILE, one a line (- = stdin)",
    )
    watch.add_argument(
        "--jsonl", action="store_true", help="no screen: print one JSON line per event until Ctrl-C"
    )
    watch.add_argument(
        "--account",
        action="store_true",
        help="watch the account's open orders and every order created after start (needs the "
        "access token; the dashboard does this whenever the access token is set)",
    )
    watch.add_argument(
        "--account-interval",
        type=float,
        metavar="SECONDS",
        help="seconds between reads of the order history with --account (60)",
    )
    _add_connection_options(watch)
    _add_dashboard_options(watch)
    _add_readonly_option(watch)


def _pos_arguments(pos: argparse.ArgumentParser) -> None:
    pos.add_argument("token", help="order token")
    _add_connection_options(pos)
    _add_dashboard_options(pos)


def _demo_arguments(demo: argparse.ArgumentParser) -> None:
    demo.add_argument(
        "--seed",
        type=int,
        help="simulator seed: the same orders and tokens every run (default: new ones each run)",
    )
    demo.add_argument(
        "--customer-interval",
        type=float,
        default=12.0,
        metavar="SECONDS",
        help=(
            "0: no simulated customer; else a customer who opens an order about every minute "
            "and pays (in full, in part, late, too much or not at all), checked at most this "
            "often (12)"
        ),
    )
    _add_history_days(demo, 2)
    _add_dashboard_options(demo)
    _add_readonly_option(demo)


def _add_history_days(parser: argparse.ArgumentParser, default: int) -> None:
    parser.add_argument(
        "--history-days",
        type=int,
        default=default,
        metavar="N",
        help="N past days of orders and payments (paid, expired, part paid, overpaid, late, "
        f"unconfirmed, canceled), ending now: books to close ({default})",
    )


def _display_arguments(display: argparse.ArgumentParser) -> None:
    display_group = display.add_argument_group("display")
    _add_customer_options(display_group)
    display_group.add_argument(
        "--title", dest="display_title", metavar="TEXT", help="the shop's name on the idle screen"
    )
    display_group.add_argument(
        "--pos-primary", choices=("coin", "fiat"), help="which amount is shown large"
    )
    display_group.add_argument(
        "--web", action="store_true", help="serve the display to a browser (textual-serve)"
    )
    display_group.add_argument(
        "--host", default="127.0.0.1", help="with --web: address to bind (127.0.0.1)"
    )
    display_group.add_argument("--port", type=int, default=8080, help="with --web: port (8080)")
    display_group.add_argument("--config", metavar="PATH", help="TOML config file")


def _one_shot_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("token", help="order token")
    command.add_argument(
        "--json", action="store_true", help="print the data object as JSON, exact digits"
    )
    _add_connection_options(command)


def _orders_arguments(orders: argparse.ArgumentParser) -> None:
    orders.add_argument(
        "--open",
        action="store_true",
        help="only open orders: in progress, paid but unconfirmed, or a state not known",
    )
    orders.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array of the history's items, exact digits",
    )
    _add_connection_options(orders)


def _charge_arguments(charge: argparse.ArgumentParser) -> None:
    charge.add_argument(
        "amount",
        help="the amount in the till's currency: digits and at most one point, e.g. 12.50",
    )
    charge.add_argument("--coin", metavar="CODE", help="choose this coin for the customer (btc)")
    charge.add_argument("--order-id", metavar="ID", help="your own order id (default: generated)")
    charge.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: token, payment_url, and with --coin address, amount, uri",
    )
    charge.add_argument(
        "--create-url", metavar="URL", help="where Generate Order is served (default: base URL)"
    )
    charge.add_argument(
        "--currency",
        metavar="CODE",
        help="the till's currency (ISO 4217, e.g. EUR): the amount's decimals, and the made "
        "order is checked to be in it (or ORDERDASH_CURRENCY)",
    )
    _add_connection_options(charge)


def _charges_arguments(charges: argparse.ArgumentParser) -> None:
    charges.add_argument(
        "--all-tills", action="store_true", help="every till's charges, not only this till's"
    )
    charges.add_argument(
        "--json", action="store_true", help="print a JSON array of the charges, exact digits"
    )
    _add_connection_options(charges)


def _doctor_arguments(doctor: argparse.ArgumentParser) -> None:
    doctor.add_argument(
        "--json", action="store_true", help="print one JSON object: the checks and what to paste"
    )
    _add_connection_options(doctor)


def _receive_arguments(receive: argparse.ArgumentParser) -> None:
    receive.add_argument(
        "--host", help="address to bind (the receive_host setting: 127.0.0.1 unless set)"
    )
    receive.add_argument(
        "--port", type=int, help="port, 0: a free one (the receive_port setting: 8099 unless set)"
    )
    _add_connection_options(receive)


def _notify_arguments(notify: argparse.ArgumentParser) -> None:
    notify.add_argument(
        "--test",
        action="store_true",
        required=True,
        help="send one test message through each rule of the notify setting; prints each "
        "rule's outcome (never its URLs) and exits nonzero if any failed",
    )
    notify.add_argument("--config", metavar="PATH", help="TOML config file (or ORDERDASH_CONFIG)")
    notify.add_argument(
        "--log",
        dest="log_file",
        metavar="FILE",
        help="log the outcomes to FILE, secrets redacted (or ORDERDASH_LOG_FILE)",
    )


def _simulate_arguments(simulate: argparse.ArgumentParser) -> None:
    simulate.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    simulate.add_argument("--port", type=int, default=8765, help="port (8765)")
    simulate.add_argument("--prefix", default="", help="path prefix for the API, e.g. /pay/api")
    simulate.add_argument(
        "--seed",
        type=int,
        help="random seed: the same orders and tokens every run (default: new ones each run)",
    )
    simulate.add_argument(
        "--bearer-token-file",
        metavar="PATH",
        help="token the rate endpoint accepts; created with a random token (mode 600) if missing",
    )
    simulate.add_argument(
        "--customer-interval",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help=(
            "0: no simulated customer; else a customer who opens an order about every minute "
            "and pays (in full, in part, late, too much or not at all), checked at most this "
            "often (20)"
        ),
    )
    simulate.add_argument(
        "--access-token-file",
        metavar="PATH",
        help="file holding the access token the log-in accepts (default: the token 'demo')",
    )
    simulate.add_argument(
        "--bearer-lifetime",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="how long a bearer issued by the log-in is accepted (3600)",
    )
    simulate.add_argument(
        "--history-page-cap",
        type=int,
        default=25,
        metavar="N",
        help="at most this many orders a history page, whatever the limit asked (25)",
    )
    _add_history_days(simulate, 0)
    _simulate_callback_arguments(simulate)


def _simulate_callback_arguments(simulate: argparse.ArgumentParser) -> None:
    simulate.add_argument(
        "--callback-url",
        metavar="URL",
        help="POST the service's callbacks here (coin chosen, payment, status change)",
    )
    simulate.add_argument(
        "--callback-form", action="store_true", help="send them form-encoded instead of JSON"
    )
    simulate.add_argument(
        "--callback-fault",
        action="append",
        default=[],
        choices=("lost", "duplicate", "delayed", "out_of_order", "forged", "unknown_token"),
        metavar="KIND",
        help=(
            "bend the callbacks in turn (may be repeated; a clean one after each turn): lost, "
            "duplicate, delayed, out_of_order, forged, unknown_token"
        ),
    )
    simulate.add_argument(
        "--callback-delay",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="how late a 'delayed' callback goes (5)",
    )


def _with_connection(
    add: Callable[[argparse.ArgumentParser], None],
) -> Callable[[argparse.ArgumentParser], None]:
    """A command's own arguments (`add`), then the connection options."""

    def both(parser: argparse.ArgumentParser) -> None:
        add(parser)
        _add_connection_options(parser)

    return both


#: Every command, in the order `orderdash --help` lists them: its help line and what adds its
#: arguments.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "tui": ("open the dashboard (the default command)", _tui_arguments),
    "watch": (
        "watch many orders: the dashboard's list, or JSON lines with --jsonl",
        _watch_arguments,
    ),
    "pos": (
        "the point-of-sale screen on an order, alone, for the customer (Esc asks to quit)",
        _pos_arguments,
    ),
    "demo": ("run the simulator in-process and open the dashboard on it", _demo_arguments),
    "display": (
        "the customer display: shows the order a dashboard on this machine puts on it",
        _display_arguments,
    ),
    "get": ("print one order through getOrder", _one_shot_arguments),
    "rates": (
        "print one order through Update Exchange rate (needs the bearer token)",
        _one_shot_arguments,
    ),
    "orders": (
        "the account's orders, from the order history (needs the access token)",
        _orders_arguments,
    ),
    "charge": (
        "make an order for AMOUNT in the till's currency (needs the access token)",
        _charge_arguments,
    ),
    "close": (
        "the close of day: what the shop took, its exceptions, frozen once closed (needs the "
        "access token)",
        _with_connection(close_arguments),
    ),
    "attention": (
        "the orders that need a human: under- or overpaid, paid late, unconfirmed too long, "
        "token reused (needs the access token; exit 1 when any does)",
        _with_connection(attention_arguments),
    ),
    "export": (
        "a period's orders or payments as CSV or JSON lines (needs the access token)",
        _with_connection(export_arguments),
    ),
    "stats": (
        "the day (or --week) at a glance: takings per hour against a week earlier, orders, "
        "coins, tills (the ledger only: nothing is sent to the service)",
        _with_connection(stats_arguments),
    ),
    "charges": (
        "today's charges at this till, from the ledger (earlier unresolved ones looked up)",
        _charges_arguments,
    ),
    "resolve": (
        "write down how an order that needed a human was resolved, and why (the ledger only: "
        "nothing is sent to the service)",
        _with_connection(resolve_arguments),
    ),
    "receipt": (
        "a paid order's receipt from the ledger: its text, or ESC/POS to the receipt_printer "
        "or to --escpos FILE",
        _with_connection(receipt_arguments),
    ),
    "doctor": (
        "check what the shop needs before opening: the hosts, the clock, the log-in, the "
        "bearer_token header, the ledger, the callback URL, the budgets (exit 1 on a failure)",
        _doctor_arguments,
    ),
    "receive": (
        "take the service's callbacks at /callback: each journaled, then its order read once "
        "(getOrder) and written to the ledger",
        _receive_arguments,
    ),
    "notify": (
        "the notification rules (the notify extra): --test sends one message through each",
        _notify_arguments,
    ),
    "simulate": ("serve the simulated order service over HTTP", _simulate_arguments),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `command`, only that command's parser (what `orderdash
    COMMAND ...` parses: the same arguments, help and errors). Each parser costs ~0.6 ms
    (argparse looks its texts up in the message catalogues, and each look-up is file system
    calls), ~7 ms for all eleven: a tenth of what `orderdash get` adds to its floor."""
    parser = _Parser(
        prog="orderdash",
        description="A terminal dashboard for the orders of a cryptocurrency payment service.",
        epilog="Without a COMMAND: the dashboard (tui), which takes its options: "
        "orderdash --readonly is orderdash tui --readonly.",
    )
    parser.add_argument("--version", action="version", version=f"orderdash {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (help_text, add_arguments) in COMMANDS.items():
        if command is None or name == command:
            add_arguments(commands.add_parser(name, help=help_text))
    return parser


#: What only the whole command line answers: its help and its version.
_TOP_LEVEL = frozenset({"-h", "--help", "--version"})


def _command_named(argv: Sequence[str]) -> str | None:
    """The command `argv` starts with: its first word when that names one; the dashboard
    (`tui`, the default command) when it starts with another option than the help or the
    version (`orderdash --readonly`); else None: the whole line is parsed (the top-level help
    and a mistyped command list every command)."""
    if not argv:
        return None
    if argv[0] in COMMANDS:
        return argv[0]
    return "tui" if argv[0].startswith("-") and argv[0] not in _TOP_LEVEL else None


def parse_command_line(line: Sequence[str]) -> argparse.Namespace:
    """The arguments of `orderdash LINE`: a line without a command is the dashboard's, with
    the dashboard's options (`orderdash --readonly` is `orderdash tui --readonly`)."""
    command = _command_named(line)
    if command == "tui" and line[0] != "tui":
        line = ["tui", *line]
    args = build_parser(command).parse_args(line)
    if args.command is None:
        args = build_parser("tui").parse_args(["tui", *line])
    return args
