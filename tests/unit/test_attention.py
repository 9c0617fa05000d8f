"""The attention classifier, pure: every kind appears with its exact figure, its time and its
next step; a resolved order leaves; the close of day's exceptions are the same definition."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from orderdash.core.books.attention import (
    KINDS,
    NEXT_STEPS,
    age_text,
    as_json,
    attention_lines,
    attention_of,
    counts_text,
    identity_of,
    kind_words,
    needing_attention,
    resolution_times,
)
from orderdash.core.books.orders import exceptions_of, read_order
from orderdash.core.books.resolve import new_resolution
from orderdash.core.model import jsontext

CREATED = 1_792_900_000_000
HOUR = 3_600_000


def tx(
    tx_id: int, at_ms: int, base: str, under: str = "0", over: str = "0", fiat: str = "10.00"
) -> dict[str, Any]:
    return {
        "id": tx_id,
        "createdAtMiliseconds": at_ms,
        "hash": f"h{tx_id}",
        "amount": {"base": base, "total": base, "underPaid": under, "overPaid": over},
        "amountFiat": {
            "base": fiat,
            "total": fiat,
            "underPaid": "-2.50" if under != "0" else "0.00",
            "overPaid": "5.54" if over != "0" else "0.00",
        },
    }


def order(code: str, *txs: dict[str, Any], token: str = "t1", **fields: Any) -> Any:
    data = {
        "token": token,
        "id": 1,
        "createdAtMiliseconds": CREATED,
        "status": {"code": code, "label": code.title()},
        "companyName": "ACME",
        "coinBaseName": "btc",
        "currency": {"abbreviation": "EUR"},
        "amountFiat": "10.00",
        "amount": "0.0001",
        "expiresAt": CREATED + HOUR,
        "transactions": list(txs),
        **fields,
    }
    # as the service's JSON arrives: exact digits
    return read_order(jsontext.loads(jsontext.dumps(data)))


NOW = CREATED + 5 * HOUR
PAID_AT = CREATED + 600_000


def kinds(found: Any) -> tuple[str, ...]:
    return () if found is None else found.kinds


def test_an_open_order_with_a_shortfall_is_still_paying_which_the_close_leaves_open() -> None:
    o = order("IN_PROGRESS", tx(1, PAID_AT, "0.00007", under="-0.000030000000000000000001"))
    found = attention_of(o, now_ms=NOW)
    assert kinds(found) == ("still_paying",)
    item = found.first
    assert item.coin_amount == Decimal("0.000030000000000000000001")
    assert str(item.fiat_amount) == "2.50" and item.figure == "shortfall"
    assert item.at_ms == PAID_AT and item.age_seconds(NOW) == (NOW - PAID_AT) / 1000
    assert item.next_step == NEXT_STEPS["still_paying"] == "wait, or accept at the counter"
    assert exceptions_of(o) == []  # the customer may still pay: not an exception of the day


def test_a_closed_part_paid_order_is_underpaid_in_both() -> None:
    o = order("UNDERPAID", tx(1, PAID_AT, "0.00007", under="-0.00003"))
    assert kinds(attention_of(o, now_ms=NOW)) == ("underpaid",)
    assert [e["kind"] for e in exceptions_of(o)] == ["underpaid"]


def test_overpaid_has_the_excess_in_coin_and_fiat() -> None:
    o = order("OVERPAID", tx(1, PAID_AT, "0.00015", over="0.00005", fiat="15.54"))
    item = attention_of(o, now_ms=NOW).first
    assert (item.kind, item.figure, item.coin_amount, str(item.fiat_amount)) == (
        "overpaid",
        "excess",
        Decimal("0.00005"),
        "5.54",
    )


def test_expired_with_a_payment_and_paid_after_expiry() -> None:
    late_at = CREATED + 2 * HOUR
    o = order("EXPIRED", tx(1, PAID_AT, "0.00002", fiat="2.00"), tx(2, late_at, "0.00001"))
    found = attention_of(o, now_ms=NOW)
    assert kinds(found) == ("expired_with_payment", "paid_after_expiry")
    expired, late = found.items
    assert expired.coin_amount == Decimal("0.00003") and expired.fiat_amount == Decimal("12.00")
    assert late.coin_amount == Decimal("0.00001") and late.at_ms == late_at


def test_a_payment_into_a_canceled_order_needs_a_human_as_in_the_close() -> None:
    o = order("CANCELED", tx(1, PAID_AT, "0.00002", fiat="2.00"))
    found = attention_of(o, now_ms=NOW)
    assert kinds(found) == ("canceled_with_payment",) and found.first.figure == "received"
    assert found.first.next_step == NEXT_STEPS["canceled_with_payment"]
    assert found.first.coin_amount == Decimal("0.00002")
    assert [e["kind"] for e in exceptions_of(o)] == ["canceled_with_payment"]
    # canceled with nothing paid: nothing to do
    assert attention_of(order("CANCELED"), now_ms=NOW) is None
    assert exceptions_of(order("CANCELLED")) == []


def test_unconfirmed_needs_a_human_only_past_the_threshold() -> None:
    o = order("UNCONFIRMED", tx(1, PAID_AT, "0.0001"))
    assert attention_of(o, now_ms=PAID_AT + 59_000, unconfirmed_after=60) is None
    found = attention_of(o, now_ms=PAID_AT + 60_000, unconfirmed_after=60)
    assert kinds(found) == ("unconfirmed",) and found.first.figure == "received"
    assert kinds(attention_of(o, now_ms=NOW)) == ("unconfirmed",)  # the default: an hour


def test_an_identity_changed_since_an_earlier_read() -> None:
    before = order("PAID", tx(1, PAID_AT, "0.0001"))
    after = order("IN_PROGRESS", id=7, createdAtMiliseconds=CREATED + HOUR)
    assert attention_of(after, now_ms=NOW, was=identity_of(after)) is None
    found = attention_of(after, now_ms=NOW, was=identity_of(before))
    assert kinds(found) == ("identity_changed",)
    assert found.first.coin_amount is None and found.first.at_ms == CREATED + HOUR


def test_nothing_for_a_paid_order_and_a_resolved_order_leaves() -> None:
    assert attention_of(order("PAID", tx(1, PAID_AT, "0.0001")), now_ms=NOW) is None
    assert attention_of(order("IN_PROGRESS"), now_ms=NOW) is None
    over = order("OVERPAID", tx(1, PAID_AT, "0.00015", over="0.00005"))
    assert attention_of(over, now_ms=NOW, resolved={"t1": PAID_AT}) is None
    assert needing_attention([over], now_ms=NOW, resolved={"t1": NOW}) == []
    assert attention_of(over, now_ms=NOW, resolved={"t2": NOW}) is not None
    assert len(needing_attention([over], now_ms=NOW)) == 1


def test_a_payment_after_the_resolution_brings_the_order_back() -> None:
    """A resolution covers what had happened when it was made: the customer of an expired
    order is asked, then pays again: the order needs a human again."""
    first = tx(1, PAID_AT, "0.00002")
    resolved_at = CREATED + 2 * HOUR
    asked = order("EXPIRED", first)
    assert attention_of(asked, now_ms=NOW, resolved={"t1": resolved_at}) is None
    again = order("EXPIRED", first, tx(2, resolved_at + 60_000, "0.00001"))
    found = attention_of(again, now_ms=NOW, resolved={"t1": resolved_at})
    assert found is not None and found.newest_ms == resolved_at + 60_000
    assert kinds(found) == ("expired_with_payment", "paid_after_expiry")
    assert [o.token for o in needing_attention([again], now_ms=NOW, resolved={"t1": resolved_at})]
    # resolved again after the new payment (at the same millisecond too): out again
    for later in (resolved_at + 60_000, NOW):
        assert attention_of(again, now_ms=NOW, resolved={"t1": later}) is None


def test_a_new_order_under_a_resolved_token_comes_back() -> None:
    """The service reused the token after the old order was resolved: the new order's
    creation is newer than the resolution."""
    before = order("OVERPAID", tx(1, PAID_AT, "0.00015", over="0.00005"))
    resolved_at = CREATED + HOUR
    assert attention_of(before, now_ms=NOW, resolved={"t1": resolved_at}) is None
    after = order("IN_PROGRESS", id=7, createdAtMiliseconds=resolved_at + 1)
    found = attention_of(after, now_ms=NOW, resolved={"t1": resolved_at}, was=identity_of(before))
    assert kinds(found) == ("identity_changed",)
    # a new order made before the resolution was seen by whoever resolved: covered
    made_before = order("IN_PROGRESS", id=7, createdAtMiliseconds=resolved_at - 1)
    assert (
        attention_of(made_before, now_ms=NOW, resolved={"t1": resolved_at}, was=identity_of(before))
        is None
    )


def test_the_latest_resolution_of_each_token_counts() -> None:
    def record(token: str, at_ms: int) -> Any:
        return new_resolution(
            token, "settled", "seen to", till="a", operator="b",
            now=datetime.fromtimestamp(at_ms / 1000, UTC),
        )  # fmt: skip

    records = [record("a", PAID_AT), record("b", NOW), record("a", NOW), record("a", CREATED)]
    assert resolution_times(records) == {"a": NOW, "b": NOW}
    assert resolution_times([]) == {}


def test_the_json_and_the_lines_keep_every_digit_and_clean_text() -> None:
    under = order(
        "UNDERPAID",
        tx(1, PAID_AT, "0.00007", under="-0.000030000000000000000001"),
        token="u\x1b[2J",
    )
    over = order("OVERPAID", tx(1, CREATED + HOUR, "0.00015", over="0.00005"), token="o")
    found = needing_attention([under, over], now_ms=NOW)
    assert [o.token for o in found] == ["o", "u\x1b[2J"]  # the most recent trouble first
    data = as_json(found, now_ms=NOW)
    assert data["version"] == 2 and data["count"] == 2
    item = data["orders"][1]["items"][0]
    assert item["amount"] == {"coin": "0.000030000000000000000001", "fiat": "2.50"}
    assert item["age_seconds"] == (NOW - PAID_AT) // 1000 and item["figure"] == "shortfall"
    lines = attention_lines(found, now_ms=NOW)
    assert len(lines) == 3 and all("\x1b" not in line for line in lines)
    assert "0.000030000000000000000001 BTC" in lines[2] and "4h 50m ago" in lines[2]
    # the amounts right-aligned in their columns
    assert lines[1].index(" BTC") == lines[2].index(" BTC")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (None, "?"),
        (5, "5s"),
        (65, "1m"),
        (3 * 3600 + 300, "3h 05m"),
        (2 * 86400 + 4 * 3600, "2d 04h"),
    ],
)
def test_age_text(seconds: float | None, text: str) -> None:
    assert age_text(seconds) == text


def test_every_kind_has_a_next_step() -> None:
    assert set(KINDS) == set(NEXT_STEPS)


TOLERANCE = Decimal(1)


def short(code: str, under_fiat: str) -> Any:
    """A 10.00 EUR order whose latest payment left `under_fiat` EUR short."""
    payment = tx(1, PAID_AT, "0.0000986", under="-0.0000014", fiat="9.86")
    payment["amountFiat"]["underPaid"] = under_fiat
    return order(code, payment)


@pytest.mark.parametrize("code", ["UNDERPAID", "EXPIRED", "PAID", "CONFIRMED"])
def test_a_shortfall_within_the_tolerance_needs_nobody_once_nothing_more_is_to_come(
    code: str,
) -> None:
    o = short(code, "-0.10")  # 1 % of 10.00 EUR
    assert attention_of(o, now_ms=NOW, tolerance=TOLERANCE) is None
    # no tolerance: the same order is closed short (or expired with a payment)
    assert kinds(attention_of(o, now_ms=NOW))[0] in ("underpaid", "expired_with_payment")
    # a cent more than the tolerance: closed short still
    over = short(code, "-0.11")
    assert kinds(attention_of(over, now_ms=NOW, tolerance=TOLERANCE))[0] in (
        "underpaid",
        "expired_with_payment",
    )


def test_an_open_order_within_the_tolerance_is_still_paying() -> None:
    o = short("IN_PROGRESS", "-0.10")
    assert kinds(attention_of(o, now_ms=NOW, tolerance=TOLERANCE)) == ("still_paying",)


def test_the_counts_say_what_they_count() -> None:
    found = needing_attention(
        [
            short("IN_PROGRESS", "-0.50"),
            order("UNDERPAID", tx(1, PAID_AT, "0.00007", under="-0.00003"), token="t2"),
            order("UNDERPAID", tx(1, PAID_AT, "0.00007", under="-0.00003"), token="t3"),
        ],
        now_ms=NOW,
    )
    assert counts_text(found) == "2 closed short, 1 still paying"
    assert sorted(kind_words(o.first.kind) for o in found) == [
        "closed short",
        "closed short",
        "still paying",
    ]
