"""Lossless JSON: numbers with a fraction or exponent become Decimal, never float.

Both the client (reading the service) and the simulator (writing it) go through here, so a
coin amount keeps every digit on the way in and on the way out.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any

#: Deepest nesting of arrays and objects accepted. The API's answers are four levels deep; the
#: parser's own limit depends on how deep the caller's stack already is (a body could parse in
#: the CLI and fail in the app), and `dumps` of a 900-level value ran out of stack.
MAX_DEPTH = 64


class JsonTextError(ValueError):
    """The text is not JSON this project accepts (syntax, NaN/Infinity, nesting, size)."""


def _reject_constant(name: str) -> Any:
    raise JsonTextError(f"the number {name} is not allowed")


def _parse_decimal(text: str) -> Decimal:
    try:
        return Decimal(text)
    except InvalidOperation as exc:  # pragma: no cover - json only hands us valid numbers
        raise JsonTextError(f"bad number {text[:20]!r}") from exc


def loads(text: str | bytes) -> Any:
    """Parse JSON, keeping fractional numbers as Decimal with the digits sent.

    NaN, Infinity and -Infinity are rejected (they are not JSON and not money), and so is
    nesting deeper than `MAX_DEPTH`.
    """
    try:
        value = json.loads(text, parse_float=_parse_decimal, parse_constant=_reject_constant)
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
    """Positional text of a finite Decimal, trailing zeros kept: '0.00000100', not '1.00E-6'."""
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
