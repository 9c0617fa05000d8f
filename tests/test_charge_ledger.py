"""Every charge is in the ledger before its create is sent, and its outcome after; a charge a
crash left unresolved is looked up at the next start and named in one line. Against the
simulator over loopback, `orderdash charge` as a child process (SIGKILLed mid-charge)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import SecretStr

from conftest import make_settings
from orderdash.core.ledger import ChargeRecord
from orderdash.core.ledger.charges import charge_line, outcome_of, resolve_unresolved
from orderdash.core.ledger.open import open_book
from orderdash.core.ledger.writer import BookWriter
from orderdash.core.runtime.config import Settings
from orderdash.core.service.charge import charge
from orderdash.core.service.client import OrderClient
from orderdash.core.service.errors import ChargeOutcomeUnknown, ChargeStopped, UsageError
from orderdash.simulator import Fault, Simulator, SimulatorServer

ACCESS = "access-Ll9-ledger"


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with SimulatorServer(Simulator(seed=7), access_token=ACCESS, create_prefix="/listener") as s:
        yield s


def _env(server: SimulatorServer, ledger: Path, till: str = "front") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    env.update(
        ORDERDASH_ACCESS_TOKEN=ACCESS,
        ORDERDASH_CUSTOMER_ID="4711",
        ORDERDASH_CURRENCY="EUR",
        ORDERDASH_CONFIG=os.devnull,
        ORDERDASH_LEDGER=str(ledger),
        ORDERDASH_TILL=till,
        ORDERDASH_BASE_URL=server.base_url,
        ORDERDASH_CREATE_URL=server.root_url + "/listener",
    )
    return env


def _charge(env: dict[str, str], amount: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "orderdash", "charge", amount]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)


def _charges(ledger: Path) -> list[ChargeRecord]:
    book = open_book(Settings(ledger=str(ledger)))
    try:
        now = datetime.now(UTC)
        return book.charges(now - timedelta(hours=1), now + timedelta(hours=1), None)
    finally:
        book.close_connection()


def test_a_charge_is_written_down_with_its_outcome(server, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    result = _charge(_env(server, ledger), "12.50")
    assert result.returncode == 0, result.stderr
    (record,) = _charges(ledger)
    assert record.token in result.stdout and record.token in server.sim.tokens()
    assert (record.amount, record.currency, record.till) == (Decimal("12.50"), "EUR", "front")
    assert record.outcome == "made" and record.ended_at is not None


def test_a_refused_charge_is_not_made_and_an_unwritable_ledger_sends_nothing(
    server, tmp_path: Path
) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    server.sim.add_fault(Fault(endpoint="create", status=400, times=1))
    refused = _charge(_env(server, ledger), "3")
    assert refused.returncode != 0
    (record,) = _charges(ledger)
    assert record.outcome == "not_made" and record.detail
    before = set(server.sim.tokens())
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the ledger's directory should be")
    failed = _charge(_env(server, blocked / "ledger.sqlite3"), "3")
    assert failed.returncode == 5 and "the ledger" in failed.stderr
    assert len(failed.stderr.strip().splitlines()) == 1
    assert set(server.sim.tokens()) == before  # nothing was sent


def test_a_charge_killed_mid_create_is_resolved_at_the_next_start(server, tmp_path: Path) -> None:
    """SIGKILL while the create's answer is on its way: the ledger holds the charge as
    "sending"; the next `orderdash charge` looks it up by its token and names it."""
    ledger = tmp_path / "ledger.sqlite3"
    env = _env(server, ledger)
    server.sim.add_fault(Fault(endpoint="create", drip_delay=2, drip_chunk=1))
    before = set(server.sim.tokens())
    server.sim.clear_requests()
    argv = [sys.executable, "-m", "orderdash", "charge", "12.50"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 30
        while not any(r["endpoint"] == "create" for r in server.sim.requests):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the create never arrived"
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
    (made,) = set(server.sim.tokens()) - before
    (record,) = _charges(ledger)
    assert (record.token, record.outcome) == (made, "sending")
    server.sim.clear_faults()
    again = _charge(env, "1")
    assert again.returncode == 0, again.stderr
    line = f"orderdash: an earlier charge: {charge_line(record)}: made, "
    assert line in again.stderr and made in again.stderr
    outcomes = {r.token: r.outcome for r in _charges(ledger)}
    assert outcomes[made] == "made" and len(outcomes) == 2
    # resolved once: the start after says nothing of it
    third = _charge(env, "2")
    assert "earlier charge" not in third.stderr


def test_an_unresolved_charge_never_made_is_said_not_made(server, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    book = open_book(Settings(ledger=str(ledger)))
    at = datetime(2026, 11, 27, 10, 2, tzinfo=UTC)
    book.charge_started(ChargeRecord("never-sent-token-1", Decimal("12.50"), "EUR", "front", at))
    book.charge_started(ChargeRecord("other-till-token-1", Decimal("1"), "EUR", "back", at))
    book.close_connection()
    result = _charge(_env(server, ledger), "1")
    assert result.returncode == 0, result.stderr
    record = ChargeRecord("x", Decimal("12.50"), "EUR", "front", at)
    assert f"orderdash: an earlier charge: {charge_line(record)}: not made" in result.stderr
    assert "12.50 EUR on 2026-11-27 at " in result.stderr or "12.50 EUR at " in result.stderr
    assert "other-till" not in result.stderr  # another till's charge is that till's to resolve
    book = open_book(Settings(ledger=str(ledger)))
    try:
        outcomes = {r.token: r.outcome for r in book.charges(at, at + timedelta(1), None)}
    finally:
        book.close_connection()
    assert outcomes == {"never-sent-token-1": "not_made", "other-till-token-1": "sending"}


async def test_the_outcome_of_each_ending(server, tmp_path: Path) -> None:
    settings = make_settings(
        server.base_url,
        access_token=SecretStr(ACCESS),
        create_url=server.root_url + "/listener",
        ledger=str(tmp_path / "ledger.sqlite3"),
        till="front",
    )
    writer = BookWriter(lambda: open_book(settings), "front")
    tokens = iter(["tok-made", "tok-stopped"])
    async with OrderClient.from_settings(settings) as client:

        async def one(**options) -> str:
            token = next(tokens)

            async def write_down(sending: str) -> None:
                await writer.charge_started(sending, Decimal(5), "EUR")

            try:
                await charge(
                    client,
                    Decimal(5),
                    customer_id="4711",
                    new_token=lambda: token,
                    before_send=write_down,
                    pause=0,
                    **options,
                )
            except Exception as error:  # noqa: BLE001 - the outcome is what is tested
                await writer.charge_ended(token, *outcome_of(error))
                return token
            await writer.charge_ended(token, "made")
            return token

        await one()
        await one(currency="CHF")  # made in EUR: stopped
        assert await resolve_unresolved(writer, client) == []
    outcomes = {r.token: r.outcome for r in await writer.call("charges", *_today(), None)}
    assert outcomes == {"tok-made": "made", "tok-stopped": "stopped"}
    await writer.aclose()
    assert outcome_of(ChargeOutcomeUnknown("m", "t", "no answer")) == ("unknown", "no answer")
    assert outcome_of(ChargeStopped("stopped: x", "t"))[0] == "stopped"
    assert outcome_of(UsageError("refused")) == ("not_made", "refused")


def _today() -> tuple[datetime, datetime]:
    now = datetime.now(UTC)
    return now - timedelta(hours=1), now + timedelta(hours=1)
