"""Sales against received: over generated days (orders in two currencies, payments at their own
rates, some short, some over, some resolved, some outside the period) the parts of the
difference add up to it exactly, the report keeps it, and a report that would not add up is
refused, never shown."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orderdash.core.books.orders import BookOrder, Payment, exceptions_of
from orderdash.core.books.period import day_period
from orderdash.core.books.report import build_report, report_lines
from orderdash.core.books.sales import PARTS, BooksDoNotAddUp, check_adds_up, sales_block
from orderdash.core.domain.status import STATES
from orderdash.core.ledger import RESOLUTION_KINDS, ResolutionRecord

PERIOD = day_period("2026-11-28", ZoneInfo("Europe/Berlin"))
HOUR = 3_600_000
#: As the fuzz tests' CI profile (tests/fuzz): a modest number of examples, the same each run.
CI = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

cents = st.integers(min_value=1, max_value=50_000).map(lambda n: Decimal(n).scaleb(-2))
#: A fiat figure the service wrote: cents, or finer (a figure at a rate, not rounded).
fiat = st.one_of(
    cents, st.integers(min_value=1, max_value=10**12).map(lambda n: Decimal(n).scaleb(-10))
)
when = st.one_of(
    st.integers(PERIOD.start_ms, PERIOD.end_ms - 1),  # in the period, mostly
    st.integers(PERIOD.start_ms, PERIOD.end_ms - 1),
    st.integers(PERIOD.start_ms - 24 * HOUR, PERIOD.start_ms - 1),  # the look-back
    st.integers(PERIOD.end_ms, PERIOD.end_ms + 6 * HOUR),  # after the end
)


@st.composite
def payments(draw: Any, token: str, currency: str, created_ms: int) -> tuple[Payment, ...]:
    found = []
    for number in range(draw(st.integers(0, 3))):
        at = max(created_ms, draw(when))
        short = draw(st.one_of(st.just(Decimal(0)), fiat))
        over = Decimal(0) if short else draw(st.one_of(st.just(Decimal(0)), fiat))
        paid = draw(fiat)
        found.append(
            Payment(
                order=token,
                id=number,
                at_ms=at + number,
                hash="h",
                coin="BTC",
                amount=Decimal("0.001"),
                currency=currency,
                fiat=paid,
                total=Decimal("0.001"),
                under_paid=short.copy_negate(),
                over_paid=over,
                under_paid_fiat=short.copy_negate(),
                over_paid_fiat=over,
                amount_text="0.001",
                fiat_text=format(paid, "f"),
            )
        )
    return tuple(found)


@st.composite
def orders(draw: Any) -> list[BookOrder]:
    made = []
    for number in range(draw(st.integers(0, 12))):
        token = f"t{number}"
        currency = draw(st.sampled_from(("EUR", "EUR", "USD")))
        created = draw(when)
        amount = draw(cents)
        made.append(
            BookOrder(
                token=token,
                id=number,
                created_ms=created,
                state=draw(st.sampled_from(STATES)),
                status_code="",
                status_label="",
                company="",
                coin="BTC",
                currency=currency,
                amount_fiat=amount,
                amount=None,
                expires_ms=None,
                payments=draw(payments(token, currency, created)),
                amount_fiat_text=format(amount, "f"),
                amount_text="",
            )
        )
    return made


def resolutions_for(made: list[BookOrder], kinds: list[str]) -> list[ResolutionRecord]:
    at = datetime(2026, 11, 28, 12, tzinfo=UTC)
    return [
        ResolutionRecord(f"r{i}", order.token, kind, "why", "till", "anna", at)
        for i, (order, kind) in enumerate(zip(made, kinds, strict=False))
        if kind
    ]


@CI
@given(
    made=orders(),
    kinds=st.lists(st.sampled_from(("", *RESOLUTION_KINDS)), max_size=12),
    tolerance=st.sampled_from((Decimal(0), Decimal("0.5"), Decimal(2), Decimal(5))),
)
def test_the_parts_add_up_to_sales_less_received_on_every_generated_day(
    made: list[BookOrder], kinds: list[str], tolerance: Decimal
) -> None:
    report = build_report(
        made,
        PERIOD,
        till="*",
        closed_at=datetime(2026, 11, 29, tzinfo=UTC),
        resolutions=resolutions_for(made, kinds),
        currency="USD",
        tolerance=tolerance,
    )
    block = report["sales"]
    for unit, row in block["fiat"].items():
        parts = sum((Decimal(p["amount"]) for p in row["parts"].values()), Decimal(0))
        assert Decimal(row["sales"]) - parts == Decimal(row["received"])  # to the last digit
        stated = report["received"]["fiat"].get(unit, {"amount": "0"})
        assert Decimal(row["received"]) == Decimal(stated["amount"])
        of_period = [o for o in made if o.currency == unit and PERIOD.contains_ms(o.created_ms)]
        assert Decimal(row["sales"]) == sum((o.amount_fiat for o in of_period), Decimal(0))
        assert row["orders"] == len(of_period) and set(row["parts"]) == set(PARTS)
    # the text shows it, the till's currency first
    lines = report_lines(report)
    heads = [line for line in lines if line.startswith("Sales ") and "\u00b7" in line]
    assert len(heads) == len(block["fiat"])
    if "USD" in block["fiat"]:
        assert heads[0].startswith("Sales ") and " USD " in heads[0]


def order(token: str, state: str, amount: str, *pays: tuple[str, str, str]) -> BookOrder:
    """An order made in the period; each payment (fiat, underPaid fiat, overPaid fiat)."""
    return BookOrder(
        token, 1, PERIOD.start_ms + HOUR, state, "", "", "", "BTC", "EUR", Decimal(amount),
        None, None,
        tuple(
            Payment(
                token, i, PERIOD.start_ms + 2 * HOUR + i, "h", "BTC", Decimal(1), "EUR",
                Decimal(paid), Decimal(1), Decimal(0), Decimal(0), Decimal(under),
                Decimal(over), "1", paid,
            )
            for i, (paid, under, over) in enumerate(pays)
        ),
        amount, "",
    )  # fmt: skip


def parts_of(made: list[BookOrder], tolerance: str = "0", **kinds: str) -> dict[str, str]:
    at = datetime(2026, 11, 28, 12, tzinfo=UTC)
    records = [ResolutionRecord(t, t, k, "why", "x", "anna", at) for t, k in kinds.items()]
    block = sales_block(
        made, PERIOD, currency="EUR", tolerance=Decimal(tolerance), resolutions=records
    )
    row = block["fiat"]["EUR"]
    return {p: e["amount"] for p, e in row["parts"].items() if Decimal(e["amount"])}


def test_each_part_takes_what_its_definition_says() -> None:
    # two parts paid across a rate change: paid in full in coin, 0.03 less in fiat
    two_parts = order("a", "paid", "22.00", ("11.00", "-11.00", "0"), ("10.97", "0", "0"))
    assert parts_of([two_parts]) == {"rate_moved": "0.03"}
    short = order("b", "underpaid", "30.00", ("29.86", "-0.14", "0"))
    assert parts_of([short]) == {"closed_short": "0.14"}
    assert parts_of([short], tolerance="1") == {"tolerance": "0.14"}
    assert parts_of([short], tolerance="1", b="written-off") == {"written_off": "0.14"}
    paying = order("c", "in_progress", "30.00", ("10.00", "-20.00", "0"))
    assert parts_of([paying], tolerance="5") == {"still_paying": "20.00"}
    # accepted as paid at the counter while the service still has it open: written off, as
    # the customer was told it was paid
    assert parts_of([paying], c="written-off") == {"written_off": "20.00"}
    over = order("d", "overpaid", "10.00", ("12.00", "0", "2.00"))
    assert parts_of([over]) == {"excess": "-2.00"}
    assert parts_of([over], d="refunded") == {"refunded": "-2.00"}
    assert parts_of([order("e", "expired", "5.00"), order("f", "in_progress", "7")]) == {
        "unpaid_closed": "5.00",
        "still_paying": "7",
    }


def test_a_report_that_does_not_add_up_is_refused_never_shown() -> None:
    made = [order("a", "paid", "22.00", ("11.00", "-11.00", "0"), ("10.97", "0", "0"))]
    report = build_report(made, PERIOD, till="*", closed_at=datetime.now(UTC), currency="EUR")
    owner = "Sales 22.00 EUR \u00b7 Received 21.97 EUR \u00b7 Difference 0.03 EUR: rate moved 0.03"
    assert owner in report_lines(report)
    report["sales"]["fiat"]["EUR"]["parts"]["rate_moved"]["amount"] = "0.02"
    with pytest.raises(BooksDoNotAddUp, match="do not add up"):
        report_lines(report)
    report["sales"]["fiat"]["EUR"]["parts"]["rate_moved"]["amount"] = "0.03"
    report["sales"]["fiat"]["EUR"]["difference"] = "0.04"
    with pytest.raises(BooksDoNotAddUp):
        check_adds_up(report["sales"])
    report["sales"]["fiat"]["EUR"]["difference"] = "0.03"
    report["received"]["fiat"]["EUR"]["amount"] = "21.98"
    with pytest.raises(BooksDoNotAddUp, match="not the sum of its payments"):
        check_adds_up(report["sales"], report["received"]["fiat"])


def test_a_shortfall_absorbed_by_the_tolerance_is_no_exception_of_the_close() -> None:
    """The close counts it under "absorbed by tolerance"; the orders that need a human are not
    told of it, as the attention view leaves it."""
    short = order("b", "underpaid", "30.00", ("29.86", "-0.14", "0"))
    assert [e["kind"] for e in exceptions_of(short)] == ["underpaid"]
    assert exceptions_of(short, Decimal("1")) == []
    assert [e["kind"] for e in exceptions_of(short, Decimal("0.4"))] == ["underpaid"]
    report = build_report(
        [short], PERIOD, till="*", closed_at=datetime.now(UTC), currency="EUR", tolerance=Decimal(1)
    )
    assert report["exceptions"] == []
    assert report["sales"]["fiat"]["EUR"]["parts"]["tolerance"]["amount"] == "0.14"


def test_the_figures_are_shown_as_a_till_shows_money() -> None:
    """With the currency's minor digits, never rounded: a currency with sales and no payment
    reads "Received 0.00 CHF", not "0"."""
    made = [order("e", "expired", "15.00")]
    made[0] = dataclasses.replace(made[0], currency="CHF")
    report = build_report(made, PERIOD, till="*", closed_at=datetime.now(UTC), currency="EUR")
    assert report["sales"]["fiat"]["CHF"]["received"] == "0"  # the exact sum, kept
    assert (
        "Sales 15.00 CHF \u00b7 Received 0.00 CHF \u00b7 Difference 15.00 CHF: unpaid, closed 15.00"
        in report_lines(report)
    )
