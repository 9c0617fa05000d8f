"""`watch --account --jsonl`: the account's open orders watched, a line for each order created
after start, then its payment; against the simulator over loopback."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from conftest import make_settings, run_cli, serving
from orderdash.headless import watch_jsonl
from orderdash.simulator import DEMO_TOKENS, Fault, Simulator, SimulatorServer

ACCESS = "access-Ww5-watch-account"


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with serving(
        SimulatorServer(
            Simulator(seed=7), access_token=ACCESS, bearer_lifetime=1, history_page_cap=3
        )
    ) as server:
        yield server


async def wait_for(predicate, timeout: float = 8.0) -> None:  # noqa: ANN001, ASYNC109
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


def events(out: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def test_an_order_created_while_watching_is_reported_then_its_payment(server) -> None:
    sim = server.sim
    settings = make_settings(
        server.base_url,
        bearer=None,
        access_token=SecretStr(ACCESS),
        account_interval=0.3,
        poll_interval=0.2,
        budget_per_minute=1200,
    )
    out = io.StringIO()
    task = asyncio.create_task(watch_jsonl(settings, [], out, account=True))
    try:
        # the baseline: the open orders are read, final ones are not
        await wait_for(lambda: any(r["endpoint"] == "order" for r in sim.requests))
        await asyncio.sleep(0.5)
        read = {r["token"] for r in sim.requests if r["endpoint"] == "order"}
        statuses = {o["token"]: o["status"] for o in sim.list_orders()}
        assert read and all(statuses[t] in ("IN_PROGRESS", "PAID") for t in read)
        assert "demo-doge-chf" not in read  # expired at start
        # orders there at start are not new: a state line each, nothing else
        assert {e["event"] for e in events(out)} <= {"state"}
        token = sim.create_order(token="new order 1", coin="btc", amount_fiat="12.30")
        await wait_for(lambda: any(e["event"] == "order" for e in events(out)))
        await asyncio.sleep(1.5)  # the bought bearer (1 s) expires meanwhile
        sim.add_transaction(token, "0.00001")
        await wait_for(lambda: any(e["event"] == "transaction" for e in events(out)))
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    lines = [e for e in events(out) if e["event"] != "state"]  # the orders there at start
    order = lines[0]
    assert order["event"] == "order" and order["token"] == "new order 1"
    assert order["amountFiat"] == "12.30" and order["currency"] == "EUR"
    assert order["code"] == "IN_PROGRESS"
    assert [e["event"] for e in lines].count("order") == 1
    tx = next(e for e in lines if e["event"] == "transaction")
    assert tx["token"] == "new order 1" and tx["coin"] == "btc"
    assert not [e for e in lines if e["event"] == "error"]
    logins = [r for r in sim.requests if r["endpoint"] == "login"]
    assert len(logins) >= 2  # renewed after the bearer expired, and nothing failed
    # the new order's paths are percent-encoded
    assert any(r["path"].endswith("/order/new%20order%201/") for r in sim.requests)


async def test_a_failing_history_is_one_error_line_then_recovered(server) -> None:
    sim = server.sim
    settings = make_settings(
        server.base_url, bearer=None, access_token=SecretStr(ACCESS), account_interval=0.2
    )
    out = io.StringIO()
    task = asyncio.create_task(watch_jsonl(settings, [DEMO_TOKENS[0]], out, account=True))
    try:
        await wait_for(lambda: any(r["endpoint"] == "history" for r in sim.requests))
        sim.add_fault(Fault(endpoint="history", status=503, times=3))
        await wait_for(lambda: any(e["event"] == "recovered" for e in events(out)))
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    account = [(e["event"], e["token"]) for e in events(out) if e.get("source") == "account"]
    assert account == [("error", None), ("recovered", None)]
    assert "HTTP 503" in next(e for e in events(out) if e.get("source") == "account")["message"]


def test_watch_account_needs_the_access_token(server) -> None:
    result = run_cli("watch", "--account", "--base-url", server.base_url)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert "access token" in result.stderr


async def test_every_history_page_read_is_counted_for_the_private_budget(server) -> None:
    from orderdash.core.polling.account import AccountFeed
    from orderdash.core.service.client import OrderClient

    class Quiet:
        def __init__(self) -> None:
            self.baseline: list[str] = []

        def on_baseline(self, orders) -> None:  # noqa: ANN001
            self.baseline = [o.item.token for o in orders]

        def on_new_order(self, order) -> None:  # noqa: ANN001
            pass

        def on_account_failure(self, error) -> None:  # noqa: ANN001
            pass

        def on_account_recovered(self) -> None:
            pass

    counted: list[int] = []

    class Counting:
        async def take_turn(self) -> None:
            counted.append(1)

        def refused_for_limit(self, retry_after) -> None:  # noqa: ANN001
            pass

    settings = make_settings(server.base_url, bearer=None, access_token=SecretStr(ACCESS))
    quiet = Quiet()
    async with OrderClient.from_settings(settings) as client:
        feed = AccountFeed(client, quiet, interval=60, budget=Counting())
        await feed.read_once()
        await feed.read_once()
    history = [r for r in server.sim.requests if r["endpoint"] == "history"]
    assert len(counted) == len(history) == 2 * 3  # 7 demo orders, 3 a page
    assert sorted(quiet.baseline) == sorted(server.sim.tokens())


async def test_a_bug_while_reading_the_history_is_a_failure_not_the_end() -> None:
    from orderdash.core.polling.account import AccountFeed

    class Broken:
        async def account_orders(self, **_: object) -> None:
            raise RuntimeError("boom")

    failures: list[str] = []

    class Events:
        def on_baseline(self, orders) -> None:  # noqa: ANN001
            pass

        def on_new_order(self, order) -> None:  # noqa: ANN001
            pass

        def on_account_failure(self, error) -> None:  # noqa: ANN001
            failures.append(error.message)

        def on_account_recovered(self) -> None:
            pass

    feed = AccountFeed(Broken(), Events(), interval=60)  # type: ignore[arg-type]
    await feed.read_once()
    await feed.read_once()
    assert failures == ["internal error: RuntimeError: boom"]


async def test_history_reads_wait_for_the_private_budget_not_only_count_in_it(server) -> None:
    """The history shares the rate budget: with room for 4 private requests a minute, a feed
    asked to read every 0.1 s makes at most the log-in and 3 reads, however long it runs."""
    from orderdash.core.polling.account import AccountFeed
    from orderdash.core.polling.watcher import OrderWatcher
    from orderdash.core.service.client import OrderClient

    class Quiet:
        def on_baseline(self, orders) -> None:  # noqa: ANN001
            pass

        def on_new_order(self, order) -> None:  # noqa: ANN001
            pass

        def on_account_failure(self, error) -> None:  # noqa: ANN001
            raise AssertionError(error.message)

        def on_account_recovered(self) -> None:
            pass

    class NoReports:
        def on_fetched(self, *args: object) -> None:
            pass

        on_failure = on_status = on_fetched

    settings = make_settings(server.base_url, bearer=None, access_token=SecretStr(ACCESS))
    async with OrderClient.from_settings(settings) as client:
        watcher = OrderWatcher(
            client,
            NoReports(),
            poll_interval=10,
            refresh_interval=60,
            rate_budget_per_minute=4,
            rate_budget_per_hour=100_000,
        )
        feed = AccountFeed(client, Quiet(), interval=0.1, budget=watcher)
        task = asyncio.create_task(feed.run())
        try:
            await wait_for(lambda: len(server.sim.requests) >= 4)
            await asyncio.sleep(1.0)  # ten more intervals: the budget keeps them waiting
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        use = {u.name: u for u in watcher.budget_use()}
    log = [r["endpoint"] for r in server.sim.requests]
    assert log.count("login") == 1
    assert log.count("history") == 3  # one full read: 7 orders at 3 a page
    assert use["rate"].last_minute == 4
