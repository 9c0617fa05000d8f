"""A charge as the ledger tells it: its outcome from how the charge ended, and a charge left
unresolved (a crash, an answer never read) looked up by its token on its own service and said
in one line: "12.50 EUR at 10:02: made, awaiting payment" or "12.50 EUR at 10:02: not made"
(docs/books.md, "How an unresolved charge is resolved"); the state of each made charge's order
(paid, partly paid, expired...), from the orders the ledger saw or looked up
(`order_states`)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Protocol

from orderdash.core.domain.fiat import in_minor_digits
from orderdash.core.domain.status import SETTLED, state_of
from orderdash.core.domain.text import fiat_text
from orderdash.core.ledger import MAX_SERVICE_URL, ChargeRecord, ChargeService, LedgerError
from orderdash.core.model import jsontext
from orderdash.core.model.errors import (
    ChargeOutcomeUnknown,
    ChargeStopped,
    NotFound,
    OrderdashError,
)
from orderdash.core.safetext import clean
from orderdash.core.service.client import OrderClient

if TYPE_CHECKING:
    from orderdash.core.ledger.writer import BookWriter

#: Tries of one charge's creation (the first and two retries), and the pause before each retry
#: (`core/usecases/charge.py` makes them; `recent_window` counts them).
CREATE_ATTEMPTS = 3
RETRY_PAUSE = 1.0

#: Unresolved charges looked up at one start, newest first; the rest wait for the next.
MAX_LOOKUPS = 10
#: Made charges whose order is looked up at one `orderdash charges` (their order not seen
#: settled in the ledger), newest first; the rest keep what the ledger saw, or no state.
MAX_STATE_LOOKUPS = 20
#: The outcomes after which the charge's order exists.
HAS_ORDER = frozenset({"made", "stopped"})


class Gate(Protocol):
    """The getOrder budget the lookups spend (the command's, or the dashboard's watcher's)."""

    async def take_turn(self) -> None:
        """Return once the budget lets one more getOrder start, counting it."""
        ...


def outcome_of(error: BaseException) -> tuple[str, str]:
    """The outcome and its one-line detail of a charge that ended with `error`: "not made"
    only when the service refused (as `core/usecases/charge.py` decides)."""
    if isinstance(error, ChargeOutcomeUnknown):
        return "unknown", error.reason
    if isinstance(error, ChargeStopped):
        return "stopped", error.message
    if isinstance(error, OrderdashError):
        return "not_made", error.message
    return "unknown", f"interrupted: {type(error).__name__}"


def charge_line(
    record: ChargeRecord, now: datetime | None = None, zone: tzinfo | None = None
) -> str:
    """'12.50 EUR at 10:02' in the store's `zone` (the `timezone` setting; None: the machine's),
    '12.50 EUR at 2026-11-26 10:02' another day."""
    local = record.started_at.astimezone(zone)
    today = (now or datetime.now(local.tzinfo)).astimezone(local.tzinfo).date()
    when = local.strftime("%H:%M")
    if local.date() != today:
        when = f"{local.date().isoformat()} {when}"
    return f"{charge_money(record)} at {when}"


def charge_money(record: ChargeRecord) -> str:
    """'5.00 EUR': the amount with its currency's minor digits (as typed: '5'), never
    rounded; with no currency written down, the amount as typed."""
    if not record.currency:
        return str(record.amount)
    return fiat_text(in_minor_digits(record.amount, record.currency), record.currency)


def recent_window(deadline: float) -> timedelta:
    """How long after its latest create was sent a charge may still be in the hands of whoever
    started it (a dashboard of the same till, a `charge` command), its order not known to the
    service yet: every try of its create with its whole `deadline` (seconds, the `timeout`
    setting) and the pauses between, twice over, and never under five minutes. Within it the
    charge is not looked up, and a "no such order" is never taken for "not made"."""
    window = 2 * CREATE_ATTEMPTS * (deadline + RETRY_PAUSE)
    return max(timedelta(minutes=5), timedelta(seconds=window))


def known_by_now(record: ChargeRecord, now: datetime, recent: timedelta) -> bool:
    """The charge's latest create went `recent` or longer ago: its own service would know
    its order by now, so its "no such order" means the order was not made."""
    return now - record.last_sent >= recent


def check_command(base_url: str, token: str, config: str | None = None) -> str:
    """The command that reads the order `token` on the service at `base_url` (neither is a
    secret), with the `--config` that gives the rest of the settings, if one was given."""
    url = shlex.quote(clean(base_url, limit=MAX_SERVICE_URL))
    where = f" --base-url {url}"
    if config:
        where += f" --config {shlex.quote(clean(config, limit=4096))}"
    return f"orderdash get{where} -- {shlex.quote(clean(token, limit=200))}"


@dataclass(frozen=True)
class Resolved:
    """An unresolved charge, looked up: its new outcome ("" if still unknown) and one line."""

    record: ChargeRecord
    outcome: str
    detail: str
    line: str
    #: The order's currency, when it was read.
    currency: str = ""


@dataclass(frozen=True)
class Resolutions:
    """The charges looked up at a start, and one line each for those left for later."""

    found: list[Resolved]
    #: One line each: charges made on another service or account (or before the ledger kept
    #: it), never looked up here; charges too recent to look up; and those beyond the bound.
    later: list[str]


async def resolve(
    client: OrderClient,
    record: ChargeRecord,
    zone: tzinfo | None = None,
    *,
    known: bool,
) -> Resolved:
    """Look the charge's order up by its token (getOrder) on the charge's own service (the
    caller's `client`: `resolve_unresolved` sends nothing for a charge of another): made (and
    its state), not made (the service has no such order, and `known`: its create went long
    enough ago that the service would know it), or still unknown (no answer, an error, or
    too soon), said with the command to check it."""
    token = clean(record.token, limit=40)
    said = charge_line(record, zone=zone)
    where = record.service.base_url if record.service is not None else client.base_url
    check = check_command(where, record.token)
    try:
        fetched = await client.get_order(record.token)
    except NotFound:
        if not known:
            line = f"{said}: may exist, order {token} (sent moments ago): check it: {check}"
            return Resolved(record, "", "", line)
        detail = f"the service has no such order ({clean(where, limit=MAX_SERVICE_URL)})"
        return Resolved(record, "not_made", detail, f"{said}: not made")
    except OrderdashError as error:
        line = (
            f"{said}: still unknown, order {token} may exist ({error.message}): "
            f"check it before charging again: {check}"
        )
        return Resolved(record, "", "", line)
    state = clean(fetched.order.status.label or fetched.order.status.code, limit=40).lower()
    detail = f"made, {state}"
    currency = clean(fetched.order.currency.abbreviation, limit=12)
    if not record.currency:
        record = replace(record, currency=currency)  # the line names the order's money
    line = f"{charge_line(record, zone=zone)}: {detail} (order {token})"
    return Resolved(record, "made", detail, line, currency)


def elsewhere_line(record: ChargeRecord, now: datetime, zone: tzinfo | None = None) -> str:
    """A charge not looked up here (another service or account, or no service written down):
    where to check it."""
    said = charge_line(record, now, zone)
    token = clean(record.token, limit=40)
    if record.service is None:
        return (
            f"{said}: may exist, order {token} (charged before the ledger noted each charge's "
            "service: never looked up): check it on the service it was made on: "
            f"orderdash get --base-url URL -- {shlex.quote(clean(record.token, limit=200))}"
        )
    made_on = clean(str(record.service), limit=MAX_SERVICE_URL + 100)
    check = check_command(record.service.base_url, record.token)
    return f"{said}: may exist (made on {made_on}): check there: {check}"


async def resolve_unresolved(
    writer: BookWriter,
    client: OrderClient,
    *,
    gate: Gate,
    recent: timedelta,
    here: ChargeService,
    zone: tzinfo | None = None,
    limit: int = MAX_LOOKUPS,
    now: datetime | None = None,
) -> Resolutions:
    """This till's charges left "sending" or "unknown", newest first, at most `limit`, each
    looked up through `gate` and its outcome written when the service could say it (one line
    each, for a notice or stderr). Only a charge made on `here` (the service and account
    `client` asks: the settings') is looked up; one made on another, or written before the
    ledger kept its service, is said with where to check it and left as it is. A charge whose
    latest create went less than `recent` ago may still be being made (the same till's
    dashboard): it is left for later. The outcome is written only over "sending" or
    "unknown", never over the one its charge wrote meanwhile."""
    moment = now or datetime.now(UTC)
    pending = await writer.unresolved()
    elsewhere = sorted(
        (r for r in pending if r.service != here), key=lambda r: r.started_at, reverse=True
    )
    ours = [r for r in pending if r.service == here]
    fresh = [r for r in ours if not known_by_now(r, moment, recent)]
    old = sorted(
        (r for r in ours if known_by_now(r, moment, recent)),
        key=lambda r: r.started_at,
        reverse=True,
    )
    later = [elsewhere_line(r, moment, zone) for r in elsewhere[:limit]]
    if len(elsewhere) > limit:
        later.append(
            f"and {len(elsewhere) - limit} more made on another service or account (or before "
            "the ledger noted it), not looked up here"
        )
    later += [
        f"{charge_line(r, moment, zone)}: started moments ago, left for later (it may still "
        "be being made)"
        for r in fresh[-limit:]
    ]
    if len(fresh) > limit:
        later.append(f"and {len(fresh) - limit} more started moments ago, left for later")
    if len(old) > limit:
        later.append(f"and {len(old) - limit} older ones, left for the next start")
    found = []
    for record in old[:limit]:
        await gate.take_turn()
        resolved = await resolve(client, record, zone, known=known_by_now(record, moment, recent))
        if resolved.outcome:
            try:
                written = await writer.charge_resolved(
                    record.token, resolved.outcome, resolved.detail, currency=resolved.currency
                )
            except LedgerError as error:
                resolved = replace(resolved, line=f"{resolved.line} (not written: {error.message})")
                written = True
            if not written:
                continue  # its charge ended meanwhile and wrote its own outcome
        found.append(resolved)
    return Resolutions(found, later)


@dataclass(frozen=True)
class OrderState:
    """The state of a charge's order: the close of day's word (paid, expired...; `open` and
    `partly paid` for one still in progress), where it was read (`LEDGER`: the order as the
    ledger last saw it; `SERVICE`: looked up now) and when (aware, UTC)."""

    word: str
    source: str
    read_at: datetime


LEDGER = "ledger"
SERVICE = "service"


def order_state_word(data: object) -> str | None:
    """An order's state (getOrder's `data`) in the close of day's words, the one still in
    progress told apart: `open` (nothing paid yet) or `partly paid` (a payment came); None
    when it has no status to read."""
    if not isinstance(data, dict) or not isinstance(data.get("status"), dict):
        return None
    status = data["status"]
    state = state_of(status.get("code"), status.get("label"))
    if state == "in_progress":
        paid = isinstance(data.get("transactions"), list) and bool(data["transactions"])
        return "partly paid" if paid else "open"
    return state.replace("_", " ")


def _seen_state(order_json: str, seen_at: datetime) -> OrderState | None:
    try:
        word = order_state_word(jsontext.loads(order_json))
    except ValueError:  # cut (longer than the ledger reads back) or not JSON: not known
        return None
    return OrderState(word, LEDGER, seen_at) if word is not None else None


async def order_states(
    writer: BookWriter,
    client: OrderClient,
    records: list[ChargeRecord],
    *,
    gate: Gate,
    here: ChargeService,
    read: Mapping[str, object] | None = None,
    limit: int = MAX_STATE_LOOKUPS,
    now: datetime | None = None,
) -> dict[str, OrderState]:
    """The state of each made charge's order, by token: as the ledger last saw it when that
    state is settled (paid, expired...: it no longer changes by itself), as this command read
    it already (`read`: getOrder's data by token, e.g. an earlier charge's look-up), else
    looked up on the service through `gate`, newest first, at most `limit` (each read written
    to the ledger by the client's own hook): only a charge made on `here`, the service and
    account `client` asks. A charge not looked up, or whose look-up failed, keeps what the
    ledger saw, or has no state. The first failure that is not a "no such order" (the service
    away) ends the look-ups: the rest are not asked for."""
    moment = now or datetime.now(UTC)
    made = [r for r in records if r.outcome in HAS_ORDER]
    tokens = {r.token for r in made}
    wanted = sorted(tokens)
    seen = await writer.call(lambda book: book.orders_seen(wanted)) if tokens else []
    states: dict[str, OrderState] = {}
    for order in seen:
        state = _seen_state(order.order_json, order.last_seen)
        if state is not None:
            states[order.token] = state
    for token, data in (read or {}).items():
        word = order_state_word(data)
        if token in tokens and word is not None:
            states[token] = OrderState(word, SERVICE, moment)
    unsettled = sorted(
        (
            r
            for r in made
            if r.service == here
            and r.token not in (read or {})
            and (r.token not in states or states[r.token].word not in _SETTLED_WORDS)
        ),
        key=lambda r: r.started_at,
        reverse=True,
    )
    for record in unsettled[:limit]:
        await gate.take_turn()
        try:
            fetched = await client.get_order(record.token)
        except NotFound:
            continue
        except OrderdashError:
            break
        word = order_state_word(fetched.raw)
        if word is not None:
            states[record.token] = OrderState(word, SERVICE, moment)
    return states


#: The words of the settled states: an order seen in one is not looked up again.
_SETTLED_WORDS = frozenset(state.replace("_", " ") for state in SETTLED)
