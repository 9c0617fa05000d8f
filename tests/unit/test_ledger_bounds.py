"""The ledger under faults, without a server: a database URL libpq would read otherwise than we
do, a symlink at the ledger's path, two tills making a new file at once, a row holding a huge
text, and a writer whose book never answers (its close waits a bounded time and says what
was left unwritten)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import SecretStr

from orderdash.core.ledger import MAX_ORDER_JSON, ChargeRecord, LedgerError, ResolutionRecord
from orderdash.core.ledger.open import open_book
from orderdash.core.ledger.schema import MAX_DETAIL, MAX_REASON, SCHEMA_VERSION
from orderdash.core.ledger.url import check_url, url_secrets
from orderdash.core.ledger.writer import BookWriter
from orderdash.core.model.errors import ConfigError
from orderdash.core.settings.model import Settings
from orderdash.core.settings.sources import load_settings

T0 = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
NO_CONFIG = {"ORDERDASH_CONFIG": "/dev/null"}

# -- the database URL ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        # libpq ends the user part at the first '@': the tail would be sent as a host name
        "postgresql://shop:shop-pw@Tail-SeCrEt99@127.0.0.1:15432/shop",
        "postgresql://shop:shop-pw:Tail-SeCrEt99@127.0.0.1:15432/shop",
        "postgresql://shop:shop-pw/Tail-SeCrEt99@127.0.0.1:15432/shop",
        "postgresql://shop:shop-pw?Tail-SeCrEt99@127.0.0.1:15432/shop",
        "postgresql://shop:shop-pw#Tail-SeCrEt99@127.0.0.1:15432/shop",
    ],
)
def test_a_password_with_a_urls_delimiter_is_refused_saying_to_encode_it(url: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_settings({"ledger_url": url}, NO_CONFIG)
    message = refused.value.message
    assert "percent-encoded" in message and "%40 for @" in message and "\n" not in message
    assert "shop-pw" not in message and "Tail-SeCrEt99" not in message


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://shop:shop-pw%40Tail-SeCrEt99@127.0.0.1:15432/shop",
        "postgresql://shop@/books?host=/run/pg&password=a@b",
        "postgresql://shop:pw@[::1]:5432/shop",
        "postgresql:///shop",
        "postgresql://shop:pw@h1:5432,h2:5433/shop?options=-c%20lock_timeout%3D2s",
    ],
)
def test_urls_libpq_reads_as_we_do_are_taken(url: str) -> None:
    check_url(url)
    settings, _ = load_settings({"ledger_url": url}, NO_CONFIG)
    assert settings.ledger_url is not None


def test_no_part_of_the_password_is_in_what_libpq_says_back(monkeypatch) -> None:
    """Whatever the server or libpq echoes of the password (a piece of it taken for a host
    name, its decoded form), the ledger's message shows none of it."""
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed")
    url = "postgresql://shop:shop-pw%40Tail-SeCrEt99@127.0.0.1:1/shop"

    def connect(conninfo: str, **options):  # noqa: ANN202
        raise psycopg.OperationalError(
            "failed to resolve host 'Tail-SeCrEt99@127.0.0.1': Name or service not known; "
            "password 'shop-pw@Tail-SeCrEt99' refused"
        )

    monkeypatch.setattr(psycopg, "connect", connect)
    with pytest.raises(LedgerError) as failed:
        open_book(Settings(ledger_url=SecretStr(url)))
    message = failed.value.message
    assert "shop-pw" not in message and "Tail-SeCrEt99" not in message
    assert message.startswith("the ledger postgresql://shop@127.0.0.1:1/shop: failed to resolve")
    assert {"shop-pw", "Tail-SeCrEt99"} <= set(url_secrets(url))


# -- the SQLite file -------------------------------------------------------------------------


def test_a_symlink_at_the_ledger_path_is_refused_and_never_followed(tmp_path: Path) -> None:
    target = tmp_path / "created-by-ledger"
    dangling = tmp_path / "ledger.sqlite3"
    dangling.symlink_to(target)
    with pytest.raises(LedgerError) as refused:
        open_book(Settings(ledger=str(dangling)))
    assert refused.value.message == (
        f"the ledger {dangling}: it is a symbolic link: give the file's own path"
    )
    assert not target.exists()  # its target is never made
    # to a real book: refused the same, the book left as it was
    real = tmp_path / "real.sqlite3"
    open_book(Settings(ledger=str(real))).close_connection()
    before = real.read_bytes()
    to_real = tmp_path / "to-real.sqlite3"
    to_real.symlink_to(real)
    with pytest.raises(LedgerError, match="symbolic link"):
        open_book(Settings(ledger=str(to_real)))
    assert real.read_bytes() == before


def test_a_new_book_made_while_another_till_holds_the_file_waits_for_it(
    tmp_path: Path, monkeypatch
) -> None:
    """Two tills making a new book at once: while one holds the new file's write lock, SQLite
    refuses the other's turn to WAL at once, without its busy wait ("database is locked").
    The open waits for it as a write does, and then finds the book made."""
    from orderdash.core.ledger import sqlite as engine

    path = tmp_path / "ledger.sqlite3"
    other = sqlite3.connect(path, isolation_level=None)  # the other till, midway
    other.execute("BEGIN IMMEDIATE")
    refused_once = threading.Event()
    pause = getattr(engine, "_pause", time.sleep)

    def noted(seconds: float) -> None:
        refused_once.set()
        pause(seconds)

    monkeypatch.setattr(engine, "_pause", noted, raising=False)
    opened: dict[str, object] = {}

    def open_it() -> None:
        try:
            opened["book"] = open_book(Settings(ledger=str(path)))
        except LedgerError as error:
            opened["error"] = error.message
        finally:
            refused_once.set()

    thread = threading.Thread(target=open_it)
    thread.start()
    assert refused_once.wait(10)
    other.execute("COMMIT")
    other.close()
    thread.join(10)
    assert "error" not in opened, opened
    book = opened["book"]
    assert book.version == SCHEMA_VERSION  # type: ignore[attr-defined]
    book.close_connection()  # type: ignore[attr-defined]


def test_a_huge_text_in_a_row_is_read_cut_in_sql(tmp_path: Path) -> None:
    """A damaged or altered ledger with a 20 MB detail (a 4 MB reason and order): each comes
    back cut one character past its bound, and the read never holds the whole text in memory."""
    path = tmp_path / "ledger.sqlite3"
    book = open_book(Settings(ledger=str(path)))
    try:
        book.charge_started(ChargeRecord("tok-1", Decimal("12.50"), "EUR", "front", T0))
        book.charge_ended("tok-1", "not_made", "refused")
        book.order_seen("tok-1", "front", T0, '{"token": "tok-1"}')
        book.resolution_made(
            ResolutionRecord("r1", "tok-1", "settled", "paid cash", "front", "anna", T0)
        )
        with sqlite3.connect(path) as tamper:
            tamper.execute("PRAGMA synchronous=OFF")  # a test's file: no need to wait for the disk
            tamper.execute("UPDATE charges SET detail = printf('%.*c', 20000000, 'D')")
            tamper.execute("UPDATE resolutions SET reason = printf('%.*c', 4000000, 'R')")
            tamper.execute("UPDATE orders_seen SET order_json = printf('%.*c', 4000000, 'O')")
        tracemalloc.start()
        try:
            (charge,) = book.charges(T0 - timedelta(days=1), T0 + timedelta(days=1), None)
            (seen,) = book.orders_seen(["tok-1"])
            (resolution,) = book.resolutions_of(["tok-1"])
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    finally:
        book.close_connection()
    assert len(charge.detail) == MAX_DETAIL + 1
    assert len(seen.order_json) == MAX_ORDER_JSON + 1  # too long to parse, and so said
    assert len(resolution.reason) == MAX_REASON  # cut in SQL, then to one line with its sign
    assert peak < 4 * MAX_ORDER_JSON, peak  # the cut order and its copies; never the 20 MB


# -- the writer's close ----------------------------------------------------------------------


class _StuckBook:
    """A book whose every write waits until `release` (a server holding a lock forever)."""

    def __init__(self, release: threading.Event) -> None:
        self._release = release

    def charge_ended(self, *args: object) -> None:
        self._release.wait(30)

    def order_seen_many(self, reads: object) -> None:
        self._release.wait(30)

    def close_connection(self) -> None:
        pass


async def test_a_close_waits_for_a_stuck_book_a_bounded_time_and_says_what_is_unwritten() -> None:
    release = threading.Event()
    writer = BookWriter(lambda: _StuckBook(release), "front")  # type: ignore[arg-type, return-value]
    try:
        await writer.open()
        outcome = asyncio.ensure_future(writer.charge_ended("tok-1", "made"))
        await asyncio.sleep(0)  # the outcome handed to the writer's thread
        writer.saw("tok-2", {"token": "tok-2"})
        # the book never answers: the close gave up after its bound, as its line says
        said = await writer.aclose(0.2)
        assert said == (
            "the ledger did not answer within 0.2 s: "
            "not written down: charge tok-1's outcome (made), 1 order read"
        )
        # the thread left behind holds no exit: the interpreter does not wait for it
        assert all(t.daemon for t in threading.enumerate() if t.name == "orderdash-ledger")
    finally:
        release.set()
    assert await outcome == ""  # written once the book answered


def test_a_ctrl_c_during_a_commands_close_still_says_what_is_unwritten(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A command's ledger close waits up to its bound; a Ctrl-C in that wait ends it, and the
    line saying what was not written down is still printed."""
    from orderdash.cli.account import _close

    class Interrupted:
        def close(self, wait: float) -> str:
            raise KeyboardInterrupt

        def unwritten(self) -> str:
            return "charge tok-1's outcome (made)"

    with pytest.raises(KeyboardInterrupt):
        _close(Interrupted(), interrupted=False)
    assert capsys.readouterr().err == (
        "orderdash: interrupted: not written down: charge tok-1's outcome (made)\n"
    )
