"""The shop's books: what was charged, what was seen of each order, and every close of day.

`Book` is what the rest of orderdash asks of the ledger (the records it holds and hands back are
in `records.py`); `core/ledger/` stores it in SQLite (a file in the user data directory, one
till) or PostgreSQL (several tills, one book). Nothing here imports textual. The schema and
the JSON of a close are documented in docs/books.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Protocol

from orderdash.core.ledger.records import (
    CHARGE_OUTCOMES,
    MAX_ORDER_JSON,
    MAX_REPORT_JSON,
    MAX_RESOLUTIONS,
    MAX_RESOLUTIONS_PER_ORDER,
    MAX_SERVICE_URL,
    REFUND_BASES,
    RESOLUTION_KINDS,
    ChargeRecord,
    ChargeService,
    CloseRecord,
    OriginalAsked,
    ReceiptPrint,
    ReceivedCallback,
    RefundRecord,
    ResolutionRecord,
    SeenOrder,
    service_url,
)
from orderdash.core.model.errors import OrderdashError, UsageError

__all__ = [
    "Announcements",
    "Book",
    "CHARGE_OUTCOMES",
    "ChainMoved",
    "ChargeRecord",
    "ChargeService",
    "CloseRecord",
    "LedgerError",
    "MAX_ORDER_JSON",
    "MAX_REPORT_JSON",
    "MAX_RESOLUTIONS",
    "MAX_RESOLUTIONS_PER_ORDER",
    "MAX_SERVICE_URL",
    "OriginalAsked",
    "OverlappingClose",
    "REFUND_BASES",
    "RESOLUTION_KINDS",
    "ReceiptPrint",
    "ReceivedCallback",
    "RefundRecord",
    "ResolutionRecord",
    "SeenOrder",
    "UNLINKED",
    "service_url",
]


class LedgerError(OrderdashError):
    """The ledger cannot be opened, read or written (one line; never a password)."""


class OverlappingClose(UsageError):
    """The period overlaps a close of the same till: its payments would be counted twice."""

    @classmethod
    def of(cls, record: CloseRecord) -> OverlappingClose:
        """The refusal of a period that overlaps `record` (a close of the same till)."""
        return cls(
            f"the period overlaps the close of {record.period_from.isoformat()} to "
            f"{record.period_until.isoformat()} of the same till: its payments would count twice"
        )


class ChainMoved(LedgerError):
    """Another close of the same till was saved after the one a new close follows (two closes at
    once), or at a later time than the new one's: the new close, built on a link that is no
    longer the newest, is not written (docs/books.md, "The chain of closes")."""


#: `save_close`'s `follows` when the caller does not link its close (a close of report version
#: 1 or 2 written by a test, as earlier orderdash wrote them).
UNLINKED = "-"


class Announcements(Protocol):
    """What a book's `listen` gives: the tokens announced on the book since it was made
    (`core/ledger/announcements.py`). Blocking: one thread of its own calls it."""

    def wait(self, timeout: float) -> list[str]:
        """The tokens announced since the last call, waiting up to `timeout` seconds for the
        first; [] when none came. LedgerError when the book cannot be heard any longer."""
        ...

    def close(self) -> None: ...


class Book(Protocol):
    """The ledger, whatever its engine. Every call is blocking: callers run it off the event loop.
    A call returns once what it wrote is durable (committed)."""

    def charge_started(self, record: ChargeRecord) -> None: ...

    def charge_ended(
        self,
        token: str,
        outcome: str,
        detail: str = "",
        at: datetime | None = None,
        currency: str = "",
    ) -> None:
        """The charge's outcome (ended `at`, now if None); `currency`: the made order's,
        written where the charge had none."""
        ...

    def charge_resolved(
        self,
        token: str,
        outcome: str,
        detail: str = "",
        at: datetime | None = None,
        currency: str = "",
    ) -> bool:
        """A looked-up outcome, written only while the charge is "sending" or "unknown" (an
        outcome its charge wrote meanwhile stays); True if written."""
        ...

    def charge(self, token: str) -> ChargeRecord | None: ...

    def unresolved_charges(self, till: str) -> list[ChargeRecord]: ...

    def charges(self, since: datetime, until: datetime, till: str | None) -> list[ChargeRecord]:
        """Charges started in [since, until), of `till` or (None) of every till."""
        ...

    def order_seen(self, token: str, till: str, seen_at: datetime, order_json: str) -> None: ...

    def order_seen_many(self, reads: Iterable[tuple[str, str, datetime, str]]) -> None:
        """Several reads (token, till, seen_at, order_json) in one transaction."""
        ...

    def orders_seen(self, tokens: list[str] | None = None) -> list[SeenOrder]:
        """The newest read of each order (of `tokens`, or all), whichever till saw it."""
        ...

    def orders_seen_since(self, since: datetime, limit: int) -> list[SeenOrder]:
        """The newest read of each order read at or after `since` (an order paid since
        then was read since), the first `limit` by when first seen."""
        ...

    def announce(self, token: str) -> None:
        """Tell every process on this book that `token`'s read was just written (after
        `order_seen`): each listener reads it from the book. A token no order has (empty, too
        long, not one line) is not announced."""
        ...

    def listen(self) -> Announcements:
        """The announcements made on this book from now on (`announce`), by any process."""
        ...

    def find_close(
        self, till: str, period_from: datetime, period_until: datetime
    ) -> CloseRecord | None: ...

    def save_close(self, record: CloseRecord, *, follows: str | None = UNLINKED) -> CloseRecord:
        """Write a close; if that period and till is closed already, the earlier one is kept and
        returned (a close never changes). OverlappingClose, nothing written, when another close
        of the same till overlaps the period: checked and written as one step, so that two
        overlapping closes saved at once leave one. `follows`: the digest of the close the new
        one links to (None: the till's first); ChainMoved, nothing written, when that is no
        longer the till's newest close, or the newest was saved at `record.closed_at` or later,
        checked in the same step (`UNLINKED`: not checked)."""
        ...

    def closes(self, till: str) -> list[CloseRecord]:
        """Every close of `till` ("*": the shop's), oldest period first."""
        ...

    def newest_close(self, till: str) -> CloseRecord | None:
        """The close of `till` a new one follows: the latest `closed_at` (of two, the later
        period); None when the till has none."""
        ...

    def resolution_made(self, record: ResolutionRecord) -> ResolutionRecord:
        """Write a resolution; one of the same `id` written already is kept and returned (a
        retry writes nothing more)."""
        ...

    def resolutions_of(self, tokens: list[str]) -> list[ResolutionRecord]:
        """The resolutions of `tokens` (each token's newest few: `MAX_RESOLUTIONS_PER_ORDER`),
        oldest first (a token's last is its state)."""
        ...

    def resolutions_made(
        self, since: datetime, until: datetime, till: str | None, limit: int = ...
    ) -> list[ResolutionRecord]:
        """Resolutions made in [since, until), at `till` or (None) at every till, oldest
        first; the first `limit` (at most `MAX_RESOLUTIONS` + 1, so that a caller can tell
        there were more than `MAX_RESOLUTIONS`)."""
        ...

    def claim_notice(self, token: str, event: str, state: str, by: str, at: datetime) -> bool:
        """Claim the notification (token, event, state) for `by` in one atomic insert: True
        if `by` holds it (so sends it), False if another claimed it first."""
        ...

    def claim_outage(self, by: str, at: datetime, began: datetime) -> tuple[str, bool]:
        """The outage `by` saw begin at `began` (its episode, for its recovery's claim) and
        whether `by` just claimed it (so tells it); an episode claimed and not recovered
        from, or recovered from after `began`, is joined."""
        ...

    def claim_receipt(self, asked: OriginalAsked) -> ReceiptPrint:
        """Claim an order's original receipt in one atomic insert keyed on its token: held
        (so printed) by the first, or by one taking over a claim that failed; the others read
        it as printed or being printed (`core/ledger/receipts.py`)."""
        ...

    def original_receipt(self, token: str) -> ReceiptPrint | None: ...

    def receipt_reprinted(
        self, token: str, till: str, tool: str, digest: str, at: datetime
    ) -> str: ...

    def receipt_ended(
        self, token: str, attempt: str, outcome: str, detail: str, at: datetime
    ) -> None: ...

    def callback_received(
        self,
        at: datetime,
        source: str,
        token: str,
        raw: bytes,
        outcome: str = "received",
        detail: str = "",
        *,
        row_id: str | None = None,
    ) -> str:
        """Journal one callback as it came, before anything is done about it; its id
        (`row_id`, or a new one: `core/ledger/callbacks.py`)."""
        ...

    def callback_outcome(self, ids: Sequence[str], outcome: str, detail: str = "") -> None: ...

    def callbacks_received(self, limit: int = 100) -> list[ReceivedCallback]: ...

    def close_connection(self) -> None: ...
