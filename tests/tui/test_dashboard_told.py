"""A dashboard on a SQLite book shows a payment another process (the callback receiver) read
and announced on the book: read from the book, not from the service."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from conftest import make_settings, wait_until
from orderdash.core.ledger.open import open_book
from orderdash.core.model import jsontext
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.factory import make_app

OPEN = DEMO_TOKENS[0]


def order_reads(sim_server: SimulatorServer) -> int:
    return sum(1 for r in sim_server.sim.requests if r["endpoint"] == "order")


async def test_the_dashboard_shows_a_payment_announced_on_the_book(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    # read once at start, then not for an hour: only the book can tell the payment
    settings = make_settings(
        sim_server.base_url, poll_interval=3600.0, ledger=str(tmp_path / "ledger.sqlite3")
    )
    app = make_app(settings, tokens=(OPEN,))
    receiver = open_book(settings)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: app.state.entries[OPEN].fetched is not None)
            hearing = lambda: app.books.hearing  # noqa: E731
            await wait_until(pilot, lambda: hearing() is not None and hearing().listening.is_set())
            before = app.state.entries[OPEN].order
            assert before is not None
            reads = order_reads(sim_server)
            sim_server.sim.add_transaction(OPEN)
            answer = sim_server.sim.order_wire(OPEN, with_qr=False)
            receiver.order_seen(OPEN, "receiver", datetime.now(UTC), jsontext.dumps(answer))
            receiver.announce(OPEN)
            await wait_until(
                pilot,
                lambda: len(app.state.entries[OPEN].order.transactions) > len(before.transactions),
                # the listener looks every 200 ms; a loaded machine (the suite's six workers on
                # two cores) can take seconds to run it: what is held is "no read of its own"
                timeout=10,
            )
            assert order_reads(sim_server) == reads, "no getOrder of its own"
            notices = [n.message for n in app._notifications]
            assert any(m.startswith("Callbacks reach the book") for m in notices)
    finally:
        receiver.close_connection()
