"""The commands that hold a screen (or, with `watch --jsonl`, stdout) for hours: the dashboard
(`tui`, `pos`, `watch`), the demo (the simulator in-process under the dashboard) and the
customer display (`display`, in this terminal or served to browsers)."""

from __future__ import annotations

import argparse
import os
import sys

from orderdash.cli.options import _load_settings, _settings_overrides
from orderdash.cli.simulate import _check_history_days, _simulator_run


def _run_dashboard(args: argparse.Namespace) -> int:
    """`orderdash tui` (the default command) and `orderdash pos`."""
    from orderdash.tui.run import run_dashboard

    tokens = args.token if isinstance(args.token, list) else [args.token]
    if args.command == "pos":
        from orderdash.core.service.tokens import operator_token

        # refused here: a point of sale with no order to open must not start at all
        operator_token(args.token)
    settings, warnings = _load_settings(args)
    return run_dashboard(settings, tokens, pos=args.command == "pos", notices=warnings)


def _run_watch(args: argparse.Namespace) -> int:
    from orderdash.core.model.errors import UsageError
    from orderdash.core.watching.watchlist_file import parse_tokens

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
#: The demo's customer display channel unless `--channel` names one: never the shop's.
DEMO_CHANNEL = "demo"


def _run_demo(args: argparse.Namespace) -> int:
    """Start the simulator with its demo orders and a paying customer, then open the dashboard."""
    import secrets

    from orderdash.core.ledger.open import demo_ledger_path
    from orderdash.core.runtime.logs import ensure_configured
    from orderdash.core.settings.sources import load_settings
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
    _check_history_days(args.history_days)
    simulator = Simulator(
        seed=seed, run=run, live=interval is not None, history_days=args.history_days
    )
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
                # the simulated account's fiat (its Generate Order makes orders in euros): the
                # till says so, and checks every charge against it, as a configured till does
                "currency": "EUR",
                "persist_watchlist": False,
                # nor the shop's books: its charges and orders go to a ledger of its own
                "ledger": str(demo_ledger_path()),
                "ledger_url": "",
                # nor the owner's phone: simulated payments are nobody's news
                "notify": (),
                # nor the shop's customer display: a channel of its own unless told one (its
                # faces say DEMO all the same)
                "display_channel": getattr(args, "display_channel", None) or DEMO_CHANNEL,
            },
            {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")},
        )
        return run_dashboard(settings, list(simulator.demo_tokens), demo=True)


def _run_display(args: argparse.Namespace) -> int:
    """The customer display, in this terminal or (`--web`) served to browsers."""
    from orderdash.core.customer.catalogue import resolve_language
    from orderdash.core.customer.channel import ChannelError, channel_path, runtime_problem
    from orderdash.core.model.errors import UsageError
    from orderdash.core.settings.sources import load_settings

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
    from orderdash.tui.customer_display import DisplayApp

    # what it refuses to show is logged: to the log file or nowhere, never over the screen
    configure_logging(settings.log_file)
    startup.resume()  # runs for hours
    DisplayApp(
        path, language=language, title=settings.display_title, primary=settings.pos_primary
    ).run()
    return 0
