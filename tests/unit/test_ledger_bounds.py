"""The ledger's SQLite file under faults: a symlink at its path, two tills making a new file
at once."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from orderdash.core.ledger import LedgerError
from orderdash.core.ledger.open import open_book
from orderdash.core.ledger.schema import SCHEMA_VERSION
from orderdash.core.runtime.config import Settings


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
