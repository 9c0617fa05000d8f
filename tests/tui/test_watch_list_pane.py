"""The operators' watch list, driven by Pilot against the simulator; and the headless watcher."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
from pathlib import Path

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.core.domain.text import amount_text
from orderdash.core.watching.watchlist_file import WatchListFile
from orderdash.headless import watch_jsonl
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.add_tokens import AddTokensScreen
from orderdash.tui.screens.alerts import AlertsScreen
from orderdash.tui.widgets.watch_list import WatchListPane, WatchTable

#: Wide enough for every column of the list (narrower screens drop some: test_columns.py).
SIZE = (200, 50)


def list_app(server: SimulatorServer, tokens: list[str], **settings: object) -> OrderDashApp:
    values = {"poll_interval": 0.3, "refresh_interval": 60.0, **settings}
    return make_app(make_settings(server.base_url, **values), tokens=tokens)


def shown(app: OrderDashApp) -> list[str]:
    table = app.dashboard.query_one(WatchTable)
    return [table.coordinate_to_cell_key((row, 0)).row_key.value for row in range(table.row_count)]


def all_loaded(app: OrderDashApp) -> bool:
    return bool(app.state.entries) and all(e.fetched for e in app.state.entries.values())


async def test_add_by_paste_remove_and_undo(sim_server: SimulatorServer) -> None:
    app = list_app(sim_server, list(DEMO_TOKENS[:2]))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        assert sorted(shown(app)) == sorted(DEMO_TOKENS[:2])
        await pilot.press("a")
        assert isinstance(app.screen, AddTokensScreen)
        app.screen.query_one(
            "#add-tokens"
        ).text = f"{DEMO_TOKENS[2]}\n{DEMO_TOKENS[3]}, {DEMO_TOKENS[0]}\n..\n"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: len(app.state.entries) == 4)
        text = screen_text(app)
        assert "Added 2" in text and "1 already watched" in text and "1 refused" in text
        await wait_until(pilot, lambda: all_loaded(app))

        app.dashboard.query_one(WatchTable).focus()
        app.dashboard.query_one(WatchTable).move_cursor(row=shown(app).index(DEMO_TOKENS[3]))
        await pilot.press("d")
        assert DEMO_TOKENS[3] not in app.state.entries and DEMO_TOKENS[3] not in shown(app)
        assert DEMO_TOKENS[3] not in app.watcher.tokens
        await pilot.press("u")
        assert DEMO_TOKENS[3] in shown(app) and DEMO_TOKENS[3] in app.watcher.tokens


async def test_filter_by_text_and_state_and_sort(sim_server: SimulatorServer) -> None:
    app = list_app(sim_server, list(DEMO_TOKENS))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        pane = app.dashboard.query_one(WatchListPane)
        assert "Watching 7" in str(pane.border_title)
        await pilot.press("f")
        await pilot.press(*"bakery")
        assert shown(app) == [DEMO_TOKENS[4]]  # Corner Bakery
        app.dashboard.query_one("#watch-filter").value = ""
        await pilot.press("enter")
        assert len(shown(app)) == 7
        await pilot.press("t")  # open
        assert set(shown(app)) == {DEMO_TOKENS[5], DEMO_TOKENS[6]}
        await pilot.press("t")  # partly paid
        assert set(shown(app)) == {DEMO_TOKENS[0], DEMO_TOKENS[1]}
        for _ in range(4):  # paid, closed, problems, back to all
            await pilot.press("t")
        assert len(shown(app)) == 7
        pane.sort_by("fiat")
        fiats = [app.state.entries[t].order.amount_fiat for t in shown(app)]
        currencies = [app.state.entries[t].order.currency.abbreviation for t in shown(app)]
        assert list(zip(currencies, fiats, strict=True)) == sorted(
            zip(currencies, fiats, strict=True)
        )
        pane.sort_by("fiat")  # again: reversed
        assert [app.state.entries[t].order.currency.abbreviation for t in shown(app)] == sorted(
            currencies, reverse=True
        )
        await pilot.click(WatchTable, offset=(20, 0))  # the Company header
        companies = [app.state.entries[t].order.company_name for t in shown(app)]
        assert companies == sorted(companies, key=str.lower)


async def test_choosing_a_row_opens_the_order_in_the_panes(sim_server: SimulatorServer) -> None:
    app = list_app(sim_server, list(DEMO_TOKENS[:3]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        assert app.state.token == DEMO_TOKENS[0]
        table = app.dashboard.query_one(WatchTable)
        table.focus()
        table.move_cursor(row=shown(app).index(DEMO_TOKENS[2]))
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: app.state.order is not None and app.state.order.token == DEMO_TOKENS[2],
        )
        assert "Tea & Biscuits" in screen_text(app)
        scheduler = app.watcher.scheduler
        assert (
            scheduler.orders[DEMO_TOKENS[2]].focused
            and not scheduler.orders[DEMO_TOKENS[0]].focused
        )


async def test_payment_on_a_background_order_raises_an_alert(sim_server: SimulatorServer) -> None:
    background = DEMO_TOKENS[5]  # awaiting payment, not on screen
    app = list_app(
        sim_server, [DEMO_TOKENS[0], background], poll_interval=0.2, budget_per_minute=600
    )
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        tx = sim_server.sim.add_transaction(background, "1.5")
        paid = f"Payment received: {amount_text(tx['amount']['base'])} USDT"
        await wait_until(pilot, lambda: app.state.entries[background].unseen, timeout=15)
        assert app.state.alerts[-1].text.startswith(paid)
        # the toast (it may wrap, so its first words)
        await wait_until(pilot, lambda: "Payment received" in screen_text(app))
        text = screen_text(app)
        assert "\u25cf" in text  # the row's mark
        assert app.state.alerts[-1].token == background
        await pilot.press("l")
        assert isinstance(app.screen, AlertsScreen)
        assert paid in screen_text(app)
        await pilot.press("enter")  # opens that order
        await wait_until(pilot, lambda: app.state.token == background)
        assert not app.state.entries[background].unseen, "seen once opened"


async def test_the_list_persists_across_runs(sim_server: SimulatorServer, tmp_path: Path) -> None:
    path = tmp_path / "watchlist.json"
    settings = {"persist_watchlist": True, "watchlist_file": str(path)}
    first = list_app(sim_server, list(DEMO_TOKENS[:3]), **settings)
    async with first.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: all_loaded(first))
    assert json.loads(path.read_text())["tokens"] == list(DEMO_TOKENS[:3])
    second = list_app(sim_server, [], **settings)
    async with second.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: all_loaded(second))
        assert sorted(shown(second)) == sorted(DEMO_TOKENS[:3])
        second.dashboard.query_one(WatchTable).focus()
        await pilot.press("d")
    assert len(json.loads(path.read_text())["tokens"]) == 2


async def test_headless_watch_prints_one_json_line_per_event(sim_server: SimulatorServer) -> None:
    out = io.StringIO()
    token = sim_server.sim.create_order(coin="eth", currency="USD", amount_fiat="50.00")
    settings = make_settings(sim_server.base_url, poll_interval=0.1, budget_per_minute=1200)
    task = asyncio.create_task(watch_jsonl(settings, [token, DEMO_TOKENS[0]], out))
    await asyncio.sleep(0.6)
    sim_server.sim.add_transaction(token, "0.000000000000000001")
    sim_server.sim.set_status(DEMO_TOKENS[0], "CANCELED")
    sim_server.sim.set_fields(DEMO_TOKENS[0], {"companyName": "Evil \x1b[2J Ltd"})
    await asyncio.sleep(1.5)
    sim_server.stop()
    await asyncio.sleep(1.5)
    sim_server.start()
    await asyncio.sleep(2.5)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    text = out.getvalue()
    assert "\x1b" not in text
    events = [json.loads(line) for line in text.splitlines()]
    kinds = [(e["event"], e["token"]) for e in events]
    assert ("transaction", token) in kinds and ("status", DEMO_TOKENS[0]) in kinds
    tx = next(e for e in events if e["event"] == "transaction")
    assert '"amount": 0.000000000000000001' in text and tx["coin"] == "eth"
    status = next(e for e in events if e["event"] == "status")
    assert (status["previous"], status["code"]) == ("IN_PROGRESS", "CANCELED")
    assert ("error", token) in kinds and ("recovered", token) in kinds
    assert kinds.count(("error", token)) == 1, "one error line per outage, not one per retry"


async def test_two_dashboards_on_one_list_keep_each_others_orders(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    """The dashboard and another instance (the real store code, as a second dashboard uses it)
    change one file: every addition and removal of each ends up in both."""
    path = tmp_path / "watchlist.json"
    other = WatchListFile(path)
    other.apply(added=[DEMO_TOKENS[0]])
    settings = {"persist_watchlist": True, "watchlist_file": str(path)}
    app = list_app(sim_server, [], **settings)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: list(app.state.entries) == [DEMO_TOKENS[0]])
        other.load()
        other.apply(added=[DEMO_TOKENS[1]])  # B adds an order
        await wait_until(pilot, lambda: DEMO_TOKENS[1] in app.state.entries, timeout=5)
        app.session.add_from_text(DEMO_TOKENS[2])  # A adds another
        await wait_until(pilot, lambda: DEMO_TOKENS[2] in app.state.entries)
        await wait_until(pilot, lambda: len(json.loads(path.read_text())["tokens"]) == 3, timeout=5)
        other.apply(removed=[DEMO_TOKENS[0]], added=[DEMO_TOKENS[3]])
        await wait_until(
            pilot,
            lambda: set(app.state.entries) == {*DEMO_TOKENS[1:4]},
            timeout=5,
        )
    assert sorted(json.loads(path.read_text())["tokens"]) == sorted(DEMO_TOKENS[1:4])


async def test_adding_beyond_the_cap_is_refused_and_said(
    sim_server: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orderdash.tui import watchlist_sync

    monkeypatch.setattr(watchlist_sync, "MAX_TOKENS", 3)  # the same rule as at 5,000, sooner
    path = tmp_path / "watchlist.json"
    settings = {"persist_watchlist": True, "watchlist_file": str(path)}
    app = list_app(sim_server, list(DEMO_TOKENS[:2]), **settings)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: len(app.state.entries) == 2)
        app.session.add_from_text(" ".join(DEMO_TOKENS[2:5]))
        await wait_until(pilot, lambda: "holds at most 3 orders: 2 not added" in screen_text(app))
        assert list(app.state.entries) == list(DEMO_TOKENS[:3])
        await wait_until(pilot, lambda: all_loaded(app))  # kept once the service answered
    assert json.loads(path.read_text())["tokens"] == list(DEMO_TOKENS[:3])


async def test_quitting_while_a_save_is_being_written_leaves_it_on_disk(
    sim_server: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service's first good answer keeps a token; the app quits while the worker is still
    writing it: the program ends with the token in the file, not after."""
    writing = threading.Event()
    real_apply = WatchListFile.apply

    def slow_apply(self, added=(), removed=()):  # type: ignore[no-untyped-def]
        added = list(added)
        if DEMO_TOKENS[2] in added:
            writing.set()
            time.sleep(0.4)  # a slow disk: the quit comes while this merge is written
        return real_apply(self, added, removed)

    monkeypatch.setattr(WatchListFile, "apply", slow_apply)
    path = tmp_path / "watchlist.json"
    settings = {"persist_watchlist": True, "watchlist_file": str(path)}
    app = list_app(sim_server, list(DEMO_TOKENS[:2]), **settings)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        app.session.add_from_text(DEMO_TOKENS[2])
        await wait_until(pilot, writing.is_set)
    # read the moment the app has ended, before any other thread could finish the write
    assert DEMO_TOKENS[2] in json.loads(path.read_text())["tokens"]


async def test_a_one_order_dashboard_paints_without_building_the_list(
    sim_server: SimulatorServer,
) -> None:
    """With one order the list is hidden: its filter row and table are not even built (five
    widgets the start-up would mount, style and lay out for nothing), through the first paint,
    the clock, a resize and the list's keys; the filter key builds them and focuses the
    filter as before."""
    from orderdash.tui.screens.dashboard import DashboardScreen

    app = list_app(sim_server, [DEMO_TOKENS[0]])
    children_at_first_paint: list[int] = []
    display = app._display

    def recording_display(screen: object, renderable: object) -> None:
        painted = renderable is not None and not app._batch_count
        if painted and isinstance(screen, DashboardScreen) and not children_at_first_paint:
            children_at_first_paint.append(len(screen.query_one(WatchListPane).children))
        display(screen, renderable)

    app._display = recording_display  # type: ignore[method-assign]
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None and children_at_first_paint)
        pane = app.dashboard.query_one(WatchListPane)
        assert children_at_first_paint == [0]
        await pilot.resize_terminal(120, 40)
        await pilot.press("t", "S", "w", "w")  # a state filter, reversed, hidden and back
        await pilot.pause(1.2)  # a tick of the app's clock
        assert not pane.display
        assert not pane.children and not app.dashboard.query(WatchTable)
        await pilot.press("f")
        await wait_until(pilot, lambda: app.focused is app.dashboard.query_one("#watch-filter"))
        assert not pane.display  # still one order: the list stays hidden


async def list_when_shown(server: SimulatorServer, *, built_at_start: bool) -> dict[str, object]:
    """One order open; the list, hidden, is told a state filter, a reversed sort and to hide;
    a second order joins (sorting before the open one); the list is shown again. What it
    shows then."""
    opened, joining = DEMO_TOKENS[1], DEMO_TOKENS[0]  # both partly paid
    assert joining < opened
    app = list_app(server, [opened])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        pane = app.dashboard.query_one(WatchListPane)
        if built_at_start:
            pane.table  # noqa: B018 (what a pane built at mount would have)
        else:
            assert not pane.children
        # partly paid, the sort reversed and back, the list hidden by the operator
        await pilot.press("t", "t", "S", "S", "w")
        app.session.watch([joining], save=False)
        await wait_until(pilot, lambda: all_loaded(app))
        await pilot.pause(0.3)
        assert not pane.display
        assert bool(pane.children) == built_at_start  # hidden by the operator: still not built
        await pilot.press("w")
        table = app.dashboard.query_one(WatchTable)
        await wait_until(pilot, lambda: table.size.width > 0)
        await pilot.pause(0.3)  # its columns fitted to that width
        return {
            "display": pane.display,
            "rows": shown(app),
            "columns": [str(column.label) for column in table.ordered_columns],
            "cursor": pane.selected_token(),
            "title": str(pane.border_title),
            "subtitle": str(pane.border_subtitle),
            "view": pane.view_text(),
            "drawn": next(line for line in screen_text(app).splitlines() if "Filter" in line),
        }


async def test_what_the_hidden_list_was_told_shows_when_it_appears(
    sim_server: SimulatorServer,
) -> None:
    """The list built only when it first shows shows what it would have shown had it been
    built (and kept up to date) from the start: the same rows in the same order, columns,
    cursor on the same order, title and subtitle."""
    late = await list_when_shown(sim_server, built_at_start=False)
    early = await list_when_shown(sim_server, built_at_start=True)
    assert late == early
    assert late["display"] and late["rows"] == [DEMO_TOKENS[0], DEMO_TOKENS[1]]
    assert late["cursor"] == DEMO_TOKENS[1]  # still on the open order, now the second row
    assert "showing 2 of 2 \u00b7 partly paid \u00b7 newest first" in str(late["view"])
    assert str(late["view"]) in str(late["drawn"])  # on screen, on its own line


async def test_a_second_order_added_with_a_builds_and_shows_the_list(
    sim_server: SimulatorServer,
) -> None:
    app = list_app(sim_server, [DEMO_TOKENS[0]])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        pane = app.dashboard.query_one(WatchListPane)
        assert not pane.children  # one order: not built
        assert pane.shown_tokens() == [DEMO_TOKENS[0]] and not pane.children  # (nor by this)
        await pilot.press("a")
        app.screen.query_one("#add-tokens").text = DEMO_TOKENS[2]
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: all_loaded(app) and len(app.state.entries) == 2)
        await wait_until(pilot, lambda: "Watching 2" in screen_text(app))
        assert pane.display and shown(app) == [DEMO_TOKENS[0], DEMO_TOKENS[2]]
        text = screen_text(app)
        assert "Filter" in text and "Tea & Biscuits" in text  # the filter row, the new row
        await pilot.press("f", *"tea")
        assert shown(app) == [DEMO_TOKENS[2]] == pane.shown_tokens()
