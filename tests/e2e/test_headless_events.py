"""`orderdash watch --jsonl`: a state line per order first, an error line whenever the kind of
failure changes, an identity line when a token names another order. Against the simulator on
loopback, with its fault injection."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable

from conftest import make_settings
from orderdash.headless import watch_jsonl
from orderdash.simulator import DEMO_TOKENS, Fault, SimulatorServer

OPEN, PAID = DEMO_TOKENS[0], DEMO_TOKENS[2]


def events(out: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def until(out: io.StringIO, check: Callable[[list[dict]], bool], timeout: float = 15) -> None:  # noqa: ASYNC109 - a polling loop
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check(events(out)):
        assert loop.time() < deadline, f"not seen within {timeout} s:\n{out.getvalue()}"
        await asyncio.sleep(0.05)


async def test_watch_starts_with_a_state_line_per_order_and_reports_each_kind_of_error(
    sim_server: SimulatorServer,
) -> None:
    out = io.StringIO()
    settings = make_settings(sim_server.base_url, poll_interval=0.1, budget_per_minute=1200)
    task = asyncio.create_task(watch_jsonl(settings, [OPEN, PAID], out))
    try:
        await until(out, lambda lines: len(lines) >= 2)
        first = events(out)[:2]
        assert [e["event"] for e in first] == ["state", "state"]
        by_token = {e["token"]: e for e in first}
        assert set(by_token) == {OPEN, PAID}
        assert by_token[PAID]["code"] == "PAID" and by_token[PAID]["state"] == "paid, confirming"
        assert by_token[OPEN]["transactions"] == 1 and by_token[OPEN]["currency"] == "EUR"
        wire = sim_server.sim.order_wire(PAID, with_qr=False)
        assert by_token[PAID]["id"] == wire["id"]
        assert by_token[PAID]["createdAtMiliseconds"] == wire["createdAtMiliseconds"]

        # an outage that ends in a 404 for the open order (read every poll; a paid one is read
        # every 10 minutes): its error line says so, not only the first
        sim_server.stop()
        errors = lambda lines: [e for e in lines if e["event"] == "error" and e["token"] == OPEN]  # noqa: E731
        await until(out, lambda lines: errors(lines))
        await asyncio.sleep(1.0)  # more failed tries of the same kind: no more lines
        assert [e["kind"] for e in errors(events(out))] == ["cannot-connect"]
        sim_server.sim.add_fault(Fault(endpoint="order", token=OPEN, status=404))
        sim_server.start()
        await until(out, lambda lines: len(errors(lines)) == 2)
        assert errors(events(out))[1]["kind"] == "not-found"
        assert [e["event"] for e in events(out)].count("state") == 2, "state lines only at start"
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_watch_reports_a_token_that_names_another_order(sim_server: SimulatorServer) -> None:
    out = io.StringIO()
    settings = make_settings(sim_server.base_url, poll_interval=0.1, budget_per_minute=1200)
    task = asyncio.create_task(watch_jsonl(settings, [PAID], out))
    try:
        await until(out, lambda lines: len(lines) >= 1)
        old_id = events(out)[0]["id"]
        sim_server.sim.set_fields(
            PAID,
            {"id": 7, "createdAtMiliseconds": 1_700_000_000_000, "transactions": []},
        )
        await until(out, lambda lines: any(e["event"] == "identity" for e in lines))
        identity = next(e for e in events(out) if e["event"] == "identity")
        assert (identity["previousId"], identity["id"]) == (old_id, 7)
        assert identity["createdAtMiliseconds"] == 1_700_000_000_000
        # the new order's state follows, the baseline from now on
        await until(out, lambda lines: lines[-1]["event"] == "state" and lines[-1]["id"] == 7)
        assert not any(e["event"] == "transaction" for e in events(out))
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
