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
from orderdash.core.ledger import ChargeRecord, ChargeService
from orderdash.core.ledger.charges import (
    Resolutions,
    charge_line,
    outcome_of,
    resolve_unresolved,
)
from orderdash.core.ledger.open import open_book, service_of, writer_for
from orderdash.core.ledger.writer import BookWriter
from orderdash.core.model import jsontext
from orderdash.core.model.errors import ChargeOutcomeUnknown, ChargeStopped, UsageError
from orderdash.core.service.client import OrderClient
from orderdash.core.settings.model import Settings
from orderdash.core.usecases.charge import charge
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


def _service(server: SimulatorServer) -> ChargeService:
    """The service `_env`'s commands charge on: charges written by hand carry it, as those the
    commands write do, so that they are looked up."""
    return ChargeService.of(server.base_url, "4711")


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
    # as if killed ten minutes ago: a charge just started may still be being made
    _started_earlier(ledger, record.token, timedelta(minutes=10))
    (record,) = _charges(ledger)
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


def _started_earlier(ledger: Path, token: str, by: timedelta) -> None:
    from orderdash.core.ledger.rows import time_text

    book = open_book(Settings(ledger=str(ledger)))
    try:
        (record,) = [r for r in _charges(ledger) if r.token == token]
        with book._engine.transaction() as cursor:
            cursor.execute(
                "UPDATE charges SET started_at = %s, sent_at = %s WHERE token = %s",
                (time_text(record.started_at - by), time_text(record.last_sent - by), token),
            )
    finally:
        book.close_connection()


def test_an_unresolved_charge_never_made_is_said_not_made(server, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    book = open_book(Settings(ledger=str(ledger)))
    at = datetime(2026, 11, 20, 10, 2, tzinfo=UTC)
    here = _service(server)
    book.charge_started(
        ChargeRecord("never-sent-token-1", Decimal("12.50"), "EUR", "front", at, service=here)
    )
    book.charge_started(
        ChargeRecord("other-till-token-1", Decimal("1"), "EUR", "back", at, service=here)
    )
    book.close_connection()
    result = _charge(_env(server, ledger), "1")
    assert result.returncode == 0, result.stderr
    record = ChargeRecord("x", Decimal("12.50"), "EUR", "front", at)
    assert f"orderdash: an earlier charge: {charge_line(record)}: not made" in result.stderr
    assert "12.50 EUR at " in result.stderr
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
    writer = writer_for(settings)
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
        resolutions = await resolve_unresolved(
            writer, client, gate=_NoWait(), recent=timedelta(0), here=service_of(settings)
        )
        assert resolutions == Resolutions([], [])
    outcomes = {r.token: r.outcome for r in await writer.charges(*_today(), None)}
    assert outcomes == {"tok-made": "made", "tok-stopped": "stopped"}
    await writer.aclose()
    assert outcome_of(ChargeOutcomeUnknown("m", "t", "no answer")) == ("unknown", "no answer")
    assert outcome_of(ChargeStopped("stopped: x", "t"))[0] == "stopped"
    assert outcome_of(UsageError("refused")) == ("not_made", "refused")


class _NoWait:
    """A getOrder budget that never makes a lookup wait."""

    async def take_turn(self) -> None:
        pass


def _today() -> tuple[datetime, datetime]:
    now = datetime.now(UTC)
    return now - timedelta(hours=1), now + timedelta(hours=1)


# -- the dashboard ---------------------------------------------------------------------------


@pytest.fixture
def dash_server() -> Iterator[SimulatorServer]:
    from support.account_dashboard import ACCESS as DASHBOARD_ACCESS

    with SimulatorServer(Simulator(seed=7), access_token=DASHBOARD_ACCESS) as s:
        yield s


async def test_the_dialog_writes_the_charge_before_the_create_and_its_outcome(
    dash_server, tmp_path: Path, monkeypatch
) -> None:
    """...and every call the app makes to the book runs in the ledger's thread, never on the
    event loop's."""
    import threading

    from conftest import wait_until
    from orderdash.core.ledger.store import SqlBook
    from support.account_dashboard import account_app, ask_to_charge

    threads: list[tuple[str, str]] = []
    for name in ("charge_started", "charge_ended", "order_seen_many", "unresolved_charges"):
        real = getattr(SqlBook, name)

        def spy(self, *args, _real=real, _name=name):  # noqa: ANN001, ANN002, ANN202
            threads.append((_name, threading.current_thread().name))
            return _real(self, *args)

        monkeypatch.setattr(SqlBook, name, spy)
    ledger = tmp_path / "ledger.sqlite3"
    server = dash_server
    # the create's answer is slow: meanwhile the ledger already says "sending"
    server.sim.add_fault(Fault(endpoint="create", delay=3.0, times=1))
    app = account_app(server, ledger=str(ledger), till="front")
    async with app.run_test(size=(140, 44)) as pilot:
        await ask_to_charge(pilot, app, server, "4.00")
        creates = sum(r["endpoint"] == "create" for r in server.sim.requests)
        await pilot.press("y")
        await wait_until(
            pilot, lambda: sum(r["endpoint"] == "create" for r in server.sim.requests) > creates
        )
        (sending,) = _charges(ledger)
        assert sending.outcome == "sending" and sending.amount == Decimal("4.00")
        assert sending.token == app.screen._token
        await wait_until(pilot, lambda: _charges(ledger)[0].outcome == "made", timeout=15)
    assert sending.token in server.sim.tokens()
    called = {name for name, _ in threads}
    assert {"charge_started", "charge_ended", "order_seen_many", "unresolved_charges"} <= called
    assert all(thread.startswith("orderdash-ledger") for _, thread in threads), threads


async def test_the_dashboard_names_an_earlier_unresolved_charge(dash_server, tmp_path) -> None:
    """A charge a kill -9 left "sending" (its order made) and one never sent: at start both
    are looked up, written resolved, and each named in a notice."""
    from conftest import screen_text, wait_until
    from support.account_dashboard import account_app

    server = dash_server
    made = server.sim.tokens()[0]
    ledger = tmp_path / "ledger.sqlite3"
    book = open_book(Settings(ledger=str(ledger)))
    at = datetime.now(UTC) - timedelta(minutes=10)
    here = _service(server)  # the dashboard's (account_app's customer_id is 4711)
    book.charge_started(ChargeRecord(made, Decimal("12.50"), "EUR", "front", at, service=here))
    book.charge_started(
        ChargeRecord("never-made-token-2", Decimal("3"), "EUR", "front", at, service=here)
    )
    book.close_connection()
    app = account_app(server, ledger=str(ledger), till="front")
    async with app.run_test(size=(140, 44), notifications=True) as pilot:
        records = {r.token: r for r in _charges(ledger)}
        line = f"An earlier charge: {charge_line(records[made])}: made, "
        not_made = f"An earlier charge: {charge_line(records['never-made-token-2'])}: not made"
        await wait_until(pilot, lambda: line in " ".join(n.message for n in app._notifications))
        messages = [n.message for n in app._notifications]
        assert not_made in messages
        await wait_until(pilot, lambda: _charges(ledger)[0].outcome != "sending")
        await wait_until(pilot, lambda: "An earlier charge" in screen_text(app))
    outcomes = {r.token: r.outcome for r in _charges(ledger)}
    assert outcomes == {made: "made", "never-made-token-2": "not_made"}


@pytest.fixture
def still_sim_server() -> Iterator[SimulatorServer]:
    """The demo simulator with its clock standing still: its rate is renewed at each minute, a
    change of every answer that had come in the middle of a test now and then."""
    from conftest import BEARER, serving

    frozen = time.time()
    simulator = Simulator(seed=7, clock=lambda: frozen)
    with serving(SimulatorServer(simulator, bearer_token=BEARER, port=0)) as server:
        yield server


async def test_orders_read_are_written_once_per_changed_answer(still_sim_server, tmp_path) -> None:
    """The dashboard polls every 0.2 s: an order is written when first read, not again while
    its answer stays the same (the milliseconds left aside), and again when it changes."""
    from conftest import wait_until
    from orderdash.tui.factory import make_app

    sim_server = still_sim_server
    ledger = tmp_path / "ledger.sqlite3"
    token = sim_server.sim.tokens()[0]
    settings = make_settings(sim_server.base_url, poll_interval=0.2, ledger=str(ledger))
    app = make_app(settings, tokens=[token])

    def row():  # noqa: ANN202
        book = open_book(Settings(ledger=str(ledger)))
        try:
            return next(iter(book.orders_seen([token])), None)
        finally:
            book.close_connection()

    def polls() -> int:
        return sum(r["endpoint"] == "order" for r in sim_server.sim.requests)

    async with app.run_test(size=(140, 44)) as pilot:
        await wait_until(pilot, lambda: row() is not None)
        # the first read (the app's first, with the QR image) differs from the polls after it
        asked = polls()
        await wait_until(pilot, lambda: polls() >= asked + 2)
        first = row()
        asked = polls()
        await wait_until(pilot, lambda: polls() >= asked + 5)
        assert row() == first  # five unchanged answers: not written again
        sim_server.sim.set_fields(token, {"email": "changed@example.com"})
        await wait_until(pilot, lambda: "changed@example.com" in row().order_json)
    last = row()
    assert last.first_seen == first.first_seen and last.last_seen > first.last_seen
    assert last.till == settings.till


async def test_the_writer_keeps_the_services_digits_and_skips_unchanged_answers(
    tmp_path,
) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    writer = BookWriter(lambda: open_book(Settings(ledger=str(ledger))), "front")
    raw = {"token": "t1", "amount": Decimal("0.000123456789012345678901"), "expirationTime": 5}
    writer.saw("t1", raw)
    await writer.aclose()
    book = open_book(Settings(ledger=str(ledger)))
    try:
        (seen,) = book.orders_seen()
    finally:
        book.close_connection()
    assert '"amount":0.000123456789012345678901' in seen.order_json.replace(" ", "")
    opened: list = []

    def opener():  # noqa: ANN202
        opened.append(open_book(Settings(ledger=str(ledger))))
        return opened[-1]

    again = BookWriter(opener, "front")
    again.saw("t1", raw)
    await _written(again)  # a new process writes each order once
    written: list = []
    real = opened[0].order_seen_many
    opened[0].order_seen_many = lambda rows: (written.append(list(rows)), real(rows))
    again.saw("t1", {**raw, "expirationTime": 4})  # only the countdown moved
    again.saw("t1", raw)
    await _written(again)
    assert written == []
    again.saw("t1", {**raw, "status": "PAID"})
    await _written(again)
    assert len(written) == 1 and '"PAID"' in written[0][0][3]
    await again.aclose()


async def _written(writer: BookWriter) -> None:
    """Until what `saw` was given so far is written: the writer's one thread runs its calls in
    order, so a call made now ends after the batch queued before it."""
    await writer.call(lambda _book: None)


def test_get_writes_the_order_it_read_with_the_services_digits(sim_server, tmp_path) -> None:
    from conftest import run_cli

    ledger = tmp_path / "ledger.sqlite3"
    token = sim_server.sim.tokens()[1]
    env = {"ORDERDASH_LEDGER": str(ledger), "ORDERDASH_TILL": "back"}
    result = run_cli("get", token, "--json", "--base-url", sim_server.base_url, env=env)
    assert result.returncode == 0, result.stderr
    book = open_book(Settings(ledger=str(ledger)))
    try:
        (seen,) = book.orders_seen()
    finally:
        book.close_connection()
    assert (seen.token, seen.till) == (token, "back")
    # the same digits as the command's own exact JSON
    printed = jsontext.loads(result.stdout)
    stored = jsontext.loads(seen.order_json)
    assert stored["amount"] == printed["amount"] and str(stored["amount"]) == str(printed["amount"])
    blocked = tmp_path / "file"
    blocked.write_text("x")
    env["ORDERDASH_LEDGER"] = str(blocked / "ledger.sqlite3")
    warned = run_cli("get", token, "--base-url", sim_server.base_url, env=env)
    assert warned.returncode == 0 and "warning: the order was not written down" in warned.stderr


def test_charges_lists_todays_charges_and_resolves_earlier_ones(server, tmp_path) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    env = _env(server, ledger)
    made = _charge(env, "12.50")
    assert made.returncode == 0, made.stderr
    book = open_book(Settings(ledger=str(ledger)))
    # started before the window in which a charge may still be being made
    now = datetime.now(UTC) - timedelta(minutes=10)
    here = _service(server)
    book.charge_started(
        ChargeRecord("never-made-token-3", Decimal("3"), "EUR", "front", now, service=here)
    )
    book.charge_started(
        ChargeRecord("back-till-token-3", Decimal("4"), "EUR", "back", now, service=here)
    )
    book.close_connection()
    argv = [sys.executable, "-m", "orderdash", "charges"]
    listed = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert ": not made" in listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 2 and "back-till" not in listed.stdout
    assert any("12.50 EUR" in line and "made" in line for line in lines)
    assert any("never-made-token-3" in line and "not made" in line for line in lines)
    every = subprocess.run(
        [*argv, "--all-tills", "--json"], capture_output=True, text=True, env=env, timeout=60
    )
    rows = jsontext.loads(every.stdout)
    assert {r["till"] for r in rows} == {"front", "back"} and len(rows) == 3
    assert (
        str(next(r for r in rows if r["till"] == "front" and r["outcome"] == "made")["amount"])
        == "12.50"
    )


async def test_the_dialog_sends_nothing_when_the_ledger_cannot_write(dash_server, tmp_path) -> None:
    from conftest import screen_text, wait_until
    from support.account_dashboard import account_app, ask_to_charge

    server = dash_server
    blocked = tmp_path / "file"
    blocked.write_text("a file where the ledger's directory should be")
    app = account_app(server, ledger=str(blocked / "ledger.sqlite3"))
    async with app.run_test(size=(140, 44)) as pilot:
        await ask_to_charge(pilot, app, server, "4.00")
        before = set(server.sim.tokens())
        await pilot.press("y")
        await wait_until(pilot, lambda: "Not made: the ledger" in screen_text(app))
        assert not any(r["endpoint"] == "create" for r in server.sim.requests)
        assert set(server.sim.tokens()) == before


def test_a_charge_is_named_by_its_money_and_local_time() -> None:
    at = datetime(2026, 11, 27, 9, 2, tzinfo=UTC)
    local = at.astimezone()
    record = ChargeRecord("t", Decimal("12.50"), "EUR", "front", at)
    same_day = local.replace(hour=23, minute=59)
    assert charge_line(record, now=same_day) == f"12.50 EUR at {local:%H:%M}"
    later = local + timedelta(days=1)
    assert charge_line(record, now=later) == f"12.50 EUR at {local:%Y-%m-%d %H:%M}"
    unnamed = ChargeRecord("t", Decimal("1250"), "", "front", at)
    assert charge_line(unnamed, now=same_day).startswith("1250 at ")


async def test_watch_jsonl_writes_the_orders_it_reads(sim_server, tmp_path) -> None:
    import asyncio
    import contextlib
    import io

    from orderdash.headless import watch_jsonl

    ledger = tmp_path / "ledger.sqlite3"
    tokens = sim_server.sim.tokens()[:2]
    settings = make_settings(sim_server.base_url, poll_interval=0.1, ledger=str(ledger))
    out = io.StringIO()
    task = asyncio.create_task(watch_jsonl(settings, tokens, out))
    try:
        for _ in range(200):
            if out.getvalue().count("\n") >= 2:
                break
            await asyncio.sleep(0.05)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    book = open_book(Settings(ledger=str(ledger)))
    try:
        assert {s.token for s in book.orders_seen()} == set(tokens)
    finally:
        book.close_connection()


# -- looking up unresolved charges -----------------------------------------------------------


class _Counted:
    """A getOrder budget that counts what is spent."""

    def __init__(self) -> None:
        self.spent = 0

    async def take_turn(self) -> None:
        self.spent += 1


def _resolver(server, tmp_path: Path) -> tuple[Settings, BookWriter]:
    settings = make_settings(server.base_url, ledger=str(tmp_path / "ledger.sqlite3"), till="front")
    return settings, writer_for(settings)


async def test_a_lookup_racing_the_dialog_never_writes_not_made_over_made(
    server, tmp_path: Path
) -> None:
    """The dialog's create answers "made" while a lookup of the same charge is on its way and
    finds no order yet (the service had not made it when asked): the lookup's "not made"
    is never written over the dialog's "made", nor said."""
    settings, writer = _resolver(server, tmp_path)
    at = datetime.now(UTC) - timedelta(minutes=10)
    dialog = open_book(settings)
    dialog.charge_started(
        ChargeRecord(
            "racing-token-1", Decimal("12.50"), "EUR", "front", at, service=service_of(settings)
        )
    )
    async with OrderClient.from_settings(settings) as client:
        asked = client.get_order

        async def get_order(token: str):  # noqa: ANN202 - the dialog ends while it is asked
            dialog.charge_ended("racing-token-1", "made")
            return await asked(token)

        client.get_order = get_order  # type: ignore[method-assign]
        resolutions = await resolve_unresolved(
            writer, client, gate=_Counted(), recent=timedelta(0), here=service_of(settings)
        )
    await writer.aclose()
    assert resolutions.found == [] and resolutions.later == []
    assert dialog.charge("racing-token-1").outcome == "made"
    dialog.close_connection()


async def test_a_charge_started_moments_ago_is_left_for_later(server, tmp_path: Path) -> None:
    """A charge the same till's dashboard may be making right now is not looked up (the
    service may not have made its order yet): it stays "sending" and its line says so."""
    from orderdash.core.ledger.charges import recent_window

    settings, writer = _resolver(server, tmp_path)
    await writer.charge_started("being-made-token-1", Decimal("12.50"), "EUR")
    gate = _Counted()
    server.sim.clear_requests()
    async with OrderClient.from_settings(settings) as client:
        resolutions = await resolve_unresolved(
            writer,
            client,
            gate=gate,
            recent=recent_window(settings.timeout),
            here=service_of(settings),
        )
    (record,) = await writer.charges(*_today(), None)
    await writer.aclose()
    assert record.outcome == "sending" and gate.spent == 0 and resolutions.found == []
    (line,) = resolutions.later
    assert line.startswith("12.50 EUR at ") and "left for later" in line
    assert not any(r["endpoint"] == "order" for r in server.sim.requests)
    # the window covers every try of the create with its whole deadline
    assert recent_window(600) >= timedelta(seconds=3 * 601)


async def test_lookups_are_bounded_newest_first_within_the_budget(server, tmp_path: Path) -> None:
    settings, writer = _resolver(server, tmp_path)
    book = open_book(settings)
    old = datetime.now(UTC) - timedelta(hours=1)
    for minute in range(12):
        at = old + timedelta(minutes=minute)
        token = f"gone-token-{minute:02}"
        here = service_of(settings)
        book.charge_started(ChargeRecord(token, Decimal(1), "EUR", "front", at, service=here))
    book.close_connection()
    gate = _Counted()
    async with OrderClient.from_settings(settings) as client:
        resolutions = await resolve_unresolved(
            writer, client, gate=gate, recent=timedelta(0), here=service_of(settings)
        )
    await writer.aclose()
    assert gate.spent == 10
    assert [r.record.token for r in resolutions.found] == [
        f"gone-token-{minute:02}" for minute in range(11, 1, -1)
    ]
    assert resolutions.later == ["and 2 older ones, left for the next start"]


def test_a_charge_is_named_in_the_stores_time_zone() -> None:
    from zoneinfo import ZoneInfo

    at = datetime(2026, 11, 27, 9, 2, tzinfo=UTC)
    record = ChargeRecord("t", Decimal("12.50"), "EUR", "front", at)
    now = at + timedelta(hours=2)
    kiritimati = ZoneInfo("Pacific/Kiritimati")  # UTC+14: 23:02, and now the next day there
    assert charge_line(record, now=now, zone=kiritimati) == "12.50 EUR at 2026-11-27 23:02"
    assert charge_line(record, now=now, zone=ZoneInfo("America/Los_Angeles")) == (
        "12.50 EUR at 01:02"
    )


def test_charges_counts_today_in_the_timezone_setting(server, tmp_path) -> None:
    """`charges` lists the day as `close` counts it: in the `timezone` setting's zone. A charge
    13 hours ago is today where the clock now reads after 14:00, yesterday where before 12:00."""
    from zoneinfo import ZoneInfo

    ledger = tmp_path / "ledger.sqlite3"
    now = datetime.now(UTC)
    zones = [f"Etc/GMT{offset:+d}" if offset else "UTC" for offset in range(-14, 13)]

    def since_midnight(zone: str) -> timedelta:
        local = now.astimezone(ZoneInfo(zone))
        return local - local.replace(hour=0, minute=0, second=0, microsecond=0)

    today = next(z for z in zones if since_midnight(z) > timedelta(hours=14))
    yesterday = next(z for z in zones if since_midnight(z) < timedelta(hours=12))
    book = open_book(Settings(ledger=str(ledger)))
    at = now - timedelta(hours=13)
    book.charge_started(ChargeRecord("late-token-1", Decimal(2), "EUR", "front", at, "made"))
    book.close_connection()
    argv = [sys.executable, "-m", "orderdash", "charges", "--json"]
    listed = {}
    for zone in (today, yesterday):
        env = {**_env(server, ledger), "ORDERDASH_TIMEZONE": zone}
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr
        listed[zone] = [r["token"] for r in jsontext.loads(done.stdout)]
    assert listed == {today: ["late-token-1"], yesterday: []}
    # the time is shown in the zone the day is counted in, not the machine's (St John's is
    # half an hour off every Etc zone)
    env = {**_env(server, ledger), "ORDERDASH_TIMEZONE": today, "TZ": "America/St_Johns"}
    text = subprocess.run(argv[:-1], capture_output=True, text=True, env=env, timeout=60)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith(at.astimezone(ZoneInfo(today)).strftime("%H:%M %z") + "  ")


def test_charges_text_shows_each_time_in_the_zone_the_day_is_counted_in() -> None:
    from zoneinfo import ZoneInfo

    from orderdash.cli.render import ChargeList

    at = datetime(2026, 11, 27, 9, 2, tzinfo=UTC)
    record = ChargeRecord("token-1", Decimal("12.50"), "EUR", "front", at, "made")
    berlin = ChargeList([record], [], zone=ZoneInfo("Europe/Berlin")).text()
    assert berlin[0].startswith("10:02 +0100  ")
    kiritimati = ChargeList([record], [], zone=ZoneInfo("Pacific/Kiritimati")).text()
    assert kiritimati[0].startswith("23:02 +1400  ")


async def test_the_writer_tells_once_when_orders_stop_being_written(tmp_path) -> None:
    """Told when orders seen stop being written, not at every batch after; told again only
    after they were written again and then stopped again."""
    from orderdash.core.ledger import LedgerError

    ledger = tmp_path / "ledger.sqlite3"
    broken = [True]
    told: list[str] = []

    def opener():  # noqa: ANN202
        book = open_book(Settings(ledger=str(ledger)))
        real = book.order_seen_many

        def many(rows):  # noqa: ANN001, ANN202
            if broken[0]:
                raise LedgerError("the ledger: disk I/O error")
            return real(rows)

        book.order_seen_many = many
        return book

    writer = BookWriter(opener, "front")
    writer.on_problem = told.append
    for status in ("NEW", "PAID", "EXPIRED"):
        writer.saw("t1", {"token": "t1", "status": status})
        await _written(writer)
    assert told == ["the ledger: disk I/O error"] and writer.problem
    broken[0] = False
    writer.saw("t1", {"token": "t1", "status": "DONE"})
    await _written(writer)
    assert writer.problem == ""
    broken[0] = True
    writer.saw("t1", {"token": "t1", "status": "AGAIN"})
    await _written(writer)
    assert len(told) == 2
    await writer.aclose()


async def test_the_dashboard_says_once_when_orders_stop_being_written(dash_server, tmp_path):
    from conftest import wait_until
    from support.account_dashboard import account_app

    blocked = tmp_path / "file"
    blocked.write_text("a file where the ledger's directory should be")
    app = account_app(dash_server, ledger=str(blocked / "ledger.sqlite3"))
    said = "Orders are not being written down: the ledger"

    def notices() -> list:
        return [n for n in app._notifications if n.message.startswith(said)]

    async with app.run_test(size=(140, 44), notifications=True) as pilot:
        await wait_until(pilot, lambda: len(notices()) == 1)
        assert notices()[0].title == "Ledger"
        writer = app.books.writer
        for status in ("a", "b", "c"):  # more batches, each failing again
            writer.saw("t-more", {"token": "t-more", "status": status})
            await _written_or_failed(writer)
        await pilot.pause()
        assert len(notices()) == 1


async def _written_or_failed(writer: BookWriter) -> None:
    from orderdash.core.ledger import LedgerError

    try:
        await _written(writer)
    except LedgerError:
        pass  # the book cannot be opened: the batch before failed the same way


def test_the_close_in_the_dashboard_leaves_each_read_to_the_apps_hook(tmp_path) -> None:
    """The close of day reads through the App's client, whose hook writes every read: the
    close's book does not write the same read again (it does before the hook is set)."""
    from types import SimpleNamespace

    from orderdash.tui.books import _ReadsWrittenByTheApp

    settings = Settings(ledger=str(tmp_path / "ledger.sqlite3"))
    client = SimpleNamespace(on_order_read=lambda fetched: None)
    book = _ReadsWrittenByTheApp(open_book(settings), client)  # type: ignore[arg-type]
    at = datetime.now(UTC)
    try:
        book.order_seen("by-the-hook", "front", at, '{"token":"by-the-hook"}')
        client.on_order_read = None
        book.order_seen("no-hook-yet", "front", at, '{"token":"no-hook-yet"}')
        assert [s.token for s in book.orders_seen()] == ["no-hook-yet"]
    finally:
        book.close_connection()


def test_get_waits_briefly_for_a_ledger_server_that_is_away(monkeypatch, capsys) -> None:
    """`get` has read its order: a PostgreSQL ledger that does not answer delays it by the
    short bound only, with one warning line."""
    from types import SimpleNamespace

    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed")
    from orderdash.cli.order import LEDGER_CONNECT_SECONDS, _write_seen

    asked: dict = {}

    def connect(url: str, **options):  # noqa: ANN202
        asked.update(options)
        raise psycopg.OperationalError("connection timeout expired")

    monkeypatch.setattr(psycopg, "connect", connect)
    settings = Settings(ledger_url=SecretStr("postgresql://till:pw-Xy9@127.0.0.1:1/shop"))
    fetched = SimpleNamespace(order=SimpleNamespace(token="t1"), raw={"token": "t1"})
    _write_seen(settings, fetched)
    assert asked["connect_timeout"] == LEDGER_CONNECT_SECONDS == 2
    err = capsys.readouterr().err
    assert err.startswith("orderdash: warning: the order was not written down: the ledger")
    assert len(err.strip().splitlines()) == 1 and "pw-Xy9" not in err


async def test_a_call_as_the_writer_closes_is_a_ledger_error_and_reopens_nothing(
    tmp_path: Path,
) -> None:
    """The app quitting while a charge's outcome is being written: the call that passed the
    closed check just before the close fails as the ledger's one-line error (the charge's
    outcome says so), never a RuntimeError, and no book is opened again after the close."""
    from orderdash.core.ledger import LedgerError

    opened: list = []

    def opener():  # noqa: ANN202
        opened.append(open_book(Settings(ledger=str(tmp_path / "ledger.sqlite3"))))
        return opened[-1]

    writer = BookWriter(opener, "front")
    await writer.charge_started("t1", Decimal("1.00"), "EUR")
    writer.close()  # the executor is shut down
    writer._closed = False  # as seen by a call that checked just before the close
    said = await writer.charge_ended("t1", "made", "made")
    assert said.startswith("the ledger could not write") and "closed" in said
    with pytest.raises(LedgerError):
        day = datetime(2026, 11, 27, tzinfo=UTC)
        await writer.call(lambda book: book.charges(day, day, None))
    assert len(opened) == 1  # opened once, by the first call; never after the close
