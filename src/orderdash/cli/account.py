"""The account's commands (they need the access token): `orderdash orders`, the order history,
and `orderdash charge`, a new order for an amount (`core/usecases/charge.py`), with
`orderdash charges`, today's charges from the ledger (`core/usecases/charges.py`)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from orderdash.cli.options import EXIT_INTERRUPTED, _load_settings
from orderdash.cli.render import (
    Charged,
    ChargeList,
    ChargeStoppedResult,
    ChargeUnknownResult,
    OrderList,
)
from orderdash.core.domain.history import is_open_item
from orderdash.core.ledger.charges import check_command
from orderdash.core.ledger.open import writer_for
from orderdash.core.ledger.writer import CLOSE_SECONDS, INTERRUPTED_SECONDS, BookWriter
from orderdash.core.model.errors import ChargeOutcomeUnknown, ChargeStopped
from orderdash.core.polling.account import CommandBudget
from orderdash.core.service.account_answers import AccountOrders
from orderdash.core.service.client import OrderClient
from orderdash.core.settings.model import Settings
from orderdash.core.usecases.charge import (
    Charge,
    ChargeOptions,
    ask,
    interrupted,
    new_order_token,
)
from orderdash.core.usecases.charges import (
    LookupOptions,
    TodaysCharges,
    charge_written_down,
    earlier_charges,
    store_zone,
    todays_charges,
)


def _run_orders(args: argparse.Namespace) -> OrderList:
    settings, _ = _load_settings(args)

    async def fetch() -> AccountOrders:
        # the private budget, as the dashboard's history reads: a history that never ends
        # costs at most history_max_pages requests, paced within the service's limits
        budget = CommandBudget(settings.rate_budget_per_minute, settings.rate_budget_per_hour)
        async with OrderClient.from_settings(settings) as client:
            client.on_extra_private_request = budget.spent  # the log-in
            return await client.account_orders(
                max_pages=settings.history_max_pages, before_page=budget.take_turn
            )

    orders = asyncio.run(fetch())
    chosen = [
        (item, raw)
        for item, raw in zip(orders.items, orders.raw, strict=True)
        if not args.open or is_open_item(item)
    ]
    return OrderList(chosen, warnings=list(orders.warnings()), open_only=args.open)


def _run_charge(args: argparse.Namespace) -> Charged | ChargeUnknownResult | ChargeStoppedResult:
    settings, _ = _load_settings(args)
    options = ChargeOptions.from_settings(settings)
    # the amount in the till's currency (its decimals), the coin's form and the account's
    # credentials, before any order
    asked = ask(options, args.amount, coin=args.coin, order_id=args.order_id)
    lookups = LookupOptions.from_settings(settings)
    # the order's token, made here so that a Ctrl-C can still name the order it may have made
    token = new_order_token()
    sent: list[int] = []
    writer = writer_for(settings)

    async def make() -> Charge:
        # the ledger first: a charge that cannot be written down is not sent
        await writer.open()
        async with OrderClient.from_settings(settings) as client:
            client.on_order_read = lambda fetched: writer.saw(fetched.order.token, fetched.raw)
            # this till's charges a crash or a lost answer left unresolved: one line each
            for line in await earlier_charges(writer, client, lookups, gate=lookups.gate()):
                print(f"orderdash: an earlier charge: {line}", file=sys.stderr)
            return await charge_written_down(
                client,
                writer,
                asked,
                options,
                token=token,
                on_attempt=lambda attempt, _attempts: sent.append(attempt),
                warn=_warn,
            )

    interrupting = False
    try:
        return Charged(asyncio.run(make()))
    except ChargeOutcomeUnknown as unknown:
        return ChargeUnknownResult(unknown, check=_check_command(args, settings, unknown.token))
    except ChargeStopped as stopped:
        return ChargeStoppedResult(stopped)
    except KeyboardInterrupt:
        interrupting = True
        if not sent:
            raise  # no create was sent: nothing to name
        # the ledger says "sending" (written before the create): the next start looks it up
        check = _check_command(args, settings, token)
        return ChargeUnknownResult(
            interrupted(token), check=check, exit_code_given=EXIT_INTERRUPTED
        )
    finally:
        _close(writer, interrupting)


def _run_charges(args: argparse.Namespace) -> ChargeList:
    """Today's charges (since midnight in the store's time zone, the `timezone` setting) of
    this till, or of every till; this till's unresolved ones are looked up first."""
    settings, _ = _load_settings(args)
    zone = store_zone(settings)
    till = None if args.all_tills else settings.till
    lookups = LookupOptions.from_settings(settings)
    writer = writer_for(settings)
    # one getOrder budget for the earlier charges' look-ups and the orders' states
    gate = lookups.gate()

    async def read() -> TodaysCharges:
        await writer.open()
        async with OrderClient.from_settings(settings) as client:
            client.on_order_read = lambda fetched: writer.saw(fetched.order.token, fetched.raw)
            return await todays_charges(writer, client, lookups, zone=zone, till=till, gate=gate)

    interrupting = False
    try:
        today = asyncio.run(read())
    except KeyboardInterrupt:
        interrupting = True
        raise
    finally:
        _close(writer, interrupting)
    return ChargeList(today.charges, today.earlier, zone=zone, states=today.states)


def _close(writer: BookWriter, interrupted: bool) -> None:
    """The ledger's writer closed: after a Ctrl-C waiting for it briefly only, then saying on
    stderr what it left unwritten (a ledger call stuck on its server holds no exit)."""
    try:
        left = writer.close(INTERRUPTED_SECONDS if interrupted else CLOSE_SECONDS)
    except KeyboardInterrupt:
        # a Ctrl-C while the close waits for the ledger: what is left is said, not waited for
        left = writer.unwritten()
        if left:
            print(f"orderdash: interrupted: not written down: {left}", file=sys.stderr)
        raise
    if left:
        print(f"orderdash: {left}", file=sys.stderr)


def _warn(problem: str) -> None:
    print(f"orderdash: warning: {problem}", file=sys.stderr)


def _check_command(args: argparse.Namespace, settings: Settings, token: str) -> str:
    """The one command that reads the order `token` from the same service: the settings'
    `base_url` always (not a secret; it may have come from a config file or the environment),
    and the `--config` given here, if any, for the rest of the settings."""
    return check_command(str(settings.base_url), token, getattr(args, "config", None))
