"""A receipt for a paid order, from the ledger alone (`core/usecases/receipt.py`): every field at
32, 42 and 48 columns in English, German and Japanese, no line wider than the paper, every
amount with all its digits, the hash shortened for all to see; an order not paid or not read
has none, in one line."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from orderdash.core.books.receipt_text import WIDTHS, cells
from orderdash.core.ledger import ResolutionRecord
from orderdash.core.ledger.receipts import RECEIPT_WIDTHS
from orderdash.core.ledger.sqlite import MEMORY, SqliteEngine
from orderdash.core.ledger.store import SqlBook
from orderdash.core.model import jsontext
from orderdash.core.model.errors import EXIT_NOT_FOUND, EXIT_USAGE, OrderdashError
from orderdash.core.usecases.receipt import ReceiptOptions, print_receipt, receipt_text
from support.escpos_text import CUT, INIT, printed_text
from support.receipt_orders import LONG_HASH, SECOND_HASH, paid_order, write_seen

#: The words of each language the test looks for (the catalogues' own).
WORDS = {
    "en": ("RECEIPT", "Till", "Time", "Amount", "Payment 1", "Payment 2", "Rate", "Order"),
    "de": ("BELEG", "Kasse", "Zeit", "Betrag", "Zahlung 1", "Zahlung 2", "Kurs", "Bestellung"),
    "ja": ("領収書", "レジ", "日時", "金額", "支払い 1", "支払い 2", "レート", "注文"),
}


@pytest.fixture
def book() -> Any:
    book = SqlBook(SqliteEngine(MEMORY))
    yield book
    book.close_connection()


def options(width: int, language: str, **more: Any) -> ReceiptOptions:
    named: dict[str, Any] = {"till": "front", "shop": "Café Zürich", "zone": "Europe/Berlin"}
    return ReceiptOptions(width=width, language=language, **(named | more))


def one_piece(text: str) -> str:
    """The receipt's text with its lines joined without their padding: a value wrapped over
    lines reads whole again."""
    return "".join(line.strip() for line in text.splitlines())


@pytest.mark.parametrize("language", ["en", "de", "ja"])
@pytest.mark.parametrize("width", [32, 42, 48])
def test_a_paid_order_has_every_field_and_every_digit(book: Any, width: int, language: str) -> None:
    write_seen(book, paid_order(over_fiat="0.07", over_coin="0.000000910001"))
    text = receipt_text(book, "paidtoken", options(width, language))
    lines = text.splitlines()
    assert all(cells(line) <= width for line in lines), [
        line for line in lines if cells(line) > width
    ]
    assert lines[0].strip() == "Café Zürich"
    for word in WORDS[language]:
        assert word in text, word
    assert "2026-11-28 14:02 +0100" in text  # the latest payment's time, in Berlin
    # every amount with all its digits, on one line, as the service wrote it
    for amount in (
        "100.10 EUR",
        "0.000651234567891234 BTC",
        "0.00065123456789 BTC",
        "50.05 EUR",
        "1 BTC = 76861.12345678 EUR",
        "0.07 EUR",
        "0.000000910001 BTC",
    ):
        assert any(line.strip().endswith(amount) for line in lines), amount
    # a hash shortened with its sign, never silently; its ends are the hash's own
    for tx_hash in (LONG_HASH, SECOND_HASH):
        assert f"{tx_hash[:10]}...{tx_hash[-10:]}" in text
    assert "paidtoken" in text
    # no digit of an amount is lost anywhere: each number on the receipt is one of the figures
    numbers = set(re.findall(r"\d+\.\d+", text))
    assert numbers <= {
        "100.10",
        "0.000651234567891234",
        "0.00065123456789",
        "50.05",
        "76861.12345678",
        "0.07",
        "0.000000910001",
    }


def test_a_shortfall_absorbed_and_a_resolution_have_their_lines(book: Any) -> None:
    write_seen(book, paid_order(status="UNDERPAID", under_fiat="-0.10", under_coin="-0.0000013"))
    book.resolution_made(
        ResolutionRecord(
            "r1",
            "paidtoken",
            "settled",
            "the rest in cash at the counter",
            "front",
            "ana",
            datetime(2026, 11, 28, 13, 30, tzinfo=UTC),
        )
    )
    text = receipt_text(book, "paidtoken", options(42, "de", tolerance=Decimal("0.5")))
    assert re.search(r"Fehlbetrag übernommen +0\.10 EUR\n +0\.0000013 BTC\n", text)
    assert "Geklärt: the rest in cash at the counter" in text


def test_an_order_accepted_at_the_counter_has_a_receipt(book: Any) -> None:
    write_seen(book, paid_order(status="UNDERPAID", under_fiat="-20", under_coin="-0.0003"))
    with pytest.raises(OrderdashError, match="not paid"):
        receipt_text(book, "paidtoken", options(32, "en"))
    book.resolution_made(
        ResolutionRecord(
            "r2",
            "paidtoken",
            "written-off",
            "accepted at the counter",
            "front",
            "ana",
            datetime(2026, 11, 28, 13, 30, tzinfo=UTC),
        )
    )
    text = receipt_text(book, "paidtoken", options(32, "fr"))
    assert "Accepté comme payé à la" in text  # wrapped at 32 columns
    assert all(cells(line) <= 32 for line in text.splitlines())


def test_a_long_value_wraps_and_keeps_every_character(book: Any) -> None:
    data = paid_order()
    data["amountFiat"] = "12345678901234567890123456789.123456789"
    write_seen(book, data)
    text = receipt_text(book, "paidtoken", options(32, "en", shop="A" * 60))
    assert all(cells(line) <= 32 for line in text.splitlines())
    assert "12345678901234567890123456789.123456789 EUR" in one_piece(text)
    assert "A" * 60 in one_piece(text)


def test_an_order_not_read_or_not_paid_is_one_line(book: Any) -> None:
    with pytest.raises(OrderdashError) as unknown:
        receipt_text(book, "nosuchtoken", options(42, "en"))
    assert unknown.value.exit_code == EXIT_NOT_FOUND
    assert "the ledger has no read of it" in unknown.value.message
    write_seen(book, paid_order(status="IN_PROGRESS"))
    with pytest.raises(OrderdashError) as open_order:
        receipt_text(book, "paidtoken", options(42, "en"))
    assert open_order.value.exit_code == EXIT_USAGE
    assert open_order.value.message == "order paidtoken is not paid (in_progress): no receipt"


def test_a_width_not_of_the_paper_is_refused(book: Any) -> None:
    write_seen(book, paid_order())
    with pytest.raises(OrderdashError, match="32, 42 or 48 columns wide, not 40"):
        receipt_text(book, "paidtoken", options(40, "en"))
    assert RECEIPT_WIDTHS == WIDTHS  # the ledger reads back only the widths a receipt has


def test_hostile_text_reaches_neither_the_paper_nor_the_printer(book: Any, tmp_path: Any) -> None:
    data = paid_order()
    data["companyName"] = "ACME\x1b@\x1bp\x00\x19\xfa\u202eCorp"  # reset, open the drawer
    data["transactions"][0]["hash"] = "ab\x1dV\x00cd"  # a cut
    write_seen(book, data)
    text = receipt_text(book, "paidtoken", options(42, "en", shop=""))
    assert all(line.isprintable() for line in text.splitlines())
    assert "ACME\ufffd@\ufffdp\ufffd\ufffd\u00fa\ufffdCorp" in text
    out = tmp_path / "r.bin"
    print_receipt(book, "paidtoken", options(42, "en", shop=""), reprint=False, escpos_file=out)
    _, controls = printed_text(out.read_bytes())
    assert controls == [INIT, b"\x1bt\x00", b"\x1bd\x06", CUT]  # nothing the order sent


def test_a_read_filed_under_another_orders_token_gives_no_receipt(book: Any, tmp_path: Any) -> None:
    # the ledger's row for one token holding another order: neither that order's figures on
    # the paper, nor a claim of the other order's original left sending
    other = paid_order("othertoken")
    book.order_seen("paidtoken", "front", datetime.now(UTC), jsontext.dumps(other))
    with pytest.raises(OrderdashError) as refused:
        receipt_text(book, "paidtoken", options(42, "en"))
    assert refused.value.exit_code == EXIT_USAGE
    assert "another order" in refused.value.message
    with pytest.raises(OrderdashError):
        print_receipt(
            book, "paidtoken", options(42, "en"), reprint=False, escpos_file=tmp_path / "r.bin"
        )
    assert book.original_receipt("othertoken") is None


@pytest.mark.parametrize("at_ms", [10**20, -(10**18), 253_402_300_799_999])
def test_a_payment_time_out_of_the_calendar_is_one_line(book: Any, at_ms: int) -> None:
    data = paid_order()
    for payment in data["transactions"]:
        payment["createdAtMiliseconds"] = at_ms
    write_seen(book, data)
    with pytest.raises(OrderdashError) as refused:
        receipt_text(book, "paidtoken", options(42, "en", zone="Asia/Tokyo"))
    assert refused.value.exit_code == EXIT_USAGE
    assert "time" in refused.value.message
