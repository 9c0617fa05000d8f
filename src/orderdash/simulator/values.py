"""Checked values for the simulator: numbers and JSON-like data handed to it by tests, the demo
or the control endpoints. Money is Decimal; a float never becomes an amount."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def non_negative_float(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise ValueError(f"{name} must be a number")
    result = float(value)
    if not math.isfinite(result) or result < 0:
        raise ValueError(f"{name} must be a finite number >= 0")
    return result


def to_decimal(value: Decimal | str | int, what: str = "amount") -> Decimal:
    """A finite Decimal from Decimal, decimal text or int (never float); ValueError otherwise."""
    if isinstance(value, bool) or isinstance(value, float):
        raise ValueError(f"{what} must be a Decimal or decimal text, not {type(value).__name__}")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int):
        result = Decimal(value)
    elif isinstance(value, str):
        try:
            result = Decimal(value.strip())
        except InvalidOperation as exc:
            raise ValueError(f"{what} is not a decimal number: {value[:40]!r}") from exc
    else:
        raise ValueError(f"{what} must be a Decimal or decimal text")
    if not result.is_finite():
        raise ValueError(f"{what} must be finite")
    return result


def jsonable(value: Any) -> Any:
    """Deep copy of a JSON-like value with floats turned into Decimal (jsontext refuses floats)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("NaN and Infinity are not JSON")
        return Decimal(repr(value))
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, bool, Decimal)):
        return value
    raise ValueError(f"{type(value).__name__} is not a JSON value")
