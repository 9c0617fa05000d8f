"""One book for several tills: two till processes open a new book on the same PostgreSQL
server at once (one migrates, the other waits), then write charges and orders seen at the
same time; nothing is lost. And a crash: a till killed (SIGKILL) while it writes loses no
charge it had reported written, on SQLite as on PostgreSQL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import SecretStr

from orderdash.core.ledger.open import open_book
from orderdash.core.settings.model import Settings

CHARGES = 150

#: A till: opens the book named by the environment, writes CHARGES charges (each ended) and
#: as many orders seen, printing each token once its write has returned.
TILL = textwrap.dedent(
    """
    import os, sys
    from datetime import UTC, datetime
    from decimal import Decimal
    from pydantic import SecretStr
    from orderdash.core.ledger import ChargeRecord
    from orderdash.core.ledger.open import open_book
    from orderdash.core.settings.model import Settings

    till, count = sys.argv[1], int(sys.argv[2])
    url, path = os.environ.get("LEDGER_TEST_URL"), os.environ.get("LEDGER_TEST_PATH")
    settings = Settings(ledger_url=SecretStr(url) if url else None, ledger=path, till=till)
    book = open_book(settings)
    print("open", flush=True)
    i = 0
    while count == 0 or i < count:
        token = f"{till}-{i}"
        book.charge_started(
            ChargeRecord(token, Decimal(f"{i}.01"), "EUR", till, datetime.now(UTC))
        )
        book.order_seen(token, till, datetime.now(UTC), '{"amount": 0.000000000000000001}')
        if i % 2:
            book.charge_ended(token, "made", "made, awaiting payment")
        print(token, flush=True)
        i += 1
    book.close_connection()
    """
)


def _till(name: str, count: int, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", TILL, name, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )


def _settings(env: dict[str, str]) -> Settings:
    if "LEDGER_TEST_URL" in env:
        return Settings(ledger_url=SecretStr(env["LEDGER_TEST_URL"]))
    return Settings(ledger=env["LEDGER_TEST_PATH"])


def test_two_tills_at_once_lose_nothing(pg_server) -> None:
    env = {"LEDGER_TEST_URL": pg_server.schema_url()}  # a new, empty book: both migrate it
    tills = [_till("A", CHARGES, env), _till("B", CHARGES, env)]
    for till in tills:
        out, err = till.communicate(timeout=120)
        assert till.returncode == 0, err
        assert len(out.split()) == CHARGES + 1
    book = open_book(_settings(env))
    try:
        now = datetime.now(UTC)
        every = book.charges(now - timedelta(hours=1), now + timedelta(hours=1), None)
        assert len(every) == 2 * CHARGES
        for name in "AB":
            mine = book.charges(now - timedelta(hours=1), now + timedelta(hours=1), name)
            assert {c.token for c in mine} == {f"{name}-{i}" for i in range(CHARGES)}
            assert sum(c.outcome == "made" for c in mine) == CHARGES // 2
            assert len(book.unresolved_charges(name)) == CHARGES - CHARGES // 2
        seen = book.orders_seen()
        assert len(seen) == 2 * CHARGES
        assert all("0.000000000000000001" in s.order_json for s in seen)
        assert book._engine.query("SELECT count(*) FROM schema_version") == [(1,)]
    finally:
        book.close_connection()


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_a_till_killed_while_writing_loses_nothing_it_reported(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if engine == "sqlite":
        env = {"LEDGER_TEST_PATH": str(tmp_path / "ledger.sqlite3")}
    else:
        env = {"LEDGER_TEST_URL": request.getfixturevalue("pg_server").schema_url()}
    till = _till("K", 0, env)  # writes until killed
    assert till.stdout is not None
    reported: list[str] = []
    try:
        assert till.stdout.readline().strip() == "open", till.stderr and till.stderr.read()
        while len(reported) < 40:
            line = till.stdout.readline().strip()
            assert line, "the till stopped writing"
            reported.append(line)
    finally:
        os.kill(till.pid, signal.SIGKILL)
        till.wait(timeout=30)
    assert till.returncode == -signal.SIGKILL
    book = open_book(_settings(env))  # opens cleanly after the crash
    try:
        now = datetime.now(UTC)
        written = {c.token for c in book.charges(now - timedelta(hours=1), now, "K")}
        assert set(reported) <= written
        seen = {s.token for s in book.orders_seen(reported)}
        assert seen == set(reported)
        if engine == "sqlite":
            assert book._engine.query("PRAGMA integrity_check") == [("ok",)]
    finally:
        book.close_connection()


def test_a_lost_connection_is_made_again_and_the_call_goes_through(pg_server) -> None:
    """A server restart or a dropped connection: the call is made once more on a new
    connection (every write is idempotent), and nothing is written twice."""
    import psycopg

    from orderdash.core.ledger import ChargeRecord, LedgerError

    book = open_book(Settings(ledger_url=SecretStr(pg_server.schema_url())))
    try:
        record = ChargeRecord("lost-1", Decimal("1"), "EUR", "A", datetime.now(UTC))
        for _ in range(2):
            (pid,) = book._engine.query("SELECT pg_backend_pid()")[0]
            with psycopg.connect(pg_server.url, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            book.charge_started(record)
        assert book._engine.query("SELECT count(*) FROM charges") == [(1,)]
        assert book.charge("lost-1") is not None
    finally:
        book.close_connection()
    with pytest.raises(LedgerError) as closed:
        book.charge("lost-1")  # closed on purpose: not made again
    assert "closed" in closed.value.message
