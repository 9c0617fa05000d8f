"""An unresolved charge is looked up on the service and account it was made on, or not at all:
`orderdash charges` pointed at another service leaves it "may exist" and names where it was
made; "no such order" is "not made" only from its own service, once its latest create is old
enough for the service to know it; a charge written before the ledger kept its service is
never looked up. Two simulators over loopback, on both ledger engines."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import SecretStr

from conftest import make_settings, serving
from orderdash.cli import main
from orderdash.core.ledger import ChargeRecord
from orderdash.core.ledger.charges import outcome_of
from orderdash.core.ledger.open import open_book, writer_for
from orderdash.core.ledger.rows import time_text
from orderdash.core.ledger.schema import MIGRATIONS, VERSION_TABLE
from orderdash.core.ledger.store import Engine
from orderdash.core.ledger.writer import BookWriter
from orderdash.core.service.client import OrderClient
from orderdash.core.settings.model import Settings
from orderdash.core.usecases.charge import charge
from orderdash.simulator import Fault, Simulator, SimulatorServer

ACCESS = "access-Sv4-service"


def _simulator() -> SimulatorServer:
    return SimulatorServer(Simulator(seed=7, with_demo_orders=False), access_token=ACCESS)


@pytest.fixture
def sim_a() -> Iterator[SimulatorServer]:
    with serving(_simulator()) as server:
        yield server


@pytest.fixture
def sim_b() -> Iterator[SimulatorServer]:
    with serving(_simulator()) as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The test's book, as the environment names it to a command."""
    if request.param == "sqlite":
        return {"ORDERDASH_LEDGER": str(tmp_path / "ledger.sqlite3")}
    return {"ORDERDASH_LEDGER_URL": request.getfixturevalue("pg_server").schema_url()}


def _settings(server: SimulatorServer, ledger: dict[str, str]) -> Settings:
    url = ledger.get("ORDERDASH_LEDGER_URL")
    return make_settings(
        server.base_url,
        bearer=None,
        access_token=SecretStr(ACCESS),
        customer_id="4711",
        currency="EUR",
        till="front",
        ledger=ledger.get("ORDERDASH_LEDGER"),
        ledger_url=SecretStr(url) if url else None,
    )


def _charges(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    server: SimulatorServer,
    ledger: dict[str, str],
    *,
    account: str = "4711",
) -> str:
    """`orderdash charges --base-url SERVER` (in this process, the till's settings in its
    environment): its stderr, where the earlier charges are said."""
    for name in os.environ:
        if name.startswith("ORDERDASH_"):
            monkeypatch.delenv(name)
    env = {
        "ORDERDASH_CONFIG": os.devnull,
        "ORDERDASH_ACCESS_TOKEN": ACCESS,
        "ORDERDASH_CUSTOMER_ID": account,
        "ORDERDASH_TILL": "front",
        **ledger,
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    assert main(["charges", "--base-url", server.base_url]) == 0
    return capsys.readouterr().err


def _writer(settings: Settings, ago: timedelta) -> BookWriter:
    """The book as `orderdash charge` writes it (`writer_for`), its clock `ago` behind."""
    writer = writer_for(settings)
    writer._now = lambda: datetime.now(UTC) - ago
    return writer


def _charged(settings: Settings, token: str, ago: timedelta) -> None:
    """One charge of 5 EUR as `orderdash charge` makes it (its writer, the service's create, its
    outcome written), as if sent `ago`."""

    async def run() -> None:
        writer = _writer(settings, ago)
        try:
            async with OrderClient.from_settings(settings) as client:

                async def write_down(sending: str) -> None:
                    await writer.charge_started(sending, Decimal(5), "EUR")

                try:
                    await charge(
                        client,
                        Decimal(5),
                        customer_id="4711",
                        currency="EUR",
                        new_token=lambda: token,
                        before_send=write_down,
                        pause=0,
                    )
                except Exception as error:  # noqa: BLE001 - its outcome is what is written
                    await writer.charge_ended(token, *outcome_of(error))
                    return
                await writer.charge_ended(token, "made")
        finally:
            await writer.aclose()

    asyncio.run(run())


def _sent_unanswered(settings: Settings, token: str, ago: timedelta) -> None:
    """A charge written down and its create sent `ago`, its answer never read (the service
    never had it): "unknown", as `orderdash charge` leaves it."""

    async def run() -> None:
        writer = _writer(settings, ago)
        try:
            await writer.charge_started(token, Decimal(5), "EUR")
            await writer.charge_ended(token, "unknown", "no answer in 3 tries")
        finally:
            await writer.aclose()

    asyncio.run(run())


def _charge_now(settings: Settings, token: str) -> ChargeRecord:
    book = open_book(settings)
    try:
        record = book.charge(token)
    finally:
        book.close_connection()
    assert record is not None
    return record


def _asked(server: SimulatorServer) -> list[str]:
    """The tokens `server` was asked for through getOrder."""
    return [r["token"] for r in server.sim.requests if r["endpoint"] == "order"]


def test_a_lost_charge_is_looked_up_on_its_own_service_and_account_only(
    sim_a, sim_b, ledger, monkeypatch, capsys
) -> None:
    """Made on A, its answer lost on every try: `charges` pointed at B (which has no such
    order) or at A under another account asks nothing and says where it was made; pointed at
    A again, it is found made."""
    on_a = _settings(sim_a, ledger)
    sim_a.sim.add_fault(Fault(endpoint="create", reset_after=0))
    _charged(on_a, "lost-on-a-1", ago=timedelta(minutes=10))
    sim_a.sim.clear_faults()
    assert "lost-on-a-1" in sim_a.sim.tokens() and "lost-on-a-1" not in sim_b.sim.tokens()
    assert _charge_now(on_a, "lost-on-a-1").outcome == "unknown"

    said = _charges(monkeypatch, capsys, sim_b, ledger)
    assert _charge_now(on_a, "lost-on-a-1").outcome == "unknown"
    assert _asked(sim_b) == []
    check = f"orderdash get --base-url {sim_a.base_url} -- lost-on-a-1"
    assert f": may exist (made on {sim_a.base_url}, account 4711): check there: {check}" in said
    assert "not made" not in said

    elsewhere = _charges(monkeypatch, capsys, sim_a, ledger, account="9999")
    assert _charge_now(on_a, "lost-on-a-1").outcome == "unknown" and _asked(sim_a) == []
    assert f"(made on {sim_a.base_url}, account 4711): check there: {check}" in elsewhere

    found = _charges(monkeypatch, capsys, sim_a, ledger)
    assert _asked(sim_a) == ["lost-on-a-1"]
    assert ": made, " in found and "(order lost-on-a-1)" in found
    assert _charge_now(on_a, "lost-on-a-1").outcome == "made"


def test_no_such_order_is_not_made_only_from_its_service_once_its_create_is_old(
    sim_a, ledger, monkeypatch, capsys
) -> None:
    """On the charge's own service: an error leaves it "may exist" with the command that
    checks it; a charge sent again moments ago (first sent long ago) is not asked about;
    only one whose latest create went long ago is "not made" when the service has none."""
    on_a = _settings(sim_a, ledger)
    sim_a.sim.add_fault(Fault(endpoint="create", reset_after=0))
    _charged(on_a, "lost-answer-1", ago=timedelta(minutes=10))
    sim_a.sim.clear_faults()
    # two that never reached A; the first sent again (the same charge, its token) just now
    _sent_unanswered(on_a, "sent-again-1", ago=timedelta(minutes=20))
    _sent_unanswered(on_a, "sent-again-1", ago=timedelta(minutes=1))
    _sent_unanswered(on_a, "never-reached-1", ago=timedelta(minutes=15))
    outcomes = {t: _charge_now(on_a, t).outcome for t in ("sent-again-1", "never-reached-1")}
    assert outcomes == {"sent-again-1": "unknown", "never-reached-1": "unknown"}
    sim_a.sim.add_fault(Fault(endpoint="order", token="lost-answer-1", status=500))
    sim_a.sim.clear_requests()

    said = _charges(monkeypatch, capsys, sim_a, ledger)
    assert sorted(_asked(sim_a)) == ["lost-answer-1", "never-reached-1"]
    check = f"orderdash get --base-url {sim_a.base_url} -- lost-answer-1"
    assert "may exist" in said and f"check it before charging again: {check}" in said
    assert "started moments ago, left for later" in said
    after = {
        t: _charge_now(on_a, t).outcome
        for t in ("lost-answer-1", "sent-again-1", "never-reached-1")
    }
    assert after == {
        "lost-answer-1": "unknown",
        "sent-again-1": "unknown",
        "never-reached-1": "not_made",
    }
    assert sim_a.base_url in _charge_now(on_a, "never-reached-1").detail


def _engine(ledger: dict[str, str]) -> Engine:
    """The book's engine alone: no migration run."""
    if "ORDERDASH_LEDGER" in ledger:
        from orderdash.core.ledger.sqlite import SqliteEngine

        return SqliteEngine(ledger["ORDERDASH_LEDGER"])
    from orderdash.core.ledger.postgres import PostgresEngine

    return PostgresEngine(ledger["ORDERDASH_LEDGER_URL"])


def test_a_charge_written_before_the_ledger_kept_its_service_is_never_looked_up(
    sim_a, ledger, monkeypatch, capsys
) -> None:
    """A version-2 book's unresolved charges (no service written down): the book is migrated,
    and they stay as they are, whatever the service has; each line says how to check it by
    hand."""
    on_a = _settings(sim_a, ledger)
    _charged(on_a, "on-a-1", ago=timedelta(0))  # A has it (the book is then made anew)
    engine = _engine(ledger)  # the book made anew as orderdash of schema version 2 made it
    at = time_text(datetime.now(UTC) - timedelta(hours=1))
    try:
        with engine.transaction(migrating=True) as cursor:
            for table in (
                "charges",
                "orders_seen",
                "closes",
                "resolutions",
                "notices_sent",
                "schema_version",
            ):
                cursor.execute(f"DROP TABLE IF EXISTS {table}")
            cursor.execute(VERSION_TABLE)
            for statements in MIGRATIONS[:2]:
                for statement in statements:
                    cursor.execute(statement)
            cursor.execute("INSERT INTO schema_version (version) VALUES (2)")
            for token, outcome in [("on-a-1", "unknown"), ("old-sending-1", "sending")]:
                cursor.execute(
                    "INSERT INTO charges (token, amount, currency, till, started_at, outcome,"
                    " detail) VALUES (%s, '5', 'EUR', 'front', %s, %s, '')",
                    (token, at, outcome),
                )
    finally:
        engine.close()
    sim_a.sim.clear_requests()

    said = _charges(monkeypatch, capsys, sim_a, ledger)
    assert _asked(sim_a) == []
    assert {t: _charge_now(on_a, t).outcome for t in ("on-a-1", "old-sending-1")} == {
        "on-a-1": "unknown",
        "old-sending-1": "sending",
    }
    lines = [line for line in said.splitlines() if "an earlier charge" in line]
    assert len(lines) == 2 and not any("not made" in line for line in lines)
    for token in ("on-a-1", "old-sending-1"):
        assert any(
            line.endswith(
                f"may exist, order {token} (charged before the ledger noted each "
                "charge's service: never looked up): check it on the service it "
                f"was made on: orderdash get --base-url URL -- {token}"
            )
            for line in lines
        ), said
