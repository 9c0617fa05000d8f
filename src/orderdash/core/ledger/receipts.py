"""The journal of receipts printed (tables `receipts` and `receipt_prints`, docs/receipts.md).

`receipts` holds one row per order whose original receipt was claimed: an atomic insert keyed
on the token, so that of two processes or tills on one book only one prints the original (the
other reads "already printed"). The row keeps the original's text as printed, its width and
language: a retry after a failed send, and every reprint, print those same lines again, never
a new rendering (no new time stamp). A claim left `failed` (the printer was off), or left
`sending` for longer than `STALE_SENDING_MINUTES` (its process ended mid-send), is taken over by
the next print of the original, in the same atomic way.

`receipt_prints` is the journal proper: one row per attempt, original or reprint (token, copy,
till, tool, when, the SHA-256 of the bytes sent, outcome and a one-line detail).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from orderdash.core.ledger import LedgerError, OriginalAsked, ReceiptPrint
from orderdash.core.ledger.rows import parse_time, time_text
from orderdash.core.ledger.schema import MAX_DETAIL, MAX_TILL
from orderdash.core.safetext import clean

#: A claim still `sending` after this long was left by a process that ended mid-send.
STALE_SENDING_MINUTES = 2
#: The states of a claimed original, and the outcomes of one attempt.
RECEIPT_STATES = ("sending", "printed", "failed")
#: The widths a receipt is printed at (`core/books/receipt_text.py` WIDTHS).
RECEIPT_WIDTHS = (32, 42, 48)
#: Longest receipt text kept (a receipt is a few kilobytes) and read back.
MAX_RECEIPT_TEXT = 64 << 10
_MAX_TOKEN, _MAX_TOOL, _MAX_LANGUAGE, _DIGEST = 200, 16, 8, 64


class Cursor(Protocol):
    """The book's cursor (`store.Cursor`): statements with `%s` placeholders."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...


def _row_print(token: str, row: tuple[Any, ...], held: bool, attempt: str) -> ReceiptPrint:
    """A claim read back: untrusted as anything on disk, so its width is one a receipt has
    and every line of its text printable (a text altered to hold a printer's commands is
    printed as placeholders, never sent as commands)."""
    text, width, language, digest, state, till, tool, claimed_at = row[1:9]
    if type(width) is not int or width not in RECEIPT_WIDTHS:
        raise LedgerError(
            f"the ledger holds a receipt width that is not one: {clean(width, limit=20)!r}"
        )
    return ReceiptPrint(
        token=token,
        held=held,
        text="\n".join(clean(line) for line in str(text)[:MAX_RECEIPT_TEXT].split("\n")),
        width=width,
        language=clean(language, limit=_MAX_LANGUAGE),
        digest=clean(digest, limit=_DIGEST),
        state=clean(state, limit=12),
        till=clean(till, limit=MAX_TILL),
        tool=clean(tool, limit=_MAX_TOOL),
        claimed_at=parse_time(claimed_at),
        attempt=attempt,
    )


_SELECT = (
    "SELECT claim, substr(receipt_text, 1, %s), width, language, digest, state, till, tool,"
    " claimed_at FROM receipts WHERE token = %s"
)


def _journal(
    cursor: Cursor, attempt: str, token: str, copy: str, till: str, tool: str, at: str, digest: str
) -> None:
    # the same attempt again (a call made once more after its commit's answer was lost) is
    # journaled once
    cursor.execute(
        "INSERT INTO receipt_prints (id, token, copy, till, tool, printed_at, digest, outcome,"
        " detail) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
        (attempt, token, copy, till, tool, at, digest, "sending", ""),
    )


def claim_original(cursor: Cursor, asked: OriginalAsked, claim: str) -> ReceiptPrint:
    """Claim the original receipt of `asked.token` as `claim` (an id made once per claim,
    so that the same call made again finds it held): held when this insert is the first, or
    takes over a claim that failed or was left sending (`stale`); else not held."""
    token = clean(asked.token, limit=_MAX_TOKEN)
    till, tool = clean(asked.till, limit=MAX_TILL), clean(asked.tool, limit=_MAX_TOOL)
    now = time_text(asked.at)
    stale = time_text(asked.at - timedelta(minutes=STALE_SENDING_MINUTES))
    cursor.execute(
        "INSERT INTO receipts (token, claim, receipt_text, width, language, digest, state,"
        " till, tool, claimed_at, state_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (token) DO NOTHING",
        (
            token,
            claim,
            asked.text[:MAX_RECEIPT_TEXT],
            asked.width,
            clean(asked.language, limit=_MAX_LANGUAGE),
            asked.digest,
            "sending",
            till,
            tool,
            now,
            now,
        ),
    )
    rows = cursor.execute(_SELECT, (MAX_RECEIPT_TEXT, token))
    if rows and str(rows[0][0]) != claim:
        # another's claim: taken over only where it failed, or was left sending; the update
        # names the claim it read, so that of two taking it over at once one does
        cursor.execute(
            "UPDATE receipts SET claim = %s, state = %s, till = %s, tool = %s, state_at = %s"
            " WHERE token = %s AND claim = %s"
            " AND (state = %s OR (state = %s AND state_at < %s))",
            (claim, "sending", till, tool, now, token, rows[0][0], "failed", "sending", stale),
        )
        rows = cursor.execute(_SELECT, (MAX_RECEIPT_TEXT, token))
    if not rows:
        raise RuntimeError("the receipt's claim was not written")  # pragma: no cover
    held = str(rows[0][0]) == claim
    found = _row_print(token, rows[0], held, claim if held else "")
    if held:
        _journal(cursor, claim, token, "original", till, tool, now, found.digest)
    return found


def original_of(cursor: Cursor, token: str) -> ReceiptPrint | None:
    """The original receipt of `token` as claimed (not held), or None when none was."""
    token = clean(token, limit=_MAX_TOKEN)
    rows = cursor.execute(_SELECT, (MAX_RECEIPT_TEXT, token))
    return _row_print(token, rows[0], False, "") if rows else None


T = TypeVar("T")


class ReceiptJournal:
    """The receipts' calls of a book (`SqlBook`): each in one write transaction of its own
    (`written`), made once more on a new connection if the first was lost."""

    def written(self, fn: Callable[[Cursor], T]) -> T:
        raise NotImplementedError

    def claim_receipt(self, asked: OriginalAsked) -> ReceiptPrint:
        """Claim the original receipt of an order (see `claim_original`); journaled as an
        attempt when held."""
        claim = uuid.uuid4().hex  # (made once: a call made again finds its own claim)
        return self.written(lambda cursor: claim_original(cursor, asked, claim))

    def original_receipt(self, token: str) -> ReceiptPrint | None:
        """The original receipt of `token` as first claimed, whatever its state; None if none
        was claimed."""
        return self.written(lambda cursor: original_of(cursor, token))

    def receipt_reprinted(self, token: str, till: str, tool: str, digest: str, at: datetime) -> str:
        """Journal a reprint's attempt (sending); its id, for `receipt_ended`."""
        attempt = uuid.uuid4().hex

        def write(cursor: Cursor) -> str:
            _journal(
                cursor,
                attempt,
                clean(token, limit=_MAX_TOKEN),
                "reprint",
                clean(till, limit=MAX_TILL),
                clean(tool, limit=_MAX_TOOL),
                time_text(at),
                digest,
            )
            return attempt

        return self.written(write)

    def receipt_ended(
        self, token: str, attempt: str, outcome: str, detail: str, at: datetime
    ) -> None:
        """An attempt's outcome (printed or failed); the original's state with it when the
        attempt holds the original's claim."""
        if outcome not in RECEIPT_STATES[1:]:
            raise ValueError(f"a print's outcome is printed or failed, not {outcome!r}")
        line = clean(detail, limit=MAX_DETAIL)
        token = clean(token, limit=_MAX_TOKEN)

        def write(cursor: Cursor) -> None:
            cursor.execute(
                "UPDATE receipt_prints SET outcome = %s, detail = %s WHERE id = %s",
                (outcome, line, attempt),
            )
            cursor.execute(
                "UPDATE receipts SET state = %s, state_at = %s WHERE token = %s AND claim = %s",
                (outcome, time_text(at), token, attempt),
            )

        self.written(write)

    def receipt_prints(self, token: str) -> list[tuple[str, str, str, str, str, str]]:
        """The journal of `token`'s receipts, oldest first: (copy, till, tool, printed_at,
        digest, outcome) each."""
        rows = self.written(
            lambda cursor: cursor.execute(
                "SELECT copy, till, tool, printed_at, digest, outcome FROM receipt_prints"
                " WHERE token = %s ORDER BY printed_at, id LIMIT 1000",
                (clean(token, limit=_MAX_TOKEN),),
            )
        )
        return [
            (
                clean(copy, limit=12),
                clean(till, limit=MAX_TILL),
                clean(tool, limit=_MAX_TOOL),
                clean(printed_at, limit=32),
                clean(digest, limit=_DIGEST),
                clean(outcome, limit=12),
            )
            for copy, till, tool, printed_at, digest, outcome in rows
        ]
