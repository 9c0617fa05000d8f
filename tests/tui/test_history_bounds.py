"""The account's history is bounded everywhere: `orders` goes through the private budget and
stops at `history_max_pages` with a warning, as do `watch --account --jsonl` and the dashboard
(which also says how many orders the list cannot hold); a huge history page does not freeze
the dashboard. Against the simulator over loopback (its history faults: `endless_pages`,
`extra_items`)."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from conftest import make_settings, run_cli, serving, wait_until
from orderdash.headless import watch_jsonl
from orderdash.simulator import Fault, Simulator, SimulatorServer
from orderdash.tui.factory import make_app

ACCESS = "access-Hh3-history-bounds"
SIZE = (140, 44)


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with serving(
        SimulatorServer(Simulator(seed=7), access_token=ACCESS, history_page_cap=3)
    ) as server:
        yield server


def history_requests(server: SimulatorServer) -> int:
    return sum(1 for r in server.sim.requests if r["endpoint"] == "history")


def notices(app) -> list[str]:  # noqa: ANN001 - a running OrderDashApp
    return [str(n.message) for n in app._notifications]


# -- orderdash orders ---------------------------------------------------------------------------


def test_orders_stops_an_endless_history_at_the_page_limit_with_one_warning(server) -> None:
    server.sim.add_fault(Fault(endpoint="history", endless_pages=True))
    result = run_cli(
        "orders",
        "--base-url",
        server.base_url,
        env={"ORDERDASH_ACCESS_TOKEN": ACCESS, "ORDERDASH_HISTORY_MAX_PAGES": "4"},
    )
    assert result.returncode == 0, result.stderr
    assert history_requests(server) == 4
    warnings = result.stderr.splitlines()
    assert len(warnings) == 1
    assert warnings[0].startswith("orderdash: warning: stopped after 4 pages of the order history")
    # what was read is listed (3 a page; the pages past the end are empty)
    assert len(result.stdout.splitlines()) == 1 + len(server.sim.tokens())


def test_orders_reads_the_history_through_the_private_budget(server) -> None:
    """A budget of 100 an hour lets 5 starts through at once (its burst): the log-in and four
    pages; the next page would wait ~38 s. Before, 1,000 pages went out in under 2 s."""
    server.sim.add_fault(Fault(endpoint="history", endless_pages=True))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")},
        "ORDERDASH_CONFIG": os.devnull,
        "ORDERDASH_ACCESS_TOKEN": ACCESS,
        "ORDERDASH_RATE_BUDGET_PER_HOUR": "100",
        "ORDERDASH_HISTORY_MAX_PAGES": "1000",
    }
    argv = [sys.executable, "-m", "orderdash", "orders", "--base-url", server.base_url]
    with subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as cli:
        deadline = time.monotonic() + 30
        # up and past its burst: the log-in and the first pages are in
        while history_requests(server) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(3.0)  # the unbudgeted client asked for hundreds of pages by now
        still_running = cli.poll() is None
        cli.kill()
    assert still_running
    assert history_requests(server) == 4
    assert sum(1 for r in server.sim.requests if r["endpoint"] == "login") == 1


def test_orders_stops_at_fifty_pages_by_default(server) -> None:
    server.sim.add_fault(Fault(endpoint="history", endless_pages=True))
    result = run_cli(
        "orders", "--base-url", server.base_url, env={"ORDERDASH_ACCESS_TOKEN": ACCESS}
    )
    assert result.returncode == 0, result.stderr
    assert history_requests(server) == 50
    assert "stopped after 50 pages" in result.stderr


#: A history page of two orders, the second with an amount out of range.
ONE_BAD_ORDER = (
    '{"statusCode": 200, "data": {"items": ['
    '{"id": 1, "token": "good-1", "createdAtMiliseconds": 1795000000000, "amount": "5.00",'
    ' "status": {"code": "IN_PROGRESS", "label": "In progress"},'
    ' "currency": {"id": 1, "currency": "Euro", "abbreviation": "EUR"}},'
    '{"id": 2, "token": "bad-2", "createdAtMiliseconds": 1795000000000, "amount": 1e999999999,'
    ' "status": {"code": "IN_PROGRESS", "label": "In progress"},'
    ' "currency": {"id": 1, "currency": "Euro", "abbreviation": "EUR"}}'
    '], "meta": {"nextPage": null}}}'
)


def test_orders_leaves_out_one_bad_order_and_says_so(server) -> None:
    server.sim.add_fault(Fault(endpoint="history", body=ONE_BAD_ORDER))
    result = run_cli(
        "orders", "--base-url", server.base_url, env={"ORDERDASH_ACCESS_TOKEN": ACCESS}
    )
    assert result.returncode == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["TOKEN", "good-1"]
    assert result.stderr.splitlines() == [
        "orderdash: warning: 1 order of the order history left out, not as the API describes: "
        "item 1 of a page: amount: number out of range"
    ]


# -- watch --account --jsonl ----------------------------------------------------------------------


async def test_watch_account_jsonl_reports_what_an_endless_history_gave_and_a_warning(
    server,
) -> None:
    server.sim.add_fault(Fault(endpoint="history", endless_pages=True))
    settings = make_settings(
        server.base_url,
        bearer=None,
        access_token=SecretStr(ACCESS),
        account_interval=0.3,
        poll_interval=0.2,
        # the default page limit (50), the pages not held back by the budget
        rate_budget_per_minute=10_000,
        rate_budget_per_hour=1_000_000,
    )
    out = io.StringIO()
    task = asyncio.create_task(watch_jsonl(settings, [], out, account=True))

    def lines() -> list[dict]:
        return [json.loads(line) for line in out.getvalue().splitlines()]

    try:
        deadline = asyncio.get_running_loop().time() + 10
        while not (
            any(e["event"] == "warning" for e in lines())
            and any(e["event"] == "state" for e in lines())
        ):
            assert asyncio.get_running_loop().time() < deadline, out.getvalue()
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)  # three more passes: the same warning is not said again
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    warnings = [e for e in lines() if e["event"] == "warning"]
    assert len(warnings) == 1
    assert warnings[0]["source"] == "account" and warnings[0]["token"] is None
    assert warnings[0]["message"].startswith("stopped after 50 pages of the order history")
    assert history_requests(server) >= 100  # the passes went on, each bounded


async def test_watch_account_jsonl_says_how_far_a_long_history_read_is_while_it_goes_on(
    server,
) -> None:
    """An endless history paced by the private budget takes minutes to reach the page limit:
    a `progress` line with the pages read so far comes while the read is still going (before
    its `warning`, which ends it), not silence until then."""
    server.sim.add_fault(Fault(endpoint="history", endless_pages=True))
    settings = make_settings(
        server.base_url,
        bearer=None,
        access_token=SecretStr(ACCESS),
        account_interval=0.3,
        # a few pages at once, then one every 19 s: 50 pages would take a quarter of an hour
        rate_budget_per_hour=200,
    )
    out = io.StringIO()
    task = asyncio.create_task(watch_jsonl(settings, [], out, account=True, progress=(0.2, 0.2)))

    def lines() -> list[dict]:
        return [json.loads(line) for line in out.getvalue().splitlines()]

    try:
        deadline = asyncio.get_running_loop().time() + 5
        while len([e for e in lines() if e["event"] == "progress"]) < 2:
            assert asyncio.get_running_loop().time() < deadline, out.getvalue()
            await asyncio.sleep(0.05)
        read = history_requests(server)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    first, again = [e for e in lines() if e["event"] == "progress"][:2]
    assert first["source"] == "account" and first["token"] is None
    assert first["maxPages"] == 50 and 0 < first["pages"] <= again["pages"] <= read < 50
    assert 0.2 <= first["seconds"] < again["seconds"]
    # the read goes on: no line of its end (the page limit's warning, an order) before these
    assert {e["event"] for e in lines()} == {"progress"}


# -- the dashboard in account mode ----------------------------------------------------------------


def account_app(server: SimulatorServer, **settings):  # noqa: ANN201
    values = {
        "poll_interval": 0.2,
        "refresh_interval": 60.0,
        "account_interval": 0.3,
        "access_token": SecretStr(ACCESS),
        "customer_id": "4711",
        **settings,
    }
    return make_app(make_settings(server.base_url, bearer=None, **values), tokens=())


async def test_the_dashboard_warns_once_when_a_history_pass_stops_at_the_page_limit(
    server,
) -> None:
    server.sim.add_fault(Fault(endpoint="history", endless_pages=True))
    # the default page limit (50), the pages not held back by the budget
    app = account_app(server, rate_budget_per_minute=10_000, rate_budget_per_hour=1_000_000)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(
            pilot, lambda: any("stopped after 50" in n for n in notices(app)), timeout=15
        )
        # the orders read are on the list: the open ones
        await wait_until(pilot, lambda: len(app.state.entries) >= 1)
        await wait_until(pilot, lambda: history_requests(server) >= 150, timeout=15)
        said = [n for n in notices(app) if "stopped after" in n]
    assert said == [
        "The account's order history: stopped after 50 pages of the order history "
        f"(history_max_pages): the account has more orders than the {len(server.sim.tokens())} "
        "read"
    ]


async def test_the_dashboard_lists_the_history_around_one_bad_order_and_says_so(server) -> None:
    server.sim.add_fault(Fault(endpoint="history", body=ONE_BAD_ORDER))
    app = account_app(server, poll_interval=600.0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: "good-1" in app.state.entries)
        await wait_until(pilot, lambda: any("left out" in n for n in notices(app)))
        await pilot.pause(0.7)  # two more reads: said once
        said = [n for n in notices(app) if "left out" in n]
    assert set(app.state.entries) == {"good-1"}
    assert said == [
        "The account's order history: 1 order of the order history left out, not as the API "
        "describes: item 1 of a page: amount: number out of range"
    ]


async def test_the_dashboard_says_how_many_open_orders_the_list_cannot_hold(server) -> None:
    server.sim.add_fault(Fault(endpoint="history", extra_items=5_100, times=1))
    # one order read a minute: the made-up orders (unknown to getOrder) stay on the list
    app = account_app(server, account_interval=600.0, budget_per_minute=1, poll_interval=600.0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: len(app.state.entries) == 5_000, timeout=30)
        await wait_until(pilot, lambda: any("not shown" in n for n in notices(app)), timeout=10)
        full = [n for n in notices(app) if "not shown" in n or "holds at most" in n]
    opened = sum(1 for o in server.sim.list_orders() if o["status"] in ("IN_PROGRESS", "PAID"))
    assert full == [f"{5_100 + opened - 5_000:,} orders not shown: the list holds at most 5,000"]


async def test_a_huge_history_page_does_not_freeze_the_dashboard(server) -> None:
    """50,000 orders in one 8.5 MB page (final ones: the list stays short, so what is measured
    is the reading, not a table of 5,000 rows). The freeze came from full collections of the
    page's objects (each one C call holding the GIL, up to 0.28 s of CPU) and from freeing them
    all at once on the event loop. Measured on 2 cores, the event loop's longest stall: 0.3-0.5 s
    before, under 0.1 s now on a quiet machine, up to ~0.45 s at a load of 11 (the parsing
    thread preempted while it holds the GIL). So the test holds the cause to a bound in CPU
    time, which a busy machine does not stretch, and the stall to a generous one."""
    import gc

    server.sim.add_fault(
        Fault(endpoint="history", extra_items=50_000, extra_status="EXPIRED", times=1)
    )
    collections: list[float] = []
    started: dict[int, float] = {}

    def timed(phase: str, info: dict) -> None:
        # CPU time of the thread collecting: a preempted thread's walk is not longer
        if phase == "start":
            started[threading.get_ident()] = time.thread_time()
        elif threading.get_ident() in started:
            collections.append(time.thread_time() - started.pop(threading.get_ident()))

    app = account_app(server, account_interval=600.0, max_body_mib=9)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)  # up and painted
        loop = asyncio.get_running_loop()
        gaps: list[float] = []
        last = loop.time()
        deadline = last + 60
        gc.callbacks.append(timed)
        try:
            while len(app.account.mode._feed.known) < 50_000:
                assert loop.time() < deadline, "the history was not read"
                await asyncio.sleep(0.005)
                now = loop.time()
                gaps.append(now - last)
                last = now
            for _ in range(40):  # and while the app takes the baseline in
                await asyncio.sleep(0.005)
                now = loop.time()
                gaps.append(now - last)
                last = now
        finally:
            gc.callbacks.remove(timed)
    assert max(collections, default=0.0) < 0.05, sorted(collections)[-5:]
    assert max(gaps) < 1.0, sorted(gaps)[-5:]


async def test_the_watch_table_sizes_thousands_of_rows_as_a_data_table_does() -> None:
    """The watch list's table skips DataTable's measuring of every new cell (its columns have
    fixed widths): the scrollable size it sets is the one DataTable computes."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    from orderdash.tui.widgets.watch_list import WatchTable

    widths = {"alert": 1, "token": 12, "company": 9}

    class Tables(App):
        def compose(self) -> ComposeResult:
            yield WatchTable(id="watch")
            yield DataTable(id="plain")

    app = Tables()
    async with app.run_test(size=(80, 24)) as pilot:
        watch, plain = app.query_one("#watch", WatchTable), app.query_one("#plain", DataTable)
        watch.set_columns(widths, {})
        for key, width in widths.items():
            plain.add_column(key, width=width, key=key)
        for index in range(3_000):
            # cells longer than their columns: a measured width would differ
            row = ("\u25cf", f"token-{index}-with-a-long-tail", "A company name")
            watch.add_row(*row, key=str(index))
            plain.add_row(*row, key=str(index))
        await pilot.pause()
        await pilot.pause()
        assert watch.virtual_size == plain.virtual_size
        assert watch.virtual_size.height == 3_000 + 1


async def test_the_watch_table_does_not_measure_the_cells_of_its_new_rows(monkeypatch) -> None:
    """Measuring 5,000 new rows cell by cell froze the screen ~1.6 s (the account's open
    orders); counted here, not timed."""
    import textual.widgets._data_table as data_table
    from textual.app import App, ComposeResult

    from orderdash.tui.widgets.watch_list import WatchTable

    measured = 0
    measure = data_table.measure

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        nonlocal measured
        measured += 1
        return measure(*args, **kwargs)

    class Tables(App):
        def compose(self) -> ComposeResult:
            yield WatchTable(id="watch")

    app = Tables()
    async with app.run_test(size=(80, 24)) as pilot:
        watch = app.query_one(WatchTable)
        watch.set_columns({"alert": 1, "token": 12, "company": 9}, {})
        await pilot.pause()
        monkeypatch.setattr(data_table, "measure", counting)
        for index in range(2_000):
            watch.add_row("\u25cf", f"token-{index}", "A company", key=str(index))
        await pilot.pause()
        await pilot.pause()
        assert watch.row_count == 2_000
    assert measured == 0
