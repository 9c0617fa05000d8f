"""Sendable amounts: the amount due rounded up to the coin's unit, and the wallets that read it."""

from __future__ import annotations

import re
from decimal import Decimal, localcontext

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_payment import ARRIVED, order_with

from orderdash.core.domain.payment import payment_state
from orderdash.core.domain.units import UNIT_DECIMALS, sendable
from orderdash.core.qr.matrix import build_matrix
from orderdash.core.qr.payload import URI_SCHEMES, QRContent, is_bech32, payment_uri, qr_payload
from support.wallets import WALLETS, Refused, bitcoin_core, bitcoinjs, electrum

BECH32 = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
SATOSHI = Decimal("0.00000001")
PLAIN = re.compile(r"[0-9]+(\.[0-9]{1,8})?")


def test_every_coin_with_a_payment_uri_has_a_known_unit() -> None:
    # ether's request is EIP-681's (`ethereum:`), built apart from the BIP21 family
    assert {*URI_SCHEMES, "eth"} == set(UNIT_DECIMALS)
    assert UNIT_DECIMALS["eth"] == 18 and set(UNIT_DECIMALS.values()) == {8, 18}


def test_the_issue_amount_is_rounded_up_and_says_so() -> None:
    due = Decimal("0.000128701234567890123456")
    send = sendable("btc", due)
    assert send is not None
    assert send.text == "0.00012871" and send.amount == Decimal("0.00012871")
    assert send.rounded
    assert send.note == "rounded up to the satoshi; the service asks 0.000128701234567890123456"
    uri = payment_uri("btc", BECH32, due)
    assert uri == f"bitcoin:{BECH32}?amount=0.00012871"
    for read in WALLETS.values():
        assert read(uri) == 12871


@pytest.mark.parametrize(
    ("asked", "text"),
    [
        ("0.00012871", "0.00012871"),  # already sendable: the server's digits
        ("1.5", "1.5"),
        ("0.000128710000", "0.00012871"),  # only zeros dropped: not a rounding
        ("1E+2", "100"),  # never an exponent
        ("1E-9", "0.00000001"),
        ("0.000000010000000000000000001", "0.00000002"),
        ("12345678901234567890.123456789", "12345678901234567890.12345679"),
    ],
)
def test_sendable_text(asked: str, text: str) -> None:
    send = sendable("BTC", Decimal(asked))
    assert send is not None and send.text == text
    assert send.rounded == (Decimal(text) != Decimal(asked))
    assert bool(send.note) == send.rounded


@pytest.mark.parametrize("asked", [None, Decimal(0), Decimal("-1"), Decimal("NaN")])
def test_nothing_sendable_for_no_positive_amount(asked: Decimal | None) -> None:
    assert sendable("btc", asked) is None


def test_unknown_units_keep_the_server_figure() -> None:
    assert sendable("usdt", Decimal("0.1234567")) is None
    wei = sendable("eth", Decimal("0.1234567890123456789"))
    assert wei is not None and wei.text == "0.123456789012345679" and wei.unit == "the wei"
    assert sendable(None, Decimal(1)) is None
    # litecoin's unit has no name customers know: the unit is written out
    send = sendable("ltc", Decimal("0.123456789"))
    assert send is not None and send.note.startswith("rounded up to 0.00000001 LTC;")


@given(
    whole=st.integers(min_value=0, max_value=21_000_000),
    decimals=st.integers(min_value=1, max_value=30),
    fraction=st.data(),
)
def test_rounding_up_never_underpays_and_every_wallet_agrees(
    whole: int, decimals: int, fraction: st.DataObject
) -> None:
    digits = fraction.draw(st.integers(min_value=0, max_value=10**decimals - 1))
    due = Decimal(f"{whole}.{digits:0{decimals}d}")
    if due <= 0:
        return
    send = sendable("btc", due)
    assert send is not None
    assert PLAIN.fullmatch(send.text), send.text
    uri = payment_uri("btc", BECH32, due)
    assert uri is not None
    with localcontext() as context:
        context.prec = 100  # the test's own sums exact: 28 digits would round `due + SATOSHI`
        assert due <= send.amount < due + SATOSHI
        assert Decimal(send.text) == send.amount
        for name, read in WALLETS.items():
            sats = read(uri)
            assert sats is not None
            sent = Decimal(sats) * SATOSHI
            assert due <= sent < due + SATOSHI, (name, uri, sats)


def test_the_wallet_models_refuse_what_the_wallets_refuse() -> None:
    """The models are only worth something if they catch what the old URIs did wrong."""
    fine = f"bitcoin:{BECH32}?amount=0.000128701234567890123456"
    with pytest.raises(Refused, match="precision"):
        bitcoin_core(fine)
    assert electrum(fine) == 12870  # truncates: underpays
    assert bitcoinjs(fine) == 12870  # rounds a float: underpays
    for bad in ("1.2.3", "1e-4", "0,0001", "-1"):
        with pytest.raises(Refused):
            bitcoin_core(f"bitcoin:{BECH32}?amount={bad}")
    assert bitcoin_core(f"BITCOIN:{BECH32.upper()}?amount=0.00012871") == 12871
    with pytest.raises(Refused):
        bitcoinjs(f"litecoin:{BECH32}?amount=1")


@pytest.mark.parametrize(
    ("coin", "address", "upper"),
    [
        ("btc", BECH32, True),
        ("btc", BECH32.upper(), True),
        ("btc", "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", True),
        ("btc", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", True),
        ("ltc", "ltc1qg82vxq7xnm5l8d9e2yq8m5xrf0c7f3d2ss2mqw", True),
        ("btc", "bc1qAr0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", False),  # mixed case: not bech32
        ("btc", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", False),  # base58 is case-sensitive
        ("btc", "ltc1qg82vxq7xnm5l8d9e2yq8m5xrf0c7f3d2ss2mqw", False),  # another coin's prefix
        ("doge", "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", False),
        ("bch", "bitcoincash:qruxtsj5dlmkjnrtkvje7dwf3mt3q9k58vxhg54hkw", False),
        ("btc", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdb", False),  # "b" is not bech32
    ],
)
def test_upper_case_only_for_bech32(coin: str, address: str, upper: bool) -> None:
    uri = payment_uri(coin, address, Decimal("0.5"), uppercase=True)
    plain = payment_uri(coin, address, Decimal("0.5"))
    assert uri is not None and plain is not None
    scheme = URI_SCHEMES[coin]
    assert is_bech32(scheme, address.removeprefix(f"{scheme}:")) == upper
    if upper:
        head, query = uri.split("?")
        assert head == head.upper() and head.lower() == plain.split("?")[0].lower()
        assert query == "amount=0.5"  # BIP21 keys stay lower case
    else:
        assert uri == plain


def test_the_upper_case_code_is_smaller_and_uses_alphanumeric_mode() -> None:
    """What qrcode really does: with its default segmentation (optimize=20) the upper-case
    scheme and address (50 characters, all in the QR alphanumeric set) become one
    alphanumeric segment and `?amount=...` (lower case and `?=`, not in that set) a byte
    segment; the lower-case URI is one byte segment. Version 4 (33 modules) against 5 (37)."""
    import qrcode

    due = Decimal("0.000128701234567890123456")
    order = order_with(address=BECH32, amount=due)
    state = payment_state(order, ARRIVED)
    upper = qr_payload(order, state, QRContent.AUTO).text
    lower = qr_payload(order, state, QRContent.AUTO, uppercase=False).text
    assert upper == f"BITCOIN:{BECH32.upper()}?amount=0.00012871"
    assert lower == f"bitcoin:{BECH32}?amount=0.00012871"

    def segments(text: str) -> list[tuple[int, int]]:
        code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M)
        code.add_data(text)
        code.make(fit=True)
        return [(chunk.mode, len(chunk.data)) for chunk in code.data_list]

    alnum, byte = qrcode.util.MODE_ALPHA_NUM, qrcode.util.MODE_8BIT_BYTE
    assert segments(upper) == [(alnum, len("BITCOIN:") + len(BECH32)), (byte, 18)]
    assert segments(lower) == [(byte, len(lower))]
    assert build_matrix(upper, quiet_zone=0).size < build_matrix(lower, quiet_zone=0).size


def test_the_banner_asks_for_the_sendable_figure_the_dashboard_keeps_the_servers() -> None:
    fine = "0.000128701234567890123456"
    state = payment_state(order_with(txs=[(f"-{fine}", "0")], address=BECH32), ARRIVED)
    assert state.headline == "Partly paid: send 0.00012871 BTC more"
    assert fine in state.summary  # the operator's pane: the server's digits
    eth = order_with(
        coinBaseName="eth",
        coin="Ethereum",
        address="0xe6d6ca2c9923fec5254b0aba478d23028f745c87",
        txs=[("-0.123456789012345678", "0")],
    )
    eth_state = payment_state(eth, ARRIVED)
    assert eth_state.send is not None and not eth_state.send.rounded  # whole wei already
    assert eth_state.headline == "Partly paid: send 0.123456789012345678 ETH more"
