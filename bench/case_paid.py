"""Case "paid": a payment recorded at the simulator (`sim.add_transaction`) until the first paint
after which the point-of-sale screen shows it, at default settings (`orderdash pos`: the order
on the POS screen is read every `customer_poll_interval`, 1.5 s). Each payment lands at a random
moment of the poll period. Target: p95 <= 2 s."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from case_latency import FRAME, loopback_round_trip
from common import Options, Row, median, percentile, seconds, settings_for, simulator

TARGET = 2.0


async def measure(options: Options, server: Any) -> tuple[list[float], float, float]:
    from appkit import PaintLog, run_app, wait_for

    from orderdash.tui.factory import make_app
    from orderdash.tui.screens.pos import PosScreen
    from orderdash.tui.widgets.customer import CustomerPanel

    sim = server.sim
    token = sim.create_order(company_name="Paid bench", coin="btc", amount_fiat="1000000.00")
    floor = await loopback_round_trip(server.base_url, token) + FRAME
    settings = settings_for(server.base_url)  # the defaults, but for the service's address
    app = make_app(settings, token=token, open_pos=True)
    rng = random.Random(options.seed)

    async def body(app: Any, paints: PaintLog) -> list[float]:
        await wait_for(lambda: isinstance(app.screen, PosScreen), within=30)
        panel = app.screen.query_one(CustomerPanel)
        await wait_for(lambda: panel.face is not None and panel.face.payable, within=30)
        latencies = []
        for paid in range(1, options.latency_runs + 1):
            await asyncio.sleep(rng.uniform(0, settings.customer_poll_interval))
            added = time.monotonic()
            sim.add_transaction(token, "0.00001")
            paint = await paints.next_paint(
                lambda paid=paid: panel.face is not None and panel.face.payments >= paid,
                within=30,
            )
            if paint is None:
                raise TimeoutError("a payment did not reach the POS screen in 30 s")
            latencies.append(paint.wall - added)
        return latencies

    return await run_app(app, body), floor, settings.customer_poll_interval


def run(options: Options) -> list[Row]:
    with simulator(options.seed) as server:
        latencies, floor, interval = asyncio.run(measure(options, server))
    p50, p95 = median(latencies), percentile(latencies, 95)
    return [
        Row(
            "paid",
            f"p50 {seconds(p50)}",
            f"floor {seconds(floor)}",
            None,
            "\u2014",
            None,
            note=f"{len(latencies)} payments to the order on the POS screen at default settings "
            f"(read every {interval:g} s while a customer looks at it), each at a random "
            f"moment of the interval; max {seconds(max(latencies))}",
            data={"latencies": latencies},
        ),
        Row(
            "paid",
            f"p95 {seconds(p95)}",
            f"floor {seconds(floor)}",
            None,
            f"<= {seconds(TARGET)}",
            p95 <= TARGET,
            note="payment recorded at the simulator -> the first paint of the POS screen showing "
            "it; floor: one loopback getOrder round trip plus one frame",
        ),
    ]
