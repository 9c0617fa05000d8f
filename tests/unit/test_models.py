"""Models against fixtures: every field, null/unknown cases, exact decimals."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import ValidationError

from orderdash.core.model import jsontext
from orderdash.core.model.wire import (
    Order,
    OrderEnvelope,
    RatesEnvelope,
    ServerTime,
    parse_server_time,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"


def load(name: str) -> dict:
    return jsontext.loads((FIXTURES / name).read_bytes())


def example_order_data() -> dict:
    return load("get_order_example.json")["data"]


def test_every_spec_field_is_read_with_snake_case_names() -> None:
    order = OrderEnvelope.model_validate(load("get_order_example.json")).data
    assert order.company_name == "Company"
    assert (order.id, order.customer_id, order.token) == (1893, 99, "ordertoken")
    assert (order.coin, order.coin_base_name) == ("Bitcoin", "btc")
    assert order.exchange_rate == Decimal("9205.6")
    assert order.amount_fiat == Decimal("100")
    assert order.amount == Decimal("0.00000109")
    assert order.due_date is None
    assert (order.currency.id, order.currency.currency, order.currency.abbreviation) == (
        2,
        "US Dollar",
        "USD",
    )
    assert order.created_at.raw == "2020-07-14 10:01"
    assert order.created_at.value is not None and order.created_at.value.minute == 1
    assert order.created_at_ms == 1594718753000
    assert order.type == "Order"
    assert (order.expires_at, order.expiration_time) == (17991482, 3600000)
    assert order.email is None
    assert order.address == "3AxYawtkGxsnTfy6KxswzAFNDiGRuw1dH3"
    assert order.qr_code is None
    assert (order.status.code, order.status.label) == ("IN_PROGRESS", "IN_PROGRESS")
    assert order.urls.callback_url == "https://shop.example/callback"
    assert order.urls.cancel_url == "https://shop.example/cancel"
    assert order.urls.success_url == "https://shop.example/success"
    tx = order.transactions[0]
    assert (tx.id, tx.created_at.raw, tx.created_at_ms) == (957, "2020-07-14 08:29", 1594715393000)
    assert tx.hash.startswith("efda5c2e") and tx.hash_url.endswith(tx.hash)
    assert tx.amount.base == Decimal("0.00006527")
    assert tx.amount.under_paid == Decimal("-0.00004368")
    assert tx.amount.over_paid == Decimal("0.00004368")
    assert tx.amount_fiat.total == Decimal("2.40")
    assert str(tx.amount_fiat.total) == "2.40", "trailing zeros of fiat text are kept"


def test_coin_not_chosen_and_unknown_extras_are_accepted() -> None:
    envelope = RatesEnvelope.model_validate(load("rates_coin_not_chosen.json"))
    order = envelope.data
    assert order is not None
    assert order.coin is None and order.coin_base_name is None
    assert order.exchange_rate is None and order.amount is None
    assert not order.coin_chosen
    assert order.email == "buyer@shop.example"
    assert order.qr_code == ""
    assert order.transactions == ()
    assert order.model_extra == {
        "coins": [{"id": 1, "name": "Bitcoin", "code": "BTC", "basename": "btc"}]
    }
    assert envelope.success is True and envelope.message is None


def test_unknown_status_code_is_kept_as_sent() -> None:
    data = example_order_data()
    data["status"] = {"code": "PARTIALLY_REFUNDED", "label": "Partly refunded"}
    order = Order.model_validate(data)
    assert order.status.code == "PARTIALLY_REFUNDED"
    assert order.status.label == "Partly refunded"


@pytest.mark.parametrize("due", [None, "2026-12-01", 1700000000000, {"at": "x"}, [1, 2]])
def test_due_date_is_any_json_value(due: object) -> None:
    data = example_order_data()
    data["dueDate"] = due
    assert Order.model_validate(data).due_date == due


@pytest.mark.parametrize(
    "text",
    [
        "2024-01-05 10:07",
        "2024-1-5 3:7",  # strptime takes one digit for month, day, hour, minute
        "2024-01- 5 10:07",
        "2024-01-05  10:07",
        "2024-01-05\t10:07",
        "2024-02-29 23:59",
        "9999-12-31 23:59",
        "\u0662\u0660\u0662\u0664-\u0660\u0661-\u0660\u0665 \u0661\u0660:\u0660\u0667",
        "2024-02-30 10:00",  # no such day
        "2023-02-29 00:00",
        "0000-01-01 00:00",
        "2024-13-01 10:00",
        "2024-12-31 24:00",
        "2024-12-31 23:60",
        " 2024-01-05 10:07",
        "2024-01-05 10:07 ",
        "2024-01-05 10:07\n",
        "2024-01-05T10:07",
        "",
    ],
)
def test_server_times_read_as_strptime_reads_them(text: str) -> None:
    """The service's `YYYY-MM-DD HH:MM` is read without `_strptime` (its import builds its
    patterns from the locale, ~2 ms of the first read) and exactly as it reads it."""
    assert parse_server_time(text) == strptime_or_none(text)


def test_unparseable_created_at_keeps_raw_text() -> None:
    data = example_order_data()
    data["createdAt"] = "yesterday-ish"
    order = Order.model_validate(data)
    assert order.created_at.raw == "yesterday-ish"
    assert order.created_at.value is None


def strptime_or_none(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, "%Y-%m-%d %H:%M")
    except ValueError:
        return None


#: Server times and near misses: digits (other scripts' too), separators, whitespace.
TIME_TEXT = st.one_of(
    st.builds(
        "{}-{}-{}{}{}:{}".format,
        st.sampled_from(["2024", "2028", "1999", "0000"]) | st.integers(0, 10000).map(str),
        st.integers(0, 13).map(lambda n: f"{n:02d}" if n % 2 else str(n)),
        st.sampled_from(["0", "1", "9", "01", "09", "10", "28", "29", "30", "31", "32", " 5"]),
        st.sampled_from([" ", "  ", "\t", "T", "", "\u2003"]),
        st.sampled_from(["0", "00", "9", "09", "19", "20", "23", "24", "123"]),
        st.sampled_from(["0", "00", "5", "59", "60", "07x", "7 ", "\u0667"]),
    ),
    st.text(alphabet="0123456789-: \t\u0661\uff15T", max_size=20),
)


@given(TIME_TEXT)
@example("2024-02-29 23:59")
@example("2023-02-29 12:00")
@example("\u0662\u0660\u0662\u0664-01-02 03:04")
def test_a_server_time_parses_exactly_as_strptime_would(text: str) -> None:
    """`ServerTime` reads `YYYY-MM-DD HH:MM` with its own pattern (no `_strptime` at start-up):
    what parses, and to what, is `datetime.strptime`'s answer."""
    parsed = ServerTime.model_validate(text)
    assert parsed.raw == text
    assert parsed.value == strptime_or_none(text)


@pytest.mark.parametrize(
    "text",
    [
        "0.000123456789012345678901",
        "123456789012345678901234.5",
        "0.100000000000000000000000000000",
        "-0.00000000000000000001",
    ],
)
def test_money_keeps_every_digit(text: str) -> None:
    data = example_order_data()
    data["amount"] = jsontext.loads(text)  # a JSON number token, parsed like a body
    data["transactions"][0]["amount"]["base"] = jsontext.loads(text)
    data["transactions"][0]["amountFiat"]["base"] = text
    order = Order.model_validate(data)
    assert order.amount == Decimal(text)
    assert format(order.amount, "f") == text
    assert format(order.transactions[0].amount.base, "f") == text
    assert format(order.transactions[0].amount_fiat.base, "f") == text


def test_body_numbers_never_pass_through_float() -> None:
    body = (
        (FIXTURES / "get_order_example.json")
        .read_text()
        .replace('"amount": 0.00000109', '"amount": 0.000000000123456789012345678901')
    )
    order = OrderEnvelope.model_validate(jsontext.loads(body)).data
    assert format(order.amount, "f") == "0.000000000123456789012345678901"
    # the pitfall this guards against: plain JSON parsing hands floats over, which lose digits;
    # the Money type refuses them instead of showing a rounded amount
    with pytest.raises(ValidationError, match="exact decimal"):
        OrderEnvelope.model_validate_json(body)


@pytest.mark.parametrize(
    "bad",
    [True, 1.5, "abc", "NaN", "Infinity", "1e999", "1e-999", {"v": 1}],
    ids=["bool", "float", "text", "nan", "inf", "huge-exponent", "tiny-exponent", "object"],
)
def test_money_rejects_what_is_not_an_exact_finite_number(bad: object) -> None:
    data = example_order_data()
    data["exchangeRate"] = bad
    with pytest.raises(ValidationError):
        Order.model_validate(data)


def test_wrong_types_are_validation_errors_not_crashes() -> None:
    data = example_order_data()
    data["companyName"] = 42
    with pytest.raises(ValidationError):
        Order.model_validate(data)
    data = example_order_data()
    del data["token"]
    with pytest.raises(ValidationError):
        Order.model_validate(data)


def test_jsontext_rejects_nan_and_reports_bad_syntax() -> None:
    with pytest.raises(jsontext.JsonTextError):
        jsontext.loads('{"a": NaN}')
    with pytest.raises(jsontext.JsonTextError):
        jsontext.loads('{"a": ')
    with pytest.raises(jsontext.JsonTextError):
        jsontext.loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(jsontext.JsonTextError):
        jsontext.loads(b'{"a": "\xff\xfe"}')


def test_jsontext_round_trips_digits_and_escapes_control_characters() -> None:
    text = '{"rate": 97123.450, "tiny": 0.00000001, "name": "a\\u001b[2Jb", "n": 3}'
    value = jsontext.loads(text)
    out = jsontext.dumps(value)
    assert "97123.450" in out and "0.00000001" in out
    assert "\x1b" not in out and "\\u001b" in out
    assert jsontext.loads(out) == value
