"""Every ledger call is bounded, and Ctrl-C is honoured while one is stuck: a table another
PostgreSQL session keeps locked fails a call within the session's lock_timeout (one line, the
lock still held), and a real `orderdash charge` waiting on that lock, or `watch --jsonl`
whose SQLite ledger another connection holds, exits about half a second after SIGINT with
130 and one line saying what was not written down. A database URL libpq would read otherwise
than we do is refused before anything connects, no part of its password shown or logged."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from pydantic import SecretStr

from conftest import BEARER, run_cli, serving
from orderdash.core.ledger import LedgerError
from orderdash.core.ledger.open import open_book
from orderdash.core.ledger.postgres import PostgresEngine, SessionBounds
from orderdash.core.ledger.store import SqlBook
from orderdash.core.settings.model import Settings
from orderdash.simulator import Simulator, SimulatorServer

ACCESS = "access-Kk5-ledger-bounds"
DAY = datetime(2026, 11, 26, tzinfo=UTC)
#: From SIGINT to the exit, at most: the writer's close waits 0.5 s (its stderr line says so),
#: the rest is the interpreter's end; generous for a loaded machine, and far below the stuck
#: call's own wait (the lock held until the test ends) that a Ctrl-C once waited for.
EXIT_WITHIN = 5.0


@pytest.fixture
def account_server() -> Iterator[SimulatorServer]:
    with serving(
        SimulatorServer(Simulator(seed=7), access_token=ACCESS, create_prefix="/listener")
    ) as s:
        yield s


def _env(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    env.update(ORDERDASH_CONFIG=os.devnull, **more)
    return env


def _interrupted(
    argv: list[str], env: dict[str, str], out: Path, ready: Callable[[], bool]
) -> tuple[int, float, str]:
    """`orderdash ARGV` once `ready()` (it is stuck on the ledger) is sent SIGINT: its exit
    code, the seconds from the signal to its exit, its stderr."""
    with out.open("w") as stdout:
        process = subprocess.Popen(
            [sys.executable, "-m", "orderdash", *argv],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            deadline = time.monotonic() + 30
            while not ready():
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "it never waited on the ledger"
                time.sleep(0.05)
            process.send_signal(signal.SIGINT)
            signalled = time.monotonic()
            try:
                _, err = process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                _, err = process.communicate()
                pytest.fail(f"still running 10 s after SIGINT: {err}")
            return process.returncode, time.monotonic() - signalled, err
        finally:
            if process.poll() is None:  # fail without leaving it running
                process.kill()
                process.communicate()


# -- PostgreSQL ------------------------------------------------------------------------------


def _made(url: str) -> str:
    open_book(Settings(ledger_url=SecretStr(url))).close_connection()  # the tables exist
    return url


def test_a_call_held_by_another_sessions_lock_fails_within_the_bound(pg_server) -> None:
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed")
    url = _made(pg_server.schema_url())
    book = SqlBook(PostgresEngine(url, bounds=SessionBounds(lock=0.3)))
    holder = psycopg.connect(url)  # not autocommit: the lock is held until the rollback
    pool = ThreadPoolExecutor(1)
    try:
        holder.execute("LOCK TABLE charges IN ACCESS EXCLUSIVE MODE")
        call = pool.submit(book.charges, DAY, DAY + timedelta(days=1), None)
        try:
            call.result(timeout=10)
        except LedgerError as error:
            message = error.message
        except FutureTimeout:
            pytest.fail("no answer within 10 s while another session held the lock")
        else:
            pytest.fail("read through another session's lock")
        assert holder.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
    finally:
        holder.rollback()  # frees a call still waiting
        holder.close()
        pool.shutdown()
        book.close_connection()
    assert message.startswith("the ledger postgresql://orderdash@/postgres: ")
    # failed by the session's lock_timeout while the other session still held the lock
    assert "lock timeout" in message and "\n" not in message


def test_every_session_is_bounded_and_the_urls_own_bound_is_kept(pg_server) -> None:
    pytest.importorskip("psycopg", reason="psycopg is not installed")
    names = ("lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout")
    url = pg_server.schema_url()
    own = url.replace("options=", "options=" + quote("-c lock_timeout=7s ", safe=""))
    shown = []
    for each in (url, own):
        engine = PostgresEngine(each)
        try:
            shown.append([engine.query(f"SHOW {name}")[0][0] for name in names])
        finally:
            engine.close()
    assert shown == [["5s", "15s", "30s"], ["7s", "15s", "30s"]]


def test_ctrl_c_ends_a_charge_stuck_on_a_locked_table_at_once(
    pg_server, account_server, tmp_path: Path
) -> None:
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed")
    url = _made(pg_server.schema_url())
    env = _env(
        ORDERDASH_ACCESS_TOKEN=ACCESS,
        ORDERDASH_CUSTOMER_ID="4711",
        ORDERDASH_CURRENCY="EUR",
        ORDERDASH_LEDGER_URL=url,
    )
    argv = ["charge", "1.50", "--base-url", account_server.base_url]
    argv += ["--create-url", account_server.root_url + "/listener"]
    holder = psycopg.connect(url)
    watcher = psycopg.connect(pg_server.url, autocommit=True)

    def waiting_for_the_lock() -> bool:
        (waiting,) = watcher.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE application_name = 'orderdash' AND wait_event_type = 'Lock'"
        ).fetchone()
        return waiting > 0

    try:
        holder.execute("LOCK TABLE charges IN ACCESS EXCLUSIVE MODE")
        code, took, err = _interrupted(argv, env, tmp_path / "out", waiting_for_the_lock)
    finally:
        holder.rollback()
        holder.close()
        watcher.close()
    assert code == 130, err
    assert took < EXIT_WITHIN, (took, err)
    # stuck reading this till's earlier charges: nothing of its own was left unwritten
    assert err.strip() == (
        "orderdash: the ledger did not answer within 0.5 s: nothing was left unwritten"
    )
    assert not account_server.sim.requests  # stopped before any order


# -- SQLite ----------------------------------------------------------------------------------


def test_ctrl_c_ends_watch_jsonl_whose_ledger_another_connection_holds(
    sim_server, tmp_path: Path
) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    open_book(Settings(ledger=str(ledger))).close_connection()
    holder = sqlite3.connect(ledger, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock, until the test ends
    out = tmp_path / "out.jsonl"
    token = sim_server.sim.tokens()[0]
    argv = ["watch", "--jsonl", token, "--base-url", sim_server.base_url, "--poll-interval", "5"]
    env = _env(ORDERDASH_BEARER_TOKEN=BEARER, ORDERDASH_LEDGER=str(ledger))
    try:
        # the order's first line is out: its write is queued behind the held lock
        code, took, err = _interrupted(argv, env, out, lambda: '"state"' in out.read_text())
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 130, err
    assert took < EXIT_WITHIN, (took, err)
    assert err.strip() == (
        "orderdash: the ledger did not answer within 0.5 s: not written down: 1 order read"
    )


# -- the database URL ------------------------------------------------------------------------


def test_a_password_libpq_would_split_is_refused_before_anything_connects(
    tmp_path: Path,
) -> None:
    """The password `shop-pw@Tail-SeCrEt99` unencoded: libpq would take `Tail-SeCrEt99@...`
    for the host. Refused in one line (exit 2), nothing connected, no part of it shown."""
    log = tmp_path / "orderdash.log"
    with socket.socket() as listener:  # the service and the database alike: nobody may call
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        url = f"postgresql://shop:shop-pw@Tail-SeCrEt99@127.0.0.1:{port}/shop"
        env = {"ORDERDASH_LEDGER_URL": url, "ORDERDASH_BEARER_TOKEN": BEARER}
        for command in (["get", "demo-btc-eur"], ["watch", "--jsonl", "demo-btc-eur"]):
            result = run_cli(
                *command, "--base-url", f"http://127.0.0.1:{port}", "--log", str(log), env=env
            )
            assert result.returncode == 2, result.stderr
            (line,) = result.stderr.splitlines()
            assert "percent-encoded" in line and "%40 for @" in line
            seen = result.stdout + result.stderr + (log.read_text() if log.exists() else "")
            assert "shop-pw" not in seen and "Tail-SeCrEt99" not in seen
        with pytest.raises(BlockingIOError):
            listener.accept()


def test_ctrl_c_ends_get_whose_ledger_another_connection_holds(sim_server, tmp_path: Path) -> None:
    """`get` writes the order it read from its main thread: SQLite's wait for the write lock
    is sliced, so the Ctrl-C is seen within a slice, not after the whole busy wait."""
    ledger = tmp_path / "ledger.sqlite3"
    open_book(Settings(ledger=str(ledger))).close_connection()
    holder = sqlite3.connect(ledger, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock, until the test ends
    out = tmp_path / "out.txt"
    # an order of this test's own: no other process asks for it (a leftover one from another
    # test, polling a server that had this port, asks for the seeded demo orders)
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
    argv = ["get", token, "--base-url", sim_server.base_url]
    env = _env(ORDERDASH_BEARER_TOKEN=BEARER, ORDERDASH_LEDGER=str(ledger))
    path = f"/order/{token}/"

    def read() -> bool:
        # the command's getOrder came (the simulator logged it): its write waits on the lock
        return any(r["path"] == path for r in list(sim_server.sim.requests))

    try:
        code, took, err = _interrupted(argv, env, out, read)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 130, err
    assert took < EXIT_WITHIN, (took, err)
    assert "Traceback" not in err
