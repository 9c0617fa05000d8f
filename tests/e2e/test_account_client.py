"""Logging in with the merchant's access token, and the account's order history, against the
simulator over loopback."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from conftest import BEARER, make_settings, serving
from orderdash.core.model.errors import AuthRefused, AuthRequired, InvalidResponse
from orderdash.core.polling.scheduler import Kind
from orderdash.core.polling.watcher import OrderWatcher
from orderdash.core.service.client import OrderClient
from orderdash.simulator import Fault, Simulator, SimulatorServer

ACCESS = "access-Mm4-account-never-shown"


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with serving(
        SimulatorServer(
            Simulator(seed=7),
            bearer_token=BEARER,
            access_token=ACCESS,
            bearer_lifetime=60,
            history_page_cap=4,
        )
    ) as server:
        yield server


def account_client(server: SimulatorServer, access: str = ACCESS, **extra: object) -> OrderClient:
    settings = make_settings(server.base_url, bearer=None, access_token=SecretStr(access), **extra)
    return OrderClient.from_settings(settings)


def endpoints(server: SimulatorServer) -> list[tuple[str, str]]:
    return [(e["endpoint"], e["bearer"]) for e in server.sim.requests]


async def test_logs_in_lazily_before_the_first_private_request(server) -> None:
    token = server.sim.tokens()[0]
    async with account_client(server) as client:
        assert client.has_credentials and not client.has_bearer_token
        await client.get_order(token)
        assert endpoints(server) == [("order", "missing")]  # getOrder is public: no log-in
        fetched = await client.refresh_rate(token)
        await client.refresh_rate(token)
    assert fetched.order.token == token
    assert endpoints(server)[1:] == [("login", "missing"), ("rates", "ok"), ("rates", "ok")]
    assert client.logins == 1


async def test_a_bearer_that_expires_mid_run_is_renewed_once_and_nothing_fails(server) -> None:
    token = server.sim.tokens()[0]
    async with account_client(server) as client:
        await client.refresh_rate(token)
        await client.order_history(0)
        server.sim.advance_clock(61)  # the bought bearer is now past its 60 s
        fetched = await client.refresh_rate(token)
        pages = await client.order_history(0)
        server.sim.advance_clock(61)
        history = await client.account_orders()
    assert fetched.order.token == token and pages.items
    assert len(history.items) == len(server.sim.tokens())
    assert endpoints(server)[:7] == [
        ("login", "missing"),
        ("rates", "ok"),
        ("history", "ok"),
        ("rates", "expired"),
        ("login", "missing"),
        ("rates", "ok"),
        ("history", "ok"),
    ]
    assert endpoints(server)[7:10] == [
        ("history", "expired"),
        ("login", "missing"),
        ("history", "ok"),
    ]
    assert client.logins == 3


async def test_requests_refused_together_share_one_new_log_in(server) -> None:
    tokens = server.sim.tokens()[:5]
    async with account_client(server) as client:
        await asyncio.gather(*(client.refresh_rate(t) for t in tokens))
        server.sim.advance_clock(61)
        await asyncio.gather(*(client.refresh_rate(t) for t in tokens))
    assert client.logins == 2
    assert [e for e, _ in endpoints(server)].count("login") == 2


async def test_a_refused_log_in_is_an_authentication_error_and_never_a_loop(server) -> None:
    token = server.sim.tokens()[0]
    async with account_client(server, access="not-the-access-token") as client:
        with pytest.raises(AuthRefused) as refused:
            await client.refresh_rate(token)
    assert refused.value.exit_code == 4
    assert "access token" in refused.value.message
    assert endpoints(server) == [("login", "missing")]


async def test_a_private_endpoint_that_keeps_refusing_is_retried_once(server) -> None:
    token = server.sim.tokens()[0]
    server.sim.add_fault(Fault(endpoint="rates", status=401))
    async with account_client(server) as client:
        with pytest.raises(AuthRefused):
            await client.refresh_rate(token)
    assert [e for e, _ in endpoints(server)] == ["login", "rates", "login", "rates"]


async def test_bearer_token_alone_works_as_before_and_never_logs_in(server) -> None:
    token = server.sim.tokens()[0]
    settings = make_settings(server.base_url)
    async with OrderClient.from_settings(settings) as client:
        await client.refresh_rate(token)
        await client.order_history(0)
    assert endpoints(server) == [("rates", "ok"), ("history", "ok")]


async def test_without_any_credential_nothing_is_sent(server) -> None:
    settings = make_settings(server.base_url, bearer=None)
    async with OrderClient.from_settings(settings) as client:
        assert not client.has_credentials
        with pytest.raises(AuthRequired):
            await client.order_history(0)
    assert endpoints(server) == []


async def test_pages_capped_below_the_limit_asked_are_all_read(server) -> None:
    sim = server.sim
    for _ in range(3):
        sim.create_order()
    sim.create_order(token="token 1", amount_fiat="5.00", currency="USD")
    async with account_client(server) as client:
        orders = await client.account_orders(limit=50)
    total = len(sim.tokens())
    assert total > 8
    assert sorted(item.token for item in orders.items) == sorted(sim.tokens())
    assert orders.pages == -(-total // 4) and not orders.truncated
    assert [item["token"] for item in orders.raw] == [item.token for item in orders.items]
    pages = [e["path"] for e in sim.requests if e["endpoint"] == "history"]
    assert len(pages) == orders.pages
    newest = orders.items[0]
    assert newest.token == "token 1" and str(newest.amount) == "5.00"


async def test_the_page_bound_stops_a_history_that_never_ends(server) -> None:
    for _ in range(3):
        server.sim.create_order()
    async with account_client(server) as client:
        orders = await client.account_orders(limit=50, max_pages=2)
    assert orders.pages == 2 and orders.truncated and len(orders.items) == 8


async def test_a_history_that_goes_back_is_refused(server) -> None:
    body = (
        '{"statusCode": 200, "data": {"items": [], "meta": {"totalCount": 0, "pagesCount": 1,'
        ' "currentPage": 0, "nextPage": 0}}}'
    )
    server.sim.add_fault(Fault(endpoint="history", body=body))
    async with account_client(server) as client:
        with pytest.raises(InvalidResponse, match="twice"):
            await client.account_orders()


async def test_a_history_item_of_the_wrong_shape_is_left_out_and_counted(server) -> None:
    item = (
        '{{"id": {id}, "token": "t{id}", "createdAtMiliseconds": 1, "amount": {amount},'
        ' "status": {{"code": "X", "label": "X"}},'
        ' "currency": {{"id": 1, "currency": "Euro", "abbreviation": "EUR"}}}}'
    )
    items = [item.format(id=1, amount="5.0e400"), item.format(id=2, amount='"2.50"')]
    items += [item.format(id=3, amount='"NaN"'), "7"]
    body = (
        '{"statusCode": 200, "data": {"items": [' + ", ".join(items) + "],"
        ' "meta": {"nextPage": null}}}'
    )
    server.sim.add_fault(Fault(endpoint="history", body=body))
    async with account_client(server) as client:
        orders = await client.account_orders()
    assert [item.token for item in orders.items] == ["t2"]
    assert [raw["token"] for raw in orders.raw] == ["t2"]
    assert orders.skipped == 3
    assert orders.warnings() == [
        "3 orders of the order history left out, not as the API describes: "
        "item 0 of a page: amount: number out of range"
    ]


async def test_a_history_page_that_is_not_a_page_is_still_an_invalid_response(server) -> None:
    body = '{"statusCode": 200, "data": {"items": "none", "meta": {"nextPage": null}}}'
    server.sim.add_fault(Fault(endpoint="history", body=body))
    async with account_client(server) as client:
        with pytest.raises(InvalidResponse, match="order history"):
            await client.account_orders()


async def test_the_client_repr_and_errors_never_show_the_access_token(server) -> None:
    server.sim.add_fault(
        Fault(endpoint="login", status=401, body='{"message": "bad token ' + ACCESS + '"}')
    )
    async with account_client(server) as client:
        assert ACCESS not in repr(client)
        with pytest.raises(AuthRefused) as refused:
            await client.order_history(0)
    assert ACCESS not in str(refused.value) and ACCESS not in repr(refused.value)
    assert "bad token" in str(refused.value)


class Events:
    def __init__(self) -> None:
        self.rates = 0
        self.failures: list[object] = []

    def on_fetched(self, token, kind, fetched, change) -> None:  # noqa: ANN001
        if kind is Kind.RATES:
            self.rates += 1

    def on_failure(self, token, failure) -> None:  # noqa: ANN001
        self.failures.append(failure)

    def on_status(self, token, status) -> None:  # noqa: ANN001
        pass


async def test_log_ins_and_retries_count_against_the_rate_budget(server) -> None:
    token = server.sim.tokens()[0]
    events = Events()
    async with account_client(server) as client:
        watcher = OrderWatcher(
            client,
            events,
            poll_interval=30,
            refresh_interval=0.2,
            rate_budget_per_minute=1000,
            rate_budget_per_hour=100_000,
        )
        watcher.add(token)
        watcher.focus({token})
        task = asyncio.create_task(watcher.run())
        try:
            for _ in range(200):
                await asyncio.sleep(0.02)
                if events.rates >= 2:
                    break
            server.sim.advance_clock(61)  # the bearer expires mid-run
            seen = events.rates
            for _ in range(200):
                await asyncio.sleep(0.02)
                if events.rates >= seen + 2:
                    break
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        use = {u.name: u for u in watcher.budget_use()}
    log = [e["endpoint"] for e in server.sim.requests]
    assert events.failures == [] and events.rates >= seen + 2
    assert log.count("login") == 2  # the first one and one renewal
    private = log.count("rates") + log.count("login")
    assert use["rate"].last_minute == private
