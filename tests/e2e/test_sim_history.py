"""`simulate --history-days N`: days of past orders in the published shapes, every kind of
outcome on every day, listed in the history and readable by getOrder, the same for a seed."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

import pytest

from conftest import make_settings
from orderdash.cli.options import parse_command_line
from orderdash.core.books.orders import exceptions_of, read_order
from orderdash.core.service.client import OrderClient
from orderdash.simulator import Simulator, SimulatorServer
from orderdash.simulator.history import DAY_S, ORDERS_PER_DAY, install_history

NOW = datetime(2026, 3, 9, 6, 30, tzinfo=UTC).timestamp()
ACCESS = "access-history-days"


async def test_history_days_are_served_in_the_published_shapes() -> None:
    sim = Simulator(seed=5, clock=lambda: NOW, with_demo_orders=False, history_days=3)
    tokens = sim.tokens()
    assert len(tokens) == 3 * ORDERS_PER_DAY
    with SimulatorServer(sim, access_token=ACCESS, history_page_cap=10) as server:
        settings = make_settings(server.base_url, bearer=None, access_token=ACCESS)
        async with OrderClient.from_settings(settings) as client:
            listed = await client.account_orders()
            assert sorted(item.token for item in listed.items) == sorted(tokens)
            assert not listed.warnings()
            kinds: Counter[str] = Counter()
            states: Counter[str] = Counter()
            for token in tokens:
                fetched = await client.get_order(token)  # validated by the order model
                order = read_order(fetched.raw)
                assert NOW * 1000 - 3 * DAY_S * 1000 <= order.created_ms <= NOW * 1000
                times = [p.at_ms for p in order.payments]
                assert times == sorted(times)
                assert all(order.created_ms <= t <= NOW * 1000 for t in times)
                kinds.update(e["kind"] for e in exceptions_of(order))
                states[order.state] += 1
    for kind in ("underpaid", "overpaid", "paid_after_expiry", "expired_with_payment"):
        assert kinds[kind] >= 3, kinds
    assert kinds["unconfirmed"] == states["unconfirmed"] == 3
    assert states["canceled"] == 3 and states["expired"] >= 6 and states["paid"] >= 9


def test_history_is_the_same_for_a_seed_and_bounded() -> None:
    def wires(seed: int) -> list[dict]:
        sim = Simulator(seed=seed, clock=lambda: NOW, with_demo_orders=False, history_days=1)
        return [sim.order_wire(t, with_qr=False) for t in sim.tokens()]

    assert wires(5) == wires(5)
    assert wires(5) != wires(6)
    with pytest.raises(ValueError, match="0 to 31"):
        install_history(Simulator(seed=1, with_demo_orders=False), 32)


def test_the_demo_has_two_days_and_simulate_none_by_default() -> None:
    assert parse_command_line(["demo"]).history_days == 2
    assert parse_command_line(["simulate"]).history_days == 0
    assert parse_command_line(["simulate", "--history-days", "4"]).history_days == 4
