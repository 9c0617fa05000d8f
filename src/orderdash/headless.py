"""`orderdash watch --jsonl`: the watch list without a screen, one JSON line per event.

Same scheduler and budget as the dashboard. Events: `state` (each order's state once first
read), `transaction` (a new payment), `late-payment` (after its `transaction` line: that payment
came into an order closed unpaid, docs/limits.md#late-payments), `status` (the status code
changed), `identity` (the token now names another order: the service was reset), `error` (a read
failed; again whenever the kind of failure changes, e.g. "cannot-connect" then "not-found") and
`recovered`. With `receive = true` the callback receiver runs beside it: a `receiver` line
says where it listens (`"state": "listening"`, its `url`) or why it cannot (`"failed"`).
With `--account`: the account's open orders are watched too, and `order` reports each order
the history lists after start (then it is watched if open); a failed history read is an
`error` with `"source": "account"` and a null token, an incomplete one (stopped at
`history_max_pages`, or orders left out that do not match the API) a `warning` like it, after
the orders it found; a history read still going after 5 s (the private budget paces its pages:
50 of them take a minute and a half) is a `progress` line like it with the pages read so far,
again every 15 s until it ends.
Lines are written with ASCII escapes, so no control character from the service reaches the
terminal; money keeps every digit.
With notification rules (the `notify` setting), each line is heard by them too: a payment, an
order that needs attention, any event a rule names, and the service out and back
(docs/notify.md); a late payment's `transaction` line aside (its `late-payment` line is the
event, never also a `payment`).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import IO, TYPE_CHECKING, Any

from orderdash.cli.options import EXIT_INTERRUPTED
from orderdash.core.domain.late_payment import after_expiry, after_expiry_text
from orderdash.core.domain.payment import payment_state
from orderdash.core.ledger.open import writer_for
from orderdash.core.model import jsontext
from orderdash.core.model.errors import OrderdashError
from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import Order, Transaction
from orderdash.core.notify.claims import LedgerClaims
from orderdash.core.notify.events import Notices, close_all, notices_for
from orderdash.core.notify.rules import url_secrets
from orderdash.core.polling.account import (
    PROGRESS_AFTER,
    PROGRESS_EVERY,
    AccountFeed,
    AccountOrder,
)
from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.core.polling.watcher import Change, Failure, OrderWatcher, is_outage
from orderdash.core.runtime import startup
from orderdash.core.runtime.logs import ensure_configured
from orderdash.core.service.client import OrderClient
from orderdash.core.settings.model import Settings
from orderdash.core.usecases.told import BookHearing

if TYPE_CHECKING:
    from orderdash.core.ledger.writer import BookWriter


class JsonLinesEvents:
    def __init__(
        self,
        out: IO[str],
        clock: Callable[[], float],
        notices: Notices | None = None,
        *,
        tolerance: Decimal = Decimal(0),
    ) -> None:
        self._out = out
        self._clock = clock
        #: The payment tolerance (`underpaid_tolerance`): an order closed short by no more is
        #: paid, its shortfall absorbed.
        self._tolerance = tolerance
        #: The notification rules, if any: they hear every line (and the outages).
        self._notices = notices
        #: Per failing order, the kind of its latest error (an `error` line when it changes).
        self._failing: dict[str, str] = {}
        #: The orders whose `state` line is out.
        self._known: set[str] = set()

    def emit(self, event: str, token: str | None, *, heard: bool = True, **fields: Any) -> None:
        """Write one line; the notification rules hear it unless not `heard` (a late payment's
        `transaction` line: its `late-payment` line is the event, never also a `payment`)."""
        moment = datetime.fromtimestamp(self._clock(), tz=UTC).isoformat(timespec="seconds")
        line = jsontext.dumps({"time": moment, "event": event, "token": token, **fields})
        self._out.write(line + "\n")
        self._out.flush()
        if self._notices is not None and heard:
            self._notices.line(event, token, fields)

    def on_fetched(self, token: str, kind: Kind, fetched: Fetched, change: Change) -> None:
        order = fetched.order
        if self._notices is not None:
            self._notices.recovered()
        if token in self._failing:
            del self._failing[token]
            self.emit("recovered", token)
        by_id = {tx.id: tx for tx in order.transactions}
        state = payment_state(order, fetched.received_at, tolerance=self._tolerance)
        if token not in self._known or change.identity is not None:
            self._known.add(token)
            if change.identity is not None:
                before, now = change.identity
                self.emit(
                    "identity",
                    token,
                    previousId=before.id,
                    previousCreatedAtMiliseconds=before.created_at_ms,
                    id=now.id,
                    createdAtMiliseconds=now.created_at_ms,
                )
            self._state(token, fetched, state.phase.value)
            return
        for tx_id in change.new_transaction_ids:
            tx = by_id[tx_id]
            self.emit(
                "transaction",
                token,
                heard=tx_id not in change.late_ids,
                id=tx.id,
                hash=tx.hash,
                amount=tx.amount.base,
                amountFiat=tx.amount_fiat.base,
                coin=order.coin_base_name,
                currency=order.currency.abbreviation,
                underPaid=tx.amount.under_paid,
                overPaid=tx.amount.over_paid,
                state=state.phase.value,
            )
            if tx_id in change.late_ids:
                self._late(token, order, tx, state.phase.value)
        if change.status is not None:
            was, code = change.status
            self.emit(
                "status",
                token,
                previous=was,
                code=code,
                label=order.status.label,
                state=state.phase.value,
            )

    def _late(self, token: str, order: Order, tx: Transaction, phase: str) -> None:
        after = after_expiry(tx, order)
        expires = order.expires_at if after is not None else None
        self.emit(
            "late-payment",
            token,
            id=tx.id,
            hash=tx.hash,
            amount=tx.amount.base,
            amountFiat=tx.amount_fiat.base,
            coin=order.coin_base_name,
            currency=order.currency.abbreviation,
            createdAtMiliseconds=tx.created_at_ms,
            expiresAt=expires,
            # whole seconds by the service's clock; null when its deadline is not known
            afterExpirySeconds=None if after is None else int(after),
            afterExpiry=after_expiry_text(after),
            code=order.status.code,
            state=phase,
        )

    def _state(self, token: str, fetched: Fetched, phase: str) -> None:
        order = fetched.order
        paid = sum((tx.amount.base for tx in order.transactions), Decimal(0))
        self.emit(
            "state",
            token,
            id=order.id,
            createdAtMiliseconds=order.created_at_ms,
            code=order.status.code,
            label=order.status.label,
            state=phase,
            amount=order.amount,
            amountFiat=order.amount_fiat,
            coin=order.coin_base_name,
            currency=order.currency.abbreviation,
            paid=paid,
            transactions=len(order.transactions),
        )

    def on_failure(self, token: str, failure: Failure) -> None:
        kind = failure.error_kind
        if self._notices is not None and is_outage(failure.error):
            self._notices.outage(failure.error.message)
        if failure.kind is Kind.ORDER and self._failing.get(token) != kind:
            self._failing[token] = kind
            retry_in = Decimal(f"{failure.retry_in:.1f}")
            self.emit("error", token, kind=kind, message=failure.error.message, retryIn=retry_in)

    def on_status(self, token: str, status: dict[Kind, TrackStatus]) -> None:
        return None


class AccountLines:
    """The account feed's reports: orders to watch, and a line for each new one."""

    def __init__(self, lines: JsonLinesEvents, watcher: OrderWatcher, max_pages: int) -> None:
        self._lines = lines
        self._watcher = watcher
        self._max_pages = max_pages

    def on_baseline(self, orders: list[AccountOrder]) -> None:
        # orders already final at start stay out
        for order in orders:
            if order.open:
                self._watcher.add(order.item.token)

    def on_new_order(self, order: AccountOrder) -> None:
        item, raw = order.item, order.raw
        self._lines.emit(
            "order",
            item.token,
            id=item.id,
            createdAtMiliseconds=item.created_at_ms,
            # `amount` is the coin amount in every line, `amountFiat` the fiat: the history
            # carries the fiat alone (decimal text, as sent), and the coin amount is known once
            # the order is read (its `state` line)
            amount=None,
            amountFiat=raw.get("amount"),
            currency=item.currency.abbreviation,
            code=item.status.code,
            label=item.status.label,
        )
        if order.open:
            self._watcher.add(item.token)

    def on_account_failure(self, error: OrderdashError) -> None:
        self._lines.emit("error", None, source="account", message=error.message)

    def on_account_recovered(self) -> None:
        self._lines.emit("recovered", None, source="account")

    def on_account_warning(self, text: str) -> None:
        self._lines.emit("warning", None, source="account", message=text)

    def on_account_progress(self, pages: int, seconds: float) -> None:
        """A history read is still going: nobody's news (no rule hears it), a sign of life."""
        self._lines.emit(
            "progress",
            None,
            heard=False,
            source="account",
            pages=pages,
            maxPages=self._max_pages,
            seconds=Decimal(f"{seconds:.1f}"),
        )


async def watch_jsonl(
    settings: Settings,
    tokens: Sequence[str],
    out: IO[str] = sys.stdout,
    clock: Callable[[], float] | None = None,
    *,
    account: bool = False,
    monotonic: Callable[[], float] | None = None,
    progress: tuple[float, float] = (PROGRESS_AFTER, PROGRESS_EVERY),
    on_unwritten: Callable[[str], None] | None = None,
) -> None:
    """Watch `tokens` (and with `account`, the account's orders) until cancelled, writing
    events to `out`. `clock` (wall) and `monotonic` (the schedule's) are injected by tests, as
    `progress`: when a long history read first says how far it is, and how often after;
    `on_unwritten` is told what the ledger left unwritten when its close could not wait."""
    # every order read goes into the ledger (docs/books.md), written in the ledger's thread
    writer = writer_for(settings)
    try:
        await _watch(
            settings,
            tokens,
            out,
            clock or time.time,
            writer,
            account=account,
            monotonic=monotonic or time.monotonic,
            progress=progress,
        )
    finally:
        # the end of the command: what is pending is written before it exits (after a Ctrl-C,
        # if the ledger answers within a moment)
        left = await writer.aclose()
        if left and on_unwritten is not None:
            on_unwritten(left)


async def _watch(
    settings: Settings,
    tokens: Sequence[str],
    out: IO[str],
    clock: Callable[[], float],
    writer: BookWriter,
    *,
    account: bool,
    monotonic: Callable[[], float],
    progress: tuple[float, float],
) -> None:
    async with OrderClient.from_settings(settings, clock=clock) as client:
        client.on_order_read = lambda fetched: writer.saw(fetched.order.token, fetched.raw)
        notices = notices_for(settings)
        if notices is not None:  # each notification claimed in the ledger first: sent once
            notices.claims = LedgerClaims(writer)
        lines = JsonLinesEvents(out, clock, notices, tolerance=settings.underpaid_tolerance)
        watcher = OrderWatcher(
            client,
            lines,
            poll_interval=settings.poll_interval,
            refresh_interval=settings.refresh_interval,
            concurrency=settings.concurrency,
            monotonic=monotonic,
            late_window=settings.late_window,
            **settings.budgets,
        )
        for token in tokens:
            watcher.add(token)
        hearing = BookHearing.from_settings(
            writer,
            watcher,
            settings,
            lambda news: lines.emit("push", news.token or None, state=news.kind, message=news.text),
        )
        if not account:
            async with asyncio.TaskGroup() as group:
                group.create_task(watcher.run())
                group.create_task(hearing.run())
                if settings.receive:
                    group.create_task(_receiving(settings, lines))
            return
        reports = AccountLines(lines, watcher, settings.history_max_pages)
        feed = AccountFeed(
            client,
            reports,
            interval=settings.account_interval,
            budget=watcher,
            max_pages=settings.history_max_pages,
            on_progress=reports.on_account_progress,
            progress_after=progress[0],
            progress_every=progress[1],
        )
        async with asyncio.TaskGroup() as group:
            group.create_task(watcher.run())
            group.create_task(feed.run())
            group.create_task(hearing.run())
            if settings.receive:
                group.create_task(_receiving(settings, lines))


async def _receiving(settings: Settings, lines: JsonLinesEvents) -> None:
    """`receive = true`: the callback receiver beside the watch, until cancelled."""
    from orderdash.callback_server.inside import receive_inside

    await receive_inside(
        settings,
        listening=lambda url: lines.emit("receiver", None, heard=False, state="listening", url=url),
        failed=lambda text: lines.emit("receiver", None, heard=False, state="failed", message=text),
    )


def run_jsonl(settings: Settings, tokens: Sequence[str], *, account: bool = False) -> int:
    # stdout carries the JSON lines: logging goes to the log file or nowhere
    ensure_configured(
        settings.log_file,
        [settings.bearer_token, settings.access_token, *url_secrets(settings.notify)],
    )
    startup.resume()  # from here on it runs for hours: the collector back on
    left: list[str] = []
    try:
        asyncio.run(watch_jsonl(settings, tokens, account=account, on_unwritten=left.append))
    except KeyboardInterrupt:
        # Ctrl-C is its end: 0, unless the ledger did not answer in time to write everything
        return EXIT_INTERRUPTED if left else 0
    finally:
        close_all()  # what is queued goes out, within a bounded wait
        for line in left:
            print(f"orderdash: {line}", file=sys.stderr)
    return 0
