"""Formatting of server values for people: exact digits, safe text, no float anywhere."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from orderdash.core.safetext import clean
from orderdash.core.service import jsontext
from orderdash.core.service.models import Order, ServerTime

MISSING = "\u2014"  # em dash: the server sent nothing here


def amount_text(value: Decimal | None, *, group: bool = False) -> str:
    """Every digit the server sent, positional notation; `group` adds thousands separators."""
    if value is None:
        return MISSING
    if not jsontext.in_range(value):  # models bound money; never expand an unbounded one here
        return jsontext.OUT_OF_RANGE_MARK
    return format(value, ",f" if group else "f")


def fiat_text(value: Decimal | None, currency: str) -> str:
    return f"{amount_text(value, group=True)} {clean(currency, limit=12)}".strip()


def coin_code(order: Order) -> str:
    return clean(order.coin_base_name or "", limit=12).upper()


def rate_text(order: Order) -> str:
    """'1 BTC = 97,123.45 EUR', or why there is none."""
    if order.exchange_rate is None or not order.coin_base_name:
        return "coin not chosen yet"
    currency = clean(order.currency.abbreviation, limit=12)
    return f"1 {coin_code(order)} = {amount_text(order.exchange_rate, group=True)} {currency}"


def json_value_text(value: object, *, limit: int | None = 80) -> str:
    """A value whose type the spec does not show (`dueDate`): text as sent, anything else as
    compact JSON with the digits sent (never Python's repr: `{'at': Decimal('1.5')}`)."""
    if value is None:
        return MISSING
    if isinstance(value, str):
        return clean(value, limit=limit)
    if isinstance(value, jsontext.OutOfRangeNumber):
        return clean(str(value), limit=limit)
    try:
        text = jsontext.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return clean(text, limit=limit)


def server_time_text(value: ServerTime | None) -> str:
    if value is None:
        return MISSING
    return clean(value.raw, limit=40)


def epoch_ms_text(value: int | None) -> str:
    """An epoch-milliseconds value as UTC time, or the raw number when it is not plausible."""
    if value is None:
        return MISSING
    if 10**12 <= value < 10**14:
        moment = datetime.fromtimestamp(value / 1000, tz=UTC)
        return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    return str(value)


def duration_text(seconds: float) -> str:
    """'59:58', '1:02:03', or '3 d 4 h' for long spans; negative spans read as 0:00."""
    total = max(int(seconds), 0)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"
