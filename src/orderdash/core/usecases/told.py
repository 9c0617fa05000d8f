"""Every till told through the shared book: the orders another process (the callback receiver)
read anew and announced on the book reach this process's watcher as polled answers would,
read from the book (no getOrder of our own) and validated by the same model as a getOrder
answer: the book's text is not trusted either (docs/books.md, "Every till told").

The book's listener blocks, so it runs in a daemon thread of its own, which hands each batch
of tokens to the event loop; the book is read and each read validated in the ledger's thread
(`BookWriter.call`); the loop only applies the results (`OrderWatcher.pushed`). While
announcements flow the watcher polls at the fallback pace (`core/polling/push.py`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import ValidationError

from orderdash.core.ledger import MAX_ORDER_JSON, Announcements, Book, LedgerError
from orderdash.core.model import jsontext
from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import Order
from orderdash.core.polling.push import PushNews, PushPace
from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.ledger.writer import BookWriter
    from orderdash.core.polling.watcher import OrderWatcher
    from orderdash.core.settings.model import Settings

log = logging.getLogger(__name__)

#: How long one wait of the listener lasts: its thread sees a stop within this.
WAIT_SECONDS = 0.5
#: How often the loop asks whether the callbacks stopped, when nothing is announced.
CHECK_SECONDS = 1.0
#: Before listening again after the book could not be heard (a PostgreSQL connection lost).
AGAIN_SECONDS = 5.0
#: Most orders read from the book at once.
MOST_READ = 500


def read_told(book: Book, tokens: list[str]) -> list[tuple[str, Fetched]]:
    """The newest read of each of `tokens` in the book, each validated as a getOrder answer
    is (run in the ledger's thread: the cost grows with the orders). A read that is too long,
    not an order, or another order's (filed under this token) is left out, logged."""
    told = []
    for seen in book.orders_seen(tokens[:MOST_READ]):
        try:
            if len(seen.order_json) > MAX_ORDER_JSON:
                raise ValueError("too long")
            data = jsontext.loads(seen.order_json)
            order = Order.model_validate(data)
        except (ValueError, ValidationError) as error:
            log.warning(
                "the book's read of %s is not an order: %s",
                clean(seen.token, limit=60),
                clean(str(error), limit=120),
            )
            continue
        if order.token != seen.token or not isinstance(data, dict):
            log.warning("the book's read of %s is another order's", clean(seen.token, limit=60))
            continue
        told.append((seen.token, Fetched(order, data, seen.last_seen.timestamp(), 0.0)))
    return told


def _listen(
    listener: Announcements,
    listen_again: Callable[[], Announcements],
    deliver: Callable[[list[str]], None],
    stop: threading.Event,
) -> None:
    """The listener's thread: each batch of tokens delivered until `stop`; a book that cannot
    be heard is listened to again after `AGAIN_SECONDS` (the poll covers the gap)."""
    current: Announcements | None = listener
    try:
        while not stop.is_set():
            if current is None:
                try:
                    current = listen_again()
                except LedgerError as error:
                    log.warning("the book cannot be heard: %s", error)
                    stop.wait(AGAIN_SECONDS)
                    continue
            try:
                tokens = current.wait(WAIT_SECONDS)
            except LedgerError as error:
                log.warning("the book is no longer heard, listening again: %s", error)
                _close(current)
                current = None
                stop.wait(AGAIN_SECONDS)
                continue
            if tokens:
                try:
                    deliver(tokens)
                except RuntimeError:  # the loop is closed: nobody to tell
                    return
    finally:
        if current is not None:
            _close(current)


def _close(listener: Announcements) -> None:
    try:
        listener.close()
    except Exception:  # noqa: BLE001 - a listener that fails to close is gone all the same
        log.debug("the book's listener failed to close", exc_info=True)


class BookHearing:
    """What the book announces, applied to `watcher` (`run`, until cancelled); `news` is told
    when the callbacks begin to flow, stop, or miss a payment (`PushNews`)."""

    def __init__(
        self,
        writer: BookWriter,
        watcher: OrderWatcher,
        *,
        fallback: float,
        quiet: float,
        alarm: float,
        news: Callable[[PushNews], None],
    ) -> None:
        self._writer, self._watcher = writer, watcher
        watcher.push = PushPace(fallback=fallback, quiet=quiet, alarm=alarm, news=news)
        #: Set once the book is being heard (tests wait on it).
        self.listening = asyncio.Event()

    @classmethod
    def from_settings(
        cls,
        writer: BookWriter,
        watcher: OrderWatcher,
        settings: Settings,
        news: Callable[[PushNews], None],
    ) -> BookHearing:
        """The hearing at the settings' pace (`callback_fallback_seconds`, `_quiet_`, `_alarm_`)."""
        return cls(
            writer,
            watcher,
            fallback=settings.callback_fallback_seconds,
            quiet=settings.callback_quiet_seconds,
            alarm=settings.callback_alarm_seconds,
            news=news,
        )

    async def run(self) -> None:
        """Until cancelled; at once when the book cannot be heard (its trouble logged: the
        poll goes on in full)."""
        try:
            book = await self._writer.open()
            listener = await self._writer.call(lambda book: book.listen())
        except LedgerError as error:
            log.warning("the book is not heard: %s", error)
            return
        loop = asyncio.get_running_loop()
        heard: asyncio.Queue[list[str]] = asyncio.Queue()
        stop = threading.Event()

        def deliver(tokens: list[str]) -> None:
            loop.call_soon_threadsafe(heard.put_nowait, tokens)

        thread = threading.Thread(
            target=_listen,
            args=(listener, book.listen, deliver, stop),
            name="orderdash-listen",
            daemon=True,
        )
        thread.start()
        self.listening.set()
        try:
            while True:
                try:
                    async with asyncio.timeout(CHECK_SECONDS):
                        tokens = await heard.get()
                except TimeoutError:
                    self._watcher.check_push()
                    continue
                while not heard.empty():
                    tokens += heard.get_nowait()
                try:
                    await self._apply(list(dict.fromkeys(tokens)))
                except Exception:  # noqa: BLE001 - a bug here must not stop the watching
                    log.exception("the announced orders could not be applied")
                self._watcher.check_push()
        finally:
            stop.set()

    async def _apply(self, tokens: list[str]) -> None:
        watcher = self._watcher
        watcher.heard(tokens)
        wanted = [token for token in tokens if token in watcher.scheduler.orders]
        if not wanted:
            return
        try:
            told = await self._writer.call(lambda book: read_told(book, wanted))
        except LedgerError as error:
            log.warning("the announced orders could not be read from the book: %s", error)
            return
        for token, fetched in told:
            watcher.pushed(token, fetched)
