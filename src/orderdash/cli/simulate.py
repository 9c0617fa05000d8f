"""`orderdash simulate`: the simulated order service over HTTP (and the seed and run suffix
it shares with the demo)."""

from __future__ import annotations

import argparse
import secrets
import sys

from orderdash.core.model.errors import UsageError
from orderdash.core.runtime import startup
from orderdash.core.settings.sources import read_token_file
from orderdash.simulator import run_simulator
from orderdash.simulator.callbacks import check_callback_url
from orderdash.simulator.history import MAX_HISTORY_DAYS
from orderdash.simulator.token_file import simulator_token


def run_simulate(args: argparse.Namespace) -> int:
    token, path = simulator_token(args.bearer_token_file)
    account: dict[str, float | int | str] = {
        "bearer_lifetime": args.bearer_lifetime,
        "history_page_cap": args.history_page_cap,
    }
    if args.access_token_file:
        warnings: list[str] = []
        account["access_token"] = read_token_file(
            args.access_token_file, warnings, what="access token"
        ).get_secret_value()
        for warning in warnings:
            print(f"orderdash: warning: {warning}", file=sys.stderr)
    check_history_days(args.history_days)
    if args.bearer_lifetime <= 0 or args.history_page_cap < 1:
        raise UsageError("--bearer-lifetime must be positive and --history-page-cap at least 1")
    callbacks = callback_options(args)
    prefix = "/" + args.prefix.strip("/") if args.prefix.strip("/") else ""
    print(f"rate endpoint token: in {path} (pass --bearer-token-file {path})", file=sys.stderr)
    interval = args.customer_interval if args.customer_interval > 0 else None
    startup.resume()  # a server for hours: the collector back on
    seed, run = simulator_run(args.seed)
    run_simulator(
        args.host,
        args.port,
        token,
        seed=seed,
        prefix=prefix,
        customer_interval=interval,
        run=run,
        live=interval is not None,
        history_days=args.history_days,
        callbacks=callbacks,
        **account,
    )
    return 0


def simulator_run(seed: int | None) -> tuple[int, str]:
    """The simulator's seed and run suffix: a given seed gives the same orders and tokens every
    time (screenshots, tests); none gives new tokens each start, so that no token saved by a
    dashboard names another order after a restart."""
    if seed is not None:
        return seed, ""
    return secrets.randbelow(2**31), secrets.token_hex(3)


def callback_options(args: argparse.Namespace) -> dict[str, object]:
    """SimulatorServer's callback settings from the flags, checked (UsageError)."""
    if args.callback_url is None:
        if args.callback_form or args.callback_fault:
            raise UsageError("--callback-form and --callback-fault need --callback-url")
        return {}
    try:
        check_callback_url(args.callback_url)
    except ValueError as exc:
        raise UsageError(f"--callback-url: {exc}") from None
    if not 0 < args.callback_delay <= 3600:
        raise UsageError("--callback-delay must be more than 0 and at most 3600 seconds")
    return {
        "callback_url": args.callback_url,
        "callback_form": args.callback_form,
        "callback_faults": tuple(args.callback_fault),
        "callback_delay": args.callback_delay,
    }


def check_history_days(days: int) -> None:
    if not 0 <= days <= MAX_HISTORY_DAYS:
        raise UsageError(f"--history-days must be 0 to {MAX_HISTORY_DAYS}")
