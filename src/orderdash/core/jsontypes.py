"""The shape of a JSON document as this project reads and writes it: the service's answers, the
reports and exports it writes, a callback's body. Numbers with a fraction arrive as `Decimal`
(`core/model/jsontext.py` parses them losslessly): `Decimal` is a JSON value here, `float`
never is."""

from __future__ import annotations

from decimal import Decimal
from typing import TypeAlias

JSONScalar: TypeAlias = str | int | Decimal | bool | None
JSONValue: TypeAlias = "JSONScalar | list[JSONValue] | dict[str, JSONValue]"
JSONObject: TypeAlias = dict[str, JSONValue]
