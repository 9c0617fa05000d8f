"""Lossless JSON: numbers with a fraction or exponent become Decimal, never float.

Both the client (reading the service) and the simulator (writing it) go through here, so a
coin amount keeps every digit on the way in and on the way out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

#: Deepest nesting of arrays and objects accepted. The API's answers are four levels deep; the
#: parser's own limit depends on how deep the caller's stack already is (a body could parse in
#: the CLI and fail in the app), and `dumps` of a 900-level value ran out of stack.
MAX_DEPTH = 64


#: Bounds of every number kept as a number: significant digits, and the decimal exponent (of the
#: last digit and of the first). Positional text of a number within them is at most a few
#: hundred characters; `1e999999999` in positional text is a gigabyte.
MAX_NUMBER_DIGITS = 100
MAX_NUMBER_EXPONENT = 100
#: Longest number literal read at all (longer is out of range without being converted).
MAX_NUMBER_TEXT = 2 * MAX_NUMBER_DIGITS + 10
#: How much of an out-of-range literal is kept for display.
OUT_OF_RANGE_SHOWN = 40
OUT_OF_RANGE_MARK = "(number out of range)"

#: Members whose value is money, identity or state: an object naming one twice is ambiguous
#: (`"amount": 0.00000109, "amount": 99.5` would show whichever the parser keeps), so refused.
GUARDED_KEYS = frozenset(
    {
        "abbreviation",
        "address",
        "amount",
        "amountFiat",
        "base",
        "code",
        "coin",
        "coinBaseName",
        "currency",
        "customerId",
        "data",
        "exchangeRate",
        "expirationTime",
        "expiresAt",
        "hash",
        "id",
        "overPaid",
        "qrCode",
        "status",
        "success",
        "token",
        "total",
        "transactions",
        "underPaid",
    }
)


class JsonTextError(ValueError):
    """The text is not JSON this project accepts (syntax, NaN/Infinity, nesting, size)."""


@dataclass(frozen=True)
class OutOfRangeNumber:
    """A JSON number beyond MAX_NUMBER_DIGITS / MAX_NUMBER_EXPONENT, never converted.

    `text` is the literal as sent, cut to OUT_OF_RANGE_SHOWN characters; `str()` marks it. It
    is neither a str nor a number, so every typed field refuses it; an untyped one keeps it,
    and `dumps` writes it as a JSON string (the marked text), so output stays proportional.
    """

    text: str

    def __str__(self) -> str:
        return f"{self.text} {OUT_OF_RANGE_MARK}"


def _out_of_range(text: str) -> OutOfRangeNumber:
    if len(text) > OUT_OF_RANGE_SHOWN:
        text = text[: OUT_OF_RANGE_SHOWN - 1] + "\u2026"
    return OutOfRangeNumber(text)


def in_range(value: Decimal) -> bool:
    """True when `value` is finite and within the number bounds (its positional text is short)."""
    if not value.is_finite():
        return False
    _, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    return (
        len(digits) <= MAX_NUMBER_DIGITS
        and abs(exponent) <= MAX_NUMBER_EXPONENT
        and abs(value.adjusted()) <= MAX_NUMBER_EXPONENT
    )


def _reject_constant(name: str) -> Any:
    raise JsonTextError(f"the number {name} is not allowed")


def _parse_decimal(text: str) -> Decimal | OutOfRangeNumber:
    if len(text) > MAX_NUMBER_TEXT:
        return _out_of_range(text)
    try:
        value = Decimal(text)
    except InvalidOperation:  # an exponent beyond what Decimal can hold at all
        return _out_of_range(text)
    return value if in_range(value) else _out_of_range(text)


def _parse_int(text: str) -> int | OutOfRangeNumber:
    # int() of a long literal is quadratic, and Python refuses more than 4300 digits anyway
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        return _out_of_range(text)
    return int(text)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen and key in GUARDED_KEYS:
                raise JsonTextError(f"the member {key!r} appears twice in one object")
            seen.add(key)
    return value


def loads(text: str | bytes) -> Any:
    """Parse JSON, keeping fractional numbers as Decimal with the digits sent.

    NaN, Infinity and -Infinity are rejected (they are not JSON and not money), and so is
    nesting deeper than `MAX_DEPTH` and a money or identity member named twice in one object.
    A number beyond the bounds (MAX_NUMBER_DIGITS, MAX_NUMBER_EXPONENT) becomes an
    OutOfRangeNumber: its literal text, cut and marked, never expanded.
    """
    try:
        value = json.loads(
            text,
            parse_float=_parse_decimal,
            parse_int=_parse_int,
            parse_constant=_reject_constant,
            object_pairs_hook=_object,
        )
    except JsonTextError:
        raise
    except RecursionError as exc:
        raise JsonTextError("the JSON is nested too deeply") from exc
    except UnicodeDecodeError as exc:
        raise JsonTextError("the body is not valid UTF-8") from exc
    except ValueError as exc:
        # json.JSONDecodeError, and int() refusing a number of thousands of digits.
        raise JsonTextError(str(exc).splitlines()[0][:200]) from exc
    _check_depth(value)
    return value


def _check_depth(value: Any) -> None:
    """JsonTextError when arrays and objects nest deeper than MAX_DEPTH (level by level, no
    recursion, so it costs one pass over the containers)."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            raise JsonTextError("the JSON is nested too deeply")
        level = [
            child
            for container in level
            for child in (container.values() if isinstance(container, dict) else container)
            if isinstance(child, dict | list)
        ]


def decimal_text(value: Decimal) -> str:
    """Positional text of a Decimal within the number bounds, trailing zeros kept: '0.00000100',
    not '1.00E-6'. ValueError beyond them: the text could be gigabytes long."""
    if not in_range(value):
        raise ValueError("number out of range")
    return format(value, "f")


def dumps(value: Any, *, indent: int | None = None) -> str:
    """Serialise to JSON, writing Decimal values as bare numbers with all their digits.

    Strings are ASCII-escaped, so no control character or escape sequence survives into the text.
    """
    return _dump(value, indent, 0)


def _dump(value: Any, indent: int | None, depth: int) -> str:
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError("a non-finite Decimal has no JSON form")
        return decimal_text(value)
    if isinstance(value, OutOfRangeNumber):
        return json.dumps(str(value))
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{json.dumps(str(k))}: {_dump(v, indent, depth + 1)}" for k, v in value.items()]
        return _join("{", items, "}", indent, depth)
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        items = [_dump(v, indent, depth + 1) for v in value]
        return _join("[", items, "]", indent, depth)
    if isinstance(value, float):
        raise TypeError("floats are not written: money must be Decimal")
    return json.dumps(value)


def _join(open_: str, items: list[str], close: str, indent: int | None, depth: int) -> str:
    if indent is None:
        return open_ + ", ".join(items) + close
    pad = " " * (indent * (depth + 1))
    end_pad = " " * (indent * depth)
    return open_ + "\n" + ",\n".join(pad + item for item in items) + "\n" + end_pad + close
