"""A face read from the channel file must hang together before the customer sees it: the QR
pays the address printed beside it and the amount printed in large type, the caption under it
says the same, the banner's "send X more" is that amount. A file that was forged (or broken)
could otherwise show a code paying someone else under the right amount; such a face is
replaced by words alone (`withheld`), neither code nor address.

What a code may hold (`core/qr/payload.py`): the bare address; a BIP21-style URI
(`bitcoin:`, `litecoin:`, `bitcoincash:`, `dogecoin:`, scheme and address in either case, only
`amount=` as parameter); an EIP-681 request `ethereum:[pay-]<address>[@<chain id>]?value=<wei>`
(the amount in wei, rounded up); for a coin not chosen yet, the service's checkout page, beside
which no address is shown. Addresses compare without case: a bech32 address goes into the code
in upper case, and no address differs from another only in case (its checksum would not hold).
No module grid is drawn from the file (`reading.py` drops one): every code the display shows
is encoded there from `qr_text`, the text checked here. With `qr_content = "server"` the
dashboard publishes the address the service's image was checked to encode, module for module
(`face.py` `image_text`), else the address alone with a note.
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation
from typing import NamedTuple

from orderdash.core.customer.face import CustomerFace

#: Schemes of payment URIs with an `amount=` in the coin (BIP21 and its copies).
BIP21_SCHEMES = frozenset({"bitcoin", "litecoin", "bitcoincash", "dogecoin"})
WEI_PER_ETHER = Decimal(10) ** 18
_BIP21_AMOUNT = re.compile(r"[0-9]{1,20}(\.[0-9]{0,30})?|\.[0-9]{1,30}")
#: EIP-681's number: digits, a fraction, an exponent (bounded here).
_EIP681_NUMBER = re.compile(r"[0-9]{1,80}(\.[0-9]{1,80})?([eE][0-9]{1,3})?")
_EIP681_TARGET = re.compile(r"(?:pay-)?(0[xX][0-9A-Fa-f]{40})(?:@[0-9]{1,20})?")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,30}):(.*)", re.DOTALL)


class Target(NamedTuple):
    """Where a code sends money: the address, and the amount in the coin (None: not said)."""

    address: str
    amount: Decimal | None


def target(text: str, address: str) -> Target | None:
    """What `text` (a code's content, or its caption) pays, or None when it is no payment
    request this project makes. `address` is the one printed: the bare address in a code is
    that text exactly."""
    if text == address:
        return Target(address, None)
    match = _SCHEME.fullmatch(text)
    if match is None:
        return None
    scheme, rest = match.group(1).lower(), match.group(2)
    path, _, query = rest.partition("?")
    parameters: dict[str, str] = {}
    for part in query.split("&") if query else ():
        key, equals, value = part.partition("=")
        if not equals or key in parameters:
            return None
        parameters[key] = value
    if scheme in BIP21_SCHEMES:
        if set(parameters) - {"amount"} or not path or "/" in path:
            return None
        amount = parameters.get("amount")
        if amount is not None and not _BIP21_AMOUNT.fullmatch(amount):
            return None
        return Target(path, Decimal(amount) if amount is not None else None)
    if scheme == "ethereum":
        found = _EIP681_TARGET.fullmatch(path)
        if found is None or set(parameters) - {"value"}:
            return None
        value = parameters.get("value")
        if value is None:
            return Target(found.group(1), None)
        if not _EIP681_NUMBER.fullmatch(value):
            return None
        wei = Decimal(value)
        if wei != wei.to_integral_value():
            return None
        return Target(found.group(1), wei / WEI_PER_ETHER)
    return None


def _same_address(code: str, printed: str) -> bool:
    printed = printed.strip()
    for scheme in BIP21_SCHEMES:  # a cashaddr is printed with its prefix, coded without
        if printed.lower().startswith(f"{scheme}:"):
            printed = printed[len(scheme) + 1 :]
            break
    return bool(printed) and code.casefold() == printed.casefold()


def _same_amount(code: Target, face: CustomerFace, text: str) -> bool:
    """The amount in the code is the one printed: exactly, or (EIP-681) the printed one
    rounded up to the wei."""
    if code.amount is None:
        return True
    printed = _amount(face.coin_amount)
    if printed is None:
        return False
    if text.lower().startswith("ethereum:"):
        wei = (printed * WEI_PER_ETHER).to_integral_value(rounding=ROUND_CEILING)
        return code.amount * WEI_PER_ETHER == wei
    return code.amount == printed


def _amount(text: str) -> Decimal | None:
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def inconsistency(face: CustomerFace) -> str:
    """Why what `face` would show does not hang together, or "" when it does."""
    if face.checkout:
        # the checkout page (an http(s) link, checked by the model): the customer chooses
        # the coin there; nothing beside it may name an address or a coin amount
        return "an address beside the checkout link" if face.address or face.coin_amount else ""
    if not face.qr_text:
        return ""
    code = target(face.qr_text, face.address)
    if code is None:
        return "the code is not a payment request"
    if not _same_address(code.address, face.address):
        return "the code pays another address than the one printed"
    if not _same_amount(code, face, face.qr_text):
        return "the code asks another amount than the one printed"
    if face.qr_caption:
        caption = target(face.qr_caption, face.address)
        if caption is None or not _same_address(caption.address, face.address):
            return "the caption names another address than the code"
        if not _same_amount(caption, face, face.qr_caption):
            return "the caption names another amount than the code"
    if face.phase == "PARTLY_PAID" and face.headline_amount:
        figure = _amount(face.headline_amount.split(" ", 1)[0])
        if figure is None or figure != _amount(face.coin_amount):
            return "the banner names another amount than the one printed"
    return ""


def withheld(face: CustomerFace) -> CustomerFace:
    """Words alone for a face that does not hang together: no code, no address, no amount."""
    return CustomerFace(
        phase="UNKNOWN",
        trouble="inconsistent",
        company=face.company,
        order_id=face.order_id,
        payments=face.payments,
        demo=face.demo,
    )
