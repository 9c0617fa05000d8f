"""A receipt printed as ESC/POS (`core/usecases/receipt.py` print_receipt): the bytes start with
the printer's initialise command and end in a cut and read, decoded, as the receipt's text; a
reprint is the same bytes with one REPRINT line; a printer on 127.0.0.1 gets them; a printer
that is off is one line and the next print sends the same bytes; the original prints once for
two processes on one book (SQLite and PostgreSQL); every print journaled with its digest."""

from __future__ import annotations

import hashlib
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from orderdash.core.books.receipt_escpos import Printer
from orderdash.core.ledger import LedgerError, OriginalAsked
from orderdash.core.ledger.open import open_book
from orderdash.core.ledger.sqlite import SqliteEngine
from orderdash.core.ledger.store import SqlBook
from orderdash.core.settings.model import Settings
from orderdash.core.usecases.receipt import (
    ALREADY_PRINTED,
    PRINTED,
    PRINTER_FAILED,
    ReceiptOptions,
    print_receipt,
    receipt_text,
)
from support.escpos_text import CUT, INIT, printed_text
from support.fake_printer import FakePrinter, closed_port
from support.receipt_orders import paid_order, write_seen


def options(language: str = "en", width: int = 42, printer: str | None = None) -> ReceiptOptions:
    return ReceiptOptions(
        width=width,
        language=language,
        till="front",
        by="cli",
        printer=printer,
        shop="Café Zürich",
        zone="Europe/Berlin",
        tolerance=Decimal("0.5"),
    )


@pytest.fixture
def book(tmp_path: Path) -> Iterator[SqlBook]:
    book = SqlBook(SqliteEngine(tmp_path / "ledger.sqlite3"))
    write_seen(book, paid_order(status="UNDERPAID", under_fiat="-0.10", under_coin="-0.0000013"))
    yield book
    book.close_connection()


@pytest.fixture
def printer() -> Iterator[FakePrinter]:
    fake = FakePrinter().on()
    yield fake
    fake.off()


@pytest.mark.parametrize(("language", "width"), [("en", 32), ("de", 42), ("fr", 48)])
def test_the_bytes_start_with_initialise_read_as_the_text_and_end_in_a_cut(
    book: SqlBook, tmp_path: Path, language: str, width: int
) -> None:
    out = tmp_path / "receipt.bin"
    result = print_receipt(
        book, "paidtoken", options(language, width), reprint=False, escpos_file=out
    )
    assert (result.outcome, result.copy) == (PRINTED, "original")
    data = out.read_bytes()
    assert data.startswith(INIT) and data.endswith(CUT)
    assert result.digest == hashlib.sha256(data).hexdigest()
    text, controls = printed_text(data)
    assert text == receipt_text(book, "paidtoken", options(language, width))
    assert controls[0] == INIT and controls[-1] == CUT
    assert "0.0000013 BTC" in text and "0.000651234567891234 BTC" in text


def test_a_reprint_is_the_original_and_one_reprint_line(book: SqlBook, tmp_path: Path) -> None:
    first, again = tmp_path / "first.bin", tmp_path / "again.bin"
    print_receipt(book, "paidtoken", options("de"), reprint=False, escpos_file=first)
    # a second original is refused, whichever tool asks: the copy is a reprint
    refused = print_receipt(book, "paidtoken", options("en", 32), reprint=False, escpos_file=again)
    assert refused.outcome == ALREADY_PRINTED and not again.exists()
    assert refused.line == (
        "the receipt of order paidtoken was printed already at front (cli): a reprint prints a copy"
    )
    # the reprint keeps the original's width and language, whatever the options say now
    result = print_receipt(book, "paidtoken", options("en", 32), reprint=True, escpos_file=again)
    assert (result.outcome, result.copy) == (PRINTED, "reprint")
    original, reprint = first.read_bytes(), again.read_bytes()
    line = "              *** KOPIE ***\n".encode("cp437")
    tail = b"\x1bd\x06" + CUT
    assert reprint == original[: -len(tail)] + line + tail
    text, _ = printed_text(reprint)
    assert text == printed_text(original)[0] + "              *** KOPIE ***\n"
    journal = book.receipt_prints("paidtoken")
    assert [(row[0], row[5]) for row in journal] == [
        ("original", "printed"),
        ("reprint", "printed"),
    ]
    assert journal[1][4] == hashlib.sha256(reprint).hexdigest()


def test_a_reprint_needs_an_original(book: SqlBook, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no receipt was printed yet: print the original first"):
        print_receipt(book, "paidtoken", options(), reprint=True, escpos_file=tmp_path / "r.bin")


def test_a_network_printer_gets_the_bytes(book: SqlBook, printer: FakePrinter) -> None:
    result = print_receipt(
        book, "paidtoken", options(printer=f"127.0.0.1:{printer.port}"), reprint=False
    )
    assert result.outcome == PRINTED
    assert result.line == f"the receipt of order paidtoken printed on 127.0.0.1:{printer.port}"
    data = printer.wait()
    assert hashlib.sha256(data).hexdigest() == result.digest
    assert printed_text(data)[0] == receipt_text(book, "paidtoken", options())


def test_a_network_printer_on_ipv6_gets_the_bytes(book: SqlBook) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    printer = FakePrinter("::1").on()
    try:
        result = print_receipt(
            book, "paidtoken", options(printer=f"[::1]:{printer.port}"), reprint=False
        )
        assert result.outcome == PRINTED, result.line
        assert hashlib.sha256(printer.wait()).hexdigest() == result.digest
    finally:
        printer.off()


def test_a_printer_that_is_off_is_one_line_and_the_retry_sends_the_same_bytes(
    book: SqlBook, printer: FakePrinter
) -> None:
    off = closed_port()
    failed = print_receipt(book, "paidtoken", options(printer=f"127.0.0.1:{off}"), reprint=False)
    assert failed.outcome == PRINTER_FAILED
    assert failed.line.startswith(f"the printer 127.0.0.1:{off} did not take the receipt: ")
    assert "\n" not in failed.line
    # the claim stays: the next print of the original (here at another printer, in another
    # language) sends the original's bytes as first made
    retry = print_receipt(
        book, "paidtoken", options("ja", 48, printer=f"127.0.0.1:{printer.port}"), reprint=False
    )
    assert retry.outcome == PRINTED and retry.digest == failed.digest
    assert hashlib.sha256(printer.wait()).hexdigest() == failed.digest
    outcomes = [(row[0], row[5]) for row in book.receipt_prints("paidtoken")]
    assert outcomes == [("original", "failed"), ("original", "printed")]


def test_a_printer_name_is_a_device_a_host_and_port_or_a_file(
    book: SqlBook, tmp_path: Path
) -> None:
    spool = tmp_path / "spool.bin"
    result = print_receipt(book, "paidtoken", options(printer=str(spool)), reprint=False)
    assert result.outcome == PRINTED and spool.read_bytes().startswith(INIT)
    missing = tmp_path / "no" / "such" / "lp0"
    again = print_receipt(book, "paidtoken", options(printer=str(missing)), reprint=True)
    assert again.outcome == PRINTER_FAILED
    assert again.line.startswith(f"the printer {missing} did not take the receipt: ")


def test_without_the_extra_one_line_names_it(
    book: SqlBook, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "escpos.printer", None)
    with pytest.raises(Exception) as refused:
        print_receipt(book, "paidtoken", options(), reprint=False, escpos_file=tmp_path / "r.bin")
    assert str(refused.value) == (
        "printing a receipt needs the receipt extra: pip install 'orderdash[receipt]'"
    )
    assert book.original_receipt("paidtoken") is None  # nothing claimed


def _two_at_once(make_book: Any, tmp_path: Path) -> list[str]:
    """Two processes' books on one ledger print the original at the same moment."""
    books = [make_book(), make_book()]
    write_seen(books[0], paid_order())
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def one(n: int) -> None:
        start.wait(5)
        result = print_receipt(
            books[n], "paidtoken", options(), reprint=False, escpos_file=tmp_path / f"{n}.bin"
        )
        outcomes.append(result.outcome)

    threads = [threading.Thread(target=one, args=(n,)) for n in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    for each in books:
        each.close_connection()
    assert len([p for p in tmp_path.glob("?.bin")]) == 1  # one receipt on paper
    return sorted(outcomes)


def test_two_processes_on_one_sqlite_book_print_the_original_once(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    assert _two_at_once(lambda: SqlBook(SqliteEngine(path)), tmp_path) == [ALREADY_PRINTED, PRINTED]


def test_two_processes_on_one_postgresql_book_print_the_original_once(
    tmp_path: Path, pg_server: Any
) -> None:
    settings = Settings(ledger_url=SecretStr(pg_server.schema_url()))
    assert _two_at_once(lambda: open_book(settings), tmp_path) == [ALREADY_PRINTED, PRINTED]


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ("/dev/usb/lp0", Printer(path="/dev/usb/lp0")),
        ("192.168.1.50:9100", Printer(host="192.168.1.50", port=9100)),
        ("printer.local:9100", Printer(host="printer.local", port=9100)),
        ("[fe80::1]:9100", Printer(host="fe80::1", port=9100)),
        ("receipts.bin", Printer(path="receipts.bin")),
        ("spool/out:9100", Printer(path="spool/out:9100")),
    ],
)
def test_the_printer_setting_names_a_device_a_network_printer_or_a_file(
    setting: str, named: Printer
) -> None:
    assert Printer.named(setting) == named


def test_a_claim_left_sending_is_taken_over_only_once_stale(book: SqlBook) -> None:
    at = datetime(2026, 11, 28, 13, 0, tzinfo=UTC)

    def asked(till: str, minutes: float) -> OriginalAsked:
        return OriginalAsked(
            "paidtoken", "text", 42, "en", "d" * 64, till, "pos", at + timedelta(minutes=minutes)
        )

    assert book.claim_receipt(asked("front", 0)).held  # then its process ended mid-send
    busy = book.claim_receipt(asked("back", 1))
    assert (busy.held, busy.state, busy.till) == (False, "sending", "front")
    taken = book.claim_receipt(asked("back", 3))
    assert taken.held and taken.till == "back" and taken.text == "text"


class AnswerLostOnce(SqliteEngine):
    """A book whose connection is lost once, just after the commit of a transaction that
    journals a receipt (`SqlBook` makes the call once more, on a new connection)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.armed = False
        self._was_lost = False

    @contextmanager
    def transaction(self, *, migrating: bool = False) -> Iterator[Any]:
        journaled = False
        with super().transaction(migrating=migrating) as cursor:
            execute = cursor.execute

            def watched(sql: str, params: Any = ()) -> Any:
                nonlocal journaled
                journaled = journaled or sql.startswith("INSERT INTO receipt_prints")
                return execute(sql, params)

            cursor.execute = watched
            yield cursor
        if self.armed and journaled:
            self.armed, self._was_lost = False, True
            raise LedgerError("the ledger: connection lost")

    def lost(self) -> bool:
        was, self._was_lost = self._was_lost, False
        return was


@pytest.mark.parametrize("reprint", [False, True])
def test_a_print_whose_ledger_answer_was_lost_prints_once_all_the_same(
    tmp_path: Path, reprint: bool
) -> None:
    engine = AnswerLostOnce(tmp_path / "ledger.sqlite3")
    book = SqlBook(engine)
    write_seen(book, paid_order())
    out = tmp_path / "receipt.bin"
    if reprint:
        assert print_receipt(book, "paidtoken", options(), reprint=False, escpos_file=out).ok
    engine.armed = True
    result = print_receipt(book, "paidtoken", options(), reprint=reprint, escpos_file=out)
    assert not engine.armed  # the claim's commit was made, its answer lost
    assert (result.outcome, result.copy) == (PRINTED, "reprint" if reprint else "original")
    journal = book.receipt_prints("paidtoken")
    assert [(copy, outcome) for copy, _, _, _, _, outcome in journal] == (
        [("original", "printed"), ("reprint", "printed")] if reprint else [("original", "printed")]
    )
    book.close_connection()
