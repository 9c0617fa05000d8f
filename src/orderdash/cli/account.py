"""The account's commands (they need the access token): `orderdash orders`, the order history,
and `orderdash charge`, a new order for an amount."""

from __future__ import annotations

import argparse
from typing import Any

from orderdash.cli.options import _load_settings
from orderdash.cli.render import (
    Charged,
    ChargeList,
    ChargeStoppedResult,
    ChargeUnknownResult,
    OrderList,
)


def _run_orders(args: argparse.Namespace) -> OrderList:
    import asyncio

    from orderdash.core.domain.history import is_open_item
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
    import asyncio

    from orderdash.cli.options import EXIT_INTERRUPTED
    from orderdash.core.ledger.charges import outcome_of
    from orderdash.core.service.client import OrderClient
    from orderdash.core.service.errors import AuthRequired, ChargeOutcomeUnknown, ChargeStopped
    from orderdash.core.usecases.charge import (
        charge,
        check_coin_text,
        interrupted,
        new_order_token,
        parse_amount,
    )

    settings, _ = _load_settings(args)
    # the amount in the till's currency (its decimals), and the coin's form, before any order
    amount = parse_amount(args.amount, settings.currency)
    coin = check_coin_text(args.coin) if args.coin is not None else None
    if settings.access_token is None or settings.customer_id is None:
        # the account's credentials, as `orders` and `close` miss them: exit 4, not a usage error
        raise AuthRequired(
            "charge needs the access token (access_token_file) and customer_id "
            "(--customer-id, ORDERDASH_CUSTOMER_ID): both are in the service's cabinet"
        )
    customer_id = settings.customer_id
    # the order's token, made here so that a Ctrl-C can still name the order it may have made
    token = new_order_token()
    sent: list[int] = []
    writer = _book_writer(settings)

    async def make() -> Any:
        # the ledger first: a charge that cannot be written down is not sent
        await writer.open()
        async with OrderClient.from_settings(settings) as client:
            client.on_order_read = lambda fetched: writer.saw(fetched.order.token, fetched.raw)
            await _earlier_charges(writer, client, settings)

            async def write_down(sending: str) -> None:
                await writer.charge_started(sending, amount, settings.currency or "")

            try:
                made = await charge(
                    client,
                    amount,
                    customer_id=customer_id,
                    order_id=args.order_id,
                    coin=coin,
                    currency=settings.currency,
                    new_token=lambda: token,
                    on_attempt=lambda attempt, _attempts: sent.append(attempt),
                    before_send=write_down,
                )
            except Exception as error:
                if sent:
                    _warn(await writer.charge_ended(token, *outcome_of(error)))
                raise
            _warn(await writer.charge_ended(token, "made", currency=made.currency or ""))
            return made

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
    import asyncio
    from datetime import datetime

    from orderdash.core.books.period import day_period, zone_named
    from orderdash.core.books.run import gates
    from orderdash.core.ledger.charges import order_states
    from orderdash.core.ledger.open import service_of
    from orderdash.core.service.client import OrderClient

    settings, _ = _load_settings(args)
    # the day as the close counts it (a day of a clock change is 23 or 25 hours)
    zone = zone_named(settings.timezone)
    today = day_period(datetime.now(zone).date().isoformat(), zone)
    till = None if args.all_tills else settings.till
    writer = _book_writer(settings)
    # one getOrder budget for the earlier charges' look-ups and the orders' states
    orders_gate, _ = gates(settings)

    async def read() -> Any:
        await writer.open()
        read: dict[str, Any] = {}  # the orders this command read: never asked twice

        def kept(fetched: Any) -> None:
            read[fetched.order.token] = fetched.raw
            writer.saw(fetched.order.token, fetched.raw)

        async with OrderClient.from_settings(settings) as client:
            client.on_order_read = kept
            lines = await _resolve(writer, client, settings, orders_gate)
            listed = await writer.charges(today.start, today.end, till)
            states = await order_states(
                writer, client, listed, gate=orders_gate, here=service_of(settings), read=read
            )
        return lines, listed, states

    interrupting = False
    try:
        lines, listed, states = asyncio.run(read())
    except KeyboardInterrupt:
        interrupting = True
        raise
    finally:
        _close(writer, interrupting)
    return ChargeList(listed, lines, zone=zone, states=states)


def _book_writer(settings: Any) -> Any:
    from orderdash.core.ledger.open import writer_for

    return writer_for(settings)


def _close(writer: Any, interrupted: bool) -> None:
    """The ledger's writer closed: after a Ctrl-C waiting for it briefly only, then saying on
    stderr what it left unwritten (a ledger call stuck on its server holds no exit)."""
    import sys

    from orderdash.core.ledger.writer import CLOSE_SECONDS, INTERRUPTED_SECONDS

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


async def _resolve(writer: Any, client: Any, settings: Any, gate: Any = None) -> list[str]:
    """This till's unresolved charges made on the settings' service and account looked up
    within the command's getOrder budget (`gate`, else one of their own): one line each (those
    left for later, and those of another service, included)."""
    from orderdash.core.books.period import zone_named
    from orderdash.core.books.run import gates
    from orderdash.core.ledger.charges import recent_window, resolve_unresolved
    from orderdash.core.ledger.open import service_of
    from orderdash.core.service.errors import OrderdashError

    try:
        zone = zone_named(settings.timezone)
    except OrderdashError:
        zone = None  # a `timezone` not understood stops no charge: the machine's zone
    orders = gate if gate is not None else gates(settings)[0]
    resolutions = await resolve_unresolved(
        writer,
        client,
        gate=orders,
        recent=recent_window(settings.timeout),
        here=service_of(settings),
        zone=zone,
    )
    return [r.line for r in resolutions.found] + resolutions.later


async def _earlier_charges(writer: Any, client: Any, settings: Any) -> None:
    """This till's charges a crash or a lost answer left unresolved: looked up, one line each
    on stderr."""
    import sys

    for line in await _resolve(writer, client, settings):
        print(f"orderdash: an earlier charge: {line}", file=sys.stderr)


def _warn(problem: str) -> None:
    if problem:
        import sys

        print(f"orderdash: warning: {problem}", file=sys.stderr)


def _check_command(args: argparse.Namespace, settings: Any, token: str) -> str:
    """The one command that reads the order `token` from the same service: the settings'
    `base_url` always (not a secret; it may have come from a config file or the environment),
    and the `--config` given here, if any, for the rest of the settings."""
    from orderdash.core.ledger.charges import check_command

    return check_command(str(settings.base_url), token, getattr(args, "config", None))
