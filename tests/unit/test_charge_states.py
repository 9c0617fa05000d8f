"""A charge's order state in the close of day's words (in progress told apart: open or partly
paid), never a crash on what the ledger holds; a charge's money with its currency's minor
digits, never rounded."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from orderdash.core.ledger import ChargeRecord
from orderdash.core.ledger.charges import charge_line, charge_money, order_state_word

AT = datetime(2026, 11, 27, 9, 2, tzinfo=UTC)


def test_an_orders_state_in_the_close_of_days_words() -> None:
    def order(code: str, label: str, payments: int = 0) -> dict[str, object]:
        return {"status": {"code": code, "label": label}, "transactions": [{}] * payments}

    assert order_state_word(order("IN_PROGRESS", "In-progress")) == "open"
    assert order_state_word(order("IN_PROGRESS", "In-progress", 1)) == "partly paid"
    assert order_state_word(order("EXPIRED", "Expired", 1)) == "expired"
    assert order_state_word(order("PAID", "Paid / Unconfirmed", 1)) == "unconfirmed"
    assert order_state_word(order("CANCELLED", "CANCELLED")) == "canceled"
    assert order_state_word(order("MYSTERY", "Something new")) == "other"
    for unreadable in (None, [], "x", {"status": "PAID"}, {"status": None}):
        assert order_state_word(unreadable) is None


def test_a_charges_money_has_its_currencys_minor_digits() -> None:
    def money(amount: str, currency: str) -> str:
        return charge_money(ChargeRecord("t", Decimal(amount), currency, "front", AT))

    assert money("5", "EUR") == "5.00 EUR" and money("12.5", "EUR") == "12.50 EUR"
    assert money("1200", "JPY") == "1,200 JPY" and money("5", "BHD") == "5.000 BHD"
    assert money("1.234", "EUR") == "1.234 EUR"  # never rounded
    assert money("5", "") == "5"  # no currency written down: as typed
    line = charge_line(ChargeRecord("t", Decimal("5"), "EUR", "front", AT), now=AT, zone=UTC)
    assert line == "5.00 EUR at 09:02"
