"""The books' tests' scene: a simulator day of every kind of order on 2026-10-25 in Berlin (25
hours: the clocks go back), with orders across both its midnights and a hostile company name."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from orderdash.core.books.period import day_period
from orderdash.simulator import Simulator

ACCESS = "access-Books-close-7"
BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
#: The simulator's clock: the morning after the long day, 10:00 in Berlin.
NOW = datetime(2026, 10, 26, 9, 0, tzinfo=UTC).timestamp()


def berlin(text: str) -> float:
    """Seconds before the simulator's now of a Berlin wall time (fold 1: the second 02:30)."""
    naive = datetime.fromisoformat(text)
    return NOW - naive.replace(tzinfo=BERLIN, fold=1).timestamp()


def scene(sim: Simulator) -> dict[str, str]:
    """One order of each kind on 2026-10-25 (Berlin), and two across its midnights."""
    made: dict[str, str] = {}

    def order(name: str, created: str, **kw: object) -> str:
        token = f"bk-{name}"
        sim.create_order(token=token, age_s=berlin(created), lifetime_s=3600, **kw)
        made[name] = token
        return token

    def pay(token: str, at: str, amount: object = None) -> None:
        sim.add_transaction(token, amount, age_s=berlin(at))

    def part(token: str, share: str) -> Decimal:
        amount = Decimal(str(sim.order_wire(token, with_qr=False)["amount"]))
        return (amount * Decimal(share)).quantize(Decimal("0.00000001"))

    pay(order("paid", "2026-10-25T10:00", amount_fiat="20.00"), "2026-10-25T10:05")
    order("expired", "2026-10-25T11:00", amount_fiat="11.00")
    under = order("under", "2026-10-25T12:00", coin="ltc", amount_fiat="30.00")
    pay(under, "2026-10-25T12:10", part(under, "0.5"))
    over = order("over", "2026-10-25T13:00", amount_fiat="40.00", currency="USD")
    pay(over, "2026-10-25T13:10", part(over, "1.2"))
    pay(order("late", "2026-10-25T14:00", amount_fiat="15.00"), "2026-10-25T15:30")
    exp_paid = order("exp_paid", "2026-10-25T15:00", amount_fiat="12.00")
    pay(exp_paid, "2026-10-25T15:10", part(exp_paid, "0.25"))
    sim.set_status(exp_paid, "EXPIRED", "Expired")
    pay(order("unconf", "2026-10-25T16:00", amount_fiat="9.99"), "2026-10-25T16:20")
    sim.set_status(made["unconf"], "PAID_UNCONFIRMED", "Paid / Unconfirmed")
    # the hour that happens twice: the second 02:30 (01:30 UTC)
    pay(order("twice", "2026-10-25T02:30", amount_fiat="5.00"), "2026-10-25T02:45")
    # across the midnights: made the evening before and paid after midnight, and the other way
    pay(order("eve", "2026-10-24T23:30", amount_fiat="7.00"), "2026-10-25T00:20")
    pay(order("night", "2026-10-25T23:40", amount_fiat="8.00"), "2026-10-26T00:10")
    order(
        "hostile",
        "2026-10-25T17:00",
        amount_fiat="3.00",
        company_name='=HYPERLINK("http://evil.example","x")\x1b[2J',
    )
    return made


def own_sums(sim: Simulator, zone: ZoneInfo, day: str) -> dict[str, dict[str, Decimal]]:
    """The payments of that day in `zone`, summed here from the simulator's own orders (the
    independent sum the close is checked against)."""
    period = day_period(day, zone)
    sums: dict[str, dict[str, Decimal]] = {
        "coins": defaultdict(Decimal),
        "fiat": defaultdict(Decimal),
    }
    for token in sim.tokens():
        data = sim.order_wire(token, with_qr=False)
        for tx in data["transactions"]:
            if period.start_ms <= tx["createdAtMiliseconds"] < period.end_ms:
                sums["coins"][data["coinBaseName"].upper()] += tx["amount"]["base"]
                sums["fiat"][data["currency"]["abbreviation"]] += Decimal(tx["amountFiat"]["base"])
    return sums
