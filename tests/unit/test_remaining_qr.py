"""The code for what is still due on a part-paid order: our own payment URI with the server's
shortfall, rounded up as the main code's amount is, whatever `qr_content` says; the customer's
face carries it (and says so) only while the order is open and part-paid."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import ValidationError

from orderdash.core.customer.face import CustomerFace, customer_face, face_at
from orderdash.core.domain.payment import PaymentState, payment_state
from orderdash.core.model import jsontext
from orderdash.core.model.wire import Order, OrderEnvelope
from orderdash.core.qr.payload import (
    QRContent,
    offers_remaining,
    qr_payload,
    remaining_payload,
)
from orderdash.core.watching.onscreen import Shown
from orderdash.core.watching.state import DashboardState

FIXTURES = Path(__file__).parents[1] / "fixtures"
ARRIVED = 1795255200.0
ADDRESS = "3AxYawtkGxsnTfy6KxswzAFNDiGRuw1dH3"
SERVER_IMAGE = "data:image/png;base64,AAAA"


def order_with(under: str | None = None, fiat: str = "-0.40", **fields: object) -> Order:
    """The published example, open, with one payment short by `under` (the server's
    underPaid, negative) and `fiat` in its money; no payment when `under` is None."""
    data = jsontext.loads((FIXTURES / "get_order_example.json").read_bytes())["data"]
    data["status"] = {"code": "IN_PROGRESS", "label": "IN_PROGRESS"}
    tx = data["transactions"][0]
    data["transactions"] = []
    if under is not None:
        tx["amount"]["underPaid"] = Decimal(under)
        tx["amount"]["overPaid"] = Decimal(0)
        tx["amountFiat"]["underPaid"] = fiat
        tx["amountFiat"]["overPaid"] = "0"
        data["transactions"].append(tx)
    data.update(fields)
    return OrderEnvelope.model_validate({"status": 1, "data": data}).data


def part_paid(under: str = "-0.000043681", **fields: object) -> tuple[Order, PaymentState]:
    order = order_with(under, **fields)
    return order, payment_state(order, ARRIVED)


def test_the_remaining_code_asks_for_the_shortfall_rounded_up_to_the_satoshi() -> None:
    order, state = part_paid("-0.000043681")
    payload = remaining_payload(order, state)
    assert payload is not None and payload.kind == "remaining"
    # the server's underPaid, never recomputed; up to the satoshi, never down
    assert payload.text == f"bitcoin:{ADDRESS}?amount=0.00004369"
    assert payload.caption == payload.text
    # exactly the main code's URI in `auto` mode: built the same way
    assert qr_payload(order, state, QRContent.AUTO).text == payload.text


def test_a_long_shortfall_is_exact_not_floated() -> None:
    order, state = part_paid("-0.000128701234567890123456")
    payload = remaining_payload(order, state)
    assert payload is not None and payload.text is not None
    assert payload.text.endswith("?amount=0.00012871")


def test_ether_asks_for_the_shortfall_in_wei() -> None:
    address = "0x" + "ab" * 20
    order, state = part_paid(
        "-0.0000000000000000015", coinBaseName="eth", coin="Ethereum", address=address
    )
    payload = remaining_payload(order, state)
    assert payload is not None
    assert payload.text == f"ethereum:{address}?value=2"


@pytest.mark.parametrize(
    ("under", "fields"),
    [
        (None, {}),  # nothing paid: the order's own code is for what is due
        ("-0.0001", {"coinBaseName": "usdt", "coin": "Tether"}),  # no URI standard
        ("-0.0001", {"coinBaseName": "eth", "coin": "SomeToken", "address": "0x" + "ab" * 20}),
        ("-0.0001", {"status": {"code": "EXPIRED", "label": "Expired"}}),
        ("-0.0001", {"status": {"code": "UNDERPAID", "label": "Underpaid"}}),
    ],
)
def test_no_remaining_code_where_none_can_be_paid(
    under: str | None, fields: dict[str, object]
) -> None:
    order = order_with(under, **fields)
    assert remaining_payload(order, payment_state(order, ARRIVED)) is None


def test_it_is_offered_only_where_it_changes_what_is_scanned() -> None:
    order, state = part_paid()
    remaining = remaining_payload(order, state)
    # the server's image (its whole order) and the bare address: a code of our own is new
    server = qr_payload(order, state, QRContent.SERVER, SERVER_IMAGE)
    assert server.kind == "server" and offers_remaining(server, remaining)
    assert offers_remaining(qr_payload(order, state, QRContent.ADDRESS), remaining)
    # `auto` and `uri` already ask for what is still due
    assert not offers_remaining(qr_payload(order, state, QRContent.AUTO), remaining)
    assert not offers_remaining(qr_payload(order, state, QRContent.URI), remaining)
    assert not offers_remaining(server, None)


def test_the_face_carries_the_remaining_code_with_both_amounts() -> None:
    order, state = part_paid("-0.000043681", fiat="-0.40")
    payload = remaining_payload(order, state, uppercase=True)
    assert payload is not None
    face = customer_face(order, state, payload)
    assert face.remaining and face.payable and face.phase == "PARTLY_PAID"
    assert face.qr_text == f"bitcoin:{ADDRESS}?amount=0.00004369"  # base58: case kept
    assert face.coin_amount == "0.00004369" and face.fiat_amount == "0.40"
    assert face.amount_label == "label_still_due" and face.qr_modules == ()
    # read back from the channel, it is the same face
    assert CustomerFace.model_validate_json(face.model_dump_json()) == face


def test_the_remaining_code_goes_as_the_main_code_does() -> None:
    order, state = part_paid()
    payload = remaining_payload(order, state)
    assert payload is not None
    # the deadline passes by this machine's clock
    face = customer_face(order, state, payload).model_copy(update={"deadline": ARRIVED + 60})
    assert face_at(face, ARRIVED + 59.9).remaining
    expired = face_at(face, ARRIVED + 60)
    assert not expired.remaining and not expired.payable and expired.qr_text == ""
    # the order cannot be checked: words, no code
    for trouble in ("unreachable", "not_found"):
        face = customer_face(order, state, payload, trouble=trouble)  # type: ignore[arg-type]
        assert not face.remaining and not face.payable and face.qr_text == ""
    # paid in full since: the payload of a part-paid answer makes no code
    paid_order = order_with(None, status={"code": "PAID", "label": "Paid"})
    paid = customer_face(paid_order, payment_state(paid_order, ARRIVED), payload)
    assert not paid.remaining and not paid.payable and paid.qr_text == ""


@pytest.mark.parametrize(
    "fields",
    [
        {"phase": "AWAITING"},
        {"phase": "CONFIRMING", "payable": False, "qr_text": ""},
        {"qr_text": ""},
        {"qr_modules": ("1" * 21,) * 21},
    ],
)
def test_a_remaining_face_off_the_channel_must_be_part_paid_with_our_code(
    fields: dict[str, object],
) -> None:
    values = {
        "phase": "PARTLY_PAID",
        "payable": True,
        "remaining": True,
        "coin": "BTC",
        "coin_amount": "0.0001",
        "qr_text": f"bitcoin:{ADDRESS}?amount=0.0001",
        **fields,
    }
    with pytest.raises(ValidationError):
        CustomerFace.model_validate(values)


def test_the_state_shows_the_remaining_code_for_its_order_only() -> None:
    order, state = part_paid()
    dashboard = DashboardState(
        store=None,
        bell=False,
        qr_content="server",
        refresh_interval=60.0,
        rates_enabled=True,
        clock=lambda: ARRIVED,
        monotonic=lambda: 0.0,
    )
    dashboard.focus(order.token)
    main = qr_payload(order, state, QRContent.SERVER, SERVER_IMAGE)
    dashboard.shown = Shown(order, state, main, ARRIVED, ())
    before = dashboard.face_for(order.token)
    assert before is not None and not before.remaining
    assert before.qr_text == ADDRESS  # the server's image, not decoded yet: the address

    dashboard.remaining_for = order.token
    after = dashboard.face_for(order.token)
    assert after is not None and after.remaining
    assert after.qr_text == f"bitcoin:{ADDRESS}?amount=0.00004369" and after.qr_modules == ()
    dashboard.remaining_for = "another-order"
    again = dashboard.face_for(order.token)
    assert again is not None and not again.remaining
