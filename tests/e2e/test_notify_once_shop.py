"""One shop, one truth: two `watch --jsonl` and a dashboard on one ledger (SQLite, and
PostgreSQL), against the simulator on loopback, tell a JSON endpoint each thing once: a payment
in full, a part payment, the part-paid order once it expired short, an outage that lasted and
its end; a blip of two failed requests tells nothing; a restart tells nothing again.

The simulator's clock is moved past the order's expiry (no waiting for it); an outage needs
its 3 failed reads here and not also 30 s of them (`OUTAGE_SECONDS` set low), so nothing
sleeps on the wall beyond the polls."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from decimal import Decimal
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from conftest import make_settings, wait_until
from orderdash.core.ledger.open import open_book
from orderdash.core.notify import events
from orderdash.core.notify.events import close_all, made, notices_for
from orderdash.core.settings.model import Settings
from orderdash.headless import watch_jsonl
from orderdash.simulator import SimulatorServer
from orderdash.simulator.faults import Fault
from orderdash.tui.factory import make_app
from support.notify_endpoint import Endpoint

pytestmark = pytest.mark.skipif(
    find_spec("apprise") is None,
    reason="Apprise is not installed (pip install 'orderdash[notify]')",
)

EVERY = ["payment", "attention", "late-payment", "outage", "recovery"]


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    if request.param == "sqlite":
        return {"ledger": str(tmp_path / "ledger.sqlite3")}
    server: Any = request.getfixturevalue("pg_server")
    return {"ledger_url": SecretStr(server.schema_url())}


def _outage_told(settings: Settings) -> bool:
    notices = notices_for(settings)
    return notices is not None and notices._out


async def test_two_watchers_and_a_dashboard_on_one_ledger_tell_each_thing_once(
    sim_server: SimulatorServer, ledger: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(events, "OUTAGE_SECONDS", 0.0, raising=False)
    sim = sim_server.sim
    paid = sim.create_order(lifetime_s=600)
    short = sim.create_order(lifetime_s=600)
    endpoint = Endpoint()

    def settings_for(path: str) -> Settings:
        rule = {"events": EVERY, "urls": [endpoint.url(path)]}
        return make_settings(
            sim_server.base_url, poll_interval=0.2, refresh_interval=60.0, notify=[rule], **ledger
        )

    since = made()
    outs = {path: io.StringIO() for path in ("w1", "w2")}
    watchers = {path: settings_for(path) for path in outs}
    tasks = [asyncio.create_task(watch_jsonl(watchers[p], [paid, short], outs[p])) for p in outs]
    dashboard = settings_for("d")
    app = make_app(dashboard, tokens=[paid, short])

    def everyone(check: Callable[[str, list[str]], bool]) -> Callable[[], bool]:
        """`check(path, what it heard)` holds for each watcher and the dashboard."""

        def all_of() -> bool:
            entries = app.state.entries
            heard = {path: out.getvalue() for path, out in outs.items()}
            seen = " ".join(
                f"{token}:{len(e.order.transactions) if e.order else -1}:"
                f"{e.payment.phase.value if e.payment else ''}"
                for token, e in entries.items()
            )
            return all(check(path, [text]) for path, text in heard.items()) and check("d", [seen])

        return all_of

    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(
                pilot,
                lambda: (
                    all(app.state.entries[t].fetched for t in (paid, short))
                    and all(short in out.getvalue() for out in outs.values())
                ),
                timeout=15,
            )
            sim.add_transaction(paid)  # in full
            sim.add_transaction(short, Decimal("0.00001"))  # a part: still paying
            await wait_until(
                pilot,
                everyone(
                    lambda path, text: (
                        text[0].count('"transaction"') == 2
                        if path != "d"
                        else f"{short}:1:partly paid" in text[0]
                    )
                ),  # fmt: skip
                timeout=15,
            )
            await pilot.pause(0.5)
            assert not any(
                b["title"].startswith("orderdash: Underpaid") for _, b in endpoint.received
            )

            # a blip of two failed requests: no outage, no recovery
            sim.add_fault(Fault(endpoint="order", status=503, times=2))
            await wait_until(pilot, lambda: sim.faults == [], timeout=10)
            await pilot.pause(1.0)

            # the simulated hour: the part-paid order expires short
            sim.advance_clock(900)
            await wait_until(
                pilot,
                everyone(
                    lambda path, text: (
                        '"underpaid"' in text[0]
                        if path != "d"
                        else f"{short}:1:underpaid" in text[0]
                    )
                ),  # fmt: skip
                timeout=15,
            )

            # an outage that lasts: every one of them tells it, one claim wins; then its end
            sim.add_fault(Fault(endpoint="order", status=503))
            await wait_until(
                pilot,
                lambda: all(_outage_told(s) for s in (*watchers.values(), dashboard)),
                timeout=20,
            )
            sim.clear_faults()
            await wait_until(
                pilot,
                lambda: not any(_outage_told(s) for s in (*watchers.values(), dashboard)),
                timeout=20,
            )
            await pilot.pause(0.5)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.to_thread(close_all, 5, since=since)
    told = sorted((str(body["title"]), path) for path, body in endpoint.received)
    titles = sorted(title for title, _ in told)
    assert len(titles) == 5, told
    assert titles[0].startswith("orderdash: Service reachable again")
    assert titles[1].startswith("orderdash: Service unreachable since ")
    assert titles[2].startswith("orderdash: Underpaid") and short[:20] in titles[2]
    assert sum(t.startswith("orderdash: payment ") for t in titles) == 2

    # a restart: a dashboard and a watcher on the same book hear every order again (the
    # dashboard's attention view finds the order that closed short) and tell nothing again
    endpoint.clear()
    since = made()
    out = io.StringIO()
    again = asyncio.create_task(watch_jsonl(settings_for("w3"), [paid, short], out))
    restarted = make_app(settings_for("d2"), tokens=[paid, short])
    try:
        async with restarted.run_test(size=(120, 40)) as pilot:
            await wait_until(
                pilot,
                lambda: restarted.attention >= 1 and out.getvalue().count('"state"') >= 2,
                timeout=15,
            )
            await pilot.pause(1.0)  # the ledger asked about it, the owner would be told now
    finally:
        again.cancel()
        await asyncio.gather(again, return_exceptions=True)
        await asyncio.to_thread(close_all, 5, since=since)
        endpoint.close()
    assert out.getvalue().count('"state"') >= 2
    assert endpoint.received == []
    book = open_book(Settings(**ledger))
    try:
        assert book.claim_notice(short, "attention", "underpaid", "someone else", _now()) is False
    finally:
        book.close_connection()


def _now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)
