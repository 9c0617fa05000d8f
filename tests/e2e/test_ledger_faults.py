"""Every PostgreSQL ledger call is bounded: a table another session keeps locked fails a call
within the session's lock_timeout (one line, the lock still held). A database URL libpq would
read otherwise than we do is refused before anything connects, no part of its password shown
or logged."""

from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from pydantic import SecretStr

from conftest import BEARER, run_cli
from orderdash.core.ledger import LedgerError
from orderdash.core.ledger.open import open_book
from orderdash.core.ledger.postgres import PostgresEngine, SessionBounds
from orderdash.core.ledger.store import SqlBook
from orderdash.core.runtime.config import Settings

DAY = datetime(2026, 11, 26, tzinfo=UTC)


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
        started = time.monotonic()
        call = pool.submit(book.charges, DAY, DAY + timedelta(days=1), None)
        try:
            call.result(timeout=10)
        except LedgerError as error:
            message, waited = error.message, time.monotonic() - started
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
    assert "lock timeout" in message and "\n" not in message
    assert waited < 3


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
