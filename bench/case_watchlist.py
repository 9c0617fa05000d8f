"""Case 7, watch list: 500 orders in the list with the default schedule and request budget, in
this process against the simulator. Measured: the time until the list shows all 500 rows, then
over a steady window (`--idle-seconds`, at most 60 s) the request rate at the simulator against
the budget, the UI thread's CPU and the cost of one list update.

Runs only once `orderdash.core.polling.scheduler` exists (the watch list has landed).
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import time
from typing import Any

from common import Options, Row, median, seconds, settings_for, simulator

ORDERS = 500


def landed() -> bool:
    return importlib.util.find_spec("orderdash.core.polling.scheduler") is not None


async def measure(options: Options, server: Any) -> dict[str, Any]:
    from appkit import PaintLog, patched, run_app, wait_for

    from orderdash.tui.factory import make_app
    from orderdash.tui.widgets.watch_list import WatchListPane

    sim = server.sim
    tokens = [
        sim.create_order(company_name=f"Shop {i:03d}", coin="btc", amount_fiat="25.00")
        for i in range(ORDERS)
    ]
    settings = settings_for(server.base_url)
    app = make_app(settings, tokens=tokens)
    window = min(max(options.idle_seconds, 5.0), 60.0)
    updates: list[float] = []
    update_entry = WatchListPane.update_entry

    def timed_update(pane: Any, entry: Any) -> None:
        started = time.perf_counter()
        try:
            update_entry(pane, entry)
        finally:
            updates.append(time.perf_counter() - started)

    started = time.monotonic()
    result: dict[str, Any] = {
        "budget": settings.budget_per_minute,
        "concurrency": settings.concurrency,
        "window": window,
    }

    async def body(app: Any, paints: PaintLog) -> None:
        table = app.dashboard.query_one(WatchListPane).table  # built when first needed
        listed = paints.watch(lambda: table.row_count == ORDERS)
        result["listed"] = (await asyncio.wait_for(listed, 120)).wall - started
        await wait_for(lambda: app.state.order is not None, within=60)
        result["first_order"] = time.monotonic() - started
        first_request = len(sim.requests)
        updates.clear()
        cpu, wall = time.thread_time(), time.monotonic()
        await asyncio.sleep(window)
        result["cpu"] = time.thread_time() - cpu
        result["elapsed"] = time.monotonic() - wall
        result["requests"] = len(sim.requests) - first_request
        result["updates"] = list(updates)

    with patched(WatchListPane, "update_entry", timed_update):
        await run_app(app, body)
    return result


def run(options: Options) -> list[Row]:
    if not landed():
        return [Row("watchlist", "\u2014", status="n/a (watch list not landed)")]
    from orderdash.tui.factory import make_app

    if "tokens" not in inspect.signature(make_app).parameters:
        return [Row("watchlist", "\u2014", status="n/a (make_app takes no token list yet)")]
    with simulator(options.seed) as server:
        result = asyncio.run(measure(options, server))
    elapsed, budget = result["elapsed"], result["budget"]
    per_minute = result["requests"] * 60 / elapsed
    # the budget holds over any 60 s; a shorter window may also catch what was in flight
    allowed = budget * elapsed / 60 + result["concurrency"]
    updates = result["updates"]
    return [
        Row(
            "watchlist",
            f"{ORDERS} orders listed {seconds(result['listed'])}",
            note=f"app start to the first paint with all {ORDERS} rows; the focused order "
            f"shown at {seconds(result['first_order'])}",
            data=result,
        ),
        Row(
            "watchlist",
            f"{per_minute:.0f} requests/min",
            f"budget {budget}/min",
            per_minute / budget,
            f"<= {budget}/min",
            result["requests"] <= allowed,
            note=f"{result['requests']} requests at the simulator in a {elapsed:.0f} s window "
            f"(the budget allows {allowed:.0f}: {budget}/min plus the {result['concurrency']} "
            "that may be in flight when the window opens)",
        ),
        Row(
            "watchlist",
            f"UI thread {100 * result['cpu'] / elapsed:.1f} % of a core",
            note=f"{len(updates)} list updates in the window, "
            + (f"{seconds(median(updates))} each (median)" if updates else "none"),
        ),
    ]
