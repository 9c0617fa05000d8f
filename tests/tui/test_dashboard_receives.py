"""A dashboard with `receive = true` runs the callback receiver inside itself: the simulator's
callbacks go to it over loopback, it journals each in the SQLite book, reads the order once and
announces it there, and the dashboard hears the announcement as any till on the book does."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import pytest

from conftest import make_settings, wait_until
from orderdash.core.ledger.open import open_book
from orderdash.simulator import DEMO_TOKENS, Simulator, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app

OPEN = DEMO_TOKENS[0]


def order_reads(sim_server: SimulatorServer) -> int:
    return sum(1 for r in sim_server.sim.requests if r["endpoint"] == "order")


async def test_a_payment_reaches_the_dashboard_through_its_own_receiver(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    # read once at start, then not for an hour: only the callback can bring the payment
    settings = make_settings(
        sim_server.base_url,
        poll_interval=3600.0,
        ledger=str(tmp_path / "ledger.sqlite3"),
        receive=True,
        receive_port=0,
    )
    app = make_app(settings, tokens=(OPEN,))
    urls: list[str] = []
    app.books.receiving = urls.append
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.state.entries[OPEN].fetched is not None)
        hearing = lambda: app.books.hearing  # noqa: E731
        await wait_until(pilot, lambda: hearing() is not None and hearing().listening.is_set())
        await wait_until(pilot, lambda: bool(urls))
        (url,) = urls
        assert url.startswith("http://127.0.0.1:") and url.endswith("/callback")
        sim_server.sim.callbacks.configure(url)
        before = app.state.entries[OPEN].order
        assert before is not None
        reads = order_reads(sim_server)
        sim_server.sim.add_transaction(OPEN)
        await wait_until(
            pilot,
            lambda: len(app.state.entries[OPEN].order.transactions) > len(before.transactions),
            timeout=3,
        )
        notices = [n.message for n in app._notifications]
        assert f"receiving callbacks at {url}" in notices
        assert any(m.startswith("Callbacks reach the book") for m in notices)
        receiver = app.books.receiver
        assert receiver is not None and receiver.receiver is not None
    assert receiver.receiver.join(0), "stopped at quit"
    delivered = [d for d in sim_server.sim.callbacks.deliveries if d["token"] == OPEN]
    assert delivered and all(d["url"] == url and d["status"] == 200 for d in delivered)
    book = open_book(settings)
    try:
        journal = book.callbacks_received()
    finally:
        book.close_connection()
    assert journal and {(row.token, row.source) for row in journal} == {(OPEN, "127.0.0.1")}
    assert "pulled" in {row.outcome for row in journal}
    # the receiver's reads, one a callback at most: the dashboard read nothing of its own
    assert order_reads(sim_server) - reads <= len(journal)


def test_the_demo_brings_a_payment_through_its_receiver(monkeypatch: pytest.MonkeyPatch) -> None:
    """`orderdash demo` (built as the command builds it) runs the receiver inside its dashboard
    on a free loopback port and points the simulator's callbacks there: a payment is a callback
    journaled in the demo's book, read, and heard by the dashboard."""
    from orderdash import cli
    from orderdash.cli import demo
    from orderdash.tui import run

    made: list[Simulator] = []

    class Recorded(Simulator):
        def __init__(self, **options: Any) -> None:
            super().__init__(**options)
            made.append(self)

    seen: dict[str, object] = {}

    async def drive(app: OrderDashApp) -> None:
        (sim,) = made
        token = sim.demo_tokens[0]  # the first demo order is open
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: sim.callbacks.url is not None, timeout=5)
            await wait_until(pilot, lambda: app.state.entries[token].order is not None)
            hearing = lambda: app.books.hearing  # noqa: E731
            # the dashboard hears what is announced from when it listens
            await wait_until(pilot, lambda: hearing() is not None and hearing().listening.is_set())
            before = app.state.entries[token].order
            sim.add_transaction(token)
            await wait_until(
                pilot,
                lambda: len(app.state.entries[token].order.transactions) > len(before.transactions),
                timeout=3,
            )
            # heard through the book (no poll makes it so), the poller backing off
            push = app.watcher.push
            await wait_until(pilot, lambda: push is not None and push.flowing)
            seen["url"], seen["token"] = sim.callbacks.url, token

    def dashboard(settings, tokens, *, demo: bool = False, **options: Any) -> int:  # noqa: ANN001
        app = run.build_dashboard(settings, tokens, demo=demo)
        app.books.receiving = options["receiving"]
        asyncio.run(drive(app))
        book = open_book(settings)
        try:
            seen["journal"] = book.callbacks_received()
        finally:
            book.close_connection()
        return 0

    monkeypatch.setattr(demo, "Simulator", Recorded)
    monkeypatch.setattr(run, "run_dashboard", dashboard)
    assert cli.main(["demo", "--customer-interval", "0", "--history-days", "0"]) == 0
    url = str(seen["url"])
    assert url.startswith("http://127.0.0.1:") and url.endswith("/callback")
    pulled = [row for row in seen["journal"] if row.outcome == "pulled"]  # type: ignore[attr-defined]
    assert seen["token"] in {row.token for row in pulled}


async def test_a_port_it_cannot_listen_on_is_one_line_and_polling_goes_on(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    taken = socket.create_server(("127.0.0.1", 0))
    port = taken.getsockname()[1]
    settings = make_settings(
        sim_server.base_url,
        poll_interval=0.2,
        ledger=str(tmp_path / "ledger.sqlite3"),
        receive=True,
        receive_port=port,
    )
    app = make_app(settings, tokens=(OPEN,))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            told = lambda: [n for n in app._notifications if n.title == "Callbacks"]  # noqa: E731
            await wait_until(pilot, lambda: bool(told()))
            (notice,) = told()
            assert notice.severity == "warning" and "\n" not in notice.message
            assert notice.message.startswith("the callback receiver did not start: cannot listen")
            assert f"127.0.0.1:{port}" in notice.message
            assert notice.message.endswith("; polling as before")
            reads = order_reads(sim_server)
            await wait_until(pilot, lambda: order_reads(sim_server) > reads)  # it still polls
    finally:
        taken.close()
