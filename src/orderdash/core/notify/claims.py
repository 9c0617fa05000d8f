"""Each notification claimed in the ledger before it is sent, so that every process and till
on one book (and this one after a restart) sends it once (`core/ledger/notices.py`).

A claim runs in the ledger writer's thread, never on the event loop or in the caller's: the
message goes to the sender from there once the claim is won. A ledger that cannot be written
is said in the log once, and the message is sent all the same: better twice than never.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from orderdash.core.ledger import LedgerError

if TYPE_CHECKING:
    from orderdash.core.ledger import Book

log = logging.getLogger(__name__)


class Claims(Protocol):
    def claim(
        self, token: str, event: str, state: str | Callable[[], str], send: Callable[[], None]
    ) -> None:
        """`send()` if this process wins (token, event, state), or the ledger cannot say.
        `state` may be known only once the claims before it ran (an outage's episode, for its
        recovery): then it is asked for in their order, and "" claims nothing."""
        ...

    def claim_outage(self, began: datetime, tell: Callable[[str, bool], None]) -> None:
        """`tell(episode, won)` with the outage seen to begin at `began`: told by this
        process if `won`."""
        ...


class _Runs(Protocol):
    def later(self, fn: Callable[[Book], object]) -> Future[object]: ...


class LedgerClaims:
    """Claims in a `BookWriter`'s book (its thread)."""

    def __init__(
        self, writer: _Runs, now: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self._writer, self._now = writer, now
        #: Who claims: this process's notices, apart from every other's on the book.
        self.me = uuid.uuid4().hex
        self._said = False
        self._lock = threading.Lock()

    def claim(
        self, token: str, event: str, state: str | Callable[[], str], send: Callable[[], None]
    ) -> None:
        def in_thread(book: Book) -> None:
            known = state if isinstance(state, str) else state()
            if not known:
                return
            try:
                won = book.claim_notice(token, event, known, self.me, self._now())
            except LedgerError as error:
                self._unwritable(error)
                won = True
            if won:
                send()

        self._run(in_thread, send)

    def claim_outage(self, began: datetime, tell: Callable[[str, bool], None]) -> None:
        def in_thread(book: Book) -> None:
            try:
                episode, won = book.claim_outage(self.me, self._now(), began)
            except LedgerError as error:
                self._unwritable(error)
                episode, won = _unclaimed_episode(), True
            tell(episode, won)

        self._run(in_thread, lambda: tell(_unclaimed_episode(), True))

    def _run(self, fn: Callable[[Book], None], unclaimed: Callable[[], None]) -> None:
        """`fn` in the writer's thread; `unclaimed()` instead if the book cannot be opened or
        the writer is closed."""
        try:
            future = self._writer.later(fn)
        except LedgerError as error:
            self._unwritable(error)
            unclaimed()
            return

        def done(future: Future[object]) -> None:
            error = future.exception()
            if isinstance(error, LedgerError):  # the book did not open: fn never ran
                self._unwritable(error)
                unclaimed()
            elif error is not None:
                log.warning("notification not claimed: %s", type(error).__name__)

        future.add_done_callback(done)

    def _unwritable(self, error: LedgerError) -> None:
        with self._lock:
            said, self._said = self._said, True
        if not said:
            log.warning(
                "notifications are not claimed in the ledger (%s): each is sent, perhaps by "
                "another process or till too",
                error.message,
            )


def _unclaimed_episode() -> str:
    """An outage told without the ledger's claim (it could not be written): an episode of its
    own, so that its recovery is told too, claimed under it once the ledger writes again, sent
    at once while it still does not ("" would be no outage told, and no recovery)."""
    return f"unclaimed-{uuid.uuid4().hex}"
