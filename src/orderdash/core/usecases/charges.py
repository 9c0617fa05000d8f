"""This till's charges with the ledger: a charge written down before its create is sent and
its outcome after (the `charge` command), the charges a crash or a lost answer left unresolved
looked up on their own service, and today's charges with their orders' states (`orderdash
charges`). The ledger's side of each is `core/ledger/charges.py`; the charge itself is
`charge.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

from orderdash.core.books.period import day_period, zone_named
from orderdash.core.ledger.charges import (
    Gate,
    OrderState,
    order_states,
    outcome_of,
    recent_window,
    resolve_unresolved,
)
from orderdash.core.ledger.open import service_of
from orderdash.core.model.errors import OrderdashError
from orderdash.core.polling.account import CommandBudget
from orderdash.core.usecases import charge as charge_use_case
from orderdash.core.usecases.charge import Charge, ChargeAsked, ChargeOptions

if TYPE_CHECKING:
    from orderdash.core.ledger import ChargeRecord, ChargeService
    from orderdash.core.ledger.writer import BookWriter
    from orderdash.core.model.results import Fetched
    from orderdash.core.service.client import OrderClient
    from orderdash.core.settings.model import Settings


@dataclass(frozen=True, slots=True)
class LookupOptions:
    """What looking up this till's unresolved charges takes of the settings, read once: how
    recent a charge may still be in someone's hands (`recent_window`), the service and account
    the settings point at (the only one looked up), the zone their lines are told in, and
    this till's share of the getOrder budget (`gate`)."""

    recent: timedelta
    here: ChargeService
    zone: tzinfo | None
    per_minute: int
    per_hour: int

    @classmethod
    def from_settings(cls, settings: Settings) -> LookupOptions:
        try:
            zone = zone_named(settings.timezone)
        except OrderdashError:
            zone = None  # a `timezone` not understood stops no charge: the machine's zone
        share = settings.budgets
        return cls(
            recent_window(settings.timeout),
            service_of(settings),
            zone,
            share["budget_per_minute"],
            share["budget_per_hour"],
        )

    def gate(self) -> CommandBudget:
        """A getOrder budget of its own, paced as every command paces it."""
        return CommandBudget(self.per_minute, self.per_hour)


def store_zone(settings: Settings) -> tzinfo:
    """The store's time zone (the `timezone` setting; the machine's when unset): the day
    `orderdash charges` lists, as the close counts it. UsageError when it is not understood:
    nothing is read."""
    return zone_named(settings.timezone)


async def charge_written_down(
    client: OrderClient,
    writer: BookWriter,
    asked: ChargeAsked,
    options: ChargeOptions,
    *,
    token: str,
    on_attempt: Callable[[int, int], None] | None = None,
    warn: Callable[[str], None] = lambda _problem: None,
) -> Charge:
    """`charge` of `asked` with the order token `token`, written to the ledger before its
    create is sent (a charge that cannot be written down is not sent) and its outcome after,
    once a try started; `warn` is told what the ledger could not write of the outcome (one
    line: the charge itself is done)."""
    tried = False

    def attempt(number: int, attempts: int) -> None:
        nonlocal tried
        tried = True
        if on_attempt is not None:
            on_attempt(number, attempts)

    async def write_down(sending: str) -> None:
        await writer.charge_started(sending, asked.amount, options.currency or "")

    try:
        # looked up at each call, not bound at import: a test may stand in its own `charge`
        made = await charge_use_case.charge(
            client,
            asked.amount,
            customer_id=asked.customer_id,
            order_id=asked.order_id,
            coin=asked.coin,
            currency=options.currency,
            new_token=lambda: token,
            on_attempt=attempt,
            before_send=write_down,
        )
    except Exception as error:
        if tried:
            _told(warn, await writer.charge_ended(token, *outcome_of(error)))
        raise
    _told(warn, await writer.charge_ended(token, "made", currency=made.currency or ""))
    return made


def _told(warn: Callable[[str], None], problem: str) -> None:
    if problem:
        warn(problem)


async def earlier_charges(
    writer: BookWriter, client: OrderClient, options: LookupOptions, *, gate: Gate
) -> list[str]:
    """This till's unresolved charges made on the settings' service and account, looked up
    within the command's getOrder budget (`gate`): one line each (those left for later, and
    those of another service, included)."""
    resolutions = await resolve_unresolved(
        writer,
        client,
        gate=gate,
        recent=options.recent,
        here=options.here,
        zone=options.zone,
    )
    return [r.line for r in resolutions.found] + resolutions.later


@dataclass(frozen=True, slots=True)
class TodaysCharges:
    """`orderdash charges`: today's charges, one line each of the earlier ones just looked up,
    and the state of each made charge's order, by token."""

    charges: list[ChargeRecord]
    earlier: list[str]
    states: dict[str, OrderState] = field(default_factory=dict)


async def todays_charges(
    writer: BookWriter,
    client: OrderClient,
    options: LookupOptions,
    *,
    zone: tzinfo,
    till: str | None,
    gate: Gate,
    now: datetime | None = None,
) -> TodaysCharges:
    """Today's charges (since midnight in `zone`, as the close counts a day: one of a clock
    change is 23 or 25 hours) of `till`, or of every till (None), after this till's unresolved
    ones are looked up; one getOrder budget (`gate`) for the look-ups and the orders' states,
    and an order read once is never asked for again."""
    today = day_period((now or datetime.now(zone)).astimezone(zone).date().isoformat(), zone)
    read: dict[str, object] = {}
    hook = client.on_order_read

    def kept(fetched: Fetched) -> None:
        read[fetched.order.token] = fetched.raw
        if hook is not None:
            hook(fetched)

    client.on_order_read = kept
    try:
        earlier = await earlier_charges(writer, client, options, gate=gate)
        listed = await writer.charges(today.start, today.end, till)
        states = await order_states(writer, client, listed, gate=gate, here=options.here, read=read)
    finally:
        client.on_order_read = hook
    return TodaysCharges(listed, earlier, states)
