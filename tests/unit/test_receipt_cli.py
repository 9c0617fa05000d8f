"""`orderdash receipt TOKEN`: the receipt's text on stdout from the ledger while no printer is
set, at the width and in the language asked; an order not read or not paid is one line on
stderr and its exit code, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from orderdash.cli import main
from orderdash.cli.options_books import RECEIPT_LANGUAGES
from orderdash.core.customer.catalogue import LANGUAGES
from support.fake_printer import closed_port
from support.ledger_file import LedgerFile
from support.receipt_orders import paid_order, write_seen


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LedgerFile:
    monkeypatch.setenv("ORDERDASH_TIMEZONE", "Europe/Berlin")
    monkeypatch.setenv("ORDERDASH_TILL", "front")
    monkeypatch.delenv("ORDERDASH_RECEIPT_PRINTER", raising=False)
    ledger = LedgerFile(tmp_path / "ledger.sqlite3")
    book = ledger.open()
    write_seen(book, paid_order())
    write_seen(book, paid_order("opentoken", status="IN_PROGRESS"))
    book.close_connection()
    return ledger


def receipt(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    code = main(["receipt", *args], open_book=ledger.open)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_receipt_is_printed_as_text_without_a_printer(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = receipt(ledger, capsys, "paidtoken", "--width", "32", "--language", "de")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[1].strip() == "BELEG"
    assert max(len(line) for line in lines) == 32
    assert "Zeit      2026-11-28 14:02 +0100" in lines
    assert "Kasse                      front" in lines


@pytest.mark.parametrize(
    ("token", "code", "line"),
    [
        (
            "nosuchtoken",
            3,
            "orderdash: order nosuchtoken: the ledger has no read of it (open it first)\n",
        ),
        ("opentoken", 2, "orderdash: order opentoken is not paid (in_progress): no receipt\n"),
    ],
)
def test_an_order_without_a_receipt_is_one_line(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str], token: str, code: int, line: str
) -> None:
    assert receipt(ledger, capsys, token) == (code, "", line)


def test_a_width_not_of_the_paper_is_a_usage_error(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["receipt", "paidtoken", "--width", "40"], open_book=ledger.open)
    assert stopped.value.code == 2
    assert "invalid choice: 40" in capsys.readouterr().err


def test_the_command_offers_the_displays_languages() -> None:
    assert RECEIPT_LANGUAGES == LANGUAGES


def test_escpos_writes_the_bytes_and_the_original_prints_once(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "receipt.bin"
    code, stdout, err = receipt(ledger, capsys, "paidtoken", "--escpos", str(out))
    assert (code, stdout) == (0, "")
    assert err == f"orderdash: the receipt of order paidtoken printed on {out}\n"
    assert out.read_bytes().startswith(b"\x1b@") and out.read_bytes().endswith(b"\x1dV\x00")
    code, _, err = receipt(ledger, capsys, "paidtoken", "--escpos", str(tmp_path / "again.bin"))
    assert code == 2
    assert err == (
        "orderdash: the receipt of order paidtoken was printed already at front (cli): a "
        "reprint prints a copy\n"
    )
    code, _, err = receipt(ledger, capsys, "paidtoken", "--reprint", "--escpos", str(out))
    assert code == 0 and "a reprint of the receipt of order paidtoken printed" in err


def test_a_printer_that_is_off_exits_5_in_one_line(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    port = closed_port()
    monkeypatch.setenv("ORDERDASH_RECEIPT_PRINTER", f"127.0.0.1:{port}")
    code, out, err = receipt(ledger, capsys, "paidtoken")
    assert (code, out) == (5, "")
    assert err.startswith(f"orderdash: the printer 127.0.0.1:{port} did not take the receipt: ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_reprint_without_a_printer_is_a_usage_error(
    ledger: LedgerFile, capsys: pytest.CaptureFixture[str]
) -> None:
    assert receipt(ledger, capsys, "paidtoken", "--reprint") == (
        2,
        "",
        "orderdash: a reprint is printed: set receipt_printer or give --escpos FILE\n",
    )
