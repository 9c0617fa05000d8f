"""The ledger's contract, on both engines: the same tests on a real SQLite file and a real
PostgreSQL server (pg_server.py; skipped with the reason where it is absent)."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import SecretStr

from orderdash.core.ledger import (
    ChainMoved,
    ChargeRecord,
    ChargeService,
    CloseRecord,
    LedgerError,
    OverlappingClose,
    RefundRecord,
    ResolutionRecord,
)
from orderdash.core.ledger.open import default_ledger_path, open_book
from orderdash.core.ledger.rows import time_text
from orderdash.core.ledger.schema import MIGRATIONS, SCHEMA_VERSION
from orderdash.core.ledger.store import SqlBook
from orderdash.core.model.errors import ConfigError
from orderdash.core.settings.model import Settings
from orderdash.core.settings.sources import load_settings

T0 = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def make_book(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], SqlBook]]:
    """Opens the test's one book (each call a new connection to it)."""
    if request.param == "sqlite":
        settings = Settings(ledger=str(tmp_path / "ledger.sqlite3"))
    else:
        server = request.getfixturevalue("pg_server")
        settings = Settings(ledger_url=SecretStr(server.schema_url()))
    opened: list[SqlBook] = []

    def make() -> SqlBook:
        opened.append(open_book(settings))
        return opened[-1]

    yield make
    for book in opened:
        book.close_connection()


def charge(token: str, *, till: str = "front", minutes: int = 0, amount: str = "12.50"):
    return ChargeRecord(token, Decimal(amount), "EUR", till, T0 + timedelta(minutes=minutes))


def test_charges_are_written_and_read_back_with_their_digits(make_book) -> None:
    book = make_book()
    assert book.version == SCHEMA_VERSION
    book.charge_started(charge("tok-a", amount="0.000123456789012345678901"))
    book.charge_started(charge("tok-b", minutes=5, till="back"))
    book.charge_ended("tok-b", "made", "made, awaiting payment")
    again = make_book()  # another connection sees what was committed
    every = again.charges(T0, T0 + timedelta(hours=1), None)
    assert [c.token for c in every] == ["tok-a", "tok-b"]
    assert every[0].amount == Decimal("0.000123456789012345678901")
    assert str(every[0].amount) == "0.000123456789012345678901"
    assert every[0].outcome == "sending" and every[0].ended_at is None
    assert every[0].started_at == T0 and every[0].started_at.tzinfo is not None
    assert (every[1].outcome, every[1].detail, every[1].till) == (
        "made",
        "made, awaiting payment",
        "back",
    )
    assert every[1].ended_at is not None
    assert [c.token for c in again.charges(T0, T0 + timedelta(hours=1), "back")] == ["tok-b"]
    # [since, until): a charge at `until` belongs to the next period
    assert again.charges(T0, T0 + timedelta(minutes=5), None)[-1].token == "tok-a"


def test_unresolved_charges_are_this_tills_sending_and_unknown(make_book) -> None:
    book = make_book()
    for token, till, outcome in [
        ("s", "front", None),
        ("u", "front", "unknown"),
        ("m", "front", "made"),
        ("n", "front", "not_made"),
        ("x", "front", "stopped"),
        ("other", "back", None),
    ]:
        book.charge_started(charge(token, till=till))
        if outcome:
            book.charge_ended(token, outcome, "why")
    assert sorted(c.token for c in book.unresolved_charges("front")) == ["s", "u"]
    assert [c.token for c in book.unresolved_charges("back")] == ["other"]
    with pytest.raises(ValueError):
        book.charge_ended("s", "paid")


def test_a_retried_charge_keeps_its_first_time_and_is_sending_again(make_book) -> None:
    book = make_book()
    book.charge_started(charge("tok"))
    book.charge_ended("tok", "unknown", "no answer")
    book.charge_started(charge("tok", minutes=3))
    (again,) = book.charges(T0, T0 + timedelta(hours=1), None)
    assert (again.started_at, again.outcome, again.detail) == (T0, "sending", "")


def test_orders_seen_keep_the_first_time_and_the_newest_answer(make_book) -> None:
    book = make_book()
    text = '{"token":"o1","amount":"0.00012345678901234567890123"}'
    book.order_seen("o1", "front", T0, text)
    book.order_seen("o2", "front", T0 + timedelta(seconds=1), "{}")
    book.order_seen("o1", "back", T0 + timedelta(minutes=2), text.replace("o1", "o1x"))
    seen = {s.token: s for s in make_book().orders_seen()}
    assert set(seen) == {"o1", "o2"}
    assert seen["o1"].first_seen == T0 and seen["o1"].last_seen == T0 + timedelta(minutes=2)
    assert seen["o1"].till == "back" and "o1x" in seen["o1"].order_json
    assert json.loads(seen["o2"].order_json) == {}
    assert [s.token for s in book.orders_seen(["o2", "nope"])] == ["o2"]
    many = [f"t{i}" for i in range(1200)]  # more than one IN (...) holds
    book.order_seen_many([(t, "front", T0, "{}") for t in many])
    assert len(book.orders_seen(many)) == 1200


def test_a_close_saved_on_a_stale_link_or_before_the_newest_is_refused(make_book) -> None:
    """The chain's link is checked as the close is saved, in the transaction that holds the
    till's closes: a close built before another was saved, or one whose time is not after the
    newest's, is not written (`core/books/chain.py`)."""
    book = make_book()
    day = timedelta(days=1)
    first = CloseRecord("front", T0, T0 + day, T0 + 2 * day, "{}", "a" * 64)
    assert book.save_close(first, follows=None) == first
    assert book.newest_close("front") == first and book.newest_close("back") is None
    second = CloseRecord("front", T0 + day, T0 + 2 * day, T0 + 2 * day, "{}", "b" * 64)
    with pytest.raises(ChainMoved, match="saved meanwhile"):
        book.save_close(second, follows=None)  # built before `first` was saved
    with pytest.raises(ChainMoved, match="check the clocks"):
        book.save_close(second, follows="a" * 64)  # not after the newest one's time
    assert [c.digest for c in book.closes("front")] == ["a" * 64]
    # the same period again is the close kept, whatever it follows
    assert book.save_close(first, follows="z" * 64) == first
    third = replace(second, closed_at=T0 + 3 * day)
    assert book.save_close(third, follows="a" * 64) == third
    assert book.newest_close("front") == third


def test_a_close_is_frozen(make_book) -> None:
    book = make_book()
    until = T0 + timedelta(days=1)
    first = CloseRecord("front", T0, until, T0 + timedelta(days=1, hours=1), '{"a":1}', "d1")
    assert book.save_close(first) == first
    later = CloseRecord("front", T0, until, T0 + timedelta(days=2), '{"a":2}', "d2")
    assert book.save_close(later) == first  # the earlier close is kept
    assert make_book().find_close("front", T0, until) == first
    assert book.find_close("back", T0, until) is None
    shop = CloseRecord("*", T0, until, T0 + timedelta(days=1), "{}", "d3")
    book.save_close(shop)
    book.save_close(CloseRecord("front", T0 - timedelta(days=1), T0, T0, "{}", "d0"))
    assert [c.digest for c in book.closes("front")] == ["d0", "d1"]
    assert [c.digest for c in book.closes("*")] == ["d3"]


def test_a_close_overlapping_another_of_its_till_is_refused(make_book) -> None:
    book = make_book()
    day = CloseRecord("front", T0, T0 + timedelta(days=1), T0 + timedelta(days=1), "{}", "d1")
    book.save_close(day)
    noon = T0 + timedelta(hours=12)
    half = CloseRecord("front", noon, noon + timedelta(days=1), noon, "{}", "d2")
    with pytest.raises(OverlappingClose, match="overlaps the close of 2026-11-26T09:00:00"):
        book.save_close(half)
    book.save_close(CloseRecord("back", noon, noon + timedelta(days=1), noon, "{}", "d3"))
    assert [c.digest for c in book.closes("front")] == ["d1"]
    assert [c.digest for c in book.closes("back")] == ["d3"]


def test_two_overlapping_closes_saved_at_once_leave_one(make_book) -> None:
    """Two tills' connections save overlapping closes of one till at the same instant: the
    check and the insert are one step, so exactly one is kept and the other refused."""
    books = [make_book(), make_book()]
    noon = T0 + timedelta(hours=12)
    records = [
        CloseRecord("*", T0, T0 + timedelta(days=1), T0, "{}", "day"),
        CloseRecord("*", noon, noon + timedelta(days=1), noon, "{}", "noon"),
    ]
    outcomes = _saved_at_once(books, records)
    kept = [c.digest for c in make_book().closes("*")]
    assert len(kept) == 1 and sorted(outcomes) == sorted([kept[0], "refused"])


def test_a_newer_book_is_refused_and_an_older_one_migrated(make_book) -> None:
    book = make_book()
    book.charge_started(charge("kept"))
    with book._engine.transaction() as cursor:
        cursor.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(LedgerError) as refused:
        make_book()
    message = refused.value.message
    assert f"version {SCHEMA_VERSION + 1}" in message and "upgrade orderdash" in message
    assert "\n" not in message
    with book._engine.transaction() as cursor:
        cursor.execute("UPDATE schema_version SET version = 0")
        # a book of version 0 has none of the tables yet
        for table in ("charges", "orders_seen", "closes", "resolutions", "notices_sent"):
            cursor.execute(f"DROP TABLE {table}")
    migrated = make_book()
    assert migrated.version == SCHEMA_VERSION
    assert migrated.charges(T0, T0 + timedelta(hours=1), None) == []
    assert book._engine.query("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]


def _made_by_an_older_orderdash(book: SqlBook, version: int) -> None:
    """The book's tables made again as an orderdash of schema `version` made them (its
    migrations alone), empty, at that version."""
    with book._engine.transaction() as cursor:
        for table in ("charges", "orders_seen", "closes", "resolutions", "notices_sent"):
            cursor.execute(f"DROP TABLE IF EXISTS {table}")
        for statements in MIGRATIONS[:version]:
            for statement in statements:
                cursor.execute(statement)
        cursor.execute("UPDATE schema_version SET version = %s", (version,))


def _old_charge(book: SqlBook, token: str, outcome: str, detail: str = "") -> None:
    """A charge as versions 1 and 2 wrote it: no service, no time of its latest send."""
    with book._engine.transaction() as cursor:
        cursor.execute(
            "INSERT INTO charges (token, amount, currency, till, started_at, outcome, detail)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (token, "12.50", "EUR", "front", time_text(T0), outcome, detail),
        )


def test_a_version_1_book_gains_resolutions_and_keeps_its_rows(make_book) -> None:
    book = make_book()
    _made_by_an_older_orderdash(book, 1)
    _old_charge(book, "kept", "sending")
    migrated = make_book()
    assert migrated.version == SCHEMA_VERSION
    assert [c.token for c in migrated.charges(T0, T0 + timedelta(hours=1), None)] == ["kept"]
    assert migrated.resolutions_of(["kept"]) == []


def test_a_version_2_book_gains_each_charges_service_and_keeps_its_rows(make_book) -> None:
    """Opened by this orderdash, a version-2 book is version 7: its charges are all there, as
    they were, without a service (never looked up, `core/ledger/charges.py`); a charge
    written now has one."""
    book = make_book()
    _made_by_an_older_orderdash(book, 2)
    _old_charge(book, "old-unknown", "unknown", "no answer in 3 tries")
    _old_charge(book, "old-made", "made", "made")
    book.resolution_made(resolution("r-1", "old-made"))
    migrated = make_book()
    assert migrated.version == SCHEMA_VERSION == 7
    assert book._engine.query("SELECT version FROM schema_version") == [(7,)]
    kept = {c.token: c for c in migrated.charges(T0, T0 + timedelta(hours=1), None)}
    assert {token: (c.outcome, c.detail) for token, c in kept.items()} == {
        "old-unknown": ("unknown", "no answer in 3 tries"),
        "old-made": ("made", "made"),
    }
    assert all(c.service is None and c.sent_at is None for c in kept.values())
    assert [c.token for c in migrated.unresolved_charges("front")] == ["old-unknown"]
    assert [r.id for r in migrated.resolutions_of(["old-made"])] == ["r-1"]
    here = ChargeService.of("http://127.0.0.1:8765/api/", "4711")
    migrated.charge_started(ChargeRecord("new", Decimal("1"), "EUR", "front", T0, service=here))
    assert migrated.charge("new").service == ChargeService("http://127.0.0.1:8765/api", "4711")


def test_one_service_is_written_one_way_and_never_with_a_password() -> None:
    from orderdash.core.ledger import service_url

    same = [
        "http://127.0.0.1:8765/api",
        "HTTP://127.0.0.1:8765/api/",
        "http://127.0.0.1:8765/api//",
    ]
    assert {service_url(url) for url in same} == {"http://127.0.0.1:8765/api"}
    assert service_url("https://Pay.Example:443") == "https://pay.example"
    assert service_url("http://pay.example:80/") == "http://pay.example"
    assert service_url("https://pay.example:8443/v1") == "https://pay.example:8443/v1"
    assert service_url("http://[::1]:9000/") == "http://[::1]:9000"
    assert service_url("https://till:Pw-Zz9@pay.example/") == "https://pay.example"
    # a port no request could use is kept as written: never the service on the default port
    assert service_url("https://pay.example:99999/v1") == "https://pay.example:99999/v1"
    assert service_url("https://till:Pw-Zz9@pay.example:x/") == "https://pay.example:x"
    assert str(ChargeService.of("https://pay.example/", "4711")) == (
        "https://pay.example, account 4711"
    )
    assert ChargeService.of("https://pay.example/", None) == ChargeService("https://pay.example")


def test_a_charge_keeps_its_service_and_a_retry_its_latest_send(make_book) -> None:
    book = make_book()
    here = ChargeService.of("HTTPS://Pay.Example:443/api/", "4711")
    assert here == ChargeService("https://pay.example/api", "4711")
    book.charge_started(ChargeRecord("tok", Decimal("5"), "EUR", "front", T0, service=here))
    book.charge_ended("tok", "unknown", "no answer")
    later = T0 + timedelta(minutes=3)
    book.charge_started(ChargeRecord("tok", Decimal("5"), "EUR", "front", later, service=here))
    again = make_book().charge("tok")
    assert again is not None and again.outcome == "sending"
    assert (again.started_at, again.sent_at, again.last_sent) == (T0, later, later)
    assert again.service == here


def resolution(
    ident: str, token: str, *, minutes: int = 0, kind: str = "settled", till: str = "front"
) -> ResolutionRecord:
    return ResolutionRecord(
        ident, token, kind, "the customer agreed", till, "anna", T0 + timedelta(minutes=minutes)
    )


def test_resolutions_are_written_once_and_the_latest_is_the_state(make_book) -> None:
    book = make_book()
    refund = RefundRecord("BTC", Decimal("0.00004268"), "typed", Decimal("9205.6"), Decimal("1E-6"))
    first = resolution("r1", "tok", kind="asked-customer")
    later = ResolutionRecord(
        "r2", "tok", "refunded", "sent back", "back", "bob", T0 + timedelta(minutes=9), refund
    )
    assert book.resolution_made(first) == first
    book.resolution_made(later)
    # the same id again (a retry whose answer was lost) is kept once, as first written
    assert book.resolution_made(resolution("r1", "tok", minutes=30, kind="settled")) == first
    book.resolution_made(resolution("r3", "other", minutes=60, till="back"))
    with pytest.raises(ValueError):
        book.resolution_made(resolution("r4", "tok", kind="forgotten"))
    again = make_book()
    of_tok = again.resolutions_of(["tok", "nope"])
    assert [r.id for r in of_tok] == ["r1", "r2"] and of_tok[-1].kind == "refunded"
    assert of_tok[-1].refund == refund and str(of_tok[-1].refund.amount) == "0.00004268"
    assert of_tok[-1].refund.fee == Decimal("0.000001") and of_tok[0].refund is None
    made = again.resolutions_made(T0, T0 + timedelta(minutes=60), None)
    assert [r.id for r in made] == ["r1", "r2"]  # [since, until)
    assert [r.id for r in again.resolutions_made(T0, T0 + timedelta(days=1), "back")] == [
        "r2",
        "r3",
    ]


def test_resolutions_read_back_are_bounded_clean_lines(make_book) -> None:
    book = make_book()
    hostile = "[bold]x[/]\x1b]52;c;AAAA\x07\n" + "y" * 5000
    book.resolution_made(ResolutionRecord("r1", "tok", "settled", hostile, "front", "op\x9b", T0))
    with book._engine.transaction() as cursor:  # written by something else, not orderdash
        cursor.execute(
            "INSERT INTO resolutions (id, token, kind, reason, till, operator, resolved_at)"
            " VALUES ('r2', 'tok', %s, %s, 'front', 'x', '2026-11-26T09:05:00.000000Z')",
            ("k\x1b" * 50, "z" * 100_000),
        )
    read = book.resolutions_of(["tok"])
    for record in read:
        for text in (record.reason, record.kind, record.operator):
            assert text.isprintable() and len(text) <= 300
    assert read[0].reason.startswith("[bold]x[/]")
    with book._engine.transaction() as cursor:
        cursor.execute("UPDATE resolutions SET refund_amount = 'NaN' WHERE id = 'r2'")
    with pytest.raises(LedgerError, match="not one"):
        book.resolutions_of(["tok"])


def test_naive_times_are_refused(make_book) -> None:
    with pytest.raises(ValueError):
        make_book().charge_started(
            ChargeRecord("t", Decimal(1), "EUR", "front", datetime(2026, 1, 1))
        )


# -- settings and engines ------------------------------------------------------------------


def test_the_default_book_is_in_the_user_data_dir(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_ledger_path() == tmp_path / "xdg" / "orderdash" / "ledger.sqlite3"
    book = open_book(Settings())
    try:
        assert book.engine == "sqlite"
        path = tmp_path / "xdg" / "orderdash" / "ledger.sqlite3"
        assert path.exists() and path.stat().st_mode & 0o077 == 0
        mode = book._engine.query("PRAGMA journal_mode")
        assert mode == [("wal",)]
        assert book._engine.query("PRAGMA synchronous") == [(2,)]  # FULL
    finally:
        book.close_connection()


def test_the_till_defaults_to_a_clean_host_name(monkeypatch) -> None:
    import socket

    monkeypatch.setattr(socket, "gethostname", lambda: "Shop Front [1]\x1b.local")
    assert Settings().till == "ShopFront1"
    monkeypatch.setattr(socket, "gethostname", lambda: "\x1b")
    assert Settings().till == "till"
    assert Settings(till="front-2").till == "front-2"
    for bad in ("", "*", "a b", "x" * 65, "[red]"):
        with pytest.raises(ValueError):
            Settings(till=bad)


def test_the_operator_defaults_to_the_login_name(monkeypatch) -> None:
    import getpass

    monkeypatch.setattr(getpass, "getuser", lambda: "anna\x1b[2J  b")
    assert Settings().operator == "anna\ufffd[2J b"
    assert Settings().operator.isprintable()

    def no_user() -> str:
        raise OSError("no user")

    monkeypatch.setattr(getpass, "getuser", no_user)
    assert Settings().operator == "operator"
    assert load_settings({}, {"ORDERDASH_OPERATOR": "Bob B."})[0].operator == "Bob B."
    for bad in ("", " ", "a\nb", "x" * 65):
        with pytest.raises(ValueError):
            Settings(operator=bad)


def test_a_ledger_url_password_is_never_shown(tmp_path: Path, caplog) -> None:
    password = "pw-Sekr3t-never-shown"
    url = f"postgresql://shop:{password}@/books?host={tmp_path}/nowhere&password={password}"
    settings, _ = load_settings({"ledger_url": url}, {"ORDERDASH_CONFIG": "/dev/null"})
    assert password not in repr(settings) and password not in str(settings.model_dump())
    caplog.set_level(logging.DEBUG)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed")
    with pytest.raises(LedgerError) as failed:
        open_book(settings)
    assert password not in failed.value.message and password not in repr(failed.value)
    assert "postgresql://shop@/books" in failed.value.message
    assert password not in caplog.text
    # a refused setting does not repeat the URL either
    with pytest.raises(ConfigError) as refused:
        load_settings(
            {"ledger_url": f"mysql://shop:{password}@h/db"}, {"ORDERDASH_CONFIG": "/dev/null"}
        )
    assert password not in refused.value.message
    from orderdash.core.settings.sources import child_environment

    assert "ORDERDASH_LEDGER_URL" not in child_environment({"ORDERDASH_LEDGER_URL": url})


def test_an_unreadable_book_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(LedgerError) as failed:
        open_book(Settings(ledger=str(path)))
    assert str(path) in failed.value.message and "\n" not in failed.value.message


def test_an_empty_ledger_url_undoes_the_config_files(tmp_path: Path) -> None:
    """As `orderdash demo` does: its charges never reach the shop's shared book."""
    config = tmp_path / "config.toml"
    config.write_text('ledger_url = "postgresql://shop:pw@books.example/shop"\n')
    env = {"ORDERDASH_CONFIG": str(config)}
    assert load_settings({}, env)[0].ledger_url is not None
    settings, _ = load_settings({"ledger_url": "", "ledger": str(tmp_path / "demo.sqlite3")}, env)
    assert settings.ledger_url is None
    book = open_book(settings)
    try:
        assert book.engine == "sqlite" and book.where == str(tmp_path / "demo.sqlite3")
    finally:
        book.close_connection()


def test_the_made_orders_currency_fills_a_charge_that_had_none(make_book) -> None:
    book = make_book()
    book.charge_started(ChargeRecord("blank", Decimal("5"), "", "front", T0))
    book.charge_started(ChargeRecord("named", Decimal("5"), "EUR", "front", T0))
    book.charge_ended("blank", "made", currency="CHF")
    book.charge_ended("named", "made", currency="CHF")  # a charge's own currency is kept
    assert book.charge("blank").currency == "CHF"
    assert book.charge("named").currency == "EUR"


def test_a_looked_up_outcome_never_overwrites_the_charges_own(make_book) -> None:
    """The lookup of an unresolved charge (another process) and the charge's own end (the
    dialog, on another connection): the dialog's "made" stays whatever the lookup writes after."""
    resolver, dialog = make_book(), make_book()
    resolver.charge_started(charge("racing"))
    resolver.charge_started(charge("left"))
    assert {c.token for c in resolver.unresolved_charges("front")} == {"racing", "left"}
    dialog.charge_ended("racing", "made")
    assert resolver.charge_resolved("racing", "not_made", "the service has no such order") is False
    assert resolver.charge("racing").outcome == "made"
    assert resolver.charge_resolved("left", "not_made", "no such order") is True
    assert dialog.charge("left").outcome == "not_made"


def _sqlite_book(tmp_path: Path) -> tuple[SqlBook, Path]:
    path = tmp_path / "ledger.sqlite3"
    return open_book(Settings(ledger=str(path))), path


def _tamper(path: Path, sql: str) -> None:
    import sqlite3

    connection = sqlite3.connect(path)
    try:
        connection.execute(sql)
        connection.commit()
    finally:
        connection.close()


def test_a_tampered_schema_version_is_one_ledger_error(tmp_path: Path) -> None:
    book, path = _sqlite_book(tmp_path)
    book.close_connection()
    _tamper(path, "UPDATE schema_version SET version = 'x=1; DROP'")
    with pytest.raises(LedgerError) as raised:
        open_book(Settings(ledger=str(path)))
    assert "schema version is not a number" in raised.value.message
    assert "\n" not in raised.value.message


def test_a_dropped_table_is_a_ledger_error(tmp_path: Path) -> None:
    book, path = _sqlite_book(tmp_path)
    book.close_connection()
    _tamper(path, "DROP TABLE charges")
    book = open_book(Settings(ledger=str(path)))
    try:
        with pytest.raises(LedgerError, match="no such table"):
            book.charge_started(charge("t"))
        with pytest.raises(LedgerError, match="no such table"):
            book.charges(T0, T0 + timedelta(days=1), None)
    finally:
        book.close_connection()


def test_a_transaction_sqlite_ended_itself_fails_as_one_ledger_error(tmp_path: Path) -> None:
    """Some errors (a full disk, a corrupt page) end SQLite's transaction themselves: the
    rollback after them must not raise sqlite3's own error instead of the ledger's."""
    from orderdash.core.ledger.sqlite import SqliteEngine

    engine = SqliteEngine(tmp_path / "ledger.sqlite3")
    try:
        with pytest.raises(LedgerError, match="no such table"):
            with engine.transaction() as cursor:
                cursor.execute("ROLLBACK")  # as SQLite does on such an error
                cursor.execute("SELECT * FROM nothing_here")
        with pytest.raises(ValueError, match="mine"):
            with engine.transaction() as cursor:
                cursor.execute("ROLLBACK")
                raise ValueError("mine")
        assert engine.query("SELECT 1") == [(1,)]  # usable after
    finally:
        engine.close()


def test_the_book_protocol_is_what_the_store_has() -> None:
    """Every call the app and the commands make of a book is in `Book`, with SqlBook's
    parameters (a type checker sees what is called)."""
    import inspect

    from orderdash.core.ledger import Book

    names = {n for n in vars(Book) if not n.startswith("_") and callable(getattr(Book, n))}
    called = {"charge", "charge_resolved", "order_seen_many", "charge_ended"}
    assert called <= names
    for name in names:
        theirs = list(inspect.signature(getattr(Book, name)).parameters)
        ours = list(inspect.signature(getattr(SqlBook, name)).parameters)
        assert ours == theirs, name


def test_overlapping_closes_stay_one_where_the_server_defaults_to_repeatable_read(
    pg_server,  # noqa: ANN001
) -> None:
    """A server whose transactions default to REPEATABLE READ (a DBA's choice): the check after
    the till's lock must still see a close committed while it waited, so the ledger asks for
    READ COMMITTED itself."""
    from urllib.parse import quote

    url = pg_server.schema_url()  # its options come last: more can be appended
    url += quote(" -cdefault_transaction_isolation=repeatable\\ read", safe="")
    settings = Settings(ledger_url=SecretStr(url))
    books = [open_book(settings), open_book(settings)]
    try:
        noon = T0 + timedelta(hours=12)
        for round_ in range(3):
            till = f"shop-{round_}"
            records = [
                CloseRecord(till, T0, T0 + timedelta(days=1), T0, "{}", "day"),
                CloseRecord(till, noon, noon + timedelta(days=1), noon, "{}", "noon"),
            ]
            outcomes = _saved_at_once(books, records)
            kept = [c.digest for c in books[0].closes(till)]
            assert len(kept) == 1 and sorted(outcomes) == sorted([kept[0], "refused"]), round_
    finally:
        for book in books:
            book.close_connection()


def _saved_at_once(books: list[SqlBook], records: list[CloseRecord]) -> list[str]:
    """Each book saves its close at the same instant: the digests kept, or "refused"."""
    start = threading.Barrier(len(books))
    outcomes: list[str] = []

    def save(book: SqlBook, record: CloseRecord) -> None:
        start.wait()
        try:
            outcomes.append(book.save_close(record).digest)
        except OverlappingClose:
            outcomes.append("refused")

    pairs = zip(books, records, strict=True)
    threads = [threading.Thread(target=save, args=pair) for pair in pairs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes
