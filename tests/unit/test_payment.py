"""Payment state from fixture orders, and what the QR encodes."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from orderdash.core.domain.expiry import Confidence
from orderdash.core.domain.payment import Phase, payment_state
from orderdash.core.model import jsontext
from orderdash.core.model.wire import Order, OrderEnvelope
from orderdash.core.qr.payload import QRContent, payment_uri, qr_payload

FIXTURES = Path(__file__).parents[1] / "fixtures"
ARRIVED = 1795255200.0


def example() -> dict:
    return jsontext.loads((FIXTURES / "get_order_example.json").read_bytes())["data"]


def order_with(
    *,
    status: str = "IN_PROGRESS",
    label: str | None = None,
    txs: list[tuple[str, str]] | None = None,
    **fields,
) -> Order:
    """The published example, with a status and transactions given as (underPaid, overPaid)."""
    data = example()
    data["status"] = {"code": status, "label": label or status}
    template = data["transactions"][0]
    data["transactions"] = []
    for index, (under, over) in enumerate(txs or []):
        tx = jsontext.loads(jsontext.dumps(template))
        tx["id"] = 900 + index
        tx["createdAtMiliseconds"] += index * 1000
        tx["amount"]["underPaid"] = Decimal(under)
        tx["amount"]["overPaid"] = Decimal(over)
        tx["amountFiat"]["underPaid"] = str(Decimal(under) * 10000)
        tx["amountFiat"]["overPaid"] = str(Decimal(over) * 10000)
        data["transactions"].append(tx)
    data.update(fields)
    return OrderEnvelope.model_validate({"status": 1, "data": data}).data


def test_awaiting_payment_uses_the_order_amount() -> None:
    state = payment_state(order_with(), ARRIVED)
    assert state.phase is Phase.AWAITING and state.payable
    assert state.due_coin == Decimal("0.00000109") and state.due_fiat == Decimal("100")
    assert state.headline == "Scan to pay"
    assert "awaiting 0.00000109 BTC (100 USD)" == state.summary


def test_partly_paid_uses_the_latest_transactions_under_paid() -> None:
    state = payment_state(order_with(txs=[("-0.00009", "0"), ("-0.00004368", "0")]), ARRIVED)
    assert state.phase is Phase.PARTLY_PAID
    assert state.due_coin == Decimal("0.00004368")
    assert state.due_fiat == Decimal("0.43680000")
    assert state.headline == "Partly paid: send 0.00004368 BTC more"
    assert "server's underPaid" in state.summary


def test_contradicting_figures_are_not_resolved_by_guessing() -> None:
    # the published example: underPaid and overPaid both non-zero
    state = payment_state(
        OrderEnvelope.model_validate(
            jsontext.loads((FIXTURES / "get_order_example.json").read_bytes())
        ).data,
        ARRIVED,
    )
    assert state.phase is Phase.UNCLEAR and not state.payable
    assert state.due_coin is None
    assert state.headline == "Payment received: check the amounts"
    assert "-0.00004368" in state.summary and "0.00004368" in state.summary


def test_paid_exactly_while_open_is_confirming() -> None:
    state = payment_state(order_with(txs=[("0", "0")]), ARRIVED)
    assert state.phase is Phase.CONFIRMING
    assert state.headline == "Payment received, confirming"


def test_overpaid_while_open_shows_the_excess() -> None:
    state = payment_state(order_with(txs=[("0", "0.0001")]), ARRIVED)
    assert state.phase is Phase.OVERPAID
    assert state.excess_coin == Decimal("0.0001")
    assert state.headline == "Overpaid by 0.0001 BTC"


@pytest.mark.parametrize(
    ("code", "phase", "headline"),
    [
        ("PAID", Phase.CONFIRMING, "Payment received, confirming"),
        ("paid-unconfirmed", Phase.CONFIRMING, "Payment received, confirming"),
        ("CONFIRMED", Phase.CONFIRMED, "Paid"),
        ("UNDERPAID", Phase.UNDERPAID, "Underpaid: order closed"),
        ("EXPIRED", Phase.EXPIRED, "Expired"),
        ("CANCELED", Phase.CANCELED, "Canceled"),
        ("CANCELLED", Phase.CANCELED, "Canceled"),
    ],
)
def test_recognised_status_codes_decide(code: str, phase: Phase, headline: str) -> None:
    state = payment_state(order_with(status=code, txs=[("-0.00001", "0")]), ARRIVED)
    assert state.phase is phase and state.headline == headline
    assert not state.payable


def test_overpaid_status_takes_the_excess_from_the_server() -> None:
    state = payment_state(order_with(status="OVERPAID", txs=[("0", "0.002")]), ARRIVED)
    assert state.phase is Phase.OVERPAID and state.excess_coin == Decimal("0.002")


def test_unknown_status_is_neutral_and_shows_the_server_label() -> None:
    state = payment_state(order_with(status="ON_HOLD", label="On hold [review]"), ARRIVED)
    assert state.phase is Phase.UNKNOWN
    assert state.headline == "Status: On hold [review]"
    assert not state.payable


def test_coin_not_chosen() -> None:
    order = order_with(coin=None, coinBaseName=None, exchangeRate=None, amount=None)
    state = payment_state(order, ARRIVED)
    assert state.phase is Phase.COIN_NOT_CHOSEN
    assert state.headline == "Choose a coin to pay with"


def test_expiry_is_trusted_only_when_the_values_agree() -> None:
    created = int(ARRIVED * 1000) - 60_000
    agreeing = order_with(
        expiresAt=int(ARRIVED * 1000) + 3_600_000,
        expirationTime=3_600_000,
        createdAtMiliseconds=created,
    )
    assert payment_state(agreeing, ARRIVED).expiry.confidence is Confidence.CONFIRMED
    assert payment_state(agreeing, ARRIVED).expiry.countdown(ARRIVED + 60) == "expires in 59:00"
    disagreeing = order_with(expiresAt=int(ARRIVED * 1000) + 60_000, expirationTime=3_600_000)
    assert payment_state(disagreeing, ARRIVED).expiry.countdown(ARRIVED) == ""
    # the published example's small expiresAt, on an order created a minute before
    old_style = order_with(
        expiresAt=17991482,
        expirationTime=3_600_000,
        createdAtMiliseconds=int(ARRIVED * 1000) - 60_000,
    )
    assert (
        payment_state(old_style, ARRIVED).expiry.countdown(ARRIVED) == "expires in 1:00:00 (if ms)"
    )
    # the same values on the example as published, created in 2020: no deadline in the future
    published = order_with(expiresAt=17991482, expirationTime=3_600_000)
    assert payment_state(published, ARRIVED).expiry.countdown(ARRIVED) == ""


@pytest.mark.parametrize(
    ("coin", "address", "amount", "uri"),
    [
        (
            "btc",
            "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
            Decimal("0.00012345"),
            "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00012345",
        ),
        (
            "ltc",
            "ltc1qg82vxq7xnm5l8d9e2yq8m5xrf0c7f3d2ss2mqw",
            Decimal("1.5"),
            "litecoin:ltc1qg82vxq7xnm5l8d9e2yq8m5xrf0c7f3d2ss2mqw?amount=1.5",
        ),
        (
            "doge",
            "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
            None,
            "dogecoin:DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
        ),
        (
            "bch",
            "bitcoincash:qruxtsj5dlmkjnrtkvje7dwf3mt3q9k58vxhg54hkw",
            Decimal("0.1"),
            "bitcoincash:qruxtsj5dlmkjnrtkvje7dwf3mt3q9k58vxhg54hkw?amount=0.1",
        ),
        (
            "BTC",
            "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
            Decimal("0.00000001"),
            "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00000001",
        ),
    ],
)
def test_payment_uris(coin: str, address: str, amount: Decimal | None, uri: str) -> None:
    assert payment_uri(coin, address, amount) == uri


@pytest.mark.parametrize(
    ("coin", "address"),
    [
        ("usdt", "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"),
        ("eth", "0xe6d6ca2c9923fec5254b0aba478d23028f745c8"),
        ("eth", "0xe6d6ca2c9923fec5254b0aba478d23028f745c87?value=1"),
        ("btc", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=999"),
        ("btc", "bc1q ar0s"),
        ("btc", ""),
    ],
)
def test_no_uri_where_no_standard_exists_or_the_address_is_odd(coin: str, address: str) -> None:
    assert payment_uri(coin, address, Decimal("1")) is None


def test_qr_payload_follows_the_setting_and_the_amount_due() -> None:
    order = order_with(
        txs=[("-0.00004368", "0")], address="bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
    )
    state = payment_state(order, ARRIVED)
    auto = qr_payload(order, state, QRContent.AUTO)
    # bech32: scheme and address upper case in the code, the caption as people write it
    assert (
        auto.kind == "uri"
        and auto.text == "BITCOIN:BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ?amount=0.00004368"
        and auto.caption == "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00004368"
    )
    lower = qr_payload(order, state, QRContent.AUTO, uppercase=False)
    assert lower.text == lower.caption == auto.caption
    assert qr_payload(order, state, QRContent.ADDRESS).text == order.address
    assert qr_payload(order, state, QRContent.SERVER).kind == "address"  # no image yet
    assert "no QR image" in qr_payload(order, state, QRContent.SERVER).note
    server = qr_payload(order, state, QRContent.SERVER, "data:image/png;base64,AAAA")
    assert server.kind == "server" and server.server_image and server.text is None

    eth = order_with(
        coinBaseName="eth", coin="Ethereum", address="0xe6d6ca2c9923fec5254b0aba478d23028f745c87"
    )
    eth_state = payment_state(eth, ARRIVED)
    assert qr_payload(eth, eth_state, QRContent.AUTO).text.startswith(f"ethereum:{eth.address}")
    usdt = order_with(
        coinBaseName="usdt", coin="Tether USD", address="TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"
    )
    usdt_state = payment_state(usdt, ARRIVED)
    assert qr_payload(usdt, usdt_state, QRContent.AUTO).text == usdt.address
    assert "no payment URI standard for USDT" in qr_payload(usdt, usdt_state, QRContent.URI).note


def test_closed_orders_encode_no_amount() -> None:
    order = order_with(status="PAID", address="bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq")
    payload = qr_payload(order, payment_state(order, ARRIVED), QRContent.AUTO)
    assert payload.text == "BITCOIN:BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ"
    assert payload.caption == "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"


def test_closed_short_within_the_tolerance_is_paid_with_the_shortfall_absorbed() -> None:
    """The example's order is 100 USD: 0.43680000 USD short is within 1 %, not within 0.4 %;
    an open order is never judged; the service's own "paid" keeps its phase and its shortfall;
    accepted at the counter, any shortfall is absorbed."""
    short = [("-0.00004368", "0")]
    for code in ("UNDERPAID", "EXPIRED"):
        state = payment_state(order_with(status=code, txs=short), ARRIVED, tolerance=Decimal(1))
        assert state.phase is Phase.PAID_SHORT and state.settled and not state.payable
        assert state.headline == "Paid" and state.shortfall is None
        assert (state.absorbed_coin, state.absorbed_fiat) == (
            Decimal("0.00004368"),
            Decimal("0.4368"),
        )
        assert (
            state.summary
            == "paid within tolerance, 0.43680000 USD (0.00004368 BTC) short, absorbed"
        )
        narrow = payment_state(
            order_with(status=code, txs=short), ARRIVED, tolerance=Decimal("0.4")
        )
        assert narrow.phase is not Phase.PAID_SHORT and narrow.shortfall == (
            Decimal("0.00004368"),
            Decimal("0.4368"),
        )
    still_open = payment_state(order_with(txs=short), ARRIVED, tolerance=Decimal(5))
    assert still_open.phase is Phase.PARTLY_PAID
    paid = payment_state(order_with(status="CONFIRMED", txs=short), ARRIVED)
    assert paid.phase is Phase.CONFIRMED and paid.absorbed_fiat == Decimal("0.4368")
    assert "paid by the service, 0.43680000 USD (0.00004368 BTC) short, absorbed" in paid.summary
    accepted = payment_state(order_with(txs=short), ARRIVED, accepted=True)
    assert accepted.phase is Phase.PAID_SHORT and accepted.accepted
    assert accepted.summary.startswith("accepted as paid at the counter, 0.43680000 USD")
