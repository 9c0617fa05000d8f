"""Formatting of server values for people: exact digits, safe text, no float anywhere."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

from orderdash.core.model import jsontext
from orderdash.core.model.wire import Order, ServerTime
from orderdash.core.safetext import clean

MISSING = "\u2014"  # em dash: the server sent nothing here
#: Marks a figure rounded to fit its cells (the exact digits are one key away).
ROUNDED = "\u2248"
#: Marks text cut to fit its cells.
CUT = "\u2026"


def amount_text(value: Decimal | None, *, group: bool = False) -> str:
    """Every digit the server sent, positional notation; `group` adds thousands separators."""
    if value is None:
        return MISSING
    if not jsontext.in_range(value):  # models bound money; never expand an unbounded one here
        return jsontext.OUT_OF_RANGE_MARK
    return format(value, ",f" if group else "f")


def fit_amount(value: Decimal | None, width: int, *, group: bool = False) -> str:
    """`value` in at most `width` cells, never silently cut: every digit when they fit; else
    rounded to as many decimals as fit, marked "≈" ("≈0.12378" for 0.12378025 in
    8 cells); else cut, marked "…" (a huge number, or a tiny one that would round to 0).

    A DataTable crops a cell to its column with no sign, and a cropped figure looks whole
    ("0.12378" for 0.12378025): every figure put in a cell goes through here first.
    """
    whole = amount_text(value, group=group)
    if len(whole) <= width:
        return whole
    if width <= 0:
        return ""
    if value is not None and whole != jsontext.OUT_OF_RANGE_MARK and value.is_finite():
        rounded = _rounded_to_fit(value, width - len(ROUNDED), group=group)
        if rounded is not None:
            return ROUNDED + rounded
    return whole[: width - len(CUT)] + CUT


def _rounded_to_fit(value: Decimal, width: int, *, group: bool) -> str | None:
    """`value` rounded to the most decimals whose text fits `width`, or None when not even the
    whole number fits or the rounding leaves 0 of a non-zero value."""
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int)  # finite
    spec = ",f" if group else "f"
    with localcontext() as context:
        # room for every digit kept, however large the number
        context.prec = max(context.prec, value.adjusted() + 2 - exponent)
        for decimals in range(-exponent - 1, -1, -1):
            rounded = value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN)
            if rounded.is_zero() and not value.is_zero():
                return None
            text = format(rounded, spec)
            if len(text) <= width:
                return text
    return None


def fit_money(value: Decimal | None, unit: str, width: int, *, group: bool = False) -> str:
    """`fit_amount` followed by a unit ("0.00010437 BTC"), the whole in `width` cells; the unit
    goes before a figure is rounded for its sake only when not even "…" and the unit fit."""
    unit = clean(unit, limit=12)
    if not unit:
        return fit_amount(value, width, group=group)
    room = width - len(unit) - 1
    if room < 2:
        return fit_amount(value, width, group=group)
    return f"{fit_amount(value, room, group=group)} {unit}"


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
