"""A receipt laid out as plain text for a thermal printer: 32, 42 or 48 columns (58 mm and
80 mm paper), in the customer's language (`core/customer/catalogue.py`).

Widths are terminal cells (a Japanese character takes two). No line is wider than the paper: a
label and its value share a line where both fit, else the value goes on its own line, and a
value wider than the paper wraps onto more lines, every digit kept (an amount is never cut).
The one shortened value is a transaction hash, with `...` in its middle for all to see.
"""

from __future__ import annotations

import unicodedata
from datetime import tzinfo
from typing import TYPE_CHECKING, Protocol

from orderdash.core.books.receipt import RESOLUTION_KEYS, local_time
from orderdash.core.model.errors import UsageError

if TYPE_CHECKING:
    from orderdash.core.books.receipt import Receipt

#: The paper widths a receipt is laid out at, in columns.
WIDTHS = (32, 42, 48)
#: A hash is shown as its first and last so many characters, `SHORTENED` between them.
HASH_ENDS = 10
SHORTENED = "..."


class Words(Protocol):
    """The customer's words (a catalogue of `core/customer/catalogue.py`): `text(key,
    **values)`, the placeholders filled."""

    def text(self, key: str, **values: str) -> str: ...


def cells(text: str) -> int:
    """Columns `text` takes: two for a wide (East Asian) character, none for a combining one."""
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in text
    )


def _chunks(text: str, width: int) -> list[str]:
    """`text` in pieces of at most `width` cells, every character kept."""
    pieces: list[str] = []
    piece, used = "", 0
    for ch in text:
        size = cells(ch)
        if used + size > width and piece:
            pieces.append(piece)
            piece, used = "", 0
        piece += ch
        used += size
    if piece or not pieces:
        pieces.append(piece)
    return pieces


def wrap(text: str, width: int) -> list[str]:
    """`text` wrapped at spaces to `width` cells; a word wider than that is split, never cut."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if cells(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        *whole, line = _chunks(word, width)
        lines.extend(whole)
    if line or not lines:
        lines.append(line)
    return lines


def shorten_hash(value: str) -> str:
    """A transaction hash as its ends with `SHORTENED` between them (a short one whole)."""
    if len(value) <= 2 * HASH_ENDS + len(SHORTENED):
        return value
    return f"{value[:HASH_ENDS]}{SHORTENED}{value[-HASH_ENDS:]}"


class _Paper:
    def __init__(self, width: int) -> None:
        self.width = width
        self.lines: list[str] = []

    def centred(self, text: str) -> None:
        for line in wrap(text, self.width):
            self.lines.append(" " * ((self.width - cells(line)) // 2) + line)

    def rule(self) -> None:
        self.lines.append("-" * self.width)

    def right(self, value: str) -> None:
        for line in wrap(value, self.width):
            self.lines.append(" " * (self.width - cells(line)) + line)

    def pair(self, label: str, value: str) -> None:
        """The label left and the value right on one line where both fit, else each on its
        own line(s)."""
        gap = self.width - cells(label) - cells(value)
        if gap >= 1:
            self.lines.append(label + " " * gap + value)
            return
        self.lines.extend(wrap(label, self.width))
        self.right(value)

    def text(self, text: str) -> None:
        self.lines.extend(wrap(text, self.width))


def receipt_lines(receipt: Receipt, *, width: int, words: Words, zone: tzinfo | None) -> list[str]:
    """`receipt` as lines of at most `width` cells, in the customer's `words`, its time in
    `zone` (None: this machine's)."""
    if width not in WIDTHS:
        raise UsageError(f"a receipt is {', '.join(map(str, WIDTHS))} columns wide, not {width}")
    paper = _Paper(width)
    if receipt.shop:
        paper.centred(receipt.shop)
    paper.centred(words.text("receipt_title"))
    paper.rule()
    paper.pair(words.text("receipt_till"), receipt.till)
    paper.pair(words.text("receipt_time"), local_time(receipt.sold_at, zone))
    paper.pair(words.text("receipt_amount"), f"{receipt.amount_fiat} {receipt.currency}")
    paper.rule()
    for number, payment in enumerate(receipt.payments, start=1):
        paper.pair(words.text("receipt_payment", n=str(number)), f"{payment.amount} {payment.coin}")
        paper.pair(words.text("receipt_fiat_value"), f"{payment.fiat} {receipt.currency}")
        paper.pair(words.text("receipt_transaction"), shorten_hash(payment.hash))
    if receipt.rate:
        paper.pair(
            words.text("receipt_rate"), f"1 {receipt.coin} = {receipt.rate} {receipt.currency}"
        )
    if receipt.absorbed_fiat:
        paper.pair(
            words.text("receipt_shortfall_absorbed"), f"{receipt.absorbed_fiat} {receipt.currency}"
        )
        paper.right(f"{receipt.absorbed_coin} {receipt.coin}")
    if receipt.excess_fiat:
        paper.pair(words.text("receipt_excess"), f"{receipt.excess_fiat} {receipt.currency}")
        paper.right(f"{receipt.excess_coin} {receipt.coin}")
    paper.rule()
    paper.pair(words.text("receipt_order"), receipt.token)
    if receipt.resolution is not None:
        key = RESOLUTION_KEYS.get(receipt.resolution.kind, "receipt_accepted")
        said = words.text(key)
        paper.text(f"{said}: {receipt.resolution.reason}" if receipt.resolution.reason else said)
    paper.rule()
    paper.centred(words.text("receipt_thanks"))
    return paper.lines


def reprint_line(words: Words, width: int) -> str:
    """The one line a reprint adds (its last before the cut), centred."""
    word = f"*** {words.text('receipt_reprint')} ***"
    return " " * max(0, (width - cells(word)) // 2) + word
