"""The receiver's use case (`CallbackDesk`) on a real SQLite book with a getOrder of its own: a
callback is never acted on without its journal row, a sender past its rate bound is refused
and journaled, a flood past the journal's writers is shed, and `on_pulled` hears each order
written."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from orderdash.core.ledger import LedgerError
from orderdash.core.ledger.sqlite import SqliteEngine
from orderdash.core.ledger.store import SqlBook
from orderdash.core.model.errors import NotFound
from orderdash.core.model.results import Fetched
from orderdash.core.receiver import coalesce
from orderdash.core.receiver.guard import SourceBuckets
from orderdash.core.usecases import receive
from orderdash.core.usecases.receive import (
    MAX_ADMITTING,
    Arrival,
    CallbackDesk,
    ReceiveOptions,
)


class NoGetOrder:
    def __init__(self) -> None:
        self.asked: list[str] = []

    async def get_order(self, token: str) -> Fetched:
        self.asked.append(token)
        raise NotFound("no such order")


class OpenGate:
    async def take_turn(self) -> None:
        return None


@pytest.fixture
def book(tmp_path: Path) -> Iterator[SqlBook]:
    opened = SqlBook(SqliteEngine(tmp_path / "ledger.sqlite3"))
    yield opened
    opened.close_connection()


def arrival(token: str = "tok-1", peer: str = "192.0.2.1") -> Arrival:
    return Arrival(f'{{"order_token": "{token}"}}'.encode(), False, None, peer)


def test_a_callback_the_book_cannot_journal_is_503_and_never_read(
    book: SqlBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> str:
        raise LedgerError("the disk is full")

    monkeypatch.setattr(book, "callback_received", broken)
    client = NoGetOrder()
    desk = CallbackDesk(book, client, OpenGate(), ReceiveOptions("till"))
    assert desk.admit(arrival()).status == 503
    assert desk.reads.waiting == 0 and client.asked == []


def test_a_sender_past_its_bound_is_refused_and_journaled(
    book: SqlBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    burst = 5  # (the bound's own pace is tested in test_receiver_parts.py)
    monkeypatch.setattr(receive, "SourceBuckets", lambda: SourceBuckets(burst=burst))
    desk = CallbackDesk(book, NoGetOrder(), OpenGate(), ReceiveOptions("till"), monotonic=lambda: 0)
    answers = [desk.admit(arrival(f"t{n}")).status for n in range(burst + 1)]
    assert answers == [200] * burst + [429]
    assert desk.admit(arrival("other", peer="192.0.2.2")).status == 200
    rows = book.callbacks_received(1000)
    assert len(rows) == burst + 2
    assert [(r.source, r.outcome) for r in rows if r.outcome != "received"] == [
        ("192.0.2.1", "rate-limited")
    ]


async def test_a_flood_past_the_journals_writers_is_shed(book: SqlBook) -> None:
    desk = CallbackDesk(book, NoGetOrder(), OpenGate(), ReceiveOptions("till"))
    answers = await asyncio.gather(*(desk.receive(arrival(f"t{n}")) for n in range(100)))
    shed = [a for a in answers if a.status == 503]
    assert len(shed) == 100 - MAX_ADMITTING == desk.shed
    assert len(book.callbacks_received(1000)) == MAX_ADMITTING


async def test_an_unknown_token_is_one_read_its_alarm_journaled(book: SqlBook) -> None:
    client = NoGetOrder()
    told: list[str] = []
    desk = CallbackDesk(book, client, OpenGate(), ReceiveOptions("till"), on_pulled=told.append)
    await desk.receive(arrival("stray"))
    await desk.receive(arrival("stray"))
    read, _ = desk.reads.next_read(float("inf"))
    assert read is not None
    await desk.pull(read)
    assert client.asked == ["stray"] and told == []
    assert [(r.outcome, r.detail) for r in book.callbacks_received()] == [
        ("unknown token", "callback for a token this account does not know"),
        ("coalesced", ""),
    ]


def test_refusals_are_journaled_each_and_logged_once_a_second(
    book: SqlBook, caplog: pytest.LogCaptureFixture
) -> None:
    clock = [0.0]
    desk = CallbackDesk(
        book, NoGetOrder(), OpenGate(), ReceiveOptions("till"), monotonic=lambda: clock[0]
    )
    bad = Arrival(b"not json", False, None, "192.0.2.1")
    for _ in range(5):
        assert desk.admit(bad).status == 400
    clock[0] = 1.5
    desk.admit(bad)
    assert [r.outcome for r in book.callbacks_received()] == ["malformed"] * 6
    lines = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(lines) == 2 and lines[1].endswith("(4 more refused since the last line)")


def test_the_options_come_from_the_settings() -> None:
    from orderdash.core.settings.model import Settings

    settings = Settings.model_validate(
        {"callback_allow": "203.0.113.0/24, ::1", "callback_trusted_hops": 1, "till": "back"}
    )
    options = ReceiveOptions.from_settings(settings)
    assert [str(net) for net in options.allow] == ["203.0.113.0/24", "::1/128"]
    assert (options.till, options.trusted_hops) == ("back", 1)
    assert ReceiveOptions.from_settings(Settings()).allow == ()
    with pytest.raises(ValueError, match="not an address or network"):
        Settings.model_validate({"callback_allow": ["203.0.113.0/33"]})


class BuggyGetOrder(NoGetOrder):
    async def get_order(self, token: str) -> Fetched:
        if token == "bad":
            raise RuntimeError("a bug")
        return await super().get_order(token)


async def test_a_read_that_fails_on_a_bug_is_finished_all_the_same(
    book: SqlBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    # unfinished, it would be kept for ever, and every order read after it with it
    monkeypatch.setattr(coalesce, "MAX_ORDERS", 3)
    desk = CallbackDesk(book, BuggyGetOrder(), OpenGate(), ReceiveOptions("till"))
    for token in ("bad", "t1", "t2", "t3", "t4", "t5"):
        await desk.receive(arrival(token))
        read, _ = desk.reads.next_read(float("inf"))
        assert read is not None
        with contextlib.suppress(RuntimeError):
            await desk.pull(read)
    assert len(desk.reads) <= 3
    rows = {r.token: r for r in book.callbacks_received()}
    assert (rows["bad"].outcome, rows["bad"].detail) == ("refused", "internal error: RuntimeError")


def test_a_sender_outside_the_allow_list_is_rate_bound_and_its_body_cut(
    book: SqlBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused senders cannot fill the journal faster than an allowed one, nor with big rows:
    past its bound a sender outside the allow-list gets 429 like any other, and a refused
    body is kept only by its start."""
    burst = 3
    monkeypatch.setattr(receive, "SourceBuckets", lambda: SourceBuckets(burst=burst))
    options = ReceiveOptions("till", allow=(ipaddress.ip_network("198.51.100.0/24"),))
    desk = CallbackDesk(book, NoGetOrder(), OpenGate(), options, monotonic=lambda: 0)
    big = b'{"order_token": "t", "x": "' + b"y" * 10_000 + b'"}'
    answers = [desk.admit(Arrival(big, False, None, "192.0.2.9")).status for _ in range(burst + 2)]
    assert answers == [403] * burst + [429, 429]
    rows = book.callbacks_received(1000)
    assert len(rows) == burst + 2
    assert all(len(r.body) == receive.REFUSED_BODY_KEPT for r in rows)
    assert all(r.detail == f"body cut to its first {receive.REFUSED_BODY_KEPT} bytes" for r in rows)


def test_the_journal_keeps_its_newest_rows_only(
    book: SqlBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orderdash.core.ledger import callbacks

    monkeypatch.setattr(callbacks, "MAX_JOURNAL_ROWS", 5)
    monkeypatch.setattr(callbacks, "PRUNE_EVERY", 1)  # every write prunes
    start = datetime(2026, 11, 29, 12, tzinfo=UTC)
    for n in range(12):
        book.callback_received(start + timedelta(seconds=n), "192.0.2.1", f"t{n}", b"{}")
    kept = book.callbacks_received(1000)
    assert [r.token for r in kept] == [f"t{n}" for n in range(7, 12)]


def test_the_journal_keeps_its_newest_rows_only_on_postgresql(
    pg_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pydantic import SecretStr

    from orderdash.core.ledger import callbacks
    from orderdash.core.ledger.open import open_book
    from orderdash.core.settings.model import Settings

    monkeypatch.setattr(callbacks, "MAX_JOURNAL_ROWS", 3)
    monkeypatch.setattr(callbacks, "PRUNE_EVERY", 1)
    book = open_book(Settings(ledger_url=SecretStr(pg_server.schema_url())))
    try:
        start = datetime(2026, 11, 29, 12, tzinfo=UTC)
        for n in range(6):
            book.callback_received(start + timedelta(seconds=n), "192.0.2.1", f"t{n}", b"{}")
        assert [r.token for r in book.callbacks_received(1000)] == ["t3", "t4", "t5"]
    finally:
        book.close_connection()
