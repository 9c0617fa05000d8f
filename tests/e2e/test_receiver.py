"""The shop's callback receiver (`orderdash receive`) against the simulator over loopback: the
simulator sends its callbacks to the receiver, which journals each in a real book (SQLite; one
test on PostgreSQL), reads the order once with getOrder (counted in the simulator's request
log) and writes what getOrder said to the book. The body is never the order's truth."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from conftest import BEARER, make_settings, serving
from orderdash.callback_server import server as receive_command
from orderdash.core.ledger.open import open_book
from orderdash.core.ledger.sqlite import SqliteEngine
from orderdash.core.ledger.store import SqlBook
from orderdash.core.model import jsontext
from orderdash.core.receiver import MAX_BODY_BYTES
from orderdash.simulator import Simulator, SimulatorServer
from support.receiver_run import RunningReceiver


@pytest.fixture
def sim_server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=7, with_demo_orders=False)
    with serving(SimulatorServer(sim, bearer_token=BEARER, port=0)) as server:
        yield server


@pytest.fixture
def book(tmp_path: Path) -> Iterator[SqlBook]:
    opened = SqlBook(SqliteEngine(tmp_path / "ledger.sqlite3"))
    yield opened
    opened.close_connection()


def receiving(server: SimulatorServer, book: SqlBook, **settings: Any) -> RunningReceiver:
    running = RunningReceiver(make_settings(server.base_url, till="back-office", **settings), book)
    return running


def reads_of(server: SimulatorServer, token: str) -> int:
    """getOrders the simulator was sent for `token`."""
    return sum(1 for r in server.sim.requests if r["endpoint"] == "order" and r["token"] == token)


def seen_status(book: SqlBook, token: str) -> str:
    (seen,) = book.orders_seen([token])
    order = jsontext.loads(seen.order_json)
    return str(order["status"]["code"])


def new_order(server: SimulatorServer) -> str:
    return server.sim.create_order(coin="btc", amount_fiat="25.00", lifetime_s=3600)


def test_a_payment_is_one_callback_one_read_and_the_order_in_the_book(
    sim_server: SimulatorServer, book: SqlBook
) -> None:
    token = new_order(sim_server)  # before the callbacks go to the receiver: no callback
    with receiving(sim_server, book) as receiver:
        sim_server.sim.callbacks.configure(receiver.url)
        assert receiver.url.startswith("http://127.0.0.1:") and receiver.url.endswith("/callback")
        sim_server.sim.add_transaction(token, "0.00001")  # a part: one callback, the payment's
        (row,) = receiver.journal_until(1)
        receiver.wait_for(lambda: receiver.pulled == [token])
    assert (row.token, row.source, row.outcome) == (token, "127.0.0.1", "pulled")
    assert '"receive_transaction"' in row.body
    assert reads_of(sim_server, token) == 1
    (seen,) = book.orders_seen([token])
    (paid,) = jsontext.loads(seen.order_json)["transactions"]
    assert paid["amount"]["base"] == Decimal("0.00001")  # the payment is in the book


def test_one_callback_is_heard_by_every_till_on_the_book(
    sim_server: SimulatorServer, book: SqlBook, tmp_path: Path
) -> None:
    """The receiver announces the order it wrote: three tills on the same book (each its own
    connection, as three processes have) hear its token, and none of them reads the order."""
    token = new_order(sim_server)
    tills = [SqlBook(SqliteEngine(tmp_path / "ledger.sqlite3")) for _ in range(3)]
    listening = [till.listen() for till in tills]
    try:
        with receiving(sim_server, book) as receiver:
            sim_server.sim.callbacks.configure(receiver.url)
            sim_server.sim.add_transaction(token, "0.00001")
            receiver.journal_until(1)
            receiver.wait_for(lambda: receiver.pulled == [token])
            heard = [ears.wait(5.0) for ears in listening]
        assert heard == [[token]] * 3
        assert reads_of(sim_server, token) == 1  # the receiver's one read, no till's
        for till in tills:
            (seen,) = till.orders_seen([token])
            # each till finds the payment in the book, without a read of its own
            assert jsontext.loads(seen.order_json)["transactions"]
    finally:
        for ears in listening:
            ears.close()
        for till in tills:
            till.close_connection()


def test_a_form_encoded_callback_is_read_the_same(
    sim_server: SimulatorServer, book: SqlBook
) -> None:
    with receiving(sim_server, book) as receiver:
        sim_server.sim.callbacks.configure(receiver.url, form=True)
        token = new_order(sim_server)
        (row,) = receiver.journal_until(1)
    assert (row.token, row.outcome) == (token, "pulled")
    assert "order_token=" in row.body and row.detail == ""
    assert seen_status(book, token) == "IN_PROGRESS"


def test_a_forged_body_changes_nothing_but_raises_the_alarm(
    sim_server: SimulatorServer, book: SqlBook, caplog: pytest.LogCaptureFixture
) -> None:
    with receiving(sim_server, book) as receiver:
        sim_server.sim.callbacks.configure(receiver.url, faults=["forged"])
        token = new_order(sim_server)
        (row,) = receiver.journal_until(1)
    assert '"CONFIRMED"' in row.body  # the forged body claims it paid
    assert seen_status(book, token) == "IN_PROGRESS"  # getOrder's word is in the book
    assert row.outcome == "pulled"
    assert row.detail.startswith("callback body disagrees with getOrder: status: body CONFIRMED")
    assert reads_of(sim_server, token) == 1
    assert any("disagrees" in record.getMessage() for record in caplog.records)


def test_a_storm_of_one_order_costs_one_read(sim_server: SimulatorServer, book: SqlBook) -> None:
    token = new_order(sim_server)
    body = jsontext.dumps({"order_token": token, "status": "IN_PROGRESS"}).encode()
    with receiving(sim_server, book) as receiver:
        answers: list[int] = []
        with httpx.Client(timeout=5, limits=httpx.Limits(max_connections=50)) as http:

            def post() -> None:
                answers.append(http.post(receiver.url, content=body).status_code)

            threads = [threading.Thread(target=post) for _ in range(50)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(5)
        rows = receiver.journal_until(50)
    assert answers == [200] * 50
    assert sorted(row.outcome for row in rows) == ["coalesced"] * 49 + ["pulled"]
    assert reads_of(sim_server, token) == 1


def test_an_unknown_token_raises_the_alarm_and_costs_one_read(
    sim_server: SimulatorServer, book: SqlBook, caplog: pytest.LogCaptureFixture
) -> None:
    with receiving(sim_server, book) as receiver:
        sim_server.sim.callbacks.configure(receiver.url, faults=["unknown_token"])
        token = new_order(sim_server)
        rows = receiver.journal_until(2)
    stray = next(row for row in rows if row.token != token)
    assert stray.outcome == "unknown token"
    assert reads_of(sim_server, stray.token) == 1
    assert book.orders_seen([stray.token]) == []
    assert any("does not know" in record.getMessage() for record in caplog.records)


def test_an_oversized_and_a_malformed_body_are_refused_and_journaled(
    sim_server: SimulatorServer, book: SqlBook
) -> None:
    with receiving(sim_server, book) as receiver:
        big = httpx.post(receiver.url, content=b"{" + b" " * MAX_BODY_BYTES + b"}", timeout=5)
        bad = httpx.post(receiver.url, content=b'{"order_token": "a\xff', timeout=5)
        form = httpx.post(
            receiver.url,
            content=b"status=CONFIRMED",
            headers={"content-type": "application/x-www-form-urlencoded"},
            timeout=5,
        )
        elsewhere = httpx.post(receiver.url.replace("/callback", "/other"), content=b"{}")
        wrong_method = httpx.get(receiver.url)
        rows = receiver.journal_until(3)
    assert (big.status_code, bad.status_code, form.status_code) == (413, 400, 400)
    assert (elsewhere.status_code, wrong_method.status_code) == (404, 405)
    assert [row.outcome for row in rows] == ["oversized", "malformed", "malformed"]
    assert len(rows[0].body) == MAX_BODY_BYTES  # kept, cut
    assert rows[1].body == '{"order_token": "a\\xff'  # the byte that is not UTF-8, escaped
    assert sim_server.sim.requests == []


def test_a_source_outside_the_allow_list_is_refused(
    sim_server: SimulatorServer, book: SqlBook
) -> None:
    token = new_order(sim_server)
    body = jsontext.dumps({"order_token": token}).encode()
    with receiving(
        sim_server, book, callback_allow=("203.0.113.0/24",), callback_trusted_hops=1
    ) as receiver:
        outside = httpx.post(
            receiver.url, content=body, headers={"x-forwarded-for": "198.51.100.7"}, timeout=5
        )
        inside = httpx.post(
            receiver.url,
            content=body,
            # the client's own claim, then what the one trusted proxy saw: the proxy's word
            headers={"x-forwarded-for": "198.51.100.7, 203.0.113.9"},
            timeout=5,
        )
        rows = receiver.journal_until(2)
    assert (outside.status_code, inside.status_code) == (403, 200)
    assert [(row.source, row.outcome) for row in rows] == [
        ("198.51.100.7", "outside allow-list"),
        ("203.0.113.9", "pulled"),
    ]
    assert reads_of(sim_server, token) == 1


def test_a_connection_that_never_finishes_its_headers_is_closed(
    sim_server: SimulatorServer, book: SqlBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    # held open by anyone, such connections would take every place the server has
    monkeypatch.setattr(receive_command, "HEADER_SECONDS", 0.2, raising=False)
    with receiving(sim_server, book) as receiver:
        port = int(receiver.url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=3) as slow:
            slow.sendall(b"POST /callback HTTP/1.1\r\nHost: shop\r\n")  # and no more
            assert slow.recv(1024) == b""  # closed by the receiver, well before the timeout
        with socket.create_connection(("127.0.0.1", port), timeout=3) as done:
            # one answered, then silent: closed too, as the keep-alive's wait ends
            done.sendall(b"POST /callback HTTP/1.1\r\nHost: shop\r\nContent-Length: 2\r\n\r\n{}")
            answer = b""
            while not answer.endswith(b"malformed\n"):
                answer += done.recv(1024)
            assert b" 400 " in answer
            done.sendall(b"POST /callback HTTP/1.1\r\n")
            assert done.recv(1024) == b""


def test_a_callback_is_journaled_and_pulled_into_a_postgresql_book(
    sim_server: SimulatorServer, pg_server: Any
) -> None:
    from orderdash.core.settings.model import Settings

    book = open_book(Settings(ledger_url=SecretStr(pg_server.schema_url())))
    try:
        with receiving(sim_server, book) as receiver:  # type: ignore[arg-type]
            sim_server.sim.callbacks.configure(receiver.url)
            token = new_order(sim_server)
            (row,) = receiver.journal_until(1)
        assert (row.token, row.outcome) == (token, "pulled")
        assert seen_status(book, token) == "IN_PROGRESS"  # type: ignore[arg-type]
    finally:
        book.close_connection()


@pytest.mark.parametrize("port_from", ["flag", "setting"])
def test_the_command_says_where_it_listens_and_stops_on_ctrl_c(
    sim_server: SimulatorServer, tmp_path: Path, port_from: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    env |= {"ORDERDASH_CONFIG": os.devnull, "ORDERDASH_LEDGER": str(tmp_path / "book.sqlite3")}
    # port 0: a free one, never the default 8099 (the `receive_port` setting, or `--port`)
    port = ["--port", "0"] if port_from == "flag" else []
    if port_from == "setting":
        env["ORDERDASH_RECEIVE_PORT"] = "0"
    process = subprocess.Popen(
        [sys.executable, "-m", "orderdash", "receive", *port] + ["--base-url", sim_server.base_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("receiving callbacks at http://127.0.0.1:")
        url = line.split()[-1]
        assert url.endswith("/callback") and ":8099/" not in url
        assert httpx.post(url, content=b"not json", timeout=5).status_code == 400
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=10)
    finally:
        process.kill()
    assert process.returncode == 130
    assert "Traceback" not in err
    assert "orderdash: callback from 127.0.0.1 refused: malformed" in err  # said, not only logged
    book = SqlBook(SqliteEngine(tmp_path / "book.sqlite3"))
    try:
        assert [row.outcome for row in book.callbacks_received()] == ["malformed"]
    finally:
        book.close_connection()


def test_each_answer_goes_at_once_not_held_for_the_senders_ack(
    sim_server: SimulatorServer, book: SqlBook
) -> None:
    """An answer is written in two parts (its head, its body): unless the connection sends at
    once (TCP_NODELAY), the second waits for the sender's delayed ACK, 40 ms on Linux, on every
    answer of a kept-alive connection (bench/case_push.py measures the answer's time). asyncio
    sets it only on sockets made for TCP by name; the receiver's listening socket, which its
    connections inherit, has it."""
    with receiving(sim_server, book) as receiver:
        listening = receiver.server.listening
        assert listening is not None
        assert listening.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        with httpx.Client(timeout=5) as http:  # and it still answers
            assert (
                http.post(receiver.url.replace("/callback", "/x"), content=b"{}").status_code == 404
            )
