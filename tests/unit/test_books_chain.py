"""The closes of a till as a chain (`core/books/chain.py`), on a real SQLite ledger: each close
covers the digest of the close before it; a close edited with its own digest made again reads
back whole by itself, and the chain names it; a close removed is named by the one after it;
closes of report versions 1 and 2 still read back against their own digests and start the
chain."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest

from orderdash.core.books.chain import first_mismatch, verify
from orderdash.core.books.close import close_period
from orderdash.core.books.frozen import read_close
from orderdash.core.books.period import day_period, zone_named
from orderdash.core.books.report import build_report, digest_of
from orderdash.core.ledger import ChainMoved, CloseRecord
from orderdash.core.ledger.rows import time_text
from orderdash.core.ledger.store import SqlBook
from support.ledger_file import LedgerFile

BERLIN = zone_named("Europe/Berlin")
DAYS = ("2026-11-24", "2026-11-25", "2026-11-26")


class NoOrders:
    """A service whose history is empty: a close is made of the ledger alone."""

    async def account_orders(self, max_pages: int, before_page: Any) -> Any:
        return NS(items=[], truncated=False, skipped=0, warnings=lambda: [])


class OpenGate:
    async def take_turn(self) -> None:
        pass


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "ledger.sqlite3"


@pytest.fixture
def book(path: Path) -> Any:
    book = LedgerFile(path).open()
    yield book
    book.close_connection()


def change_file(path: Path, statement: str, *values: object) -> None:
    """One SQL statement on the ledger's file, as someone with the file could run it."""
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(statement, values)


async def close_day(book: SqlBook, day: str) -> dict[str, Any]:
    result = await close_period(
        NoOrders(),
        book,
        day_period(day, BERLIN),
        till="*",
        recorder="front",
        order_gate=OpenGate(),
        private_gate=OpenGate(),
    )
    assert result.saved and not result.frozen
    return result.report


def rewrite(path: Path, book: SqlBook, report: dict[str, Any], change: Any) -> dict[str, Any]:
    """The close of `report`'s period edited in the ledger's file, its digest made again (in
    the report and beside it): it reads back whole by itself."""
    edited = json.loads(json.dumps(report))
    change(edited)
    edited["digest"] = digest_of(edited)
    period = day_period(report["period"]["from"][:10], BERLIN)
    change_file(
        path,
        "UPDATE closes SET report_json = ?, digest = ? WHERE period_from = ?",
        json.dumps(edited, sort_keys=True, separators=(",", ":")),
        edited["digest"],
        time_text(period.start),
    )
    (record,) = [r for r in book.closes("*") if r.period_from == period.start]
    assert read_close(record) == edited
    return edited


async def test_three_closes_form_a_chain_that_verifies(book: SqlBook) -> None:
    first, second, third = [await close_day(book, day) for day in DAYS]
    assert first["version"] == 4 and first["previous"] is None  # the till's first close
    assert second["previous"] == {
        "from": first["period"]["from"],
        "until": first["period"]["until"],
        "digest": first["digest"],
    }
    assert third["previous"]["digest"] == second["digest"]
    checks = verify(book, "*", BERLIN)
    assert [c.problem for c in checks] == ["", "", ""] and first_mismatch(checks) is None
    assert [c.digest for c in checks] == [r["digest"] for r in (first, second, third)]
    assert [c.follows for c in checks] == [None, first["digest"], second["digest"]]
    # another till's chain is its own
    assert verify(book, "front", BERLIN) == []


async def test_a_close_edited_with_its_digest_made_again_is_named_by_the_next(
    path: Path, book: SqlBook
) -> None:
    first, second, third = [await close_day(book, day) for day in DAYS]
    rewrite(path, book, second, lambda r: r["orders"].update(total=5))
    checks = verify(book, "*", BERLIN)
    bad = first_mismatch(checks)
    assert bad is not None and bad.period_from == day_period(DAYS[1], BERLIN).start
    assert bad.problem.startswith("changed after the close from ")
    assert second["digest"][:16] in bad.problem
    assert [bool(c.problem) for c in checks] == [False, True, False]
    # removed: the close after it says so
    change_file(
        path,
        "DELETE FROM closes WHERE period_from = ?",
        time_text(day_period(DAYS[1], BERLIN).start),
    )
    bad = first_mismatch(verify(book, "*", BERLIN))
    assert bad is not None and bad.period_from == day_period(DAYS[2], BERLIN).start
    assert "is not in the ledger: removed" in bad.problem


async def test_a_close_edited_with_its_digest_kept_is_named_by_itself(
    path: Path, book: SqlBook
) -> None:
    for day in DAYS:
        await close_day(book, day)
    change_file(
        path,
        "UPDATE closes SET report_json = replace(report_json, '\"total\":0', '\"total\":9')"
        " WHERE period_from = ?",
        time_text(day_period(DAYS[0], BERLIN).start),
    )
    checks = verify(book, "*", BERLIN)
    assert checks[0].problem == "cannot be read: its digest does not match its report"
    assert checks[0].version is None and [c.problem for c in checks[1:]] == ["", ""]


@pytest.mark.parametrize("version", [1, 2, 3])
async def test_an_older_close_reads_back_against_its_digest_and_starts_the_chain(
    path: Path, book: SqlBook, version: int
) -> None:
    period = day_period(DAYS[0], BERLIN)
    made = datetime.now(UTC) - timedelta(hours=1)
    old = build_report([], period, till="*", closed_at=made)
    del old["sales"]  # as versions 1 to 3 wrote it
    if version < 3:
        del old["previous"]  # as version 1 and 2 wrote it
    if version == 1:
        del old["resolutions"]
    old["version"] = version
    old["digest"] = digest_of(old)
    text = json.dumps(old, sort_keys=True, separators=(",", ":"))
    book.save_close(CloseRecord("*", period.start, period.end, made, text, old["digest"]))
    second = await close_day(book, DAYS[1])
    assert second["previous"]["digest"] == old["digest"]
    checks = verify(book, "*", BERLIN)
    assert [(c.version, c.problem) for c in checks] == [(version, ""), (4, "")]
    rewrite(path, book, old, lambda r: r["orders"].update(total=5))
    bad = first_mismatch(verify(book, "*", BERLIN))
    assert bad is not None and bad.version == version and bad.period_from == period.start


class SavedMeanwhile:
    """The ledger as two tills closing at once see it: the first time this till saves, another
    close of the same till (built on the same link) has just been saved before it."""

    def __init__(self, book: SqlBook, other: CloseRecord) -> None:
        self._book, self._other, self.refused = book, other, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._book, name)

    def save_close(self, record: CloseRecord, **link: Any) -> CloseRecord:
        if self._other is not None:
            self._book.save_close(self._other, **link)
            self._other = None
        try:
            return self._book.save_close(record, **link)
        except ChainMoved:
            self.refused += 1
            raise


async def test_two_closes_built_on_one_link_never_fork_the_chain(book: SqlBook) -> None:
    first = await close_day(book, DAYS[0])
    # another till's close of the next day, built on the same link and saved first
    period = day_period(DAYS[1], BERLIN)
    other = build_report(
        [], period, till="*", closed_at=datetime.now(UTC), previous=previous_of(first)
    )
    text = json.dumps(other, sort_keys=True, separators=(",", ":"))
    made = CloseRecord("*", period.start, period.end, datetime.now(UTC), text, other["digest"])
    racing = SavedMeanwhile(book, made)
    result = await close_period(
        NoOrders(),
        racing,
        day_period(DAYS[2], BERLIN),
        till="*",
        recorder="front",
        order_gate=OpenGate(),
        private_gate=OpenGate(),
    )
    # the link read before the other close was saved was refused, and the close built again
    assert racing.refused == 1 and result.saved
    assert result.report["previous"]["digest"] == other["digest"]
    checks = verify(book, "*", BERLIN)
    assert [c.problem for c in checks] == ["", "", ""]
    assert [c.follows for c in checks] == [None, first["digest"], other["digest"]]


async def test_a_forked_chain_is_named_where_it_forked(path: Path, book: SqlBook) -> None:
    first, second = [await close_day(book, day) for day in DAYS[:2]]
    # a close saved by an orderdash that did not check the link: it follows `first` too
    period = day_period(DAYS[2], BERLIN)
    fork = build_report(
        [], period, till="*", closed_at=datetime.now(UTC), previous=previous_of(first)
    )
    text = json.dumps(fork, sort_keys=True, separators=(",", ":"))
    made = datetime.now(UTC)
    book.save_close(CloseRecord("*", period.start, period.end, made, text, fork["digest"]))
    bad = first_mismatch(verify(book, "*", BERLIN))
    assert bad is not None and bad.period_from == day_period(DAYS[1], BERLIN).start
    assert "the chain forked" in bad.problem


def previous_of(report: dict[str, Any]) -> dict[str, str]:
    return {
        "from": report["period"]["from"],
        "until": report["period"]["until"],
        "digest": report["digest"],
    }
