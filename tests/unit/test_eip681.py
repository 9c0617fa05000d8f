"""ETH payment requests carry the amount (EIP-681), checked by a parser written here from the
EIP's grammar (https://eips.ethereum.org/EIPS/eip-681), not by the code that builds them:

    request        = schema_prefix target_address [ "@" chain_id ] [ "/" function_name ]
                     [ "?" parameters ]
    schema_prefix  = "ethereum" ":" [ "pay-" ]
    target_address = ethereum_address
    chain_id       = 1*DIGIT
    function_name  = STRING
    ethereum_address = ( "0x" 40*HEXDIG ) / ENS_NAME
    parameters     = parameter *( "&" parameter )
    parameter      = key "=" value
    key            = "value" / "gas" / "gasLimit" / "gasPrice" / TYPE
    value          = number / ethereum_address / STRING
    number         = [ "-" / "+" ] *DIGIT [ "." 1*DIGIT ] [ ( "e" / "E" ) [ 1*DIGIT ] ]

`value` is in wei (atomic units); `2.014e18` is a number too. A coin with no amount standard
(USDT, a TRC-20/ERC-20 token) keeps the bare address in its code, and the customer is told, in
their language, to type the amount.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal, localcontext

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_payment import ARRIVED, order_with

from orderdash.core.customer.catalogue import LANGUAGES, catalogue
from orderdash.core.customer.face import customer_face
from orderdash.core.domain.payment import payment_state
from orderdash.core.qr.payload import QRContent, payment_uri, qr_payload

ADDRESS = "0xE6d6Ca2C9923fec5254B0aba478d23028f745C87"

_NUMBER = re.compile(r"[-+]?[0-9]*(\.[0-9]+)?([eE][0-9]*)?")
_HEX_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_ENS = re.compile(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")
_CHAIN_ID = re.compile(r"[0-9]+")


@dataclass
class Request:
    pay: bool
    target: str
    chain_id: int | None = None
    function: str | None = None
    parameters: dict[str, str] = field(default_factory=dict)

    @property
    def value_wei(self) -> Decimal | None:
        raw = self.parameters.get("value")
        return None if raw is None else number(raw)


def number(text: str) -> Decimal:
    """EIP-681's `number`: optional sign, digits, decimals, an exponent."""
    if not text or not _NUMBER.fullmatch(text) or not any(c.isdigit() for c in text):
        raise ValueError(f"not a number: {text!r}")
    mantissa, _, exponent = text.lower().partition("e")
    with localcontext() as context:
        context.prec = 200
        return Decimal(mantissa or "0").scaleb(int(exponent or "0"))


def parse(uri: str) -> Request:
    scheme, colon, rest = uri.partition(":")
    if scheme != "ethereum" or not colon:
        raise ValueError("not an ethereum: URI")
    pay = rest.startswith("pay-")
    rest = rest.removeprefix("pay-")
    rest, question, query = rest.partition("?")
    rest, slash, function = rest.partition("/")
    target, at, chain = rest.partition("@")
    if not (_HEX_ADDRESS.fullmatch(target) or _ENS.fullmatch(target)):
        raise ValueError(f"bad target address {target!r}")
    if at and not _CHAIN_ID.fullmatch(chain):
        raise ValueError(f"bad chain id {chain!r}")
    if slash and not function:
        raise ValueError("empty function name")
    parameters: dict[str, str] = {}
    if question:
        for parameter in query.split("&"):
            key, equals, value = parameter.partition("=")
            if not key or not equals:
                raise ValueError(f"bad parameter {parameter!r}")
            if key in ("value", "gas", "gasLimit", "gasPrice"):
                number(value)
            parameters[key] = value
    return Request(pay, target, int(chain) if at else None, function or None, parameters)


def test_the_parser_reads_the_eips_examples() -> None:
    plain = parse("ethereum:0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359?value=2.014e18")
    assert plain.target == "0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359"
    assert plain.value_wei == Decimal("2014000000000000000")
    token = parse(
        "ethereum:0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7/transfer"
        "?address=0x8e23ee67d1332ad560396262c48ffbb01f93d052&uint256=1"
    )
    assert token.function == "transfer" and token.value_wei is None
    assert parse("ethereum:pay-0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359@1").chain_id == 1
    for bad in ("bitcoin:0xfb", "ethereum:0x12?value=1", f"ethereum:{ADDRESS}?value=1x"):
        with pytest.raises(ValueError):
            parse(bad)


def wei_up(amount: Decimal) -> int:
    with localcontext() as context:
        context.prec = 200
        return int((amount * 10**18).to_integral_value(rounding=ROUND_CEILING))


amounts = st.decimals(
    min_value=Decimal("1e-24"), max_value=Decimal("1e9"), places=None, allow_nan=False
).filter(lambda d: d > 0)


@given(amount=st.one_of(amounts, st.integers(1, 10**30).map(lambda n: Decimal(n).scaleb(-24))))
def test_an_eth_request_carries_the_amount_rounded_up_to_the_wei(amount: Decimal) -> None:
    uri = payment_uri("eth", ADDRESS, amount, coin_name="Ethereum")
    assert uri is not None
    request = parse(uri)
    assert request.target == ADDRESS  # the checksum case kept
    value = request.parameters["value"]
    assert re.fullmatch(r"[1-9][0-9]*", value), value  # integer text: no exponent, no dot
    assert request.value_wei == wei_up(amount)


def test_an_eth_order_shows_and_encodes_the_same_figure() -> None:
    order = order_with(
        coinBaseName="eth", coin="Ethereum", address=ADDRESS, amount="0.0113782994482092891"
    )
    state = payment_state(order, ARRIVED)
    payload = qr_payload(order, state, QRContent.AUTO)
    assert payload.kind == "uri"
    assert parse(payload.text or "").value_wei == 11378299448209290
    face = customer_face(order, state, payload)
    # what the customer reads is what the wallet is asked for
    assert Decimal(face.coin_amount) * 10**18 == 11378299448209290
    assert face.qr_text == payload.text and face.qr_note == ""


def test_no_amount_without_an_address_or_for_nothing_due() -> None:
    assert payment_uri("eth", "0x1234", Decimal(1), coin_name="Ethereum") is None
    assert payment_uri("eth", ADDRESS, None, coin_name="Ether") == f"ethereum:{ADDRESS}"
    assert payment_uri("eth", ADDRESS, Decimal(0), coin_name="ethereum") == f"ethereum:{ADDRESS}"


@pytest.mark.parametrize("name", [None, "", "Tether USD", "USD Coin", "Ethereum Classic"])
def test_an_ether_request_only_for_ether_itself(name: str | None) -> None:
    """A coin whose base the service labels "eth" but whose name is not ether (a token): a
    `value=` request would ask for ether in the token's figure, so none is built."""
    assert payment_uri("eth", ADDRESS, Decimal(1), coin_name=name) is None
    assert payment_uri("eth", ADDRESS, Decimal(1), coin_name="Ethereum") is not None


def test_a_token_labelled_eth_gets_the_address_and_the_amount_to_type() -> None:
    order = order_with(coinBaseName="eth", coin="Tether USD", address=ADDRESS, amount="12.5")
    state = payment_state(order, ARRIVED)
    payload = qr_payload(order, state, QRContent.AUTO)
    assert payload.kind == "address" and payload.text == ADDRESS
    assert "ethereum:" not in (payload.caption or "").lower()
    face = customer_face(order, state, payload)
    assert face.qr_text == ADDRESS and face.coin_amount and face.qr_note == "note_type_amount"
    # the same order named as ether: the request carries the amount
    ether = order_with(coinBaseName="eth", coin="Ethereum", address=ADDRESS, amount="12.5")
    ether_payload = qr_payload(ether, payment_state(ether, ARRIVED), QRContent.AUTO)
    assert ether_payload.kind == "uri"
    assert parse(ether_payload.text or "").value_wei == Decimal("12.5") * 10**18


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_token_says_the_amount_is_to_be_typed(language: str) -> None:
    order = order_with(
        coinBaseName="usdt", coin="Tether USD", address="TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"
    )
    state = payment_state(order, ARRIVED)
    payload = qr_payload(order, state, QRContent.AUTO)
    face = customer_face(order, state, payload)
    assert face.qr_text == order.address and face.coin_amount
    assert face.qr_note == "note_type_amount"
    english = catalogue("en").text("note_type_amount")
    words = catalogue(language).text("note_type_amount")
    assert words and (language == "en" or words != english)


def test_charge_prints_the_eip681_wallet_request() -> None:
    from conftest import run_cli
    from orderdash.core.model import jsontext
    from orderdash.simulator import Simulator, SimulatorServer

    access = "access-eip681-charge"
    env = {"ORDERDASH_ACCESS_TOKEN": access, "ORDERDASH_CUSTOMER_ID": "4711"}
    with SimulatorServer(Simulator(seed=7), access_token=access, create_prefix="/l") as server:
        common = ("--base-url", server.base_url, "--create-url", server.root_url + "/l")
        result = run_cli("charge", "35.54", "--coin", "eth", "--json", *common, env=env)
        assert result.returncode == 0, result.stderr
        answer = jsontext.loads(result.stdout)
        order = server.sim.order_wire(answer["token"], with_qr=False)
        request = parse(answer["uri"])
        assert request.target == order["address"]
        assert request.value_wei == wei_up(Decimal(answer["amount"]))
        text = run_cli("charge", "35.54", "--coin", "eth", *common, env=env)
        assert "wallet request: ethereum:0x" in text.stdout and "?value=" in text.stdout
