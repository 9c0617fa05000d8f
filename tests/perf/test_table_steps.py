"""Tables of thousands of rows are changed in bounded steps, one a turn of the event loop, so
that keys, timers and paints come in between (`tui/steps.py`): the attention view on many
orders that need a human, and the watch list filled with the account's open orders.

Held by counts, never by time: the rows added in one turn of the loop (`LoopTurns`), and the
table whole and in order at the end.
`bench/run.py --case many` measures the worst lag of the loop against an ordinary one.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections import Counter
from collections.abc import Iterator
from types import SimpleNamespace as NS
from typing import Any

import pytest
from pydantic import SecretStr

from conftest import make_settings, serving, wait_until
from orderdash.core.domain.status import is_open
from orderdash.core.service import account_answers
from orderdash.core.watching.session import WatchSession
from orderdash.simulator import Fault, Simulator, SimulatorServer
from orderdash.tui import account
from orderdash.tui.factory import make_app
from orderdash.tui.screens.attention import AttentionScreen
from orderdash.tui.widgets import attention_table, watch_list
from orderdash.tui.widgets.attention_table import AttentionTable
from orderdash.tui.widgets.watch_list import WatchListPane, WatchTable
from orderdash.tui.widgets.watch_rows import sort_key
from support.attention_host import Host, needs


class LoopTurns:
    """Numbers the turns of the event loop as the calls counted see them: the first call of a
    turn asks for a mark at the loop's next turn (`call_soon`), which moves the number on.
    Calls with one number ran without the loop turning in between (or in callbacks of the
    same turn: an upper bound)."""

    def __init__(self) -> None:
        self.turn = 0
        self._asked = False

    def now(self) -> int:
        if not self._asked:
            self._asked = True
            asyncio.get_running_loop().call_soon(self._turned)
        return self.turn

    def _turned(self) -> None:
        self.turn += 1
        self._asked = False


@pytest.fixture
def turns() -> LoopTurns:
    return LoopTurns()


#: Whether the cyclic collector was on at each row added (`counted`).
COLLECTOR_ON: list[bool] = []


def counted(monkeypatch: pytest.MonkeyPatch, table: type, turns: LoopTurns) -> Counter[int]:
    """Rows `table` adds, by turn of the loop (the collector's state at each: `COLLECTOR_ON`)."""
    added: Counter[int] = Counter()
    add_row = table.add_row
    COLLECTOR_ON.clear()

    def counting(self: Any, *cells: Any, **options: Any) -> Any:
        added[turns.now()] += 1
        COLLECTOR_ON.append(gc.isenabled())
        return add_row(self, *cells, **options)

    monkeypatch.setattr(table, "add_row", counting)
    return added


async def test_the_attention_view_opens_on_many_orders_in_bounded_steps(
    monkeypatch: pytest.MonkeyPatch, turns: LoopTurns
) -> None:
    many = 600
    found = [needs(f"order-{index:04d}", index) for index in range(many)]
    keeper = NS(found=found)
    added = counted(monkeypatch, AttentionTable, turns)
    app = Host(keeper)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AttentionScreen))
        screen = app.screen
        assert isinstance(screen, AttentionScreen)
        table = screen.query_one(AttentionTable)
        in_order = tuple(o.token for o in found)
        await wait_until(pilot, lambda: table.tokens_shown == in_order)
        assert sum(added.values()) == many
        bound = attention_table.ROWS_PER_STEP
        assert max(added.values()) <= bound, added
        assert len(added) >= many // bound  # the rows came over many turns
        # the steps after the first made their rows with the collector paused, and it is back
        assert not any(COLLECTOR_ON[bound:]) and gc.isenabled()
        await pilot.press("down", "down", "down")
        assert screen.highlighted == "order-0003"
        # a payment: a new order first, one above the cursor resolved, one overpaid by more;
        # and another change while that one is under way (taken after it, not restarting it)
        added.clear()
        changed = [needs("order-new", 0), *(o for o in found if o.token != "order-0001")]
        changed[300] = needs(changed[300].token, 300, excess="0.0009")
        keeper.found = changed
        app.attention += 1
        keeper.found = changed = [needs("order-newer", 0), *changed]
        app.attention += 1
        expected = tuple(o.token for o in changed)
        await wait_until(pilot, lambda: table.tokens_shown == expected)
        assert sorted(added.values()) == [1, 1]  # by key: only the two new rows, one a turn
        assert screen.highlighted == "order-0003" and table.cursor_row == 4
        assert "+0.0009 BTC" in table.get_cell(changed[301].token, "Coin").plain


ACCESS = "access-Tt5-table-steps"


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with serving(
        SimulatorServer(Simulator(seed=7), access_token=ACCESS, history_page_cap=3)
    ) as server:
        yield server


async def test_a_long_history_page_joins_the_watch_list_in_bounded_steps(
    server: SimulatorServer, monkeypatch: pytest.MonkeyPatch, turns: LoopTurns
) -> None:
    """A page of 2,000 made-up open orders (~330 KB): read in a worker thread, joined to the
    list a few hundred a turn of the loop, its rows added a bounded number a turn."""
    many = 2_000
    server.sim.add_fault(Fault(endpoint="history", extra_items=many, times=1))
    loop_thread = threading.get_ident()
    long_read_on: list[int] = []
    history_page = account_answers.history_page

    def watched(*args: Any) -> Any:
        if len(args[-1]) > 250_000:  # the page's body (the others list 3 orders each)
            long_read_on.append(threading.get_ident())
        return history_page(*args)

    monkeypatch.setattr(account_answers, "history_page", watched)
    joined: Counter[int] = Counter()
    watch = WatchSession.watch

    def joining(self: WatchSession, tokens: Any, *, save: bool) -> list[str]:
        added = watch(self, tokens, save=save)
        joined[turns.now()] += len(added)
        return added

    monkeypatch.setattr(WatchSession, "watch", joining)
    added = counted(monkeypatch, WatchTable, turns)
    settings = make_settings(
        server.base_url,
        bearer=None,
        access_token=SecretStr(ACCESS),
        customer_id="4711",
        account_interval=600.0,
        poll_interval=600.0,
        refresh_interval=600.0,
        budget_per_minute=1,  # the made-up orders are not read: the list stays as it is
    )
    opened = sum(1 for o in server.sim.list_orders() if is_open(o["status"]))
    app = make_app(settings, tokens=())
    async with app.run_test(size=(140, 44)) as pilot:
        pane = app.screen.query_one(WatchListPane)
        await wait_until(
            pilot,
            lambda: (
                len(app.state.entries) == many + opened
                and pane._table is not None
                and pane.table.row_count == many + opened
            ),
            timeout=30,
        )
        entries = app.state.entries

        def in_order() -> list[str]:  # the list's own order (newest first by default)
            column = pane.sort_column
            key = lambda token: (sort_key(entries[token], column), token)  # noqa: E731
            return sorted(entries, key=key, reverse=pane.sort_reverse)

        await wait_until(pilot, lambda: pane.shown_tokens() == in_order())
    assert long_read_on and loop_thread not in long_read_on  # read in a worker thread
    assert sum(joined.values()) == many + opened
    assert max(joined.values()) <= account.JOINED_AT_A_TIME, joined
    assert sum(added.values()) >= many + opened
    assert max(added.values()) <= watch_list.ROWS_PER_STEP, added
    assert len(added) >= many // watch_list.ROWS_PER_STEP
