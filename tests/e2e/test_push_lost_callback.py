"""A callback lost on the way: while callbacks flow the till polls at the fallback pace only,
and that poll still finds the payment whose callback never came; the "paid per the service, no
callback" alarm fires for it, once, and the till polls in full again. The simulator sends its
callbacks to the receiver over loopback; the book is SQLite."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

from conftest import BEARER, make_settings, serving
from orderdash.core.ledger.open import open_book
from orderdash.headless import watch_jsonl
from orderdash.simulator import Simulator, SimulatorServer
from orderdash.simulator.faults import Fault
from support.receiver_run import RunningReceiver


def events(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def until(check: Any, what: str, out: io.StringIO, timeout: float = 10) -> None:  # noqa: ASYNC109 - a polling loop
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, f"not within {timeout} s: {what}\n{out.getvalue()}"
        await asyncio.sleep(0.02)


def pushed(out: io.StringIO, state: str) -> bool:
    return any(e["event"] == "push" and e["state"] == state for e in events(out))


def paid(out: io.StringIO, token: str) -> bool:
    return any(e["event"] == "transaction" and e["token"] == token for e in events(out))


async def test_a_lost_callback_is_found_by_the_fallback_poll_and_the_alarm_fires_once(
    tmp_path: Path,
) -> None:
    sim = Simulator(seed=9, with_demo_orders=False)
    with serving(SimulatorServer(sim, bearer_token=BEARER, port=0)) as server:
        told, lost = (sim.create_order(coin="btc", lifetime_s=3600) for _ in range(2))
        ledger = str(tmp_path / "ledger.sqlite3")
        settings = make_settings(
            server.base_url,
            ledger=ledger,
            poll_interval=0.3,
            callback_fallback_seconds=1.0,
            callback_alarm_seconds=0.3,
        )
        book = open_book(make_settings(server.base_url, till="back-office", ledger=ledger))
        out = io.StringIO()
        till = asyncio.create_task(watch_jsonl(settings, [told, lost], out))
        try:
            with RunningReceiver(make_settings(server.base_url), book) as receiver:  # type: ignore[arg-type]
                sim.callbacks.configure(receiver.url)
                await until(lambda: sum(e["event"] == "state" for e in events(out)) >= 2,
                            "both orders read", out)  # fmt: skip
                # a callback that arrives: the push flows, the till polls at the fallback pace
                sim.add_transaction(told, "0.00001")
                await until(lambda: paid(out, told), "the told payment", out)
                await until(lambda: pushed(out, "flowing"), "the push flowing", out)
                # the next callback for the other order is lost on the way
                sim.add_fault(Fault(endpoint="callback", callback="lost", token=lost, times=10))
                sim.add_transaction(lost, "0.00001")
                await until(lambda: paid(out, lost), "the lost callback's payment, polled", out)
                await until(lambda: pushed(out, "no-callback"), "the no-callback alarm", out)
            deliveries = sim.callbacks.deliveries
            assert any(d["token"] == lost and d["fault"] == "lost" for d in deliveries)
            assert [r.token for r in book.callbacks_received()] == [told]  # the lost one never came
            alarms = [
                e for e in events(out) if e["event"] == "push" and e["state"] == "no-callback"
            ]
            assert [a.get("token") for a in alarms] == [lost]  # once, for that order
        finally:
            till.cancel()
            await asyncio.gather(till, return_exceptions=True)
            book.close_connection()
