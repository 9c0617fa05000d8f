"""The till's fiat: ISO 4217 currency codes, their minor digits, and amounts as a person types
them (one parser for `orderdash charge` and the dashboard's `n` dialog).

An amount is typed one way: ASCII digits with at most one '.', at most the currency's minor
digits after it, greater than 0 and below `MAX_AMOUNT`. Python's `Decimal` alone would take
`12_50` (1250), Arabic-Indic or fullwidth digits, exponents and signs: each is refused here with
the reason, never reinterpreted.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from orderdash.core.model.errors import UsageError
from orderdash.core.safetext import clean

#: ISO 4217 (list one): the active codes a till can charge in, by their minor digits. Funds and
#: precious metals (no minor unit) are left out. A code not listed has 2 (`minor_digits`).
_BY_MINOR_DIGITS = {
    0: "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF",
    2: (
        "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN "
        "BWP BYN BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN "
        "ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES "
        "KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK "
        "MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR "
        "SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD "
        "TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG ZWL"
    ),
    3: "BHD IQD JOD KWD LYD OMR TND",
    4: "CLF UYW",
}
MINOR_DIGITS: dict[str, int] = {
    code: digits for digits, codes in _BY_MINOR_DIGITS.items() for code in codes.split()
}
#: Minor digits of a currency the table does not know (or not known yet).
DEFAULT_MINOR_DIGITS = 2
#: The largest amount a charge takes is just below this, in any currency: more than any sale
#: at a counter (a thousand million yen is ~6 million euros), and far from what a slip of the
#: finger (an extra digit or two) turns 12.50 into only in the smallest units.
MAX_AMOUNT = Decimal(1_000_000_000)
#: Longer than any amount below MAX_AMOUNT with 4 decimals: refused before it is looked at.
_MAX_TEXT = 24
_AMOUNT = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)
_COMMA_DECIMAL = re.compile(r"[0-9]+,[0-9]+", re.ASCII)


def currency_code(text: str) -> str:
    """The ISO 4217 code `text` names (any case), or ValueError saying what a code is."""
    code = text.strip().upper() if isinstance(text, str) else ""
    if not (len(code) == 3 and code.isascii() and code.isalpha()) or code not in MINOR_DIGITS:
        raise ValueError(
            f"currency must be an ISO 4217 code such as EUR, CHF or JPY, "
            f"got {clean(str(text), limit=20)!r}"
        )
    return code


def minor_digits(currency: str | None) -> int:
    """How many decimals an amount in `currency` has: its ISO 4217 minor unit, 2 if unknown."""
    return MINOR_DIGITS.get((currency or "").strip().upper(), DEFAULT_MINOR_DIGITS)


def in_minor_digits(amount: Decimal, currency: str | None) -> Decimal:
    """`amount` written with the currency's minor digits (5 EUR: 5.00, 1200 JPY: 1200), as a
    till shows money; never rounded: an amount with more decimals keeps them all."""
    exponent = amount.as_tuple().exponent
    digits = minor_digits(currency)
    if not isinstance(exponent, int) or -exponent >= digits:
        return amount  # NaN and infinities as they are; more decimals than the unit's kept
    try:
        return amount.quantize(Decimal(1).scaleb(-digits))
    except InvalidOperation:  # more digits than the context holds: as it is
        return amount


def parse_amount(text: str, currency: str | None = None) -> Decimal:
    """A fiat amount as typed, in `currency` (its minor digits; 2 when None or unknown), as
    the exact Decimal typed. UsageError with the reason when it is not one."""
    typed = text.strip(" \t\r\n") if isinstance(text, str) else ""
    shown = clean(typed, limit=_MAX_TEXT)
    if not typed:
        raise UsageError("no amount given: type it as digits, such as 5 or 12.50")
    if len(typed) > _MAX_TEXT:
        raise UsageError(f"the amount {shown!r} is too long")
    if _COMMA_DECIMAL.fullmatch(typed):
        whole, _, decimals = typed.partition(",")
        if len(decimals) <= 2:
            raise UsageError(f"the amount {shown!r} has a comma: use a point: {whole}.{decimals}")
        # "1,000" may be a thousand or one: only the person knows; no guess is offered
        raise UsageError(
            f"the amount {shown!r} has a comma: type digits and at most one point, "
            "with no thousands separator, such as 1000 or 12.50"
        )
    if typed.startswith("-"):
        raise UsageError("the amount must be greater than 0")
    if not _AMOUNT.fullmatch(typed):
        raise UsageError(
            f"the amount {shown!r} is not digits with at most one point, such as 5 or 12.50"
        )
    amount = Decimal(typed)
    digits = minor_digits(currency)
    places = len(typed.partition(".")[2])
    if places > digits:
        what = f"{clean(currency.strip().upper(), limit=12)} amounts" if currency else "amounts"
        most = "no decimals" if digits == 0 else f"at most {digits} decimals"
        raise UsageError(f"{what} take {most}: {shown!r}")
    if amount <= 0:
        raise UsageError("the amount must be greater than 0")
    if amount >= MAX_AMOUNT:
        raise UsageError(f"the amount must be less than {MAX_AMOUNT:,}")
    return amount
