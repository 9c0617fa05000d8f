"""Case 3, detection latency: a transaction added at the simulator (`sim.add_transaction`) until
the first paint after which the TransactionsTable holds its row. The dashboard polls every
second; each add happens at a random moment of the poll period. Beside it the physical floor:
one loopback round trip of getOrder plus one frame (1/60 s)."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from common import Options, Row, median, percentile, seconds, settings_for, simulator

POLL_INTERVAL = 1.0
SLACK = 0.3
FRAME = 1 / 60


async def loopback_round_trip(base_url: str, token: str, samples: int = 21) -> float:
    import httpx

    async with httpx.AsyncClient() as client:
        url = f"{base_url}/order/{token}/"
        (await client.get(url)).raise_for_status()  # connect once, as the dashboard's pool does
        times = []
        for _ in range(samples):
            started = time.perf_counter()
            (await client.get(url)).raise_for_status()
            times.append(time.perf_counter() - started)
    return median(times)


async def measure(options: Options, server: Any) -> tuple[list[float], float]:
    from appkit import PaintLog, run_app, wait_for

    from orderdash.tui.factory import make_app
    from orderdash.tui.widgets.transactions import TransactionsTable

    sim = server.sim
    token = sim.create_order(company_name="Latency bench", coin="btc", amount_fiat="1000000.00")
    floor = await loopback_round_trip(server.base_url, token) + FRAME
    settings = settings_for(server.base_url, poll_interval=POLL_INTERVAL, refresh_interval=60.0)
    app = make_app(settings, token=token)
    rng = random.Random(options.seed)

    async def body(app: Any, paints: PaintLog) -> list[float]:
        dashboard = app.dashboard
        await wait_for(lambda: dashboard.state.order is not None, within=30)
        table = dashboard.query_one(TransactionsTable)
        latencies = []
        for _ in range(options.latency_runs):
            await asyncio.sleep(rng.uniform(0, POLL_INTERVAL))
            added = time.monotonic()
            key = str(sim.add_transaction(token, "0.00001")["id"])
            paint = await paints.next_paint(lambda key=key: key in table.rows, within=30)
            if paint is None:
                raise TimeoutError("a new transaction did not reach the screen in 30 s")
            latencies.append(paint.wall - added)
        return latencies

    return await run_app(app, body), floor


def run(options: Options) -> list[Row]:
    with simulator(options.seed) as server:
        latencies, floor = asyncio.run(measure(options, server))
    p50, p95 = median(latencies), percentile(latencies, 95)
    target = POLL_INTERVAL + SLACK
    # a uniformly random moment in the poll period waits half a period on average
    expected = POLL_INTERVAL / 2 + floor
    return [
        Row(
            "latency",
            f"p50 {seconds(p50)}",
            f"floor {seconds(floor)}",
            None,
            "\u2014",
            None,
            note=f"{len(latencies)} runs, poll every {POLL_INTERVAL:g} s; a random moment waits "
            f"{POLL_INTERVAL / 2:g} s on average, so about {seconds(expected)} is expected; "
            f"max {seconds(max(latencies))}",
            data={"latencies": latencies},
        ),
        Row(
            "latency",
            f"p95 {seconds(p95)}",
            f"floor {seconds(floor)}",
            None,
            f"<= {seconds(target)}",
            p95 <= target,
            note="floor: one loopback getOrder round trip plus one frame (1/60 s)",
        ),
    ]
