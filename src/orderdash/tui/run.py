"""Running the dashboard from the command line, for real or on the in-process simulator."""

from __future__ import annotations

import argparse
import logging
import os
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from orderdash.core.runtime.config import Settings, load_settings
from orderdash.core.runtime.logs import ensure_configured

log = logging.getLogger(__name__)


def run_dashboard(
    settings: Settings, tokens: list[str], *, pos: bool = False, notices: Sequence[str] = ()
) -> int:
    """`notices`: warnings printed before the screen took over the terminal, shown again."""
    from orderdash.tui.app import make_app

    # while the screen is up nothing may log to the terminal: the log file or nowhere
    ensure_configured(settings.log_file, [settings.bearer_token])
    log.info(
        "dashboard started: %s, %d order(s), poll %gs, rate %gs",
        settings.base_url,
        len(tokens),
        settings.poll_interval,
        settings.refresh_interval,
    )
    app = make_app(settings, tokens=tokens, open_pos=pos, notices=notices)
    try:
        app.run()
    finally:
        log.info("dashboard stopped (exit code %s)", app.return_code)
    # a crash (Textual has printed its traceback) must not look like success to a script
    return app.return_code or 0


def run_demo(args: argparse.Namespace, overrides: Mapping[str, Any]) -> int:
    """Start the simulator with its demo orders and a paying customer, then open the dashboard."""
    from orderdash.simulator import DEMO_TOKENS, Simulator, SimulatorServer

    # the demo's credential lives only in this process: nothing to leak, nothing to configure
    bearer_token = secrets.token_urlsafe(24)
    # the in-process simulator (uvicorn) logs too: never onto the dashboard's terminal
    ensure_configured(None, [bearer_token])
    interval = args.customer_interval if args.customer_interval > 0 else None
    simulator = Simulator(seed=args.seed)
    with SimulatorServer(
        simulator, bearer_token=bearer_token, customer_interval=interval
    ) as server:
        settings, _ = load_settings(
            # the demo has its own orders: it neither reads nor writes the user's watch list
            {
                **overrides,
                "base_url": server.base_url,
                "bearer_token": bearer_token,
                "persist_watchlist": False,
            },
            {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")},
        )
        return run_dashboard(settings, list(DEMO_TOKENS))
