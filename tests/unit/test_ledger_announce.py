"""An order's new read announced on the book and heard by every other process on it: two
books on one SQLite file, two connections to one PostgreSQL book."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import SecretStr

from orderdash.core.ledger import Announcements
from orderdash.core.ledger.announcements import KEPT
from orderdash.core.ledger.open import open_book
from orderdash.core.ledger.store import SqlBook
from orderdash.core.settings.model import Settings


@pytest.fixture(params=["sqlite", "postgresql"])
def make_book(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], SqlBook]]:
    """Opens the test's one book (each call a new connection to it)."""
    if request.param == "sqlite":
        settings = Settings(ledger=str(tmp_path / "ledger.sqlite3"))
    else:
        server = request.getfixturevalue("pg_server")
        settings = Settings(ledger_url=SecretStr(server.schema_url()))
    opened: list[SqlBook] = []
    listeners: list[Announcements] = []

    def make() -> SqlBook:
        opened.append(open_book(settings))
        book = opened[-1]
        listen = book.listen

        def kept() -> Announcements:
            listeners.append(listen())
            return listeners[-1]

        book.listen = kept  # type: ignore[method-assign]
        return book

    yield make
    for listener in listeners:
        listener.close()
    for book in opened:
        book.close_connection()


def heard(listener: Announcements, count: int, within: float = 1.0) -> list[str]:
    """What `listener` hears until `count` tokens came or `within` seconds passed."""
    tokens: list[str] = []
    deadline = time.monotonic() + within
    while len(tokens) < count and (left := deadline - time.monotonic()) > 0:
        # one token announced twice may come in two waits (PostgreSQL delivers each NOTIFY)
        tokens = list(dict.fromkeys(tokens + listener.wait(left)))
    return tokens


def test_a_token_announced_on_one_book_is_heard_on_another(make_book) -> None:
    receiver, till = make_book(), make_book()
    listener = till.listen()
    receiver.order_seen("tok-a", "receiver", datetime.now(UTC), '{"token": "tok-a"}')
    started = time.monotonic()
    receiver.announce("tok-a")
    assert heard(listener, 1) == ["tok-a"]
    assert time.monotonic() - started < 1.0
    # the listener reads the order from the book: the receiver's read, not another request
    (seen,) = till.orders_seen(["tok-a"])
    assert seen.order_json == '{"token": "tok-a"}'


def test_a_listener_hears_only_what_was_announced_after_it_began(make_book) -> None:
    book = make_book()
    book.announce("before")
    listener = make_book().listen()
    assert listener.wait(0.05) == []
    book.announce("after-1")
    book.announce("after-2")
    book.announce("after-1")  # the same token twice in one wait is one
    assert heard(listener, 2) == ["after-1", "after-2"]
    assert listener.wait(0.05) == []


def test_a_book_hears_its_own_announcements(make_book) -> None:
    """A receiver in the dashboard's process announces on the dashboard's own book."""
    book = make_book()
    listener = book.listen()
    book.announce("tok-own")
    assert heard(listener, 1) == ["tok-own"]


def test_a_token_no_order_has_is_not_announced(make_book) -> None:
    book = make_book()
    listener = make_book().listen()
    for bad in ("", "x" * 201, "two\nlines"):
        book.announce(bad)
    book.announce("fine")
    assert heard(listener, 1) == ["fine"]


def test_a_sqlite_book_keeps_only_its_newest_announcements(tmp_path: Path) -> None:
    book = open_book(Settings(ledger=str(tmp_path / "ledger.sqlite3")))
    try:
        book.written(
            lambda cursor: [
                cursor.execute(
                    "INSERT INTO announcements (token, announced_at) VALUES (%s, '')",
                    (f"tok-{number}",),
                )
                for number in range(KEPT + 20)
            ]
        )
        book.announce("newest")
        (count,) = book._engine.query("SELECT COUNT(*) FROM announcements")[0]
        assert count == KEPT
        newest = book._engine.query("SELECT token FROM announcements ORDER BY rowid DESC LIMIT 1")
        assert newest == [("newest",)]
    finally:
        book.close_connection()


def test_an_older_read_written_later_leaves_the_newer_one(make_book) -> None:
    """A till's batch of reads written after the receiver's newer read of the same order (the
    one it announced) keeps the receiver's: the listener reads the newest."""
    receiver, till = make_book(), make_book()
    at = datetime(2026, 11, 29, 4, 0, tzinfo=UTC)
    receiver.order_seen("tok-a", "receiver", at.replace(second=5), '{"paid": true}')
    till.order_seen("tok-a", "front", at, '{"paid": false}')
    (seen,) = till.orders_seen(["tok-a"])
    assert (seen.till, seen.order_json) == ("receiver", '{"paid": true}')
    till.order_seen("tok-a", "front", at.replace(second=9), '{"paid": "later"}')
    assert till.orders_seen(["tok-a"])[0].order_json == '{"paid": "later"}'
