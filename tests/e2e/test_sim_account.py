"""The simulator's account endpoints (docs/account-api.md): log-in, expiring bearers, paged
history."""

from __future__ import annotations

import base64
import json

import httpx
import pytest

from conftest import serving
from orderdash.core.model import jsontext
from orderdash.simulator import Simulator, SimulatorServer

SECRET = "fixed-bearer-for-sim-account"
ACCESS = "access-Qz9-account"
T0 = 1_700_000_010.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def server():
    clock = Clock()
    sim = Simulator(seed=7, clock=clock)
    with serving(
        SimulatorServer(
            sim, bearer_token=SECRET, access_token=ACCESS, bearer_lifetime=120, history_page_cap=3
        )
    ) as server:
        server.clock = clock  # type: ignore[attr-defined]
        yield server


@pytest.fixture
async def client(server):
    server.sim.clear_requests()
    async with httpx.AsyncClient(base_url=server.base_url, timeout=5) as c:
        yield c


async def login(client: httpx.AsyncClient, token: str = ACCESS) -> httpx.Response:
    return await client.post("/orders/api/login", json={"token": token})


async def test_login_answers_the_published_shape_with_a_jwt_shaped_bearer(client, server):
    response = await login(client)
    assert response.status_code == 200
    document = jsontext.loads(response.content)
    assert list(document) == ["success", "data", "message"]
    assert document["success"] is True and document["message"] is None
    header, payload, signature = document["data"].split(".")
    assert document["data"].startswith("eyJ")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["iat"] == int(server.sim.now())
    assert claims["exp"] - claims["iat"] == 120
    assert signature


async def test_login_refuses_a_wrong_or_missing_access_token(client):
    refused = await login(client, "not-the-token")
    assert refused.status_code == 401
    assert jsontext.loads(refused.content)["success"] is False
    assert (await client.post("/orders/api/login", json={})).status_code == 422
    assert (await client.get("/orders/api/login")).status_code == 405


async def test_issued_bearer_expires_and_the_fixed_one_does_not(client, server):
    bearer = jsontext.loads((await login(client)).content)["data"]
    history = "/orders/api?page=0&limit=2"
    assert (await client.get(history, headers={"bearer_token": bearer})).status_code == 200
    server.clock.now += 121
    try:
        expired = await client.get(history, headers={"bearer_token": bearer})
        assert expired.status_code == 401
        # and on the rate endpoint too
        token = server.sim.tokens()[0]
        rates = await client.get(f"/orders/api/{token}/rates", headers={"bearer_token": bearer})
        assert rates.status_code == 401
        fixed = await client.get(history, headers={"bearer_token": SECRET})
        assert fixed.status_code == 200
        fresh = jsontext.loads((await login(client)).content)["data"]
        assert (await client.get(history, headers={"bearer_token": fresh})).status_code == 200
    finally:
        server.clock.now = T0
    log = server.sim.requests
    assert [e["bearer"] for e in log if e["endpoint"] == "history"] == [
        "ok",
        "expired",
        "ok",
        "ok",
    ]
    assert any(e["endpoint"] == "login" for e in log)


async def test_history_pages_are_capped_below_the_limit_and_end_with_null(client, server):
    total = len(server.sim.tokens())
    assert total > 6
    seen: list[str] = []
    page: int | None = 0
    pages = 0
    while page is not None:
        response = await client.get(
            f"/orders/api?page={page}&limit=50", headers={"bearer_token": SECRET}
        )
        assert response.status_code == 200
        document = jsontext.loads(response.content)
        assert document["statusCode"] == 200
        data = document["data"]
        assert len(data["items"]) <= 3
        meta = data["meta"]
        assert meta["currentPage"] == page and meta["totalCount"] == total
        assert meta["pagesCount"] == -(-total // 3)
        seen += [item["token"] for item in data["items"]]
        page = meta["nextPage"]
        pages += 1
    assert pages == -(-total // 3)
    assert sorted(seen) == sorted(server.sim.tokens())
    item = data["items"][0]
    assert list(item) == ["id", "token", "createdAtMiliseconds", "amount", "status", "currency"]
    assert isinstance(item["amount"], str)
    assert set(item["status"]) == {"code", "label"}


async def test_history_needs_a_bearer_and_sane_numbers(client):
    assert (await client.get("/orders/api?page=0&limit=5")).status_code == 401
    auth = {"bearer_token": SECRET}
    assert (await client.get("/orders/api?page=-1", headers=auth)).status_code == 400
    assert (await client.get("/orders/api?limit=0", headers=auth)).status_code == 400
    past = await client.get("/orders/api?page=999&limit=5", headers=auth)
    data = jsontext.loads(past.content)["data"]
    assert data["items"] == [] and data["meta"]["nextPage"] is None


async def test_account_requests_are_logged_without_bodies(client, server):
    await login(client)
    await client.get("/orders/api?page=0&limit=2", headers={"bearer_token": SECRET})
    log = server.sim.requests
    assert [(e["method"], e["endpoint"]) for e in log] == [
        ("POST", "login"),
        ("GET", "history"),
    ]
    assert ACCESS not in json.dumps(log, default=str)


async def test_faults_apply_to_login_and_history(client, server):
    from orderdash.simulator import Fault

    server.sim.add_fault(Fault(endpoint="login", status=503, times=1))
    try:
        assert (await login(client)).status_code == 503
        assert (await login(client)).status_code == 200
    finally:
        server.sim.clear_faults()


async def test_ui_get_order_lists_coins_until_one_is_chosen(client, server) -> None:
    sim = server.sim
    token = sim.create_order(token="ui order 1", coin=None, amount_fiat="5.00")
    auth = {"bearer_token": SECRET}
    path = "/orders/api/ui%20order%201"
    assert (await client.get(path)).status_code == 401
    before = jsontext.loads((await client.get(path, headers=auth)).content)
    assert before["success"] is True and before["message"] is None
    data = before["data"]
    assert data["token"] == token and data["coin"] is None and data["amount"] is None
    assert {"id": 1, "name": "Bitcoin", "code": "BTC", "basename": "btc"} in data["coins"]
    chosen = await client.post(path, headers=auth, json={"coin": "BTC"})
    assert chosen.status_code == 200
    answer = jsontext.loads(chosen.content)
    assert answer["status"] == 1
    order = answer["data"]
    assert order["coinBaseName"] == "btc" and order["address"] and order["qrCode"]
    assert order["amount"] is not None and order["exchangeRate"] is not None
    after = jsontext.loads((await client.get(path, headers=auth)).content)["data"]
    assert "coins" not in after and after["amount"] == order["amount"]
    again = await client.post(path, headers=auth, json={"coin": "eth"})
    assert again.status_code == 422
    error = jsontext.loads(again.content)
    assert error["status"] == "error" and error["status_code "] == 422
    assert "chosen already" in error["message"]["coin"]
    # the getOrder of the same order now has the coin too
    assert jsontext.loads((await client.get("/order/ui%20order%201/")).content)["data"]["coin"]


async def test_choose_coin_refuses_what_is_not_offered(client, server) -> None:
    sim = server.sim
    sim.create_order(token="ui-order-2", coin=None)
    auth = {"bearer_token": SECRET}
    for body in ({"coin": "xmr"}, {}, {"coin": 5}):
        answer = await client.post("/orders/api/ui-order-2", headers=auth, json=body)
        assert answer.status_code == 422, body
    sim.set_status("ui-order-2", "CANCELED")
    closed = await client.post("/orders/api/ui-order-2", headers=auth, json={"coin": "ltc"})
    assert closed.status_code == 422
    missing = await client.get("/orders/api/no-such-order", headers=auth)
    assert missing.status_code == 404


def create_body(token: str, **changes: object) -> dict[str, object]:
    body: dict[str, object] = {
        "customer_id": "4711",
        "access_token": ACCESS,
        "order_id": "counter-1",
        "order_token": token,
        "amount": "5.00",
    }
    body.update(changes)
    return body


async def test_generate_order_makes_one_order_per_token_under_its_own_prefix() -> None:
    sim = Simulator(seed=7)
    with SimulatorServer(
        sim, bearer_token=SECRET, access_token=ACCESS, prefix="/pay", create_prefix="/listener"
    ) as server:
        async with httpx.AsyncClient(base_url=server.root_url, timeout=5) as client:
            # not under the order API's prefix
            wrong = await client.post("/pay/api/generateOrder", json=create_body("c1"))
            assert wrong.status_code == 404
            made = await client.post("/listener/api/generateOrder", json=create_body("c 1"))
            assert made.status_code == 200
            answer = jsontext.loads(made.content)
            assert answer["success"] is True and answer["message"] is None
            assert answer["data"]["token"] == "c 1"
            assert answer["data"]["payment_url"].endswith("?token=c%201")
            again = await client.post("/listener/api/generateOrder", json=create_body("c 1"))
            assert again.status_code == 422
            error = jsontext.loads(again.content)
            assert error["status_code "] == 422 and "already been taken" in str(error["message"])
            order = jsontext.loads((await client.get("/pay/order/c%201/")).content)["data"]
            assert order["coin"] is None and order["amountFiat"] == "5.00"
            missing = await client.post(
                "/listener/api/generateOrder", json=create_body("c2", amount=None)
            )
            assert jsontext.loads(missing.content)["message"] == {
                "amount": "The amount field is required."
            }
            wrong_customer = await client.post(
                "/listener/api/generateOrder", json=create_body("c3", customer_id="1")
            )
            assert wrong_customer.status_code == 422
            refused = await client.post(
                "/listener/api/generateOrder", json=create_body("c4", access_token="nope")
            )
            assert refused.status_code == 401
    assert [t for t in sim.tokens() if t.startswith("c")] == ["c 1"]
    assert ACCESS not in json.dumps(sim.requests, default=str)


async def test_generate_order_second_form_and_the_hourly_cap() -> None:
    sim = Simulator(seed=7)
    with SimulatorServer(
        sim, bearer_token=SECRET, access_token=ACCESS, create_answer="status", create_per_hour=2
    ) as server:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=5) as client:
            first = await client.post("/api/generateOrder", json=create_body("k1"))
            assert first.status_code == 201
            answer = jsontext.loads(first.content)
            assert answer["status"] == 1 and answer["message"]["token"] == "k1"
            assert (await client.post("/api/generateOrder", json=create_body("k2"))).is_success
            capped = await client.post("/api/generateOrder", json=create_body("k3"))
            assert capped.status_code == 429 and int(capped.headers["retry-after"]) > 0
            sim.advance_clock(3601)
            assert (await client.post("/api/generateOrder", json=create_body("k3"))).is_success
