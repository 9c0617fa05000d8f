"""The messages an owner receives: plain text, built from validated data only.

Every text from the service (a company name, a status, an alert's words) passes `clean` (one
printable line, bounded); amounts are the exact decimals the service sent, never rounded; an
order is named by its token. Apprise is told the body is plain text, so a service that renders
Markdown or HTML escapes it rather than reading markup in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from orderdash.core.safetext import clean

#: The title every message starts with, so an owner's filter can find them.
PREFIX = "orderdash"
#: A message body at most this long (a close with many currencies is cut, never refused).
MAX_BODY = 4000


@dataclass(frozen=True)
class Message:
    #: The event it is ("payment", ..., or "test"): which rules send it.
    event: str
    title: str
    body: str


def _text(value: Any, limit: int = 80) -> str:
    return clean(value, limit=limit)


def amount(value: Decimal | str | None) -> str:
    """An amount with exactly the digits it came with ("?" when absent)."""
    if value is None:
        return "?"
    if isinstance(value, Decimal):
        return format(value, "f")
    return _text(value, 60)


def _message(event: str, title: str, lines: Iterable[str]) -> Message:
    body = "\n".join(lines)
    if len(body) > MAX_BODY:
        body = body[: MAX_BODY - 1] + "\u2026"
    return Message(event, f"{PREFIX}: {title}", body)


def payment(
    token: str,
    paid: Decimal | str | None,
    coin: str,
    fiat: Decimal | str | None,
    currency: str,
    *,
    state: str = "",
    company: str = "",
) -> Message:
    """A new payment on a watched order."""
    lines = [
        f"Order {_text(token)}" + (f" ({_text(company, 40)})" if company else ""),
        f"Paid: {amount(paid)} {_text(coin, 12)} ({amount(fiat)} {_text(currency, 12)})",
    ]
    if state:
        lines.append(f"Order now: {_text(state, 40)}")
    return _message("payment", f"payment {amount(paid)} {_text(coin, 12)}", lines)


#: What needs a human, in people's words: the attention view's kinds and the phases that
#: `watch --jsonl` tells (docs/notify.md); anything else is said as it came, cleaned.
WORDS = {
    "identity_changed": "Token names another order",
    "underpaid": "Underpaid",
    "still_paying": "Still paying",
    "overpaid": "Overpaid",
    "expired_with_payment": "Expired with a payment",
    "canceled_with_payment": "Canceled with a payment",
    "paid_after_expiry": "Paid after expiry",
    "unconfirmed": "Payment unconfirmed",
    "late-payment": "Late payment",
}


def words(what: str) -> str:
    """`what` (a kind, a phase, an event's name) as a person says it."""
    said = WORDS.get(what)
    if said is not None:
        return said
    text = _text(what, 200)
    return text[:1].upper() + text[1:]


def attention(
    token: str,
    what: str,
    next_step: str = "",
    *,
    amount: Decimal | None = None,
    currency: str = "",
) -> Message:
    """An order newly needs a human: what happened ("Paid after expiry: 18.00 EUR on order
    ..."), the figure if known, and what to do next."""
    said = words(what)
    figure = f": {format(amount, 'f')} {_text(currency, 12)}".rstrip() if amount is not None else ""
    lines = [f"{said}{figure} on order {_text(token)}"]
    if next_step:
        lines.append(f"Next step: {_text(next_step, 200)}")
    return _message("attention", f"{_text(said, 40)}{figure} on order {_text(token, 24)}", lines)


def attention_digest(lines: list[str], count: int) -> Message:
    """`count` orders that needed a human within a minute, as one message (`digest.py`): the
    first line of each listed one's message, and how many more."""
    heading = f"{count} order needs attention" if count == 1 else f"{count} orders need attention"
    body = [f"{heading}:", *(f"  {_text(line, 160)}" for line in lines)]
    if count > len(lines):
        body.append(f"  \u2026 and {count - len(lines)} more")
    return _message("attention", heading, body)


def outage(reason: str, since: str) -> Message:
    """The service has not answered since `since` (local HH:MM), for long enough to be told."""
    return _message(
        "outage",
        f"Service unreachable since {_text(since, 8)}",
        [
            f"The service has not answered since {_text(since, 8)}: {_text(reason, 200)}",
            "Orders are not read until it answers again.",
        ],
    )


def recovery(since: str) -> Message:
    return _message(
        "recovery",
        "Service reachable again",
        [
            f"The service answers again (unreachable since {_text(since, 8)}): orders are "
            "read again."
        ],
    )


def event_fields(event: str, token: str | None, text: str, fields: Mapping[str, Any]) -> Message:
    """Any other event by its name (an alert kind such as "late-payment"): its words and its
    plain fields (text, numbers, exact amounts), each cleaned."""
    lines = [f"Order {_text(token)}" if token else "The service"]
    if text:
        lines.append(_text(text, 480))
    for name, value in fields.items():
        if isinstance(value, str | Decimal | int | bool) and name.isidentifier():
            shown = amount(value) if isinstance(value, Decimal) else _text(value, 80)
            lines.append(f"{_text(name, 30)}: {shown}")
    title = words(event) + (f" on order {_text(token, 24)}" if token else "")
    return _message(event, title, lines)


def close_digest(report: Mapping[str, Any]) -> Message:
    """The close of day in a few lines: its whole digest (kept outside the ledger, what the
    next close's chain and `orderdash close --verify` are compared with; early, so that a body
    cut at MAX_BODY keeps it), totals per coin and per fiat currency (exact) and the
    exceptions' count (the report read back is as untrusted as the service: every part
    cleaned)."""
    period = report.get("period", {})
    received = report.get("received", {})
    lines = [
        f"Close of day {_text(period.get('from'), 40)} to {_text(period.get('until'), 40)}",
        f"Digest: {_text(report.get('digest'), 80)}",
        f"Orders: {_text(report.get('orders', {}).get('total'), 12)}",
    ]
    for kind, heading in (("coins", "Received in coin"), ("fiat", "Received in fiat")):
        rows = received.get(kind) or {}
        lines.append(f"{heading}:" if rows else f"{heading}: nothing")
        for unit, row in sorted(rows.items()):
            count = _text(row.get("payments"), 12)
            payments = "payment" if count == "1" else "payments"
            lines.append(f"  {_text(unit, 12)} {amount(row.get('amount'))} ({count} {payments})")
    lines.append(f"Exceptions: {len(report.get('exceptions') or ())}")
    day = _text(period.get("from"), 40)[:10]
    return _message("close", f"close of day {day}", lines)


def test() -> Message:
    return _message("test", "test message", ["A test from orderdash: this rule reaches you."])


#: How a summary counts each event's held messages (one, many).
_COUNTED = {
    "payment": ("payment", "payments"),
    "attention": ("order needing attention", "orders needing attention"),
    "late-payment": ("late payment", "late payments"),
    "outage": ("outage", "outages"),
    "recovery": ("recovery", "recoveries"),
    "close": ("close of day", "closes of day"),
}


def held_summary(quiet: str, held: list[tuple[str, Message]], more: int) -> Message:
    """What the quiet hours held back, as one message when they end: how many of each event
    (counted, not repeated one by one), the first and last time, and a close of day in full
    (its figures are the day's, told nowhere else)."""
    total = len(held) + more
    counts: dict[str, int] = {}
    for _, message in held:
        counts[message.event] = counts.get(message.event, 0) + 1
    parts = []
    for event, count in counts.items():
        one, many = _COUNTED.get(event, (event, event))
        parts.append(f"{count} {one if count == 1 else many}")
    if more:
        parts.append(f"{more} more")
    lines = [f"While quiet ({quiet}), {total} messages were held: {', '.join(parts)}."]
    if held:
        lines.append(f"The first at {held[0][0]}, the last at {held[-1][0]}.")
    for _, message in held:
        if message.event == "close":
            lines += ["", message.body]
    return _message("summary", f"{total} held during quiet hours", lines)
