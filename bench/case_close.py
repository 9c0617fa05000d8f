"""Case 9, close of day: a day of 1,000 orders (each paid, part paid or left to expire) in the
simulator, closed through `core/books/close.py` with the ledger of the settings. Measured: the
getOrders of a first close of a day nobody watched (against the getOrder budget's minute, 200
at the defaults), then of a close of the same day once the ledger holds it, and the wall time
of that one and of a repeated close of a frozen day (target < 1 s each).

The first close runs with the getOrder budget opened (at the defaults its 1,000 reads would be
paced over five minutes); the figure is its read count, the cost in the default budget. The
ledger is in a scratch directory (`XDG_DATA_HOME` too, while the case runs).
Runs where the ledger's storage exists (`core/ledger/open.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from common import Options, Row, seconds, settings_for

ORDERS = 1_000
ACCESS = "bench-access-token"
DEFAULT_PER_MINUTE = 200


def landed() -> bool:
    import importlib.util

    return importlib.util.find_spec("orderdash.core.ledger.open") is not None


def _day(sim: Any) -> None:
    """ORDERS orders over the 24 hours before the simulator's now: paid, part paid, unpaid."""
    for i in range(ORDERS):
        age = 3 * 3600 + (i * 75_600 / ORDERS)
        token = sim.create_order(coin="btc", amount_fiat=f"{10 + i % 90}.50", age_s=age)
        if i % 3 == 0:
            sim.add_transaction(token, None, age_s=age - 600)
        elif i % 3 == 1:
            wire = sim.order_wire(token, with_qr=False)
            part = (Decimal(str(wire["amount"])) / 2).quantize(Decimal("0.00000001"))
            sim.add_transaction(token, part, age_s=age - 600)


async def _close(settings: Any, book: Any, period: Any, *, dry_run: bool) -> tuple[Any, float]:
    from orderdash.core.books.close import close_period
    from orderdash.core.polling.account import CommandBudget
    from orderdash.core.service.client import OrderClient

    share = settings.budgets
    orders = CommandBudget(share["budget_per_minute"], share["budget_per_hour"])
    private = CommandBudget(settings.rate_budget_per_minute, settings.rate_budget_per_hour)
    started = time.perf_counter()
    async with OrderClient.from_settings(settings) as client:
        result = await close_period(
            client,
            book,
            period,
            till="*",
            recorder="bench",
            order_gate=orders,
            private_gate=private,
            dry_run=dry_run,
            concurrency=settings.concurrency,
        )
    return result, time.perf_counter() - started


@contextlib.contextmanager
def _data_home(directory: str) -> Iterator[None]:
    """The user data directory in the scratch directory: the bench never writes the user's
    ledger, whatever path the ledger takes by default."""
    before = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = directory
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("XDG_DATA_HOME", None)
        else:
            os.environ["XDG_DATA_HOME"] = before


def run(options: Options) -> list[Row]:
    if not landed():
        return [Row("close", "\u2014", status="n/a (the ledger's storage has not landed)")]
    from orderdash.core.books.period import Period
    from orderdash.core.ledger.open import open_book
    from orderdash.core.settings.model import Settings
    from orderdash.simulator import Simulator, SimulatorServer

    now = datetime.now(UTC)
    sim = Simulator(seed=options.seed, clock=lambda: now.timestamp(), with_demo_orders=False)
    _day(sim)
    period = Period(now - timedelta(days=1), now, UTC)
    with (
        tempfile.TemporaryDirectory(prefix="orderdash-bench-") as directory,
        _data_home(directory),
    ):
        with SimulatorServer(sim, access_token=ACCESS, history_page_cap=100, port=0) as server:
            extra: dict[str, Any] = {"access_token": ACCESS}
            if "ledger" in Settings.model_fields:
                extra["ledger"] = str(Path(directory) / "ledger.sqlite3")
            opened = {"budget_per_minute": 10_000, "budget_per_hour": 10**6}
            cold = settings_for(server.base_url, bearer=False, **opened, **extra)
            warm = settings_for(server.base_url, bearer=False, **extra)
            book = open_book(cold)
            try:
                first, _ = asyncio.run(_close(cold, book, period, dry_run=True))
                again, again_s = asyncio.run(_close(warm, book, period, dry_run=True))
                asyncio.run(_close(warm, book, period, dry_run=False))
                frozen, frozen_s = asyncio.run(_close(warm, book, period, dry_run=False))
            finally:
                book.close_connection()
    budget_minutes = first.read / DEFAULT_PER_MINUTE
    return [
        Row(
            "close",
            f"{first.read} getOrders, first close",
            note=f"a day of {ORDERS} orders nobody watched: {budget_minutes:.1f} minutes of the "
            f"default getOrder budget ({DEFAULT_PER_MINUTE}/min)",
            data={"read": first.read},
        ),
        Row(
            "close",
            f"{again.read} getOrders, {seconds(again_s)}",
            f"{DEFAULT_PER_MINUTE} (a minute)",
            again.read / DEFAULT_PER_MINUTE,
            f"<= {DEFAULT_PER_MINUTE} reads, < 1 s",
            again.read <= DEFAULT_PER_MINUTE and again_s < 1.0,
            note=f"the same day once the ledger holds it ({again.from_ledger} orders from the "
            "ledger; the history is still read), default budgets",
        ),
        Row(
            "close",
            f"frozen close {seconds(frozen_s)}",
            target="< 1 s",
            passed=frozen.frozen and frozen_s < 1.0,
            note="the day closed already: the saved report, nothing read",
        ),
    ]
