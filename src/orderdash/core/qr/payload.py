"""What the QR code encodes: the bare address, a wallet payment URI, or the server's own image.

Payment URIs exist for bitcoin (BIP21) and the coins that copied it: litecoin, bitcoin cash and
dogecoin, and for native ether (EIP-681: `ethereum:0x...?value=<wei>`, the amount as an integer
count of wei). Other coins, tokens such as USDT included, get the bare address: a guessed
token-transfer URI could send the wrong asset, so none is ever built, and the customer is told
to type the amount. The amount in a URI is the amount still due, rounded up to the coin's
smallest unit (`core/domain/units.py`), so it follows each rate refresh and each partial
payment and every wallet can send it.

A bech32 address (`bc1...`, `ltc1...`) is case-insensitive, so the scheme and the address go
into the code in upper case (BIP173): upper-case letters, digits and `:` are all in QR
alphanumeric mode, which takes 5.5 bits a character instead of 8, so the code has fewer and
larger modules. The parameters (`?amount=...`) stay as they are (BIP21 keys are lower case)
and qrcode encodes that tail in byte mode; the caption under the code keeps the ordinary
lower-case form.

The remaining amount (`remaining_payload`) is a code of our own for a part-paid order: the
payment URI for exactly what is still due, built as the main code's URI is, whatever
`qr_content` says (the server's image asks for the whole order, the bare address for nothing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, localcontext
from enum import StrEnum

from orderdash.core.domain.payment import PaymentState, Phase
from orderdash.core.domain.units import sendable
from orderdash.core.model.wire import Order
from orderdash.core.safetext import clean


class QRContent(StrEnum):
    AUTO = "auto"
    ADDRESS = "address"
    URI = "uri"
    SERVER = "server"


URI_SCHEMES = {"btc": "bitcoin", "ltc": "litecoin", "bch": "bitcoincash", "doge": "dogecoin"}
#: What an address may contain to be put in a URI: base58 / bech32 / cashaddr characters only,
#: so a hostile address cannot smuggle in `?amount=` or another parameter.
_ADDRESS = re.compile(r"[A-Za-z0-9]{20,100}")
#: Human-readable parts of the bech32 addresses each scheme takes (main, test and regtest).
BECH32_HRPS = {"bitcoin": ("bc", "tb", "bcrt"), "litecoin": ("ltc", "tltc", "rltc")}
_BECH32_DATA = re.compile(r"[02-9ac-hj-np-z]{6,}")
#: EIP-681's scheme, for native ether only: the coin whose coinBaseName is "eth" and whose
#: name (`coin`) says ether. A token the service labelled "eth" gets no amount in its code:
#: `value=` asks for ether, and would ask for it in the token's figure.
ETHEREUM_SCHEME = "ethereum"
ETHER_NAMES = frozenset({"ethereum", "ether"})
#: An ether address: 0x and 40 hex digits, in the case it came in (EIP-55 checksums live in it).
_ETHER_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
WEI_DECIMALS = 18


@dataclass(frozen=True, eq=False, repr=False)
class QRPayload:
    """What the QR shows for an order, and the words under it."""

    #: What the code holds: "address", "uri" (with the amount due when one is due), "server"
    #: (the service's image), "remaining" (our URI for what is still due on a part-paid
    #: order, `remaining_payload`), or "none".
    kind: str
    #: Text to encode; None when the server's image is shown or there is nothing to encode.
    text: str | None
    #: The server's `qrCode` data URI, in `server` mode.
    server_image: str | None = None
    #: Under the code: what it says, in its ordinary form (the code may hold it in upper
    #: case), or, for the server image, what it should say.
    caption: str = ""
    #: Why the payload is not what the setting asked for, when it is not.
    note: str = ""
    #: The same reason as a catalogue key (`core/customer/locales`), for the customer's screens.
    note_key: str = ""


def is_bech32(scheme: str, address: str) -> bool:
    """`address` looks like a bech32 address of `scheme` (one case throughout, as BIP173 asks:
    a mixed-case string is not bech32 and is left as it is)."""
    if address not in (address.lower(), address.upper()):
        return False
    hrp, one, data = address.lower().rpartition("1")
    return bool(one) and hrp in BECH32_HRPS.get(scheme, ()) and bool(_BECH32_DATA.fullmatch(data))


def is_ether(coin_base_name: str | None, coin_name: str | None) -> bool:
    """The coin is native ether: its code is "eth" and its name Ethereum or Ether."""
    base = (coin_base_name or "").strip().lower()
    return base == "eth" and (coin_name or "").strip().lower() in ETHER_NAMES


def payment_uri(
    coin_base_name: str | None,
    address: str | None,
    amount: Decimal | None,
    *,
    coin_name: str | None = None,
    uppercase: bool = False,
) -> str | None:
    """`bitcoin:ADDRESS?amount=X` and its equivalents, or None where no standard exists.

    The amount is rounded up to the coin's smallest unit. `coin_name` is the order's `coin`
    (its display name): an ether request is built only when it names ether (`is_ether`).
    `uppercase` writes the scheme and a bech32 address in upper case (for a QR code; other
    addresses are case-sensitive).
    """
    if (coin_base_name or "").strip().lower() == "eth":
        return ethereum_uri(address, amount) if is_ether(coin_base_name, coin_name) else None
    scheme = URI_SCHEMES.get((coin_base_name or "").strip().lower())
    if scheme is None or not address:
        return None
    bare = address.removeprefix(f"{scheme}:") if scheme == "bitcoincash" else address
    if not _ADDRESS.fullmatch(bare):
        return None
    if uppercase and is_bech32(scheme, bare):
        uri = f"{scheme.upper()}:{bare.upper()}"
    else:
        uri = f"{scheme}:{bare}"
    due = sendable(coin_base_name, amount)
    if due is not None:
        uri += f"?amount={due.text}"
    return uri


def ethereum_uri(address: str | None, amount: Decimal | None) -> str | None:
    """EIP-681 `ethereum:<address>?value=<wei>` for native ether, or None for no address.

    `value` is the amount due rounded up to the wei, as integer text (no exponent, no dot:
    EIP-681 allows both, but not every wallet reads them). No chain id: the wallet's own
    network, as EIP-681 says when it is left out.
    """
    if not address or not _ETHER_ADDRESS.fullmatch(address):
        return None
    uri = f"{ETHEREUM_SCHEME}:{address}"
    due = sendable("eth", amount)
    if due is not None:
        with localcontext() as context:
            # every digit of the whole part and all 18 decimals: exact
            context.prec = max(context.prec, due.amount.adjusted() + WEI_DECIMALS + 2)
            wei = due.amount.scaleb(WEI_DECIMALS)
        uri += f"?value={int(wei)}"
    return uri


def qr_payload(
    order: Order,
    state: PaymentState,
    mode: QRContent,
    server_image: str | None = None,
    *,
    uppercase: bool = True,
) -> QRPayload:
    """What to encode for `order` in `state`; `uppercase` is the `qr_uppercase` setting."""
    address = clean(order.address or "")
    if not address:
        return QRPayload("none", None, note="no address yet", note_key="note_no_address")
    if mode is QRContent.SERVER:
        if server_image:
            caption = f"server image \u00b7 {address}"
            return QRPayload("server", None, server_image=server_image, caption=caption)
        note = "the server sent no QR image yet: address shown"
        return QRPayload(
            "address", address, caption=address, note=note, note_key="note_no_server_image"
        )
    if mode is QRContent.ADDRESS:
        return QRPayload("address", address, caption=address)
    amount = state.due_coin if state.payable else None
    uri = payment_uri(order.coin_base_name, order.address, amount, coin_name=order.coin)
    if uri is not None:
        encoded = payment_uri(
            order.coin_base_name, order.address, amount, coin_name=order.coin, uppercase=uppercase
        )
        return QRPayload("uri", encoded, caption=uri)
    if mode is QRContent.URI:
        note = f"no payment URI standard for {state.coin or 'this coin'}: address only"
        return QRPayload(
            "address", address, caption=address, note=note, note_key="note_no_uri_standard"
        )
    return QRPayload("address", address, caption=address)


def remaining_payload(
    order: Order, state: PaymentState, *, uppercase: bool = True
) -> QRPayload | None:
    """The code for what is still due on an open part-paid order: the payment URI with the
    shortfall (the server's underPaid, `state.due_coin`) rounded up to the coin's unit, as the
    main code's URI is; None when the order is not part-paid or no URI with an amount can be
    made for its coin (a token: its wallet needs the figure typed). Never the server's image."""
    if (
        state.phase is not Phase.PARTLY_PAID
        or sendable(order.coin_base_name, state.due_coin) is None
    ):
        return None
    due = state.due_coin
    uri = payment_uri(order.coin_base_name, order.address, due, coin_name=order.coin)
    if uri is None:
        return None
    encoded = payment_uri(
        order.coin_base_name, order.address, due, coin_name=order.coin, uppercase=uppercase
    )
    return QRPayload("remaining", encoded, caption=uri)


def offers_remaining(main: QRPayload, remaining: QRPayload | None) -> bool:
    """A code for the remaining amount changes what is scanned: the main code is the server's
    image or the bare address. (`auto` and `uri` already ask for what is still due.)"""
    return remaining is not None and (main.server_image is not None or main.text != remaining.text)
