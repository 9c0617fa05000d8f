"""A resolution's reason (`core/books/resolve.py` `clean_reason`), the one check `orderdash
resolve` and the dashboard's dialog share: one printable line that says something."""

from __future__ import annotations

import pytest

from orderdash.core.books.resolve import clean_reason
from orderdash.core.model.errors import UsageError


@pytest.mark.parametrize(
    "reason",
    [
        "\x1b" * 300,  # cleaned to 300 U+FFFD
        "\u200b\u200b",  # two zero-width spaces
        "ab",
        "a\u200bb\x1b ",
        "?!  \u2026 --",
    ],
    ids=["300-esc", "two-zero-width-spaces", "two-letters", "two-letters-hidden", "marks"],
)
def test_a_reason_without_three_letters_or_digits_is_refused_in_one_line(reason: str) -> None:
    with pytest.raises(UsageError, match="at least 3 letters or digits") as refused:
        clean_reason(reason)
    assert "\n" not in refused.value.message


@pytest.mark.parametrize(
    ("reason", "kept"),
    [
        ("sent the excess back", "sent the excess back"),
        ("  paid\tin\ncash ", "paid in cash"),
        ("r\u00fcckerstattet", "r\u00fcckerstattet"),
        ("\u8fd4\u91d1\u6e08", "\u8fd4\u91d1\u6e08"),  # letters of any script count
        ("ok\x1b[2J", "ok\ufffd[2J"),  # "ok" and the 2: three, the ESC made visible
    ],
    ids=["words", "spaces", "umlaut", "kanji", "escape"],
)
def test_a_reason_that_says_something_is_kept_as_one_clean_line(reason: str, kept: str) -> None:
    assert clean_reason(reason) == kept
