"""A charge as the ledger tells it: its outcome from how the charge ended, and a charge left
unresolved (a crash, an answer never read) looked up by its token and said in one line:
"12.50 EUR at 10:02: made, awaiting payment" or "12.50 EUR at 10:02: not made"."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Protocol

from orderdash.core.domain.text import fiat_text
from orderdash.core.ledger import ChargeRecord, LedgerError
from orderdash.core.safetext import clean
from orderdash.core.service.charge import CREATE_ATTEMPTS, RETRY_PAUSE
from orderdash.core.service.client import OrderClient
from orderdash.core.service.errors import (
    ChargeOutcomeUnknown,
    ChargeStopped,
    NotFound,
    OrderdashError,
)

if TYPE_CHECKING:
    from orderdash.core.ledger.writer import BookWriter

#: Unresolved charges looked up at one start, newest first; the rest wait for the next.
MAX_LOOKUPS = 10


class Gate(Protocol):
    """The getOrder budget the lookups spend (the command's, or the dashboard's watcher's)."""

    async def take_turn(self) -> None:
        """Return once the budget lets one more getOrder start, counting it."""
        ...


def outcome_of(error: BaseException) -> tuple[str, str]:
    """The outcome and its one-line detail of a charge that ended with `error`: "not made"
    only when the service refused (as `core/service/charge.py` decides)."""
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
    money = fiat_text(record.amount, record.currency) if record.currency else str(record.amount)
    return f"{money} at {when}"


def recent_window(deadline: float) -> timedelta:
    """How long a charge may still be in the hands of whoever started it (a dashboard of the
    same till, a `charge` command): every try of its create with its whole `deadline`
    (seconds, the `timeout` setting) and the pauses between, twice over, and never under five
    minutes. A lookup sooner could find no order yet and call "not made" a charge being made."""
    window = 2 * CREATE_ATTEMPTS * (deadline + RETRY_PAUSE)
    return max(timedelta(minutes=5), timedelta(seconds=window))


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
    #: One line each: charges too recent to look up, and those beyond the bound.
    later: list[str]


async def resolve(
    client: OrderClient, record: ChargeRecord, zone: tzinfo | None = None
) -> Resolved:
    """Look the charge's order up by its token (getOrder): made (and its state), not made
    (the service has no such order), or still unknown (no answer)."""
    token = clean(record.token, limit=40)
    said = charge_line(record, zone=zone)
    try:
        fetched = await client.get_order(record.token)
    except NotFound:
        return Resolved(record, "not_made", "the service has no such order", f"{said}: not made")
    except OrderdashError as error:
        line = f"{said}: still unknown, order {token} ({error.message})"
        return Resolved(record, "", "", line)
    state = clean(fetched.order.status.label or fetched.order.status.code, limit=40).lower()
    detail = f"made, {state}"
    currency = clean(fetched.order.currency.abbreviation, limit=12)
    if not record.currency:
        record = replace(record, currency=currency)  # the line names the order's money
    line = f"{charge_line(record, zone=zone)}: {detail} (order {token})"
    return Resolved(record, "made", detail, line, currency)


async def resolve_unresolved(
    writer: BookWriter,
    client: OrderClient,
    *,
    gate: Gate,
    recent: timedelta,
    zone: tzinfo | None = None,
    limit: int = MAX_LOOKUPS,
    now: datetime | None = None,
) -> Resolutions:
    """This till's charges left "sending" or "unknown", newest first, at most `limit`, each
    looked up through `gate` and its outcome written when the service could say it (one line
    each, for a notice or stderr). A charge started less than `recent` ago may still be being
    made (the same till's dashboard): it is left for later. The outcome is written only over
    "sending" or "unknown", never over the one its charge wrote meanwhile."""
    moment = now or datetime.now(UTC)
    pending = await writer.unresolved()
    fresh = [r for r in pending if moment - r.started_at < recent]
    old = sorted(
        (r for r in pending if moment - r.started_at >= recent),
        key=lambda r: r.started_at,
        reverse=True,
    )
    later = [
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
        resolved = await resolve(client, record, zone)
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
