"""A ledger with a day of orders in it, for the day at a glance's tests: getOrder's `data` of
each order as the service sends it, written down as the dashboard writes its reads."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from orderdash.core.ledger import ChargeRecord
from orderdash.core.ledger.store import SqlBook

HOUR = timedelta(hours=1)


def ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def order_text(
    token: str,
    created: datetime,
    amount: str,
    *,
    coin: str = "btc",
    status: tuple[str, str] = ("PAID", "Paid"),
    paid: Sequence[tuple[datetime, str]] = (),
    short: str = "0",
) -> str:
    """getOrder's `data` as the service sends it (decimal numbers as JSON numbers)."""
    transactions = [
        {
            "id": n,
            "createdAtMiliseconds": ms(at),
            "hash": f"{token}-{n}",
            "amount": {"base": "0.001", "total": "0.001", "underPaid": "0", "overPaid": "0"},
            "amountFiat": {
                "base": fiat,
                "underPaid": f"-{short}" if short != "0" and n == len(paid) - 1 else "0",
                "overPaid": "0",
            },
        }
        for n, (at, fiat) in enumerate(paid)
    ]
    data = {
        "token": token,
        "id": abs(hash(token)) % 10**6,
        "createdAtMiliseconds": ms(created),
        "status": {"code": status[0], "label": status[1]},
        "currency": {"abbreviation": "EUR"},
        "coinBaseName": coin,
        "amountFiat": amount,
        "amount": "0.001",
        "companyName": "Shop",
        "transactions": transactions,
    }
    # exact digits as the service writes them: numbers, not strings
    return json.dumps(data).replace('"0.001"', "0.001")


def seen(book: SqlBook, token: str, text: str, at: datetime, till: str = "") -> None:
    book.order_seen(token, "front", at, text)
    if till:
        book.charge_started(
            ChargeRecord(token, Decimal("1"), "EUR", till, at - timedelta(minutes=1))
        )


def a_day(book: SqlBook, midnight: datetime) -> None:
    """Orders across the day's hours: bitcoin at the front till, ether at the back, one paid
    in two payments in two hours, one closed short, one unpaid; and a week earlier, two."""
    m = midnight.astimezone(UTC)
    paid, short, expired = ("PAID", "Paid"), ("UNDERPAID", "Underpaid"), ("EXPIRED", "Expired")
    week = -7 * 24
    # token, hour made, amount, coin, status, payments (hour, fiat), shortfall, till
    rows = [
        ("a1", 9, "12.50", "btc", paid, [(9.1, "12.50")], "0", "front"),
        ("a2", 9.5, "20.00", "eth", paid, [(9.6, "8.00"), (10.2, "12.00")], "0", "back"),
        ("a3", 11, "30.00", "btc", short, [(11.3, "25.00")], "5.00", "front"),
        ("a4", 13, "7.10", "eth", paid, [(13.9, "7.10")], "0", "back"),
        ("a5", 14, "9.00", "btc", expired, [], "0", "front"),
        ("w1", week + 9, "4.00", "btc", paid, [(week + 9.5, "4.00")], "0", "front"),
        ("w2", week + 13, "3.33", "eth", paid, [(week + 13.2, "3.33")], "0", ""),
    ]
    for token, hour, amount, coin, status, paying, shortfall, till in rows:
        created = m + hour * HOUR
        payments = [(m + hours * HOUR, fiat) for hours, fiat in paying]
        text = order_text(
            token, created, amount, coin=coin, status=status, paid=payments, short=shortfall
        )
        seen(book, token, text, created + 2 * HOUR, till)
