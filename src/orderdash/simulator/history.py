"""Days of past orders, so that there are books to close (`simulate --history-days N`).

`install_history(sim, days)` makes `ORDERS_PER_DAY` orders for each of the `days` days ending at
the simulator's now, each with a fate (`FATES`) taken in turn so that every day has each kind:

  * paid          - paid in full within its lifetime (one payment, or two for `paid_twice`)
  * expired       - nothing paid: EXPIRED
  * underpaid     - part paid, then the time ran out: UNDERPAID
  * overpaid      - paid more than the amount: OVERPAID
  * late          - paid in full after its deadline (PAID, the payment after `expiresAt`)
  * expired_paid  - part paid, but the service says EXPIRED (pinned): "expired with a payment"
  * unconfirmed   - paid in full, still PAID_UNCONFIRMED (pinned)
  * canceled      - canceled by the buyer (pinned CANCELED), nothing paid

Creation times are spread at random over each day (so orders and their payments fall on both
sides of midnight in any time zone); payments are back-dated (`add_transaction(age_s=...)`), so
every one has its own `createdAtMiliseconds`, and the history and getOrder serve them in the
published shapes like any other order. Deterministic for a seed and a clock: its own random
stream (`{seed}:history`), its own tokens.
"""

from __future__ import annotations

import random
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from orderdash.simulator.catalogue import COINS as COIN_INFO

DAY_S = 86_400
#: Lifetime of a history order (the simulator's default: an hour).
LIFETIME_S = 3_600
FATES = (
    "paid",
    "expired",
    "underpaid",
    "overpaid",
    "late",
    "expired_paid",
    "unconfirmed",
    "paid_twice",
    "canceled",
    "paid",
    "underpaid",
    "paid",
)
ORDERS_PER_DAY = len(FATES)
#: At most this many days (a month): the simulator keeps every order in memory.
MAX_HISTORY_DAYS = 31
COMPANIES = ("Demo Shop", "Corner Café", "Night Owl Books")
COINS = ("btc", "ltc", "eth", "doge", "usdt")
CURRENCIES = ("EUR", "EUR", "USD", "GBP")


def install_history(sim: Any, days: int) -> list[str]:
    """Make `days` days of orders ending at `sim.now()`; return their tokens, oldest first.
    `sim` is a `Simulator` (its create_order, add_transaction and set_status)."""
    if not 0 <= days <= MAX_HISTORY_DAYS:
        raise ValueError(f"history days must be 0 to {MAX_HISTORY_DAYS}")
    rng = random.Random(f"{sim.seed}:history")
    planned: list[tuple[float, str]] = []
    for day in range(days):
        start_age = (day + 1) * DAY_S  # seconds before now the day starts
        for fate in FATES:
            age = rng.uniform(start_age - DAY_S, start_age)
            if fate != "paid" and fate != "paid_twice":
                # the fates that need the deadline (and a late payment) passed before now
                age = max(age, 2 * LIFETIME_S + rng.uniform(0, 3_600))
            planned.append((age, fate))
    planned.sort(key=lambda plan: -plan[0])  # oldest first: ids rise with creation
    return [_make(sim, rng, age, fate) for age, fate in planned]


def _make(sim: Any, rng: random.Random, age: float, fate: str) -> str:
    token = f"h{rng.getrandbits(96):024x}"
    fiat = Decimal(rng.randrange(150, 25_000)) / 100
    sim.create_order(
        token=token,
        company_name=rng.choice(COMPANIES),
        coin=rng.choice(COINS),
        currency=rng.choice(CURRENCIES),
        amount_fiat=fiat,
        lifetime_s=LIFETIME_S,
        age_s=age,
    )
    # payment ages: seconds before now, after the creation (age) and never in the future
    within = max(age - rng.uniform(60, LIFETIME_S * 0.8), 0.0)
    if fate in ("paid", "unconfirmed"):
        sim.add_transaction(token, None, age_s=within)
    elif fate == "paid_twice":
        sim.add_transaction(token, _part(sim, token, rng), age_s=within)
        sim.add_transaction(token, None, age_s=max(within - rng.uniform(30, 600), 0.0))
    elif fate in ("underpaid", "expired_paid"):
        sim.add_transaction(token, _part(sim, token, rng), age_s=within)
    elif fate == "overpaid":
        sim.add_transaction(token, _part(sim, token, rng, 1.05, 1.3), age_s=within)
    elif fate == "late":
        sim.add_transaction(token, None, age_s=max(age - LIFETIME_S - rng.uniform(60, 5_400), 0))
    if fate == "expired_paid":
        sim.set_status(token, "EXPIRED", "Expired")
    elif fate == "unconfirmed":
        sim.set_status(token, "PAID_UNCONFIRMED", "Paid / Unconfirmed")
    elif fate == "canceled":
        sim.set_status(token, "CANCELED", "Canceled")
    return token


def _part(sim: Any, token: str, rng: random.Random, low: float = 0.2, high: float = 0.8) -> Decimal:
    """A share of the order's coin amount, to the coin's smallest unit (at least one unit)."""
    wire = sim.order_wire(token, with_qr=False)
    amount = Decimal(str(wire["amount"]))
    quantum = COIN_INFO[wire["coinBaseName"]].quantum
    share = Decimal(f"{rng.uniform(low, high):.4f}")
    return max((amount * share).quantize(quantum, rounding=ROUND_HALF_UP), quantum)
