"""Command line: the dashboard, the demo, the simulator and one-shot reads for scripts.

Imports are deferred to the command that needs them: `orderdash get` must stay fast and never
load textual, the simulator or qrcode.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


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
        "--timeout", type=float, metavar="SECONDS", help="overall deadline per request"
    )
    group.add_argument(
        "--allow-insecure-http",
        action="store_true",
        default=None,
        help="allow plain http:// to a host other than loopback",
    )
    group.add_argument("--config", metavar="PATH", help="TOML config file (or ORDERDASH_CONFIG)")
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


def _tui_arguments(tui: argparse.ArgumentParser) -> None:
    tui.add_argument("token", nargs="*", help="order tokens to watch; the first one opens")
    _add_connection_options(tui)
    _add_dashboard_options(tui)


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
    _add_dashboard_options(demo)


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
    )
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (help_text, add_arguments) in COMMANDS.items():
        if command is None or name == command:
            add_arguments(commands.add_parser(name, help=help_text))
    return parser


def _command_named(argv: Sequence[str]) -> str | None:
    """The command `argv` starts with, if it starts with one (else the whole line is parsed:
    the top-level help and a mistyped command list every command)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def _version() -> str:
    from orderdash import __version__

    return f"orderdash {__version__}"


#: Options that map one to one onto settings of the same name.
SETTING_OPTIONS = (
    "base_url",
    "bearer_token_file",
    "access_token_file",
    "timeout",
    "allow_insecure_http",
    "poll_interval",
    "refresh_interval",
    "bell",
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
)


def _settings_overrides(args: argparse.Namespace) -> dict[str, Any]:
    given = {name: getattr(args, name, None) for name in SETTING_OPTIONS}
    return {name: value for name, value in given.items() if value is not None}


def _load_settings(args: argparse.Namespace, **extra: Any) -> tuple[Any, list[str]]:
    """The settings, and the warnings (already printed) that a full-screen app shows again."""
    from orderdash.core.runtime.config import load_settings

    env: dict[str, str] = dict(os.environ)
    if getattr(args, "config", None):
        env["ORDERDASH_CONFIG"] = args.config
    settings, warnings = load_settings({**_settings_overrides(args), **extra}, env)
    for warning in warnings:
        print(f"orderdash: warning: {warning}", file=sys.stderr)
    from orderdash.core.runtime.logs import configure_logging

    # the log file, or nowhere: never the terminal (the dashboard owns it, --jsonl owns stdout)
    configure_logging(settings.log_file, secrets=[settings.bearer_token, settings.access_token])
    return settings, warnings


def main(argv: Sequence[str] | None = None) -> int:
    from orderdash.core.runtime import startup

    startup.no_pydantic_plugins()
    paused = startup.pause()  # see core/runtime/startup.py: ~70 ms of the dashboard's start
    startup.freeze_at_exit()  # the same file: ~30 ms of every command's exit
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C at any point, parsing the arguments included
        return EXIT_INTERRUPTED
    finally:
        startup.end(paused)


def parse_command_line(line: Sequence[str]) -> argparse.Namespace:
    """The arguments of `orderdash LINE`: a line without a command is the dashboard's."""
    args = build_parser(_command_named(line)).parse_args(line)
    if args.command is None:
        args = build_parser("tui").parse_args(["tui", *line])
    return args


def _main(argv: Sequence[str] | None) -> int:
    args = parse_command_line(list(argv if argv is not None else sys.argv[1:]))
    command = args.command
    from orderdash.core.service.errors import OrderdashError

    try:
        if command in ("get", "rates"):
            return _run_one_shot(args, rates=command == "rates")
        if command == "simulate":
            return _run_simulate(args)
        if command == "orders":
            return _run_orders(args)
        if command == "charge":
            return _run_charge(args)
        if command == "watch":
            return _run_watch(args)
        if command == "demo":
            return _run_demo(args)
        if command == "display":
            return _run_display(args)
        from orderdash.tui.run import run_dashboard

        tokens = args.token if isinstance(args.token, list) else [args.token]
        if command == "pos":
            from orderdash.core.service.tokens import operator_token

            # refused here: a point of sale with no order to open must not start at all
            operator_token(args.token)
        settings, warnings = _load_settings(args)
        return run_dashboard(settings, tokens, pos=command == "pos", notices=warnings)
    except OrderdashError as exc:
        print(f"orderdash: {exc.message}", file=sys.stderr)
        return exc.exit_code


def _run_one_shot(args: argparse.Namespace, *, rates: bool) -> int:
    from orderdash.core.service.client import OrderClient
    from orderdash.core.service.tokens import normalize_token

    settings, _ = _load_settings(args)
    token = normalize_token(args.token)
    client = OrderClient.from_settings(settings)
    if rates:
        import asyncio

        async def fetch() -> Any:
            async with client:
                return await client.refresh_rate(token)

        fetched = asyncio.run(fetch())
    else:
        # one request and out: no event loop (see OrderClient.get_order_now)
        fetched = client.get_order_now(token)
    if fetched.order.token != token:
        # the service may normalise tokens, so this is not refused; but it must not pass unseen
        from orderdash.core.safetext import clean

        print(
            f"orderdash: warning: the service answered for order token "
            f"{clean(fetched.order.token, limit=80)!r}, not {clean(token, limit=80)!r} as asked",
            file=sys.stderr,
        )
    if args.json:
        from orderdash.core.service import jsontext

        print(jsontext.dumps(fetched.raw, indent=2))
    else:
        from orderdash.core.domain.summary import order_summary

        print("\n".join(order_summary(fetched.order, fetched.received_at)))
    return 0


def _run_orders(args: argparse.Namespace) -> int:
    import asyncio

    from orderdash.core.domain.history import history_rows, is_open_item
    from orderdash.core.polling.account import CommandBudget
    from orderdash.core.service.client import OrderClient

    settings, _ = _load_settings(args)

    async def fetch() -> Any:
        # the private budget, as the dashboard's history reads: a history that never ends
        # costs at most history_max_pages requests, paced within the service's limits
        budget = CommandBudget(settings.rate_budget_per_minute, settings.rate_budget_per_hour)
        async with OrderClient.from_settings(settings) as client:
            client.on_extra_private_request = budget.spent  # the log-in
            return await client.account_orders(
                max_pages=settings.history_max_pages, before_page=budget.private_request
            )

    orders = asyncio.run(fetch())
    for warning in orders.warnings():
        print(f"orderdash: warning: {warning}", file=sys.stderr)
    chosen = [
        (item, raw)
        for item, raw in zip(orders.items, orders.raw, strict=True)
        if not args.open or is_open_item(item)
    ]
    if args.json:
        from orderdash.core.service import jsontext

        print(jsontext.dumps([raw for _, raw in chosen], indent=2))
    elif chosen:
        print("\n".join(history_rows([item for item, _ in chosen])))
    else:
        print("no open orders" if args.open else "no orders", file=sys.stderr)
    return 0


def _run_charge(args: argparse.Namespace) -> int:
    import asyncio

    from orderdash.core.service.charge import charge, check_coin_text, parse_amount
    from orderdash.core.service.client import OrderClient
    from orderdash.core.service.errors import ChargeOutcomeUnknown, ChargeStopped, UsageError

    settings, _ = _load_settings(args)
    # the amount in the till's currency (its decimals), and the coin's form, before any order
    amount = parse_amount(args.amount, settings.currency)
    coin = check_coin_text(args.coin) if args.coin is not None else None
    if settings.access_token is None or settings.customer_id is None:
        raise UsageError(
            "charge needs the access token (access_token_file) and customer_id "
            "(ORDERDASH_CUSTOMER_ID): both are in the service's cabinet"
        )
    customer_id = settings.customer_id

    async def make() -> Any:
        async with OrderClient.from_settings(settings) as client:
            return await charge(
                client,
                amount,
                customer_id=customer_id,
                order_id=args.order_id,
                coin=coin,
                currency=settings.currency,
            )

    try:
        made = asyncio.run(make())
    except ChargeOutcomeUnknown as unknown:
        return _charge_unknown(args, unknown)
    except ChargeStopped as stopped:
        return _charge_stopped(args, stopped)
    from orderdash.core.domain.display import amount_text
    from orderdash.core.qr.payload import payment_uri
    from orderdash.core.safetext import clean

    if made.link_refused:
        print(f"orderdash: warning: {made.link_refused}", file=sys.stderr)
    result: dict[str, Any] = {"token": made.token, "payment_url": made.payment_url}
    if made.currency is not None:
        result["currency"] = made.currency
    if made.order is not None:
        order = made.order.order
        result["address"] = order.address
        result["amount"] = amount_text(order.amount) if order.amount is not None else None
        result["uri"] = payment_uri(order.coin_base_name, order.address, order.amount)
    if args.json:
        from orderdash.core.service import jsontext

        print(jsontext.dumps(result, indent=2))
        return 0
    print(f"order {clean(made.token, limit=80)}")
    if made.payment_url:
        print(f"checkout: {clean(made.payment_url, limit=200)}")
    if made.order is not None:
        from orderdash.core.domain.units import sendable

        order = made.order.order
        coin = clean(order.coin_base_name or "", limit=12).upper()
        # what a wallet can send: the exact figure rounded up, never down (an underpayment)
        due = sendable(order.coin_base_name, order.amount)
        to_send = due.text if due is not None else result["amount"]
        print(f"send {to_send} {coin} to {clean(result['address'], limit=120)}")
        if due is not None and due.rounded:
            print(f"  ({due.note})")
        if result["uri"]:
            print(f"wallet request: {clean(result['uri'], limit=300)}")
    return 0


def _check_command(args: argparse.Namespace, token: str) -> str:
    """The one command that reads the order `token` (with the service named as it was here)."""
    import shlex

    where = f" --base-url {shlex.quote(args.base_url)}" if args.base_url else ""
    return f"orderdash get{where} -- {shlex.quote(token)}"


def _charge_unknown(args: argparse.Namespace, unknown: Any) -> int:
    """Nobody can say whether the order was made: its token, and how to look it up."""
    from orderdash.core.safetext import clean

    check = _check_command(args, unknown.token)
    print(f"orderdash: {unknown.message}", file=sys.stderr)
    print(f"orderdash: check it before charging again: {clean(check, limit=300)}", file=sys.stderr)
    if args.json:
        from orderdash.core.service import jsontext

        answer = {"token": unknown.token, "outcome": "unknown", "reason": unknown.reason}
        print(jsontext.dumps({**answer, "check": check}, indent=2))
    return unknown.exit_code


def _charge_stopped(args: argparse.Namespace, stopped: Any) -> int:
    """The order was made, then the charge stopped: the order is named, never orphaned."""
    from orderdash.core.safetext import clean

    print(f"orderdash: {stopped.message}", file=sys.stderr)
    if args.json:
        from orderdash.core.service import jsontext

        answer = {"token": stopped.token, "payment_url": stopped.payment_url}
        print(jsontext.dumps({**answer, "stopped": stopped.message}, indent=2))
        return stopped.exit_code
    print(f"order {clean(stopped.token, limit=80)}")
    if stopped.payment_url:
        print(f"checkout: {clean(stopped.payment_url, limit=200)}")
    return stopped.exit_code


def _run_watch(args: argparse.Namespace) -> int:
    from orderdash.core.service.errors import UsageError
    from orderdash.core.watching.store import parse_tokens

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
    settings, _ = _load_settings(args)
    if args.account and settings.access_token is None:
        raise UsageError(
            "watch --account needs the access token (access_token_file, or "
            "ORDERDASH_ACCESS_TOKEN_FILE): the service's cabinet shows it once, when made"
        )
    if args.jsonl:
        if not parsed.tokens and not args.account:
            raise UsageError("no order tokens to watch")
        from orderdash.headless import run_jsonl

        return run_jsonl(settings, parsed.tokens, account=args.account)
    from orderdash.tui.run import run_dashboard

    return run_dashboard(settings, parsed.tokens)


#: The demo account's number (the simulator checks it on Generate Order).
DEMO_CUSTOMER_ID = "4711"


def _run_demo(args: argparse.Namespace) -> int:
    """Start the simulator with its demo orders and a paying customer, then open the dashboard."""
    import secrets

    from orderdash.core.runtime.config import load_settings
    from orderdash.core.runtime.logs import ensure_configured
    from orderdash.simulator import Simulator, SimulatorServer
    from orderdash.tui.run import run_dashboard

    # the demo's credentials live only in this process: nothing to leak, nothing to configure.
    # It logs in with an access token as a merchant does (the account mode: the watch list
    # fills itself, `n` makes a charge); the simulator's bearer is never handed to it.
    bearer_token = secrets.token_urlsafe(24)
    access_token = secrets.token_urlsafe(24)
    # the in-process simulator (uvicorn) logs too: never onto the dashboard's terminal
    ensure_configured(None, [bearer_token, access_token])
    interval = args.customer_interval if args.customer_interval > 0 else None
    seed, run = _simulator_run(args.seed)
    simulator = Simulator(seed=seed, run=run, live=interval is not None)
    with SimulatorServer(
        simulator,
        bearer_token=bearer_token,
        customer_interval=interval,
        access_token=access_token,
        customer_id=DEMO_CUSTOMER_ID,
    ) as server:
        settings, _ = load_settings(
            # the demo has its own orders: it neither reads nor writes the user's watch list
            {
                **_settings_overrides(args),
                "base_url": server.base_url,
                "access_token": access_token,
                "customer_id": DEMO_CUSTOMER_ID,
                "persist_watchlist": False,
            },
            {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")},
        )
        return run_dashboard(settings, list(simulator.demo_tokens))


def _run_display(args: argparse.Namespace) -> int:
    """The customer display, in this terminal or (`--web`) served to browsers."""
    from orderdash.core.customer.catalogue import resolve_language
    from orderdash.core.customer.channel import ChannelError, channel_path, runtime_problem
    from orderdash.core.runtime.config import load_settings
    from orderdash.core.service.errors import UsageError

    env: dict[str, str] = dict(os.environ)
    if args.config:
        env["ORDERDASH_CONFIG"] = args.config
    # the display never reads the token file: it has nothing to ask the service
    settings, _ = load_settings(_settings_overrides(args), env, with_token=False)
    try:
        path = channel_path(settings.display_channel)
    except ChannelError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        # no channel to follow: said in one line, not a traceback
        raise UsageError(
            f"no usable runtime directory for the customer display ({runtime_problem(error)}); "
            "set XDG_RUNTIME_DIR to a directory of your own (mode 700)"
        ) from None
    language = resolve_language(settings.language, os.environ)
    if args.web:
        from orderdash.tui.web import serve_display

        # each browser connection runs `orderdash display` with these (the config file and
        # the environment travel with the process)
        options = {"--language": language, "--pos-primary": settings.pos_primary}
        if settings.display_title:
            options["--title"] = settings.display_title
        if args.config:
            options["--config"] = args.config
        key = settings.display_web_key
        return serve_display(
            args.host,
            args.port,
            settings.display_channel,
            options,
            key=key.get_secret_value() if key is not None else None,
            max_processes=settings.display_web_max,
        )
    from orderdash.core.runtime import startup
    from orderdash.core.runtime.logs import configure_logging
    from orderdash.tui.display import DisplayApp

    # what it refuses to show is logged: to the log file or nowhere, never over the screen
    configure_logging(settings.log_file)
    startup.resume()  # runs for hours
    DisplayApp(
        path, language=language, title=settings.display_title, primary=settings.pos_primary
    ).run()
    return 0


def _run_simulate(args: argparse.Namespace) -> int:
    from orderdash.simulator import run_simulator
    from orderdash.simulator.token_file import simulator_token

    token, path = simulator_token(args.bearer_token_file)
    account: dict[str, Any] = {
        "bearer_lifetime": args.bearer_lifetime,
        "history_page_cap": args.history_page_cap,
    }
    if args.access_token_file:
        from orderdash.core.runtime.config import read_token_file

        warnings: list[str] = []
        account["access_token"] = read_token_file(
            args.access_token_file, warnings, what="access token"
        ).get_secret_value()
        for warning in warnings:
            print(f"orderdash: warning: {warning}", file=sys.stderr)
    if args.bearer_lifetime <= 0 or args.history_page_cap < 1:
        from orderdash.core.service.errors import UsageError

        raise UsageError("--bearer-lifetime must be positive and --history-page-cap at least 1")
    prefix = "/" + args.prefix.strip("/") if args.prefix.strip("/") else ""
    print(f"rate endpoint token: in {path} (pass --bearer-token-file {path})", file=sys.stderr)
    interval = args.customer_interval if args.customer_interval > 0 else None
    from orderdash.core.runtime import startup

    startup.resume()  # a server for hours: the collector back on
    seed, run = _simulator_run(args.seed)
    run_simulator(
        args.host,
        args.port,
        token,
        seed=seed,
        prefix=prefix,
        customer_interval=interval,
        run=run,
        live=interval is not None,
        **account,
    )
    return 0


def _simulator_run(seed: int | None) -> tuple[int, str]:
    """The simulator's seed and run suffix: a given seed gives the same orders and tokens every
    time (screenshots, tests); none gives new tokens each start, so that no token saved by a
    dashboard names another order after a restart."""
    if seed is not None:
        return seed, ""
    import secrets

    return secrets.randbelow(2**31), secrets.token_hex(3)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
