"""Case "many": how long the event loop is held while a table takes thousands of rows at once,
against an ordinary small one in the same run.

A coroutine asks to wake every 5 ms and records how late it wakes (as in `responsive`):
- the attention view (`!`) opened on 3,000 orders that need a human, from the screen pushed
  until the table holds them all in the keeper's order, against the view opened on 10;
- the dashboard in account mode taking in one history page of 50,000 made-up open orders
  (~7.9 MB, the simulator's `extraItems` fault; the list holds 5,000), from the first paint
  until the list shows its 5,000 rows, against the same dashboard on the simulator's own few
  orders.
Target: the worst lag with many rows at most 3x the ordinary one's (both tables change in
bounded steps, one a turn of the loop: `tui/steps.py`). Before the steps, the view held the
loop ~0.8 s for 3,000 rows and the history's 5,000 rows ~1-2 s."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

from common import Options, Row, median, seconds, settings_for, worst_lag_during

TARGET_RATIO = 3.0
NOW_MS = 1_800_000_000_000
ACCESS = "bench-access-token"


# -- the attention view --------------------------------------------------------------------------


def needs(count: int) -> list[Any]:
    from orderdash.core.books.attention import Attention, OrderAttention

    found = []
    for index in range(count):
        token = f"order-{index:05d}-{'x' * 12}"
        item = Attention(
            token,
            "overpaid",
            "excess",
            Decimal("0.0001"),
            Decimal("9.50"),
            "BTC",
            "EUR",
            NOW_MS - index * 60_000,
            "overpaid",
            "Shop",
        )
        found.append(OrderAttention(token, (item,)))
    return found


async def attention_lag(count: int) -> float:
    from types import SimpleNamespace

    from appkit import run_app, wait_for
    from textual.app import App
    from textual.css.query import NoMatches
    from textual.reactive import reactive

    from orderdash.tui.screens.attention import AttentionScreen

    keeper = SimpleNamespace(found=needs(count))
    expected = tuple(o.token for o in keeper.found)

    class Host(App[None]):
        attention = reactive(0)
        tick = reactive(0)

    async def body(app: Any, _paints: Any) -> float:
        await asyncio.sleep(0.3)

        async def open_view() -> None:
            screen = AttentionScreen(keeper, now_ms=lambda: NOW_MS)  # type: ignore[arg-type]
            app.push_screen(screen)

            def whole() -> bool:
                try:
                    return app.screen is screen and screen.tokens_shown == expected
                except NoMatches:  # (not composed yet)
                    return False

            await wait_for(whole, 60)
            await asyncio.sleep(0.3)

        return await worst_lag_during(open_view)

    return await run_app(Host(), body, size=(120, 40))


# -- the account's history -----------------------------------------------------------------------


async def history_lag(extra: int) -> float:
    from appkit import run_app, wait_for

    from orderdash.core.watching.watchlist_file import MAX_TOKENS
    from orderdash.simulator import Fault, Simulator, SimulatorServer
    from orderdash.tui.factory import make_app
    from orderdash.tui.widgets.watch_list import WatchListPane

    with SimulatorServer(Simulator(seed=7), access_token=ACCESS, port=0) as server:
        if extra:
            server.sim.add_fault(Fault(endpoint="history", extra_items=extra, times=1))
        opened = sum(1 for o in server.sim.list_orders() if o["status"] in ("IN_PROGRESS", "PAID"))
        rows = min(extra + opened, MAX_TOKENS)
        settings = settings_for(
            server.base_url,
            bearer=False,
            access_token=ACCESS,
            customer_id="4711",
            account_interval=600.0,
            poll_interval=600.0,
            refresh_interval=600.0,
            budget_per_minute=1,  # the orders are not read meanwhile: the list is what is timed
            max_body_mib=9,
        )
        app = make_app(settings, tokens=())

        async def body(app: Any, _paints: Any) -> float:
            async def take_in() -> None:
                def listed() -> bool:
                    pane = app.screen.query_one(WatchListPane)
                    return pane._table is not None and len(pane.shown_tokens()) == rows

                await wait_for(listed, 120)
                await asyncio.sleep(1.0)

            return await worst_lag_during(take_in)

        return await run_app(app, body, size=(140, 44))


def run(options: Options) -> list[Row]:
    reps = max(3, options.reps // 2)
    rows: list[Row] = []
    measures: list[tuple[str, Callable[[int], Awaitable[float]], int, int, str, str]] = [
        (
            "attention",
            attention_lag,
            10,
            3_000,
            "the attention view opened on {n:,} orders",
            "the view opened on 10",
        ),
        (
            "history",
            history_lag,
            0,
            50_000,
            "account mode, one history page of {n:,} open orders (7.9 MB; 5,000 listed)",
            "the simulator's own few orders",
        ),
    ]
    for name, measure, small, large, what, baseline in measures:
        base = median([asyncio.run(measure(small)) for _ in range(reps)])
        lag = median([asyncio.run(measure(large)) for _ in range(reps)])
        ratio = lag / base if base > 0 else None
        rows.append(
            Row(
                "many",
                f"{name}: worst lag {seconds(lag)}",
                seconds(base),
                ratio,
                f"<= {TARGET_RATIO:g}x",
                ratio is not None and ratio <= TARGET_RATIO,
                note=f"{what.format(n=large)}: median of {reps} worst lags of the event loop, "
                f"against {baseline}",
            )
        )
    return rows
