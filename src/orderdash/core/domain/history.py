"""The account's orders as `orderdash orders` prints them: open ones, and a table of them."""

from __future__ import annotations

from orderdash.core.domain.status import is_open, state_of
from orderdash.core.domain.text import epoch_ms_text, fiat_text
from orderdash.core.model.account import HistoryItem
from orderdash.core.safetext import clean

HEADERS = ("TOKEN", "CREATED", "AMOUNT", "STATE")


def is_open_item(item: HistoryItem) -> bool:
    """In-progress, Paid / Unconfirmed, or a state this client does not know."""
    return is_open(item.status.code, item.status.label)


def state_word(code: str, label: str | None) -> str:
    """One spelling per state, the close of day's words (in progress, unconfirmed, paid,
    expired, canceled, ...), however the service spells it (`EXPIRED`, `Expired`); the
    service's own label beside it where it says something else, and alone for a state not
    known."""
    state = state_of(code, label)
    said = clean(label or code, limit=40)
    if state == "other":
        return said
    word = state.replace("_", " ")
    if label and state_of(label, None) != state:
        return f"{word} ({said})"
    return word


def history_rows(items: tuple[HistoryItem, ...] | list[HistoryItem]) -> list[str]:
    """A plain-text table, one order a line, every server string made printable."""
    rows = [HEADERS] + [
        (
            clean(item.token, limit=64),
            epoch_ms_text(item.created_at_ms),
            fiat_text(item.amount, item.currency.abbreviation),
            state_word(item.status.code, item.status.label),
        )
        for item in items
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    return [
        "  ".join(
            [
                row[0].ljust(widths[0]),
                row[1].ljust(widths[1]),
                row[2].rjust(widths[2]),
                row[3],
            ]
        ).rstrip()
        for row in rows
    ]
