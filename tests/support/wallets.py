"""What three real wallets send for a scanned payment URI, modelled from their source.

Each model takes the URI text a QR decoder returned and gives the amount the wallet would send,
in the coin's smallest unit (satoshis), or raises `Refused` where the wallet refuses the URI.
They are independent of orderdash: tests hold the project's URIs against them.

- Bitcoin Core (`GUIUtil::parseBitcoinURI`, `BitcoinUnits::parse`): the scheme compared
  case-insensitively (QUrl lower-cases it), the `amount` key exactly; the amount split on ".":
  more than one dot is refused, more than 8 decimals is refused ("exceeds max precision"),
  then whole + decimals padded to 8 must be an integer of at most 18 digits (`toLongLong`), so
  an exponent, a comma or a sign is refused.
- Electrum (`electrum.util.parse_URI`): `int(Decimal(amount) * COIN)`, which truncates.
- bitcoinjs `bip21.decode` (wallets built on it): the scheme lower-cased and compared, then
  `Number(amount)` must be finite and not negative; such wallets send
  `Math.round(amount * 1e8)` (half up, on a double).
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from urllib.parse import unquote

COIN = 10**8


class Refused(ValueError):
    """The wallet refuses the URI."""


def _split(uri: str, scheme: str) -> tuple[str, dict[str, str]]:
    head, colon, rest = uri.partition(":")
    if not colon or head.lower() != scheme:
        raise Refused(f"not a {scheme}: URI")
    address, _, query = rest.partition("?")
    params: dict[str, str] = {}
    for pair in query.split("&") if query else []:
        key, _, value = pair.partition("=")
        params[key] = unquote(value)
    return address, params


def bitcoin_core(uri: str, scheme: str = "bitcoin") -> int | None:
    _, params = _split(uri, scheme)
    if "amount" not in params:
        return None
    value = params["amount"].replace(" ", "")
    if not value:
        raise Refused("empty amount")
    parts = value.split(".")
    if len(parts) > 2:
        raise Refused("more than one dot")
    whole = parts[0]
    decimals = parts[1] if len(parts) == 2 else ""
    if len(decimals) > 8:
        raise Refused("exceeds max precision")
    digits = whole + decimals.ljust(8, "0")
    if len(digits) > 18 or not (digits.isascii() and digits.isdigit()):
        raise Refused("not a number")
    return int(digits)


def electrum(uri: str, scheme: str = "bitcoin") -> int | None:
    _, params = _split(uri, scheme)
    if "amount" not in params:
        return None
    try:
        return int(Decimal(params["amount"]) * COIN)
    except InvalidOperation:
        raise Refused("not a number") from None


def _js_number(text: str) -> float:
    """JavaScript's Number(text) for the texts that matter here (NaN for what it refuses)."""
    stripped = text.strip()
    if stripped == "":
        return 0.0
    try:
        return float(stripped)
    except ValueError:
        return math.nan


def bitcoinjs(uri: str, scheme: str = "bitcoin") -> int | None:
    _, params = _split(uri, scheme)
    if not params.get("amount"):
        return None
    amount = _js_number(params["amount"])
    if not math.isfinite(amount) or amount < 0:
        raise Refused("Invalid amount")
    return math.floor(amount * 1e8 + 0.5)  # Math.round


WALLETS = {"bitcoin_core": bitcoin_core, "electrum": electrum, "bitcoinjs": bitcoinjs}
