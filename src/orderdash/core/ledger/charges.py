"""A charge as the ledger tells it: its outcome from how the charge ended, and a charge left
unresolved (a crash, an answer never read) looked up by its token and said in one line:
"12.50 EUR at 10:02: made, awaiting payment" or "12.50 EUR at 10:02: not made"."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from orderdash.core.domain.text import fiat_text
from orderdash.core.ledger import ChargeRecord
from orderdash.core.safetext import clean
from orderdash.core.service.client import OrderClient
from orderdash.core.service.errors import (
    ChargeOutcomeUnknown,
    ChargeStopped,
    NotFound,
    OrderdashError,
)

if TYPE_CHECKING:
    from orderdash.core.ledger.writer import BookWriter


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


def charge_line(record: ChargeRecord, now: datetime | None = None) -> str:
    """'12.50 EUR at 10:02' in local time ('12.50 EUR at 2026-11-26 10:02' another day)."""
    local = record.started_at.astimezone()
    today = (now or datetime.now(local.tzinfo)).astimezone(local.tzinfo).date()
    when = local.strftime("%H:%M")
    if local.date() != today:
        when = f"{local.date().isoformat()} {when}"
    money = fiat_text(record.amount, record.currency) if record.currency else str(record.amount)
    return f"{money} at {when}"


@dataclass(frozen=True)
class Resolved:
    """An unresolved charge, looked up: its new outcome ("" if still unknown) and one line."""

    record: ChargeRecord
    outcome: str
    detail: str
    line: str
    #: The order's currency, when it was read.
    currency: str = ""


async def resolve(client: OrderClient, record: ChargeRecord) -> Resolved:
    """Look the charge's order up by its token (getOrder): made (and its state), not made
    (the service has no such order), or still unknown (no answer)."""
    token = clean(record.token, limit=40)
    try:
        fetched = await client.get_order(record.token)
    except NotFound:
        return Resolved(
            record, "not_made", "the service has no such order", f"{charge_line(record)}: not made"
        )
    except OrderdashError as error:
        line = f"{charge_line(record)}: still unknown, order {token} ({error.message})"
        return Resolved(record, "", "", line)
    state = clean(fetched.order.status.label or fetched.order.status.code, limit=40).lower()
    detail = f"made, {state}"
    currency = clean(fetched.order.currency.abbreviation, limit=12)
    if not record.currency:
        record = replace(record, currency=currency)  # the line names the order's money
    line = f"{charge_line(record)}: {detail} (order {token})"
    return Resolved(record, "made", detail, line, currency)


async def resolve_unresolved(writer: BookWriter, client: OrderClient) -> list[Resolved]:
    """This till's charges left "sending" or "unknown", each looked up and its outcome
    written when the service could say it (one line each, for a notice or stderr)."""
    found = []
    for record in await writer.unresolved():
        resolved = await resolve(client, record)
        if resolved.outcome:
            await writer.charge_ended(
                record.token, resolved.outcome, resolved.detail, currency=resolved.currency
            )
        found.append(resolved)
    return found
