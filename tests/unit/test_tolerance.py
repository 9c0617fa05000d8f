"""The payment tolerance: a shortfall of at most the setting's percent of the order's fiat
amount is within it, judged in Decimal without rounding; the setting takes what the service's
cabinet offers (0 to 5 %, two decimals) and nothing else."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from orderdash.core.domain.tolerance import within_tolerance
from orderdash.core.settings.model import Settings


@pytest.mark.parametrize(
    ("shortfall", "amount", "tolerance", "within"),
    [
        ("0.14", "30.00", "1", True),  # 0.47 %: a typical exchange fee
        ("0.30", "30.00", "1", True),  # exactly 1 %: the bound is included
        ("0.31", "30.00", "1", False),
        ("0.14", "30.00", "0", False),  # no tolerance set
        ("0", "30.00", "5", False),  # nothing missing: paid, not within tolerance
        ("-0.01", "30.00", "5", False),  # overpaid
        ("0.01", "0", "5", False),  # an order of no amount
        ("1.500000000000000001", "30.00", "5", False),  # one digit past 5 % of 30
        ("1.5", "30.00", "5", True),
    ],
)
def test_a_shortfall_is_within_the_tolerance_up_to_its_percent(
    shortfall: str, amount: str, tolerance: str, within: bool
) -> None:
    assert within_tolerance(Decimal(shortfall), Decimal(amount), Decimal(tolerance)) is within


def test_the_setting_takes_a_percent_of_the_cabinets_range_exactly() -> None:
    assert Settings().underpaid_tolerance == 0
    assert Settings(underpaid_tolerance="2.5").underpaid_tolerance == Decimal("2.5")
    # a TOML float arrives as a float: its text is kept, never its binary value
    assert Settings(underpaid_tolerance=1.1).underpaid_tolerance == Decimal("1.1")
    for bad in ("5.01", "-1", "abc", "1.123"):
        with pytest.raises(ValidationError):
            Settings(underpaid_tolerance=bad)
