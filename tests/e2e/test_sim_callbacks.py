"""The simulator POSTs the service's callbacks (coin chosen, payment, status change; never on
expiry) to a callback URL, off the request path, and bends them with the callback faults. A
small receiver on 127.0.0.1 records what arrives; a later callback on another order is the
barrier that proves nothing else came before it (the sender sends in order, one at a time)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest

from orderdash.core.model import jsontext
from orderdash.simulator import Simulator, SimulatorServer, callbacks
from orderdash.simulator.server import banner

BEARER = "bearer-Qx7-never-in-a-callback"
DEADLINE = 5.0
FIELDS = {
    "type",
    "action",
    "status",
    "order_id",
    "client_order_id",
    "transaction_id",
    "received_amount_in_coins",
    "received_amount_in_fiat",
    "fiat_currency",
    "crypto_currency",
    "created_at",
    "order_token",
    "order_expiration",
    "exchange_rate",
}


class Receiver:
    """Records every POST: its headers, raw body and body parsed (JSON or form)."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []
        self.cv = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                raw = self.rfile.read(int(self.headers.get("content-length", "0")))
                kind = self.headers.get("content-type", "")
                if kind.startswith("application/json"):
                    body: Any = jsontext.loads(raw)
                else:
                    body = dict(parse_qsl(raw.decode("ascii"), keep_blank_values=True))
                # recorded before the answer: the sender sends the next one only after it
                with receiver.cv:
                    receiver.posts.append(
                        {"headers": dict(self.headers), "raw": raw, "body": body, "kind": kind}
                    )
                    receiver.cv.notify_all()
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/callback"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def until(self, token: str, count: int = 1) -> list[dict[str, Any]]:
        """Every body received once `count` callbacks for `token` have come (5 s at most)."""
        deadline = time.monotonic() + DEADLINE
        with self.cv:
            while sum(p["body"]["order_token"] == token for p in self.posts) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"no callback for {token}: {self.posts}"
                self.cv.wait(left)
            return [p["body"] for p in self.posts]

    def clear(self) -> None:
        with self.cv:
            self.posts.clear()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture(scope="module")
def server(receiver: Receiver) -> Iterator[SimulatorServer]:
    sim = Simulator(seed=7, with_demo_orders=False, callback_url=receiver.url)
    with SimulatorServer(sim, bearer_token=BEARER) as s:
        yield s


@pytest.fixture
def ctl(server: SimulatorServer, receiver: Receiver) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.root_url, timeout=5) as client:
        client.delete("/_sim/faults")
        yield client
        client.delete("/_sim/faults")
    server.sim.callbacks.configure(receiver.url)
    receiver.clear()
    server.sim.callbacks.clear_log()


def new_order(ctl: httpx.Client, **fields: Any) -> str:
    response = ctl.post("/_sim/orders", json={"coin": "btc", "amountFiat": "25.00", **fields})
    assert response.status_code == 201
    token: str = response.json()["token"]
    return token


def barrier(ctl: httpx.Client, receiver: Receiver) -> list[dict[str, Any]]:
    """Every callback received up to a fresh order's (which the sender sends after them)."""
    token = new_order(ctl)
    bodies = receiver.until(token)
    return [b for b in bodies if b["order_token"] != token]


def pay(ctl: httpx.Client, token: str, amount: str | None = None) -> dict[str, Any]:
    response = ctl.post(f"/_sim/orders/{token}/transactions", json={"amount": amount})
    assert response.status_code == 201
    tx: dict[str, Any] = jsontext.loads(response.content)
    return tx


def get_order(ctl: httpx.Client, token: str) -> dict[str, Any]:
    response = ctl.get(f"/order/{token}/")
    assert response.status_code == 200
    data: dict[str, Any] = jsontext.loads(response.content)["data"]
    return data


def fault(ctl: httpx.Client, kind: str, **more: Any) -> None:
    response = ctl.post("/_sim/faults", json={"endpoint": "callback", "callback": kind, **more})
    assert response.status_code == 201


def test_a_payment_is_one_callback_with_the_documented_body(
    ctl: httpx.Client, receiver: Receiver
) -> None:
    token = new_order(ctl, lifetimeS=3600)
    receiver.until(token)
    receiver.clear()
    tx = pay(ctl, token, "0.0001")
    (body,) = [b for b in barrier(ctl, receiver) if b["order_token"] == token]
    order = get_order(ctl, token)
    assert set(body) == FIELDS
    assert body["type"] == "order callback"
    assert body["action"] == "receive_transaction"
    assert body["status"] == order["status"]["code"] == "IN_PROGRESS"
    assert body["order_id"] == order["id"]
    assert body["transaction_id"] == tx["id"]
    assert body["received_amount_in_coins"] == tx["amount"]["base"] == Decimal("0.0001")
    assert body["received_amount_in_fiat"] == tx["amountFiat"]["base"]
    assert (body["fiat_currency"], body["crypto_currency"]) == ("EUR", "BTC")
    assert body["created_at"] == order["createdAt"]
    assert body["order_expiration"] == 60
    rate = Decimal(tx["amountFiat"]["base"]) / Decimal("0.0001")
    assert abs(body["exchange_rate"] - rate) < Decimal("100")
    (post,) = [p for p in receiver.posts if p["body"]["order_token"] == token]
    assert post["kind"] == "application/json"
    assert "bearer_token" not in {name.lower() for name in post["headers"]}
    assert BEARER.encode() not in post["raw"] and b"demo" not in post["raw"]
    log = ctl.get("/_sim/callbacks").json()
    (logged,) = [e for e in log if e["token"] == token and e["event"] == "payment"]
    assert (logged["event"], logged["status"], logged["error"]) == ("payment", 200, None)
    assert logged["url"] == receiver.url


def test_the_coin_chosen_is_one_callback(
    server: SimulatorServer, ctl: httpx.Client, receiver: Receiver
) -> None:
    made = ctl.post(
        "/api/generateOrder",
        json={
            "customer_id": 4711,
            "access_token": "demo",
            "order_id": "shop-17",
            "order_token": "cb-coin-1",
            "amount": "12.50",
        },
    )
    assert made.status_code == 200
    assert barrier(ctl, receiver) == []  # no coin yet: no callback
    receiver.clear()
    bearer = ctl.post("/orders/api/login", json={"token": "demo"}).json()["data"]
    chosen = ctl.post(
        "/orders/api/cb-coin-1", json={"coin": "ETH"}, headers={"bearer_token": bearer}
    )
    assert chosen.status_code == 200
    (body,) = barrier(ctl, receiver)
    assert body["order_token"] == "cb-coin-1" and body["client_order_id"] == "shop-17"
    assert (body["action"], body["status"], body["crypto_currency"]) == (
        "status_update",
        "IN_PROGRESS",
        "ETH",
    )
    assert body["transaction_id"] is None and body["received_amount_in_coins"] == 0


def test_a_status_change_is_one_callback_and_a_full_payment_two(
    ctl: httpx.Client, receiver: Receiver
) -> None:
    token = new_order(ctl)
    receiver.until(token)
    receiver.clear()
    assert ctl.post(f"/_sim/orders/{token}/status", json={"code": "CANCELED"}).status_code == 200
    (body,) = barrier(ctl, receiver)
    assert (body["order_token"], body["action"], body["status"]) == (
        token,
        "status_update",
        "CANCELED",
    )
    paid = new_order(ctl)
    receiver.until(paid)
    receiver.clear()
    pay(ctl, paid)
    bodies = barrier(ctl, receiver)
    assert [(b["action"], b["status"]) for b in bodies] == [
        ("receive_transaction", "PAID"),
        ("status_update", "PAID"),
    ]


def test_expiry_is_never_a_callback(ctl: httpx.Client, receiver: Receiver) -> None:
    token = new_order(ctl, lifetimeS=60)
    receiver.until(token)
    receiver.clear()
    assert ctl.post("/_sim/clock", json={"advance": 120}).status_code == 200
    assert get_order(ctl, token)["status"]["code"] == "EXPIRED"
    pinned = new_order(ctl)
    receiver.until(pinned)
    receiver.clear()
    ctl.post(f"/_sim/orders/{pinned}/status", json={"code": "EXPIRED"})
    assert barrier(ctl, receiver) == []


def test_a_lost_callback_is_not_sent_but_logged(ctl: httpx.Client, receiver: Receiver) -> None:
    token = new_order(ctl)
    receiver.until(token)
    fault(ctl, "lost", token=token, times=1)
    receiver.clear()
    pay(ctl, token, "0.0001")
    assert barrier(ctl, receiver) == []
    (lost,) = [e for e in ctl.get("/_sim/callbacks").json() if e["fault"] == "lost"]
    assert lost["token"] == token and lost["status"] is None and lost["event"] == "payment"
    receiver.clear()
    pay(ctl, token, "0.0001")  # `times` spent: the next one goes
    assert [b["order_token"] for b in barrier(ctl, receiver)] == [token]


def test_a_duplicated_callback_comes_twice(ctl: httpx.Client, receiver: Receiver) -> None:
    token = new_order(ctl)
    receiver.until(token)
    fault(ctl, "duplicate", token=token, times=1)
    receiver.clear()
    pay(ctl, token, "0.0001")
    first, second = barrier(ctl, receiver)
    assert first == second and first["order_token"] == token


def test_a_delayed_callback_comes_after_later_ones(ctl: httpx.Client, receiver: Receiver) -> None:
    token = new_order(ctl)
    receiver.until(token)
    fault(ctl, "delayed", token=token, times=1, delay=0.3)
    receiver.clear()
    start = time.monotonic()
    pay(ctl, token, "0.0001")
    assert barrier(ctl, receiver) == []  # a later callback went first
    (late,) = [b for b in receiver.until(token) if b["order_token"] == token]
    assert time.monotonic() - start >= 0.3
    assert late["action"] == "receive_transaction"


def test_an_out_of_order_callback_comes_after_the_next(
    ctl: httpx.Client, receiver: Receiver
) -> None:
    token = new_order(ctl)
    receiver.until(token)
    fault(ctl, "out_of_order", token=token, times=1)
    receiver.clear()
    pay(ctl, token, "0.0001")
    ctl.post(f"/_sim/orders/{token}/status", json={"code": "CANCELED"})
    bodies = receiver.until(token, 2)
    assert [(b["action"], b["status"]) for b in bodies] == [
        ("status_update", "CANCELED"),
        ("receive_transaction", "IN_PROGRESS"),
    ]


def test_a_forged_callback_disagrees_with_get_order(ctl: httpx.Client, receiver: Receiver) -> None:
    token = new_order(ctl)
    receiver.until(token)
    fault(ctl, "forged", token=token, times=1)
    receiver.clear()
    tx = pay(ctl, token, "0.0001")
    (body,) = barrier(ctl, receiver)
    order = get_order(ctl, token)
    assert order["status"]["code"] == "IN_PROGRESS" and body["status"] == "CONFIRMED"
    assert body["received_amount_in_coins"] == tx["amount"]["base"] * 10
    assert Decimal(body["received_amount_in_fiat"]) == Decimal(tx["amountFiat"]["base"]) * 10


def test_an_unknown_token_callback_comes_before_the_real_one(
    ctl: httpx.Client, receiver: Receiver
) -> None:
    token = new_order(ctl)
    receiver.until(token)
    fault(ctl, "unknown_token", token=token, times=1)
    receiver.clear()
    pay(ctl, token, "0.0001")
    stray, real = barrier(ctl, receiver)
    known = {o["token"] for o in ctl.get("/_sim/orders").json()}
    assert stray["order_token"] not in known and real["order_token"] == token
    assert stray["order_id"] == 0 and real["action"] == stray["action"]


def test_the_form_encoded_variant_carries_the_same_fields(
    server: SimulatorServer, ctl: httpx.Client, receiver: Receiver
) -> None:
    answer = ctl.post("/_sim/callbacks", json={"url": receiver.url, "form": True})
    assert answer.status_code == 200
    token = new_order(ctl)
    receiver.until(token)
    (post,) = [p for p in receiver.posts if p["body"]["order_token"] == token]
    assert post["kind"] == "application/x-www-form-urlencoded"
    assert set(post["body"]) == FIELDS and post["body"]["transaction_id"] == ""
    assert post["body"]["received_amount_in_coins"] == "0"


def test_a_standing_rotation_loses_every_other_callback(receiver: Receiver) -> None:
    sim = Simulator(seed=7, with_demo_orders=False)
    sim.callbacks.configure(receiver.url, faults=("lost",))
    try:
        tokens = [sim.create_order(coin="btc") for _ in range(4)]
        receiver.until(tokens[3])
        got = {p["body"]["order_token"] for p in receiver.posts}
        assert [t in got for t in tokens] == [False, True, False, True]
    finally:
        sim.callbacks.close()
        receiver.clear()


def blackhole() -> socket.socket:
    """A socket that listens and never accepts: a connection hangs until its timeout."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1000)
    return sock


def test_an_unreachable_callback_url_never_slows_the_api() -> None:
    hole = blackhole()
    sim = Simulator(seed=7, with_demo_orders=False)
    sim.callbacks.configure(f"http://127.0.0.1:{hole.getsockname()[1]}/cb", timeout=0.3)
    try:
        with SimulatorServer(sim) as server, httpx.Client(base_url=server.root_url) as ctl:
            token = new_order(ctl, amountFiat="100000.00")
            start = time.monotonic()
            for _ in range(40):
                pay(ctl, token, "0.00001")
                get_order(ctl, token)
            assert time.monotonic() - start < 2.0  # each callback would wait 0.3 s
            deadline = time.monotonic() + DEADLINE
            while not any(e["error"] for e in ctl.get("/_sim/callbacks").json()):
                assert time.monotonic() < deadline
                threading.Event().wait(0.02)
            (failed, *_) = [e for e in ctl.get("/_sim/callbacks").json() if e["error"]]
            assert failed["status"] is None and "Timeout" in failed["error"]
    finally:
        hole.close()


def test_a_fault_for_any_endpoint_leaves_the_callbacks_alone(
    ctl: httpx.Client, receiver: Receiver
) -> None:
    assert ctl.post("/_sim/faults", json={"status": 503, "times": 1}).status_code == 201
    token = new_order(ctl)
    assert receiver.until(token)[0]["order_token"] == token
    assert ctl.get(f"/order/{token}/").status_code == 503  # still there for the API


def test_the_server_takes_the_callback_settings_and_says_where_they_go(
    receiver: Receiver,
) -> None:
    sim = Simulator(seed=7, with_demo_orders=True)
    server = SimulatorServer(sim, callback_url=receiver.url, callback_faults=("duplicate",))
    try:
        with server:
            lines = banner(server, sim, {})
            assert f"  callbacks: POST to {receiver.url}" in "\n".join(lines)
            token = sim.create_order(coin="eth")
            assert [b["order_token"] for b in receiver.until(token, 2)] == [token, token]
            assert sim.callbacks.deliveries[0]["fault"] == "duplicate"
    finally:
        receiver.clear()


def test_a_full_queue_drops_the_new_callback_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(callbacks, "QUEUE_LIMIT", 3)
    hole = blackhole()
    sim = Simulator(seed=7, with_demo_orders=False)
    sim.callbacks.configure(f"http://127.0.0.1:{hole.getsockname()[1]}/cb", timeout=0.2)
    try:
        start = time.monotonic()
        for _ in range(10):
            sim.create_order(coin="btc")
        assert time.monotonic() - start < 0.5
        full = [e for e in sim.callbacks.deliveries if e["error"] == "not sent: the queue is full"]
        assert 5 <= len(full) <= 7  # one being sent, three waiting, the rest dropped
    finally:
        sim.callbacks.close(timeout=1.0)
        hole.close()
