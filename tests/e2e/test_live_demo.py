"""The demo keeps living: the simulator's live customer opens orders and pays them in every
way a real customer does, on the simulator clock (a quarter of an hour runs in a moment);
tokens are new on every start; a payment within the coin's smallest unit is paid in full."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections import Counter
from decimal import Decimal

from orderdash.cli.simulate import simulator_run
from orderdash.core.domain.units import sendable
from orderdash.simulator import DEMO_TOKENS, Simulator

START = 1_795_000_000.0


def outcome(wire: dict) -> str | None:
    """What happened to a live order, as the service shows it (None: still open)."""
    code = wire["status"]["code"]
    if code == "PAID":
        last = wire["transactions"][-1]["createdAtMiliseconds"]
        return "late" if last > wire["expiresAt"] else "full"
    return {"UNDERPAID": "partial", "OVERPAID": "over", "EXPIRED": "none"}.get(code)


def test_the_live_customer_keeps_opening_and_paying_orders_for_a_quarter_of_an_hour() -> None:
    now = [START]
    sim = Simulator(seed=7, clock=lambda: now[0], run="t1", live=True)
    live = sim.live_customer
    assert live is not None
    created_by_minute: Counter[int] = Counter()
    for second in range(5, 20 * 60 + 1, 5):  # 20 minutes, in 5-second steps
        now[0] = START + second
        before = set(sim.tokens())
        live.step()
        created_by_minute[second // 60] += len(set(sim.tokens()) - before)
    # new orders keep appearing: in every 3 minutes of the 20
    for start in range(0, 20, 3):
        assert sum(created_by_minute[m] for m in range(start, start + 3)) > 0, start
    outcomes = Counter(outcome(sim.order_wire(token, with_qr=False)) for token in live.fates)
    outcomes.pop(None, None)
    assert set(outcomes) == {"full", "partial", "late", "over", "none"}, outcomes
    assert outcomes["over"] * 2 < sum(outcomes.values()), "overpaid is the exception"
    # and the demo's own open orders moved on
    assert sim.order_wire(sim.demo_tokens[0], with_qr=False)["status"]["code"] == "PAID"
    assert len(sim.order_wire(sim.demo_tokens[5], with_qr=False)["transactions"]) == 1


def test_without_the_live_customer_the_simulator_is_still() -> None:
    now = [START]
    sim = Simulator(seed=7, clock=lambda: now[0])
    assert sim.live_customer is None and sim.demo_tokens == DEMO_TOKENS
    now[0] += 15 * 60
    assert sim.tokens() == list(DEMO_TOKENS)


def test_tokens_differ_across_two_simulator_starts() -> None:
    seed_a, run_a = simulator_run(None)
    seed_b, run_b = simulator_run(None)
    first = Simulator(seed=seed_a, run=run_a, live=True)
    second = Simulator(seed=seed_b, run=run_b, live=True)
    assert not set(first.tokens()) & set(second.tokens())
    assert first.demo_tokens[0].startswith("demo-btc-eur-")
    # a seed given: the same tokens every start (screenshots, tests)
    assert Simulator(seed=simulator_run(7)[0], run=simulator_run(7)[1]).tokens() == list(
        DEMO_TOKENS
    )


def test_orderdash_simulate_names_new_demo_tokens_on_each_start() -> None:
    def demo_line() -> str:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
        argv = [sys.executable, "-m", "orderdash", "simulate", "--port", str(port)]
        process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
        )
        try:
            assert process.stdout is not None
            process.stdout.readline()  # serving ...
            return process.stdout.readline()
        finally:
            process.terminate()
            process.wait(timeout=10)

    first, second = demo_line(), demo_line()
    assert "demo-btc-eur-" in first and "demo-btc-eur-" in second
    assert first != second


def test_paying_the_amount_rounded_up_to_the_satoshi_is_paid_in_full() -> None:
    sim = Simulator(seed=7, with_demo_orders=False)
    asked = Decimal("0.000128701234567890123456")
    token = sim.create_order(coin="btc", amount=asked)
    send = sendable("btc", asked)
    assert send is not None and send.amount == Decimal("0.00012871")
    tx = sim.add_transaction(token, send.amount)
    wire = sim.order_wire(token, with_qr=False)
    assert wire["status"]["code"] == "PAID"
    assert tx["amount"]["overPaid"] == 0 and tx["amount"]["underPaid"] == 0
    # a whole satoshi more is overpaid, as before
    other = sim.create_order(coin="btc", amount=asked)
    sim.add_transaction(other, send.amount + Decimal("0.00000001"))
    assert sim.order_wire(other, with_qr=False)["status"]["code"] == "OVERPAID"
