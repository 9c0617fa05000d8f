"""The close's getOrder gate in the dashboard: it spends the budget the watcher keeps (so the
close and the watch list together stay within the limit), waits when that budget is spent,
and a refusal for the rate holds the budget for everyone. An injected clock, no waiting."""

from __future__ import annotations

import asyncio

from orderdash.core.books.run import BudgetGate
from orderdash.core.polling.budget import Budget


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_the_gate_spends_the_shared_budget_and_waits_when_it_is_spent() -> None:
    clock = Clock()
    budget = Budget("order", 60, 3600)
    gate = BudgetGate(budget, reserve=0.0, monotonic=clock)
    started = 0
    while budget.allows(clock.now) and started < 1000:
        await gate.take_turn()  # free: returns at once
        started += 1
    assert 0 < started < 1000 and budget.count(clock.now, 60) == started
    waiting = asyncio.ensure_future(gate.take_turn())
    await asyncio.sleep(0)
    assert not waiting.done()  # the budget is spent: the next read waits its turn
    waiting.cancel()


async def test_a_reserve_leaves_part_of_the_burst_to_the_watcher() -> None:
    clock = Clock()
    budget = Budget("order", 1000, 3600)  # the burst binds before the minute's cap
    gate = BudgetGate(budget, reserve=0.5, monotonic=clock)
    started = 0
    while budget.next_free(clock.now, reserve=0.5) <= clock.now:
        await gate.take_turn()
        started += 1
    assert 0 < started < budget.burst
    assert budget.allows(clock.now)  # the watcher may still start reads


def test_a_refusal_for_the_rate_holds_the_budget() -> None:
    clock = Clock()
    budget = Budget("order", 60, 3600)
    BudgetGate(budget, monotonic=clock).refused_for_limit(30.0)
    assert budget.next_free(clock.now) >= clock.now + 30.0
