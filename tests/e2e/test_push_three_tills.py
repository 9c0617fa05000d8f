"""One callback, three tills: the simulator sends its callback for a payment to the receiver,
which reads the order once, writes it to the shop's PostgreSQL book and announces it; three
`watch --jsonl` tills on that book each show the payment, and none of them reads the order."""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

from pydantic import SecretStr

from conftest import BEARER, make_settings, serving
from orderdash.core.ledger.announcements import CHANNEL
from orderdash.core.ledger.open import open_book
from orderdash.headless import watch_jsonl
from orderdash.simulator import Simulator, SimulatorServer
from support.receiver_run import RunningReceiver

TILLS = 3


def events(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def order_reads(server: SimulatorServer, token: str) -> int:
    return sum(1 for r in server.sim.requests if r["endpoint"] == "order" and r["token"] == token)


def listeners(url: str) -> int:
    """The sessions of the server whose last statement was the book's LISTEN: a till hears
    what is announced from then on."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE query = %s", (f"LISTEN {CHANNEL}",)
        ).fetchone()
    return int(row[0]) if row else 0


async def until(check: Any, what: str, timeout: float = 10) -> None:  # noqa: ASYNC109 - a polling loop
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.02)


async def test_one_callback_shows_the_payment_on_three_tills_of_a_postgresql_book(
    pg_server: Any,
) -> None:
    sim = Simulator(seed=5, with_demo_orders=False)
    with serving(SimulatorServer(sim, bearer_token=BEARER, port=0)) as server:
        token = sim.create_order(coin="btc", amount_fiat="25.00", lifetime_s=3600)
        url = pg_server.schema_url()
        # each till polls once at start, then not for an hour: only the book can tell it
        settings = make_settings(server.base_url, poll_interval=3600, ledger_url=SecretStr(url))
        before = listeners(pg_server.url)
        outs = [io.StringIO() for _ in range(TILLS)]
        tills = [asyncio.create_task(watch_jsonl(settings, [token], out)) for out in outs]
        book = open_book(
            make_settings(server.base_url, till="back-office", ledger_url=SecretStr(url))
        )
        try:
            await until(
                lambda: all(any(e["event"] == "state" for e in events(o)) for o in outs),
                "every till's first read",
            )
            await until(lambda: listeners(pg_server.url) >= before + TILLS, "every till listening")
            reads = order_reads(server, token)
            assert reads == TILLS  # each till's first read, nothing since
            with RunningReceiver(
                make_settings(server.base_url, till="back-office"),
                book,  # type: ignore[arg-type]
            ) as receiver:
                sim.callbacks.configure(receiver.url)
                sim.add_transaction(token, "0.00001")
                await until(
                    lambda: all(any(e["event"] == "transaction" for e in events(o)) for o in outs),
                    "the payment on every till",
                )
                journal = receiver.journal_until(1)
            assert [(row.token, row.outcome) for row in journal] == [(token, "pulled")]
            assert order_reads(server, token) == reads + 1  # the receiver's one read
            for out in outs:
                (payment,) = [e for e in events(out) if e["event"] == "transaction"]
                assert payment["token"] == token
        finally:
            for task in tills:
                task.cancel()
            await asyncio.gather(*tills, return_exceptions=True)
            book.close_connection()
