"""Amounts are typed one way (the one parser of `orderdash charge` and the `n` dialog), in the
till's currency's ISO 4217 minor digits; typed tokens are ASCII. The core, directly."""

from __future__ import annotations

import unicodedata
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orderdash.core.domain.fiat import MAX_AMOUNT, currency_code, minor_digits, parse_amount
from orderdash.core.model.errors import InvalidToken, UsageError
from orderdash.core.service.tokens import operator_token


@pytest.mark.parametrize(
    ("code", "digits"),
    [("EUR", 2), ("chf", 2), ("JPY", 0), ("KRW", 0), ("BHD", 3), ("KWD", 3), ("JOD", 3)]
    + [("OMR", 3), ("TND", 3), ("XYZ", 2), (None, 2)],
)
def test_minor_digits_are_iso_4217s(code: str | None, digits: int) -> None:
    assert minor_digits(code) == digits


def test_a_currency_setting_is_an_iso_4217_code() -> None:
    assert currency_code(" chf ") == "CHF"
    for bad in ("EUE", "EURO", "E1R", "\uff25\uff35\uff32", "", "\u0415UR"):  # fullwidth, Cyrillic
        with pytest.raises(ValueError, match="ISO 4217"):
            currency_code(bad)


@pytest.mark.parametrize(
    ("typed", "currency", "reason"),
    [
        ("12_50", None, "not digits"),
        ("12_000", None, "not digits"),
        ("\u0661\u0662", None, "not digits"),  # Arabic-Indic
        ("\uff11\uff12", None, "not digits"),  # fullwidth
        ("12,50", None, "use a point: 12.50"),
        ("12,5", None, "use a point: 12.5"),
        ("1,000", None, "no thousands separator"),  # a thousand, or one: no guess offered
        ("1,250.00", None, "not digits"),
        ("1e3", None, "not digits"),
        ("NaN", None, "not digits"),
        ("Infinity", None, "not digits"),
        ("+5", None, "not digits"),
        ("0x10", None, "not digits"),
        ("1.2.3", None, "not digits"),
        ("-5", None, "greater than 0"),
        ("0", None, "greater than 0"),
        ("0.00", None, "greater than 0"),
        ("12.345", None, "at most 2 decimals"),
        ("1200.5", "JPY", "JPY amounts take no decimals"),
        ("1.2345", "BHD", "BHD amounts take at most 3 decimals"),
        ("1000000000", None, "less than 1,000,000,000"),
        ("", None, "no amount"),
        ("9" * 40, None, "too long"),
    ],
)
def test_amounts_typed_another_way_are_refused_with_the_reason(
    typed: str, currency: str | None, reason: str
) -> None:
    with pytest.raises(UsageError, match=reason.replace("+", r"\+").replace(".", r"\.")):
        parse_amount(typed, currency)


@pytest.mark.parametrize(
    ("typed", "currency", "amount"),
    [
        (" 12.50 ", None, "12.50"),
        ("5", None, "5"),
        ("5.", None, "5"),
        (".5", None, "0.5"),
        ("1200", "JPY", "1200"),
        ("1.234", "BHD", "1.234"),
        ("999999999.99", "EUR", "999999999.99"),
    ],
)
def test_amounts_typed_as_digits_and_one_point_are_taken(
    typed: str, currency: str | None, amount: str
) -> None:
    assert parse_amount(typed, currency) == Decimal(amount)


@given(
    whole=st.integers(min_value=0, max_value=999_999_999),
    cents=st.one_of(st.none(), st.text("0123456789", min_size=0, max_size=2)),
)
def test_every_amount_of_digits_and_a_point_is_taken_exactly(whole: int, cents: str | None) -> None:
    typed = str(whole) if cents is None else f"{whole}.{cents}"
    expected = Decimal(typed)
    if expected <= 0:
        with pytest.raises(UsageError):
            parse_amount(typed, "EUR")
    else:
        assert parse_amount(typed, "EUR") == expected


@given(st.text(min_size=1, max_size=12))
def test_nothing_but_ascii_digits_and_one_point_is_ever_taken(typed: str) -> None:
    try:
        amount = parse_amount(typed)
    except UsageError:
        return
    core = typed.strip(" \t\r\n")
    assert all(ch in "0123456789." for ch in core) and core.count(".") <= 1
    assert Decimal(core) == amount and Decimal(0) < amount < MAX_AMOUNT


@given(st.sampled_from([ch for ch in map(chr, range(0x660, 0xFF20)) if ch.isdigit()]))
def test_no_other_scripts_digit_is_a_digit(digit: str) -> None:
    assert unicodedata.digit(digit, None) is not None
    with pytest.raises(UsageError):
        parse_amount(f"1{digit}")


@pytest.mark.parametrize(
    "given_text",
    [
        "\u0430bc123",  # Cyrillic a
        "abc\uff11",  # fullwidth 1
        "abc\u0661",  # Arabic-Indic 1
        "https://pay.example/invoice?token=%0d%0aX",
        "https://pay.example/order/%0aX/",
        "https://pay.example/order/X%00/",
    ],
)
def test_typed_tokens_are_ascii_and_links_hide_no_control_characters(given_text: str) -> None:
    with pytest.raises(InvalidToken):
        operator_token(given_text)


def test_an_ascii_token_and_its_link_are_taken() -> None:
    assert operator_token("abc-1_x.y~z") == "abc-1_x.y~z"
    assert operator_token("https://pay.example/invoice?token=abc-1") == "abc-1"
