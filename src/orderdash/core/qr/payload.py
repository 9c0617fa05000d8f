"""What the QR code encodes: the bare address, a wallet payment URI, or the server's own image.

Payment URIs exist for bitcoin (BIP21) and the coins that copied it: litecoin, bitcoin cash and
dogecoin. Other coins get the bare address: a guessed token-transfer URI could send the wrong
asset, so none is ever built. The amount in a URI is the amount still due, so it follows each
rate refresh and each partial payment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from orderdash.core.domain.display import amount_text
from orderdash.core.domain.payment import PaymentState
from orderdash.core.safetext import clean
from orderdash.core.service.models import Order


class QRContent(StrEnum):
    AUTO = "auto"
    ADDRESS = "address"
    URI = "uri"
    SERVER = "server"


URI_SCHEMES = {"btc": "bitcoin", "ltc": "litecoin", "bch": "bitcoincash", "doge": "dogecoin"}
#: What an address may contain to be put in a URI: base58 / bech32 / cashaddr characters only,
#: so a hostile address cannot smuggle in `?amount=` or another parameter.
_ADDRESS = re.compile(r"[A-Za-z0-9]{20,100}")


@dataclass(frozen=True)
class QRPayload:
    #: What the code holds: "address", "uri" (with the amount due when one is due), "server"
    #: (the service's image), or "none".
    kind: str
    #: Text to encode; None when the server's image is shown or there is nothing to encode.
    text: str | None
    #: The server's `qrCode` data URI, in `server` mode.
    server_image: str | None = None
    #: Under the code: what it says (or, for the server image, what it should say).
    caption: str = ""
    #: Why the payload is not what the setting asked for, when it is not.
    note: str = ""


def payment_uri(
    coin_base_name: str | None, address: str | None, amount: Decimal | None
) -> str | None:
    """`bitcoin:ADDRESS?amount=X` and its equivalents, or None where no standard exists."""
    scheme = URI_SCHEMES.get((coin_base_name or "").strip().lower())
    if scheme is None or not address:
        return None
    bare = address.removeprefix(f"{scheme}:") if scheme == "bitcoincash" else address
    if not _ADDRESS.fullmatch(bare):
        return None
    uri = f"{scheme}:{bare}"
    if amount is not None and amount > 0:
        uri += f"?amount={amount_text(amount)}"
    return uri


def qr_payload(
    order: Order, state: PaymentState, mode: QRContent, server_image: str | None = None
) -> QRPayload:
    address = clean(order.address or "")
    if not address:
        return QRPayload("none", None, note="no address yet")
    if mode is QRContent.SERVER:
        if server_image:
            caption = f"server image \u00b7 {address}"
            return QRPayload("server", None, server_image=server_image, caption=caption)
        note = "the server sent no QR image yet: address shown"
        return QRPayload("address", address, caption=address, note=note)
    if mode is QRContent.ADDRESS:
        return QRPayload("address", address, caption=address)
    amount = state.due_coin if state.payable else None
    uri = payment_uri(order.coin_base_name, order.address, amount)
    if uri is not None:
        return QRPayload("uri", uri, caption=uri)
    note = ""
    if mode is QRContent.URI:
        note = f"no payment URI standard for {state.coin or 'this coin'}: address only"
    return QRPayload("address", address, caption=address, note=note)
