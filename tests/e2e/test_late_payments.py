"""Late payments in `orderdash watch --jsonl`, against the simulator on loopback: an order that
expired is read every minute for `late_window` after its expiry; a payment into it 3 hours after
expiry is a `late-payment` line with the service's exact digits; after the window the order is
no longer read, so a payment then goes unseen (the dashboard shows it when the order is opened).

Time is the test's: the event loop's clock runs `SPEED` times the wall and jumps when told
(`JumpLoop`); the watcher's schedule, the client's and the simulator's clocks all read it.
Nothing sleeps on the wall."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import selectors
from collections.abc import Callable
from decimal import Decimal

from conftest import make_settings, serving
from orderdash.core.model import jsontext
from orderdash.core.polling.late import LATE_INTERVAL
from orderdash.headless import watch_jsonl
from orderdash.simulator import Simulator, SimulatorServer

SPEED = 600.0
T0 = 1_800_000_000.0
HOUR = 3600.0
LIFETIME = 600.0


class _FastSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    def select(self, timeout: float | None = None):  # noqa: ANN201 - as the base class
        return super().select(None if timeout is None else timeout / SPEED)


class JumpLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock runs `SPEED` times the wall, and jumps ahead on `jump`."""

    def __init__(self) -> None:
        super().__init__(selector=_FastSelector())
        self.offset = 0.0
        self.start = super().time()

    def time(self) -> float:
        return (super().time() - self.start) * SPEED + self.offset

    def wall(self) -> float:
        """Epoch seconds on the same clock (the client's, the simulator's)."""
        return T0 + self.time()

    def jump(self, seconds: float) -> None:
        self.offset += seconds


def lines_of(out: io.StringIO) -> list[dict]:
    return [jsontext.loads(line) for line in out.getvalue().splitlines()]


async def until(out: io.StringIO, check: Callable[[list[dict]], bool], fake: float = 900) -> None:
    """Wait (fake seconds, never the wall's) until the lines pass `check`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + fake
    while not check(lines_of(out)):
        assert loop.time() < deadline, out.getvalue()
        await asyncio.sleep(1.0)


async def quiet(sim: Simulator, token: str) -> None:
    """Just after a read of `token` is answered: the moment to jump, with no request in flight
    (a jump past a request's timeout would time it out)."""
    before = reads(sim, token, 0, float("inf"))
    while reads(sim, token, 0, float("inf")) == before:  # noqa: ASYNC110 - a polling loop
        await asyncio.sleep(1.0)
    await asyncio.sleep(15.0)


def reads(sim: Simulator, token: str, start: float, end: float) -> int:
    return sum(
        1
        for r in sim.requests
        if r["endpoint"] == "order" and r["token"] == token and start <= r["t"] < end
    )


def test_a_payment_3_hours_after_expiry_is_a_late_payment_line_and_after_the_window_none() -> None:
    loop = JumpLoop()
    sim = Simulator(seed=11, clock=loop.wall, with_demo_orders=False)
    paid_late, unpaid = "late-paid-1", "late-unpaid-2"
    for token in (paid_late, unpaid):
        sim.create_order(token=token, lifetime_s=LIFETIME, amount_fiat="25.00")
    expiry = sim.order_wire(paid_late, with_qr=False)["expiresAt"] / 1000
    out = io.StringIO()
    seen: dict[str, object] = {}

    async def scenario(server: SimulatorServer) -> None:
        settings = make_settings(
            server.base_url,
            bearer=None,
            budget_per_hour=10_000,  # the service's own limit: the late watch fits in it
            late_window="24h",
            timeout=600,
            connect_timeout=600,
            read_timeout=600,
        )
        loop.jump(LIFETIME + 1)  # both orders expire unpaid
        task = asyncio.create_task(
            watch_jsonl(settings, [paid_late, unpaid], out, clock=loop.wall, monotonic=loop.time)
        )
        try:
            await until(out, lambda ls: sum(e["event"] == "state" for e in ls) == 2)
            assert {e["code"] for e in lines_of(out)} == {"EXPIRED"}

            # the pace within the window: about one read a minute, counted by the service
            start = sim.now()
            await asyncio.sleep(1800)
            in_half_hour = reads(sim, unpaid, start, sim.now())
            seen["half_hour"] = in_half_hour
            assert 0.5 * 1800 / LATE_INTERVAL <= in_half_hour <= 1800 / LATE_INTERVAL + 1

            # 3 hours after expiry the customer pays in full: a late payment
            await quiet(sim, unpaid)
            loop.jump(expiry + 3 * HOUR + 5 - sim.now())
            tx = sim.add_transaction(paid_late)
            await until(out, lambda ls: any(e["event"] == "late-payment" for e in ls))
            late = next(e for e in lines_of(out) if e["event"] == "late-payment")
            seen["late"] = late
            seen["tx"] = tx

            # past the window of the other order (24 h after its expiry), nothing reads it
            await quiet(sim, unpaid)
            loop.jump(expiry + 24 * HOUR + 60 - sim.now())
            after = sim.now()
            sim.add_transaction(unpaid, "0.00001")
            await asyncio.sleep(900)
            seen["after_window"] = reads(sim, unpaid, after, sim.now())
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    with serving(SimulatorServer(sim, port=0)) as server:
        try:
            loop.run_until_complete(scenario(server))
        finally:
            loop.close()

    late, tx = seen["late"], seen["tx"]
    assert isinstance(late, dict) and isinstance(tx, dict)
    assert late["token"] == paid_late
    assert late["id"] == tx["id"] and late["hash"] == tx["hash"]
    # every digit the service sent, as JSON numbers
    raw = json.loads(
        next(line for line in out.getvalue().splitlines() if '"late-payment"' in line),
        parse_float=Decimal,
    )
    assert raw["amount"] == Decimal(str(tx["amount"]["base"]))
    assert raw["amountFiat"] == Decimal(str(tx["amountFiat"]["base"]))
    assert late["coin"] and late["currency"] == "EUR"
    assert 3 * HOUR <= late["afterExpirySeconds"] < 3 * HOUR + 120
    assert late["afterExpiry"].endswith("after expiry") and late["afterExpiry"].startswith("3:0")
    assert late["expiresAt"] == sim.order_wire(paid_late, with_qr=False)["expiresAt"]
    events = [e["event"] for e in lines_of(out) if e["token"] == paid_late]
    assert events.index("transaction") < events.index("late-payment")
    # after the window: not read, so its payment raised nothing
    assert seen["after_window"] == 0
    assert [e["token"] for e in lines_of(out) if e["event"] == "late-payment"] == [paid_late]
