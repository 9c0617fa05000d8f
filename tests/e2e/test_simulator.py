"""The order-service simulator: wire shape, auth, money, rates, faults, log, server lifecycle."""

from __future__ import annotations

import base64
import gzip
import io
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from orderdash.core.model import jsontext
from orderdash.simulator import (
    DEMO_TOKENS,
    Fault,
    Simulator,
    SimulatorServer,
    create_app,
    run_simulator,
)

SECRET = "s3cr3t-bearer-value"
T0 = 1_700_000_010.0  # 30 s into a 60-second rate period
SRC = Path(__file__).resolve().parents[2] / "src"

ORDER_FIELDS = [
    "companyName",
    "id",
    "customerId",
    "token",
    "coin",
    "coinBaseName",
    "exchangeRate",
    "amountFiat",
    "amount",
    "dueDate",
    "currency",
    "createdAt",
    "createdAtMiliseconds",
    "type",
    "expiresAt",
    "expirationTime",
    "email",
    "address",
    "status",
    "urls",
    "transactions",
]
RATES_FIELDS = ORDER_FIELDS[:18] + ["qrCode"] + ORDER_FIELDS[18:]
TX_FIELDS = ["id", "hash", "hashUrl", "amount", "amountFiat", "createdAt", "createdAtMiliseconds"]
MONEY_FIELDS = ["base", "total", "underPaid", "overPaid"]
CREATED_AT = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$")
AUTH = {"bearer_token": SECRET}


def fixed_clock() -> float:
    return T0


def new_sim(seed: int = 7, demo: bool = True) -> Simulator:
    return Simulator(seed=seed, clock=fixed_clock, with_demo_orders=demo)


def body(response: httpx.Response):
    assert response.headers["content-type"].startswith("application/json")
    return jsontext.loads(response.content)


# ---------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def shared_server():
    sim = new_sim()
    with SimulatorServer(sim, bearer_token=SECRET) as server:
        yield server


@pytest.fixture
def server(shared_server):
    shared_server.sim.clear_faults()
    shared_server.sim.clear_requests()
    yield shared_server
    shared_server.sim.clear_faults()


@pytest.fixture
def sim(server) -> Simulator:
    return server.sim


@pytest.fixture
async def client(server):
    async with httpx.AsyncClient(base_url=server.base_url, timeout=5) as c:
        yield c


@pytest.fixture
async def control(server):
    async with httpx.AsyncClient(base_url=server.root_url + "/_sim", timeout=5) as c:
        yield c


# ---------------------------------------------------------------- wire shape
async def test_get_order_shape_and_field_names(client):
    r = await client.get(f"/order/{DEMO_TOKENS[0]}/")
    assert r.status_code == 200
    doc = body(r)
    assert list(doc) == ["status", "data"] and doc["status"] == 1
    data = doc["data"]
    assert list(data) == ORDER_FIELDS
    assert "qrCode" not in data
    assert data["token"] == DEMO_TOKENS[0]
    assert data["type"] == "Order" and data["dueDate"] is None
    assert (data["coin"], data["coinBaseName"]) == ("Bitcoin", "btc")
    assert list(data["currency"]) == ["id", "currency", "abbreviation"]
    assert data["currency"]["abbreviation"] == "EUR" and data["currency"]["currency"] == "Euro"
    assert list(data["status"]) == ["code", "label"]
    assert data["status"] == {"code": "IN_PROGRESS", "label": "IN_PROGRESS"}
    assert list(data["urls"]) == ["cancelUrl", "successUrl", "callbackUrl"]
    assert all(u.startswith("https://shop.example/") for u in data["urls"].values())
    assert CREATED_AT.match(data["createdAt"])
    assert isinstance(data["createdAtMiliseconds"], int)
    assert data["expiresAt"] > 10**12 and isinstance(data["expirationTime"], int)
    assert data["expirationTime"] == data["expiresAt"] - int(T0 * 1000)
    assert isinstance(data["exchangeRate"], Decimal)
    assert data["exchangeRate"].as_tuple().exponent == -2
    assert isinstance(data["amount"], Decimal) and data["amount"].as_tuple().exponent == -8
    assert data["amountFiat"] == "25.00"
    assert re.fullmatch(r"bc1q[02-9ac-hj-np-z]{38}", data["address"])
    assert data["transactions"], "the default demo order has a payment"
    tx = data["transactions"][0]
    assert list(tx) == TX_FIELDS
    assert list(tx["amount"]) == MONEY_FIELDS and list(tx["amountFiat"]) == MONEY_FIELDS
    assert all(isinstance(v, Decimal) for v in tx["amount"].values())
    assert all(re.fullmatch(r"-?\d+\.\d\d", v) for v in tx["amountFiat"].values())
    assert re.fullmatch(r"[0-9a-f]{64}", tx["hash"])
    assert tx["hashUrl"] == f"https://explorer.example/btc/tx/{tx['hash']}"
    assert CREATED_AT.match(tx["createdAt"])


async def test_rates_shape_and_qr_png(client, sim):
    r = await client.get(f"/orders/api/{DEMO_TOKENS[0]}/rates", headers=AUTH)
    assert r.status_code == 200
    doc = body(r)
    assert list(doc) == ["success", "data", "message"]
    assert doc["success"] is True and doc["message"] is None
    data = doc["data"]
    assert list(data) == RATES_FIELDS
    prefix = "data:image/png;base64,"
    assert data["qrCode"].startswith(prefix)
    png = base64.b64decode(data["qrCode"][len(prefix) :], validate=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    assert width == height and width % 4 == 0 and width >= 21 * 4 + 8 * 4

    import zxingcpp
    from PIL import Image

    image = Image.open(io.BytesIO(png))
    assert image.size == (width, height)
    decoded = [b.text for b in zxingcpp.read_barcodes(image)]
    assert decoded == [data["address"]]


@pytest.mark.parametrize("token", DEMO_TOKENS)
async def test_both_endpoints_serve_the_same_order(client, token):
    order = body(await client.get(f"/order/{quote(token)}/"))["data"]
    rates = body(await client.get(f"/orders/api/{quote(token)}/rates", headers=AUTH))["data"]
    rates.pop("qrCode")
    assert rates == order


async def test_coin_not_chosen_order(client, sim):
    data = body(await client.get("/orders/api/demo-nocoin-eur/rates", headers=AUTH))["data"]
    assert data["coin"] is None and data["coinBaseName"] is None
    assert data["exchangeRate"] is None and data["amount"] is None
    assert data["address"] == "" and data["transactions"] == [] and data["qrCode"] is None
    assert data["amountFiat"] == "10.00"
    with pytest.raises(ValueError):
        sim.add_transaction("demo-nocoin-eur", "1")


def test_demo_orders_cover_coins_currencies_and_states():
    sim = new_sim()
    assert len(DEMO_TOKENS) >= 6 and len(set(DEMO_TOKENS)) == len(DEMO_TOKENS)
    assert sim.tokens() == list(DEMO_TOKENS)
    wires = [sim.order_wire(t, with_qr=False) for t in DEMO_TOKENS]
    coins = {w["coinBaseName"] for w in wires}
    assert {"btc", "eth", "ltc", "doge", "bch", "usdt", None} <= coins
    assert {w["currency"]["abbreviation"] for w in wires} == {"EUR", "USD", "GBP", "CHF"}
    statuses = {w["status"]["code"] for w in wires}
    assert {"IN_PROGRESS", "PAID", "EXPIRED", "OVERPAID"} <= statuses
    assert any(w["email"] for w in wires)
    assert any(len(w["transactions"]) == 3 for w in wires)
    first = wires[0]
    assert first["status"]["code"] == "IN_PROGRESS" and len(first["transactions"]) == 1
    expired = next(w for w in wires if w["status"]["code"] == "EXPIRED")
    assert expired["expirationTime"] == 0
    patterns = {
        "btc": r"bc1q[02-9ac-hj-np-z]{38}",
        "ltc": r"ltc1q[02-9ac-hj-np-z]{38}",
        "eth": r"0x[0-9a-f]{40}",
        "doge": r"D[1-9A-HJ-NP-Za-km-z]{33}",
        "bch": r"bitcoincash:q[02-9ac-hj-np-z]{41}",
        "usdt": r"T[1-9A-HJ-NP-Za-km-z]{33}",
    }
    for w in wires:
        if w["coinBaseName"]:
            assert re.fullmatch(patterns[w["coinBaseName"]], w["address"]), w["address"]
    decimals = {"btc": 8, "ltc": 8, "bch": 8, "doge": 8, "eth": 18, "usdt": 6}
    for w in wires:
        if w["coinBaseName"]:
            assert w["amount"].as_tuple().exponent == -decimals[w["coinBaseName"]]


# ---------------------------------------------------------------- auth and lookup
async def test_rates_requires_the_bearer_header(client):
    path = f"/orders/api/{DEMO_TOKENS[0]}/rates"
    unauthorized = {"success": False, "data": None, "message": "Unauthorized"}
    r = await client.get(path)
    assert r.status_code == 401 and body(r) == unauthorized
    r = await client.get(path, headers={"bearer_token": "nope"})
    assert r.status_code == 401 and body(r) == unauthorized
    r = await client.get(path, headers={"Authorization": f"Bearer {SECRET}"})
    assert r.status_code == 401
    # auth is checked before the lookup: an unknown token without credentials is still 401
    r = await client.get("/orders/api/no-such-order/rates")
    assert r.status_code == 401


async def test_unknown_token_is_404(client):
    r = await client.get("/order/no-such-order/")
    assert r.status_code == 404
    assert body(r) == {"status": 0, "data": None, "message": "Order not found"}
    r = await client.get("/orders/api/no-such-order/rates", headers=AUTH)
    assert r.status_code == 404
    assert body(r) == {"success": False, "data": None, "message": "Order not found"}
    r = await client.get("/nothing/here")
    assert r.status_code == 404 and "message" in body(r)
    r = await client.post(f"/order/{DEMO_TOKENS[0]}/")
    assert r.status_code == 405


@pytest.mark.parametrize("token", ["a/b", "with space", "ünï-çødé", "a?b#c", "%41", "..", "x;y"])
async def test_percent_encoded_tokens_are_looked_up_literally(client, sim, token):
    if not sim.has_order(token):
        sim.create_order(token=token, coin="ltc")
    encoded = quote(token, safe="").replace(".", "%2E")  # else the client resolves ".."
    r = await client.get(f"/order/{encoded}/")
    assert r.status_code == 200, r.text
    assert body(r)["data"]["token"] == token
    r = await client.get(f"/orders/api/{encoded}/rates", headers=AUTH)
    assert r.status_code == 200 and body(r)["data"]["token"] == token
    assert sim.requests[-1]["token"] == token


async def test_slash_token_is_not_split(client, sim):
    if not sim.has_order("a/b"):
        sim.create_order(token="a/b")
    r = await client.get("/order/a/b/")  # unencoded: another path shape, not the token "a/b"
    assert r.status_code == 404


async def test_prefix_mounting():
    sim = new_sim()
    with SimulatorServer(sim, bearer_token=SECRET, prefix="/pay/api/") as server:
        assert server.base_url.endswith(f":{server.port}/pay/api")
        async with httpx.AsyncClient(timeout=5) as c:
            r = await c.get(f"{server.base_url}/order/{DEMO_TOKENS[0]}/")
            assert r.status_code == 200
            r = await c.get(f"{server.base_url}/orders/api/{DEMO_TOKENS[0]}/rates", headers=AUTH)
            assert r.status_code == 200 and body(r)["success"] is True
            r = await c.get(f"{server.root_url}/order/{DEMO_TOKENS[0]}/")
            assert r.status_code == 404
            r = await c.get(f"{server.root_url}/_sim/orders")
            assert r.status_code == 200 and len(body(r)) == len(DEMO_TOKENS)
            r = await c.get(f"{server.base_url}/_sim/orders")
            assert r.status_code == 404


# ---------------------------------------------------------------- money and status
def test_transaction_amounts_and_status_transitions():
    sim = new_sim(demo=False)
    token = sim.create_order(coin="btc", amount_fiat="25.00")
    order = sim.order_wire(token, with_qr=False)
    due = order["amount"]
    assert order["status"]["code"] == "IN_PROGRESS" and order["transactions"] == []

    part = (due / 4).quantize(Decimal("1e-8"))
    tx1 = sim.add_transaction(token, part)
    assert tx1["amount"]["base"] == part and tx1["amount"]["total"] == part
    assert tx1["amount"]["underPaid"] == part - due and tx1["amount"]["overPaid"] == 0
    assert tx1["amountFiat"]["base"] == format(
        (part * order["exchangeRate"]).quantize(Decimal("0.01")), "f"
    )
    assert tx1["amountFiat"]["overPaid"] == "0.00"
    assert Decimal(tx1["amountFiat"]["underPaid"]) < 0
    assert sim.order_wire(token, with_qr=False)["status"]["code"] == "IN_PROGRESS"

    # the amount due stays what it was when the payments were made (the rate is renewed after
    # a transaction, but paying "what remains" pays against the current amount)
    tx2 = sim.add_transaction(token)  # exactly what remains
    now_due = tx2["amount"]["total"]
    assert tx2["amount"]["underPaid"] == 0 and tx2["amount"]["overPaid"] == 0
    assert tx2["amount"]["total"] == part + tx2["amount"]["base"] == now_due
    assert tx2["id"] > tx1["id"] and tx2["hash"] != tx1["hash"]
    wire = sim.order_wire(token, with_qr=False)
    assert wire["status"] == {"code": "PAID", "label": "PAID"}
    assert [t["id"] for t in wire["transactions"]] == [tx1["id"], tx2["id"]]  # newest last

    tx3 = sim.add_transaction(token, "0.00001")
    assert tx3["amount"]["overPaid"] == Decimal("0.00001") and tx3["amount"]["underPaid"] == 0
    assert sim.order_wire(token, with_qr=False)["status"]["code"] == "OVERPAID"

    overpay = sim.create_order(coin="btc")
    due = sim.order_wire(overpay, with_qr=False)["amount"]
    tx = sim.add_transaction(overpay, due * 2)
    assert tx["amount"]["overPaid"] == due and tx["amount"]["underPaid"] == 0
    assert sim.order_wire(overpay, with_qr=False)["status"]["code"] == "OVERPAID"

    with pytest.raises(ValueError):
        sim.add_transaction(overpay, "0.000000001")  # more decimals than btc has
    with pytest.raises(ValueError):
        sim.add_transaction(overpay, "-1")
    with pytest.raises(LookupError):
        sim.add_transaction("missing", "1")


def test_expiry_and_pinned_status():
    sim = new_sim(demo=False)
    unpaid = sim.create_order(lifetime_s=600)
    partly = sim.create_order(lifetime_s=600)
    pinned = sim.create_order(lifetime_s=600)
    sim.add_transaction(partly, "0.00001")
    sim.set_status(pinned, "CANCELED")
    assert sim.order_wire(pinned, with_qr=False)["status"] == {
        "code": "CANCELED",
        "label": "CANCELED",
    }
    sim.advance_clock(599)
    assert sim.order_wire(unpaid, with_qr=False)["expirationTime"] == 1000
    assert sim.order_wire(unpaid, with_qr=False)["status"]["code"] == "IN_PROGRESS"
    sim.advance_clock(2)
    w = sim.order_wire(unpaid, with_qr=False)
    assert w["status"]["code"] == "EXPIRED" and w["expirationTime"] == 0
    assert sim.order_wire(partly, with_qr=False)["status"]["code"] == "UNDERPAID"
    assert sim.order_wire(pinned, with_qr=False)["status"]["code"] == "CANCELED"
    sim.add_transaction(pinned)  # a pinned status stays
    assert sim.order_wire(pinned, with_qr=False)["status"]["code"] == "CANCELED"
    sim.set_status(unpaid, "CONFIRMED", "Paid / Confirmed")
    assert sim.order_wire(unpaid, with_qr=False)["status"] == {
        "code": "CONFIRMED",
        "label": "Paid / Confirmed",
    }


async def test_money_survives_as_decimal(client, sim):
    token = sim.create_order(coin="eth", currency="USD", amount_fiat="123.45")
    r = await client.get(f"/order/{token}/")
    data = jsontext.loads(r.content)["data"]
    assert data["amount"] == sim.order_wire(token, with_qr=False)["amount"]
    assert data["amount"].as_tuple().exponent == -18
    assert format(data["amount"], "f") in r.text  # every digit on the wire
    assert data["amountFiat"] == "123.45"

    tx = sim.add_transaction(token, "0.000123456789012345")
    r = await client.get(f"/orders/api/{token}/rates", headers=AUTH)
    assert "0.000123456789012345" in r.text
    served = jsontext.loads(r.content)["data"]["transactions"][-1]
    assert served["amount"]["base"] == Decimal("0.000123456789012345") == tx["amount"]["base"]
    assert str(served["amount"]["base"]) == "0.000123456789012345"
    assert served["amount"]["underPaid"] == tx["amount"]["underPaid"]
    assert served["amount"]["underPaid"].as_tuple().exponent == -18
    assert served == jsontext.loads(jsontext.dumps(tx))


# ---------------------------------------------------------------- rates
def test_rate_renewal_per_minute_and_after_transactions():
    sim = new_sim(demo=False)
    token = sim.create_order(coin="btc", amount_fiat="25.00")
    closed = sim.create_order(coin="btc", amount_fiat="25.00")
    sim.add_transaction(closed)
    assert sim.order_wire(closed, with_qr=False)["status"]["code"] == "PAID"
    closed_rate = sim.order_wire(closed, with_qr=False)["exchangeRate"]

    def rate_amount(t: str = token) -> tuple[Decimal, Decimal]:
        w = sim.order_wire(t, with_qr=False)
        assert w["amount"] == (Decimal("25.00") / w["exchangeRate"]).quantize(Decimal("1e-8"))
        return w["exchangeRate"], w["amount"]

    first = rate_amount()
    assert Decimal("90000") < first[0] < Decimal("105000")
    assert rate_amount() == first
    sim.advance_clock(29)  # still the same 60-second period
    assert rate_amount() == first
    sim.advance_clock(1)  # a new period starts
    second = rate_amount()
    assert second[0] != first[0] and second[1] != first[1]
    assert abs(second[0] - first[0]) <= first[0] * Decimal("0.0051")
    assert rate_amount() == second
    sim.add_transaction(token, "0.00001")
    third = rate_amount()
    assert third[0] != second[0]
    assert sim.order_wire(closed, with_qr=False)["exchangeRate"] == closed_rate
    sim.advance_clock(60)
    assert rate_amount() != third
    assert sim.order_wire(closed, with_qr=False)["exchangeRate"] == closed_rate  # closed: frozen
    sim.advance_clock(86400 * 30)  # a long jump is bounded and keeps the rate sane
    assert Decimal("1000") < rate_amount()[0] < Decimal("10000000")


async def test_rate_endpoint_serves_renewed_rate(client, sim):
    token = sim.create_order(coin="btc")
    path = f"/orders/api/{token}/rates"
    r1 = body(await client.get(path, headers=AUTH))["data"]["exchangeRate"]
    r2 = body(await client.get(path, headers=AUTH))["data"]["exchangeRate"]
    assert r1 == r2
    sim.advance_clock(60)
    r3 = body(await client.get(path, headers=AUTH))["data"]["exchangeRate"]
    assert r3 != r2
    assert body(await client.get(f"/order/{token}/"))["data"]["exchangeRate"] == r3


async def test_determinism_same_seed_same_text_via_asgi():
    async def scenario(seed: int) -> list[str]:
        sim = new_sim(seed)
        app = create_app(sim, bearer_token=SECRET)
        transport = httpx.ASGITransport(app=app)
        texts = []
        async with httpx.AsyncClient(transport=transport, base_url="http://sim") as c:
            r = await c.post("/_sim/orders", content='{"coin": "eth", "amountFiat": "10.5"}')
            assert r.status_code == 201
            token = jsontext.loads(r.content)["token"]
            sim.add_transaction(token, "0.001")
            sim.advance_clock(61)
            for _ in range(5):
                sim.customer_step()
            for t in [*DEMO_TOKENS, token]:
                texts.append((await c.get(f"/order/{quote(t, safe='')}/")).text)
                r = await c.get(f"/orders/api/{quote(t, safe='')}/rates", headers=AUTH)
                texts.append(r.text)
        return texts

    a, b, c = await scenario(7), await scenario(7), await scenario(8)
    assert a == b
    assert a != c


# ---------------------------------------------------------------- faults
async def test_fault_delay(client, sim):
    sim.add_fault(Fault(endpoint="order", delay=0.8, times=1))
    start = time.monotonic()
    r = await client.get(f"/order/{DEMO_TOKENS[0]}/")
    assert r.status_code == 200 and time.monotonic() - start >= 0.78
    assert sim.faults == []  # used up: the next answer is not held
    start = time.monotonic()
    await client.get(f"/order/{DEMO_TOKENS[0]}/")
    assert time.monotonic() - start < 0.6  # (a loopback answer: far below, even on a busy machine)


async def test_fault_status_retry_after_and_times(client, sim):
    token = sim.create_order()
    sim.add_fault(Fault(token=token, status=429, headers={"Retry-After": "7"}, times=2))
    for _ in range(2):
        r = await client.get(f"/order/{token}/")
        assert r.status_code == 429 and r.headers["retry-after"] == "7"
        assert body(r) == {"message": "Too Many Requests"}
    r = await client.get(f"/order/{token}/")
    assert r.status_code == 200  # exhausted
    assert sim.faults == []


async def test_fault_matching_by_endpoint_and_token(client, sim):
    token = sim.create_order()
    sim.add_fault(Fault(endpoint="rates", status=503))
    sim.add_fault(Fault(token=token, status=500))  # never reached for rates: first match wins
    assert (await client.get(f"/orders/api/{token}/rates", headers=AUTH)).status_code == 503
    assert (await client.get(f"/order/{token}/")).status_code == 500
    assert (await client.get(f"/order/{DEMO_TOKENS[0]}/")).status_code == 200
    assert (await client.get("/nothing")).status_code == 404  # faults touch API endpoints only
    sim.clear_faults()
    assert (await client.get(f"/order/{token}/")).status_code == 200


async def test_fault_body_and_headers(client, sim):
    sim.add_fault(
        Fault(body="<html>proxy error</html>", headers={"Content-Type": "text/html"}, times=1)
    )
    r = await client.get(f"/order/{DEMO_TOKENS[0]}/")
    assert r.status_code == 200 and r.text == "<html>proxy error</html>"
    assert r.headers["content-type"] == "text/html"

    sim.add_fault(Fault(status=302, headers={"Location": "https://evil.example/steal"}, times=1))
    r = await client.get(f"/orders/api/{DEMO_TOKENS[0]}/rates", headers=AUTH)
    assert r.status_code == 302 and r.headers["location"] == "https://evil.example/steal"

    payload = b'{"status": 1, "data": null}'
    sim.add_fault(
        Fault(
            body_b64=base64.b64encode(gzip.compress(payload)).decode(),
            headers={"Content-Encoding": "gzip"},
            times=1,
        )
    )
    r = await client.get(f"/order/{DEMO_TOKENS[0]}/")
    assert r.headers["content-encoding"] == "gzip" and r.content == payload


async def test_fault_drip(client, sim):
    sim.add_fault(Fault(body="x" * 256, drip_delay=0.08, drip_chunk=64, times=1))
    start = time.monotonic()
    arrivals = []
    async with client.stream("GET", f"/order/{DEMO_TOKENS[0]}/") as r:
        async for chunk in r.aiter_raw():
            arrivals.append((time.monotonic() - start, chunk))
    assert b"".join(c for _, c in arrivals) == b"x" * 256
    assert len(arrivals) >= 3
    assert arrivals[-1][0] - arrivals[0][0] >= 0.2


async def test_fault_reset(client, sim):
    normal = (await client.get(f"/order/{DEMO_TOKENS[0]}/")).content
    sim.add_fault(Fault(endpoint="order", reset_after=10, times=1))
    received = b""
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        async with client.stream("GET", f"/order/{DEMO_TOKENS[0]}/") as r:
            assert r.status_code == 200
            assert int(r.headers["content-length"]) == len(normal)
            async for chunk in r.aiter_raw():
                received += chunk
    assert received == normal[:10]
    r = await client.get(f"/order/{DEMO_TOKENS[0]}/")  # the server is fine afterwards
    assert r.status_code == 200


def test_fault_validation():
    with pytest.raises(ValueError):
        Fault(endpoint="charge")
    with pytest.raises(ValueError):
        Fault(body="a", body_b64="YQ==")
    with pytest.raises(ValueError):
        Fault(headers={"X-Bad": "a\r\nInjected: 1"})
    with pytest.raises(ValueError):
        Fault(times=0)
    with pytest.raises(ValueError):
        Fault.from_json({"nope": 1})
    fault = Fault.from_json({"endpoint": "rates", "delay": Decimal("0.5"), "resetAfter": 3})
    assert fault.delay == 0.5 and fault.reset_after == 3


# ---------------------------------------------------------------- request log
async def test_request_log_records_bearer_state_never_the_secret(client, control, sim):
    token = DEMO_TOKENS[0]
    await client.get(f"/order/{token}/")
    await client.get(f"/orders/api/{token}/rates")
    await client.get(f"/orders/api/{token}/rates", headers={"bearer_token": "wrong-one"})
    await client.get(f"/orders/api/{token}/rates", headers=AUTH)
    await client.get("/favicon.ico")
    log = sim.requests
    assert [(e["endpoint"], e["bearer"]) for e in log] == [
        ("order", "missing"),
        ("rates", "missing"),
        ("rates", "wrong"),
        ("rates", "ok"),
        ("other", "missing"),
    ]
    assert all(set(e) == {"t", "method", "path", "endpoint", "token", "bearer"} for e in log)
    assert isinstance(log[0]["t"], float) and log[0]["t"] >= T0
    assert {k: v for k, v in log[0].items() if k != "t"} == {
        "method": "GET",
        "path": f"/order/{token}/",
        "endpoint": "order",
        "token": token,
        "bearer": "missing",
    }
    assert log[-1]["token"] is None
    assert SECRET not in repr(log) and "wrong-one" not in repr(log)
    r = await control.get("/requests")
    assert r.status_code == 200 and SECRET not in r.text
    assert [e["bearer"] for e in body(r)][:4] == ["missing", "missing", "wrong", "ok"]
    assert (await control.delete("/requests")).status_code == 204
    sim.clear_requests()
    assert sim.requests == []


# ---------------------------------------------------------------- control endpoints
async def test_control_endpoints(client, control, sim):
    r = await control.post(
        "/orders",
        content=jsontext.dumps(
            {
                "companyName": "Ctl Shop",
                "coin": "doge",
                "currency": "CHF",
                "amountFiat": "12.5",
                "email": "x@example.com",
                "lifetimeS": 120,
            }
        ),
    )
    assert r.status_code == 201
    token = body(r)["token"]
    assert re.fullmatch(r"[0-9a-f]{32}", token)
    listed = {o["token"]: o for o in body(await control.get("/orders"))}
    assert listed[token] == {
        "token": token,
        "status": "IN_PROGRESS",
        "companyName": "Ctl Shop",
        "coin": "doge",
    }

    r = await control.post(f"/orders/{token}/transactions", content='{"amount": "1.5"}')
    assert r.status_code == 201 and body(r)["amount"]["base"] == Decimal("1.5")
    r = await control.post(f"/orders/{token}/transactions", content="")
    assert r.status_code == 201 and body(r)["amount"]["underPaid"] == 0
    assert body(await client.get(f"/order/{token}/"))["data"]["status"]["code"] == "PAID"

    r = await control.post(f"/orders/{token}/status", content='{"code": "CONFIRMED"}')
    assert r.status_code == 200
    hostile = {
        "companyName": "ACME [/] Corp \x1b[2J",
        "amount": "NaN",
        "extra": [1, Decimal("2.5")],
    }
    r = await control.post(f"/orders/{token}/fields", content=jsontext.dumps(hostile))
    assert r.status_code == 200
    data = body(await client.get(f"/order/{token}/"))["data"]
    assert data["status"] == {"code": "CONFIRMED", "label": "CONFIRMED"}
    assert data["companyName"] == "ACME [/] Corp \x1b[2J" and data["amount"] == "NaN"
    assert data["extra"] == [1, Decimal("2.5")] and data["email"] == "x@example.com"

    r = await control.post("/faults", content='{"endpoint": "order", "status": 503, "times": 1}')
    assert r.status_code == 201
    assert (await client.get(f"/order/{token}/")).status_code == 503
    await control.post("/faults", content='{"status": 500}')
    assert (await control.delete("/faults")).status_code == 204
    assert (await client.get(f"/order/{token}/")).status_code == 200

    before = sim.now()
    r = await control.post("/clock", content='{"advance": 1.5}')
    assert r.status_code == 200 and sim.now() == before + 1.5
    r = await control.post("/customer/step")
    assert r.status_code == 200

    # bad input
    assert (await control.post("/orders", content="{not json")).status_code == 400
    assert (await control.post("/orders", content='{"coin": "xyz"}')).status_code == 400
    assert (await control.post("/orders", content='{"bogus": 1}')).status_code == 400
    assert (await control.post("/orders", content="[1]")).status_code == 400
    assert (await control.post("/faults", content='{"endpoint": "x"}')).status_code == 400
    assert (await control.post("/clock", content='{"advance": "soon"}')).status_code == 400
    r = await control.post("/orders/nope/transactions", content="{}")
    assert r.status_code == 404 and "message" in body(r)
    r = await control.post("/orders/demo-nocoin-eur/transactions", content="{}")
    assert r.status_code == 400
    assert (await control.get("/unknown")).status_code == 404
    assert (await control.put("/orders")).status_code == 405


def test_set_fields_remove_and_qr_of_overridden_address():
    sim = new_sim(demo=False)
    token = sim.create_order()
    sim.set_fields(token, {"address": "x" * 4000}, remove=["email"])
    wire = sim.order_wire(token, with_qr=True)
    assert "email" not in wire and wire["qrCode"] is None  # over QR capacity: no crash
    sim.set_fields(token, {"qrCode": "data:image/png;base64,AAAA"})
    assert sim.order_wire(token, with_qr=True)["qrCode"] == "data:image/png;base64,AAAA"


def test_customer_step():
    sim = new_sim(demo=False)
    assert sim.customer_step() is None
    token = sim.create_order(coin="usdt", amount_fiat="50")
    seen = []
    for _ in range(30):
        tx = sim.customer_step()
        if tx is None:
            break
        seen.append(tx)
    assert seen and all(tx["amount"]["base"] > 0 for tx in seen)
    wire = sim.order_wire(token, with_qr=False)
    assert wire["status"]["code"] in ("PAID", "OVERPAID")
    assert len(wire["transactions"]) == len(seen)
    assert sim.customer_step() is None


# ---------------------------------------------------------------- server lifecycle
async def test_restart_on_the_same_port():
    sim = new_sim()
    server = SimulatorServer(sim, bearer_token=SECRET)
    with server:
        port = server.port
        async with httpx.AsyncClient(base_url=server.base_url, timeout=5) as c:
            assert (await c.get(f"/order/{DEMO_TOKENS[0]}/")).status_code == 200
            server.stop()
            with pytest.raises(httpx.TransportError):
                await c.get(f"/order/{DEMO_TOKENS[0]}/")
            server.start()
            assert server.port == port
            assert (await c.get(f"/order/{DEMO_TOKENS[0]}/")).status_code == 200
    assert not server.running


def test_customer_interval_pays_in_the_background():
    sim = new_sim(demo=False)
    token = sim.create_order(coin="btc")
    with SimulatorServer(sim, bearer_token=SECRET, customer_interval=0.05):
        deadline = time.monotonic() + 2
        while not sim.order_wire(token, with_qr=False)["transactions"]:
            assert time.monotonic() < deadline, "no customer payment arrived"
            time.sleep(0.02)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


def test_run_simulator_stops_cleanly_on_ctrl_c():
    assert callable(run_simulator)
    port = _free_port()
    code = (
        "from orderdash.simulator import run_simulator; "
        f"run_simulator('127.0.0.1', {port}, {SECRET!r}, seed=7, prefix='/pay', "
        "customer_interval=None)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/pay/order/{DEMO_TOKENS[0]}/", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "the simulator did not come up"
                time.sleep(0.05)
        assert r.status_code == 200
        assert proc.stdout is not None
        banner = ""
        while "Ctrl-C" not in banner:  # the banner is printed right after the server is up
            line = proc.stdout.readline()
            assert line, "the simulator exited before printing its banner"
            banner += line
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        out = banner + out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert f"http://127.0.0.1:{port}/pay" in out
    assert SECRET not in out and SECRET not in err


def test_simulator_imports_no_textual_or_rich():
    code = (
        "import sys, orderdash.simulator, orderdash.simulator.server; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stdout + result.stderr


FINE = "0.000128701234567890123456"


def test_an_order_with_a_fixed_coin_amount_keeps_every_digit():
    sim = new_sim(demo=False)
    token = sim.create_order(coin="btc", currency="EUR", amount=FINE)
    wire = sim.order_wire(token, with_qr=False)
    assert wire["amount"] == Decimal(FINE) and str(wire["amount"]) == FINE
    assert wire["amountFiat"] == format(
        (Decimal(FINE) * wire["exchangeRate"]).quantize(Decimal("0.01")), "f"
    )
    sim.advance_clock(180)  # rate renewals move the rate, never this amount
    later = sim.order_wire(token, with_qr=False)
    assert later["exchangeRate"] != wire["exchangeRate"]
    assert later["amount"] == Decimal(FINE)
    tx = sim.add_transaction(token, "0.00012871")  # what a wallet sends: over by a sub-satoshi
    assert tx["amount"]["overPaid"] == 0, "a fraction of the unit is no overpayment"
    assert sim.order_wire(token, with_qr=False)["status"]["code"] == "PAID"
    with pytest.raises(ValueError, match="needs a coin"):
        sim.create_order(coin=None, amount="1")
    with pytest.raises(ValueError, match="positive"):
        sim.create_order(coin="btc", amount="0")


async def test_control_api_creates_an_order_with_a_coin_amount(control, client):
    r = await control.post("/orders", content=f'{{"coin": "btc", "amount": "{FINE}"}}')
    assert r.status_code == 201, r.text
    token = body(r)["token"]
    served = body(await client.get(f"/order/{token}/"))["data"]
    assert str(served["amount"]) == FINE
