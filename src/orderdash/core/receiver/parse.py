"""A callback's body, as the service documents it (the shared notes on the service, "Callbacks"):
JSON, or the same fields form-encoded. Only what the receiver compares is kept: the order's
token (what to read), the status and the last transaction's amounts (what the body claims,
set against getOrder's answer). Nothing here is trusted: a body that cannot be read is
`Malformed`, with one line saying why."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import NamedTuple
from urllib.parse import parse_qs

from orderdash.core.model.errors import InvalidToken
from orderdash.core.model.jsontext import JsonTextError, in_range, loads
from orderdash.core.receiver import MAX_BODY_BYTES
from orderdash.core.safetext import clean
from orderdash.core.service.tokens import normalize_token

FORM = "application/x-www-form-urlencoded"
#: Most fields a form-encoded body may have (the service sends 14).
MAX_FORM_FIELDS = 64
#: Longest status text kept.
MAX_STATUS = 40


class Malformed(ValueError):
    """The body is not a callback; its one-line reason."""


class Callback(NamedTuple):
    """What a callback claims: its order's token, the status and the last transaction's
    amounts (None where the body has none that reads as one)."""

    token: str
    status: str | None
    coins: Decimal | None
    fiat: Decimal | None


def parse_callback(raw: bytes, content_type: str | None) -> Callback:
    """The callback in `raw` (form-encoded when `content_type` says so, JSON otherwise);
    Malformed when it is not one."""
    if len(raw) > MAX_BODY_BYTES:
        raise Malformed("the body is too large")
    kind = (content_type or "").split(";")[0].strip().lower()
    fields = _form(raw) if kind == FORM else _json(raw)
    token = fields.get("order_token")
    if not isinstance(token, str):
        raise Malformed("the body has no order_token text")
    try:
        token = normalize_token(token)
    except InvalidToken as exc:
        raise Malformed(exc.message) from None
    status = fields.get("status")
    return Callback(
        token=token,
        status=clean(status, limit=MAX_STATUS) if isinstance(status, str) and status else None,
        coins=_amount(fields.get("received_amount_in_coins")),
        fiat=_amount(fields.get("received_amount_in_fiat")),
    )


def _json(raw: bytes) -> dict[str, object]:
    try:
        value = loads(raw)
    except JsonTextError as exc:
        raise Malformed(f"the body is not JSON: {clean(exc, limit=120)}") from None
    if not isinstance(value, dict):
        raise Malformed("the body is not a JSON object")
    return value


def _form(raw: bytes) -> dict[str, object]:
    try:
        text = raw.decode("utf-8")
        pairs = parse_qs(
            text, keep_blank_values=True, strict_parsing=True, max_num_fields=MAX_FORM_FIELDS
        )
    except (UnicodeDecodeError, ValueError):
        raise Malformed("the body is not a form (UTF-8, name=value pairs)") from None
    if any(len(values) > 1 for values in pairs.values()):
        raise Malformed("the form names a field twice")
    return {name: values[0] for name, values in pairs.items()}


def _amount(value: object) -> Decimal | None:
    """An amount as sent: a JSON number (already Decimal or int) or decimal text; None if it is
    none (null, empty, out of range, not a number)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        value = Decimal(value)
    if isinstance(value, str):
        if not value.strip() or len(value) > 100:
            return None
        try:
            value = Decimal(value.strip())
        except InvalidOperation:
            return None
    if isinstance(value, Decimal) and value.is_finite() and in_range(value):
        return value
    return None
