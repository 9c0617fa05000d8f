"""`orderdash demo`: the simulator in-process, with its demo orders and a paying customer,
under the dashboard (its own credentials, ledger and display channel: nothing of the shop's).
The dashboard runs the callback receiver inside itself on a free loopback port, and the
simulator sends its callbacks there: a payment reaches the screen as a shop's does with a
receiver (callback, journal, getOrder, book, announcement), the poller backing off."""

from __future__ import annotations

import argparse
import os
import secrets
from typing import TYPE_CHECKING

from orderdash.cli.settings import settings_overrides
from orderdash.cli.simulate import check_history_days, simulator_run
from orderdash.core.ledger.open import demo_ledger_path
from orderdash.core.runtime.logs import ensure_configured
from orderdash.core.settings.sources import load_settings
from orderdash.simulator import Simulator, SimulatorServer
from orderdash.tui import run as tui_run

if TYPE_CHECKING:
    from orderdash.core.usecases.reads import BookOpener

#: The demo account's number (the simulator checks it on Generate Order).
DEMO_CUSTOMER_ID = "4711"
#: The demo's customer display channel unless `--channel` names one: never the shop's.
DEMO_CHANNEL = "demo"


def run_demo(args: argparse.Namespace, open_book: BookOpener | None = None) -> int:
    """Start the simulator with its demo orders and a paying customer, then open the dashboard
    (`open_book`: its book, as `make_app` takes it)."""
    # the demo's credentials live only in this process: nothing to leak, nothing to configure.
    # It logs in with an access token as a merchant does (the account mode: the watch list
    # fills itself, `n` makes a charge); the simulator's bearer is never handed to it.
    bearer_token = secrets.token_urlsafe(24)
    access_token = secrets.token_urlsafe(24)
    # the in-process simulator (uvicorn) logs too: never onto the dashboard's terminal
    ensure_configured(None, [bearer_token, access_token])
    interval = args.customer_interval if args.customer_interval > 0 else None
    seed, run = simulator_run(args.seed)
    check_history_days(args.history_days)
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
                **settings_overrides(args),
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
                # the push path, inside the dashboard: no port of the shop's is taken
                "receive": True,
                "receive_host": "127.0.0.1",
                "receive_port": 0,
            },
            {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")},
        )
        return tui_run.run_dashboard(
            settings,
            list(simulator.demo_tokens),
            demo=True,
            open_book=open_book,
            receiving=simulator.callbacks.configure,
        )
