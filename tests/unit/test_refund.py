"""The refund calculator (core/books/refund.py) on the service's published examples
(tests/fixtures/examples): the getOrder example's transaction has overPaid 0.00004368 BTC
(0.40 USD); the rate example's order is at 51052.068 USD for one BTC."""

from __future__ import annotations

import copy
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from orderdash.core.books.orders import read_order
from orderdash.core.books.refund import Owed, RefundRefused, owed_by, typed_decimal, work_out
from orderdash.core.model import jsontext

EXAMPLES = Path(__file__).parent.parent / "fixtures" / "examples"


def example(name: str) -> dict[str, Any]:
    return jsontext.loads((EXAMPLES / name).read_text())["data"]


def test_the_excess_at_the_payments_rate_is_the_services_coin_figure() -> None:
    owed = owed_by(read_order(example("get_order.json")))
    assert owed is not None and owed.why == "overpaid"
    assert (owed.coin, owed.coin_amount, owed.fiat_amount) == (
        "btc",
        Decimal("0.00004368"),
        Decimal("0.40"),
    )
    refund = work_out(owed, "payment")
    assert refund.record.amount == Decimal("0.00004368") and refund.record.rate is None
    assert refund.record.coin == "BTC" and refund.record.basis == "payment"
    assert refund.text == "0.00004368 BTC (the excess at the payment's rate)"


def test_todays_rate_is_the_fiat_excess_over_the_rate_endpoints_rate_rounded_down() -> None:
    owed = owed_by(read_order(example("get_order.json")))
    today = example("rates.json")["exchangeRate"]
    assert today == Decimal("51052.068")
    refund = work_out(owed, "today", rate=today)
    # 0.40 / 51052.068 = 0.0000078351... : down to the satoshi, never up
    assert refund.record.amount == Decimal("0.00000783")
    assert refund.record.rate == Decimal("51052.068")
    assert "at today's rate 51052.068 USD" in refund.text


def test_a_typed_rate_and_a_fee() -> None:
    owed = owed_by(read_order(example("get_order.json")))
    rate = typed_decimal("9205.6", "rate")
    refund = work_out(owed, "typed", rate=rate, fee=typed_decimal("0.000001", "fee"))
    # 0.40 / 9205.6 = 0.00004345186...: 0.00004345, less 0.00000100
    assert refund.before_fee == Decimal("0.00004345")
    assert refund.record.amount == Decimal("0.00004245")
    assert refund.record.fee == Decimal("0.000001")
    assert refund.text.endswith("(the excess at 9205.6 USD, less a fee of 0.000001)")


def test_a_fee_over_the_refund_is_refused_never_negative() -> None:
    owed = owed_by(read_order(example("get_order.json")))
    with pytest.raises(RefundRefused, match="nothing to refund") as refused:
        work_out(owed, "payment", fee=Decimal("0.0001"))
    assert "\n" not in refused.value.message
    with pytest.raises(RefundRefused, match="nothing to refund"):
        work_out(owed, "payment", fee=Decimal("0.00004368"))
    with pytest.raises(RefundRefused, match="needs one above 0"):
        work_out(owed, "typed", rate=Decimal(0))
    with pytest.raises(RefundRefused, match="today's rate is not known"):
        work_out(owed, "today", rate=None)


def test_a_fee_finer_than_the_unit_leaves_the_refund_rounded_down() -> None:
    owed = owed_by(read_order(example("get_order.json")))
    refund = work_out(owed, "payment", fee=Decimal("0.000000005"))
    assert refund.record.amount == Decimal("0.00004367")


def test_typed_figures_are_ascii_digits_and_one_point() -> None:
    assert typed_decimal(" 12.5 ", "rate") == Decimal("12.5")
    assert typed_decimal(".5", "fee") == Decimal("0.5")
    for bad in ("", "1,5", "1.2.3", "-1", "1e5", "NaN", "١٢", "1" * 41, "Infinity"):
        with pytest.raises(RefundRefused):
            typed_decimal(bad, "rate")


def test_a_late_payment_is_owed_whole() -> None:
    data = copy.deepcopy(example("rates.json"))
    data["status"] = {"code": "EXPIRED", "label": "EXPIRED"}
    data["transactions"] = [
        {
            "id": 1,
            "hash": "ab",
            "amount": {
                "base": Decimal("0.00009794"),
                "total": Decimal("0.00009794"),
                "underPaid": Decimal(0),
                "overPaid": Decimal(0),
            },
            "amountFiat": {"base": "5.00", "total": "5.00", "underPaid": "0", "overPaid": "0"},
            "createdAtMiliseconds": data["expiresAt"] + 3 * 3600 * 1000,
        }
    ]
    owed = owed_by(read_order(data))
    assert owed is not None and owed.why == "paid_after_expiry"
    assert (owed.coin_amount, owed.fiat_amount) == (Decimal("0.00009794"), Decimal("5.00"))
    # at the order's own rate the same coin back; at a higher rate less
    assert work_out(owed, "typed", rate=Decimal("51052.068")).record.amount == Decimal(
        "0.00009793"
    )  # 5.00 / 51052.068 = 0.0000979384...: rounded down
    assert work_out(owed, "payment").record.amount == Decimal("0.00009794")


def _paid_into(code: str, *bases: str, under: str = "0") -> dict[str, Any]:
    data = copy.deepcopy(example("rates.json"))
    data["status"] = {"code": code, "label": code.title()}
    data["transactions"] = [
        {
            "id": n,
            "hash": f"h{n}",
            "amount": {"base": base, "total": base, "underPaid": under, "overPaid": "0"},
            "amountFiat": {"base": "2.50", "total": "2.50", "underPaid": "-2.50", "overPaid": "0"},
            "createdAtMiliseconds": data["expiresAt"] - 60_000 + n,
        }
        for n, base in enumerate(bases, 1)
    ]
    return data


@pytest.mark.parametrize(
    ("code", "why", "words"),
    [
        ("UNDERPAID", "underpaid", "what was received for the underpaid order"),
        ("CANCELED", "canceled_with_payment", "the payment into the canceled order"),
        ("EXPIRED", "expired_with_payment", "the payment into the expired order"),
    ],
)
def test_a_closed_part_paid_order_owes_back_all_it_received(
    code: str, why: str, words: str
) -> None:
    # two payments before the deadline, the last leaving a shortfall: nothing was bought
    owed = owed_by(read_order(_paid_into(code, "0.00003", "0.00002", under="-0.00004794")))
    assert owed is not None and (owed.why, owed.words) == (why, words)
    assert (owed.coin_amount, owed.fiat_amount) == (Decimal("0.00005"), Decimal("5.00"))
    refund = work_out(owed, "payment", fee=Decimal("0.00001"))
    assert refund.text == f"0.00004000 BTC ({words} at the payment's rate, less a fee of 0.00001)"


def test_an_open_part_paid_order_owes_nothing_yet() -> None:
    # the customer may still pay the rest: no refund offered while it is in progress
    assert owed_by(read_order(_paid_into("IN_PROGRESS", "0.00003", under="-0.00006794"))) is None


def test_an_order_without_excess_owes_nothing_and_an_unknown_coin_has_no_rate_refund() -> None:
    data = copy.deepcopy(example("rates.json"))
    assert owed_by(read_order(data)) is None
    paid = copy.deepcopy(example("get_order.json"))
    paid["coinBaseName"] = "xyz"
    owed = owed_by(read_order(paid))
    assert work_out(owed, "payment").record.amount == Decimal("0.00004368")
    with pytest.raises(RefundRefused, match="smallest unit of XYZ is not known"):
        work_out(owed, "today", rate=Decimal(1))


def test_a_refund_beyond_the_ledgers_bounds_is_refused_before_it_is_written() -> None:
    # a service's largest fiat figure over the smallest rate that can be typed: 10^69 coins
    owed = Owed("overpaid", "btc", Decimal(1), Decimal("1E+30"), "USD")
    rate = typed_decimal("." + "0" * 38 + "1", "rate")
    with pytest.raises(RefundRefused, match="the refund is beyond the amounts the service has"):
        work_out(owed, "typed", rate=rate)
    assert work_out(owed, "typed", rate=Decimal("1E+10")).record.amount == Decimal("1E+20")
