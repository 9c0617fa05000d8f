"""Every till told through the shared book: `orderdash watch --jsonl` on a SQLite book shows a
payment another process (the callback receiver) read and announced, without a getOrder of its
own; the watcher backs off while announcements flow and says once when they stop."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import SecretStr

from conftest import make_settings
from orderdash.core.ledger.open import open_book
from orderdash.core.model import jsontext
from orderdash.headless import watch_jsonl
from orderdash.simulator import DEMO_TOKENS, SimulatorServer

OPEN = DEMO_TOKENS[0]


def events(out: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def until(out: io.StringIO, check: Callable[[list[dict]], bool], timeout: float = 5) -> None:  # noqa: ASYNC109 - a polling loop
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check(events(out)):
        assert loop.time() < deadline, f"not seen within {timeout} s:\n{out.getvalue()}"
        await asyncio.sleep(0.02)


def order_reads(sim_server: SimulatorServer, token: str) -> int:
    return sum(
        1 for r in sim_server.sim.requests if r["endpoint"] == "order" and r["token"] == token
    )


async def announced(book, token: str, out: io.StringIO) -> None:  # noqa: ANN001 - a SqlBook
    """Announce `token` until the watch shows its payment: a listener hears only what is
    announced after it began, and the watch's begins a moment after its first line."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while not any(e["event"] == "transaction" for e in events(out)):
        assert loop.time() < deadline, f"not told within 5 s:\n{out.getvalue()}"
        book.announce(token)
        await asyncio.sleep(0.1)


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
async def test_watch_shows_a_payment_announced_on_the_book_without_reading_it(
    sim_server: SimulatorServer, tmp_path: Path, engine: str, request: pytest.FixtureRequest
) -> None:
    if engine == "sqlite":
        book = {"ledger": str(tmp_path / "ledger.sqlite3")}
    else:
        book = {"ledger_url": SecretStr(request.getfixturevalue("pg_server").schema_url())}
    # polled once at start, then not for an hour: only the book can tell the payment
    settings = make_settings(sim_server.base_url, poll_interval=3600, **book)
    out = io.StringIO()
    task = asyncio.create_task(watch_jsonl(settings, [OPEN], out))
    receiver = open_book(settings)
    try:
        await until(out, lambda lines: any(e["event"] == "state" for e in lines))
        reads = order_reads(sim_server, OPEN)
        sim_server.sim.add_transaction(OPEN)
        # the receiver: its one getOrder's answer written to the book, then announced
        answer = sim_server.sim.order_wire(OPEN, with_qr=False)
        receiver.order_seen(OPEN, "receiver", datetime.now(UTC), jsontext.dumps(answer))
        await announced(receiver, OPEN, out)
        payment = next(e for e in events(out) if e["event"] == "transaction")
        assert payment["token"] == OPEN
        assert order_reads(sim_server, OPEN) == reads, "no getOrder of its own"
        pushes = [e for e in events(out) if e["event"] == "push"]
        assert [e["state"] for e in pushes] == ["flowing"]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        receiver.close_connection()


async def test_watch_with_the_receiver_beside_it_shows_a_callbacks_payment(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    """`receive = true`: the receiver runs inside `watch --jsonl`, says where it listens in one
    line, and a payment the simulator calls back reaches the watch through the book."""
    settings = make_settings(
        sim_server.base_url,
        poll_interval=3600,
        ledger=str(tmp_path / "ledger.sqlite3"),
        receive=True,
        receive_port=0,
    )
    out = io.StringIO()
    task = asyncio.create_task(watch_jsonl(settings, [OPEN], out))
    try:
        await until(out, lambda lines: {"state", "receiver"} <= {e["event"] for e in lines})
        (line,) = [e for e in events(out) if e["event"] == "receiver"]
        assert line["state"] == "listening" and line["url"].endswith("/callback")
        sim_server.sim.callbacks.configure(line["url"])
        sim_server.sim.add_transaction(OPEN)
        await until(out, lambda lines: any(e["event"] == "transaction" for e in lines))
        assert [e["state"] for e in events(out) if e["event"] == "push"] == ["flowing"]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    book = open_book(settings)
    try:
        assert {row.token for row in book.callbacks_received()} == {OPEN}
    finally:
        book.close_connection()
