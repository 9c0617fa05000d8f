"""A dashboard with `receive = true` runs the callback receiver inside itself: the simulator's
callbacks go to it over loopback, it journals each in the SQLite book, reads the order once and
announces it there, and the dashboard hears the announcement as any till on the book does."""

from __future__ import annotations

from pathlib import Path

from conftest import make_settings, wait_until
from orderdash.core.ledger.open import open_book
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
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
