"""`orderdash watch --jsonl`: the watch list without a screen, one JSON line per event.

Same scheduler and budget as the dashboard. Events: `transaction` (a new payment), `status`
(the status code changed), `error` (a read failed; once per failure streak) and `recovered`.
Lines are written with ASCII escapes, so no control character from the service reaches the
terminal; money keeps every digit.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import IO, Any

from orderdash.core.domain.payment import payment_state
from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.core.polling.watcher import Change, Failure, OrderWatcher
from orderdash.core.runtime import startup
from orderdash.core.runtime.config import Settings
from orderdash.core.runtime.logs import ensure_configured
from orderdash.core.service import jsontext
from orderdash.core.service.client import Fetched, OrderClient


class JsonLinesEvents:
    def __init__(self, out: IO[str], clock: Callable[[], float]) -> None:
        self._out = out
        self._clock = clock
        self._failing: set[str] = set()

    def _emit(self, event: str, token: str, **fields: Any) -> None:
        moment = datetime.fromtimestamp(self._clock(), tz=UTC).isoformat(timespec="seconds")
        line = jsontext.dumps({"time": moment, "event": event, "token": token, **fields})
        self._out.write(line + "\n")
        self._out.flush()

    def on_fetched(self, token: str, kind: Kind, fetched: Fetched, change: Change) -> None:
        order = fetched.order
        if token in self._failing:
            self._failing.discard(token)
            self._emit("recovered", token)
        by_id = {tx.id: tx for tx in order.transactions}
        state = payment_state(order, fetched.received_at)
        for tx_id in change.new_transaction_ids:
            tx = by_id[tx_id]
            self._emit(
                "transaction",
                token,
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
        if change.status is not None:
            before, after = change.status
            self._emit(
                "status",
                token,
                previous=before,
                code=after,
                label=order.status.label,
                state=state.phase.value,
            )

    def on_failure(self, token: str, failure: Failure) -> None:
        if failure.kind is Kind.ORDER and token not in self._failing:
            self._failing.add(token)
            retry_in = Decimal(f"{failure.retry_in:.1f}")
            self._emit("error", token, message=failure.error.message, retryIn=retry_in)

    def on_status(self, token: str, status: dict[Kind, TrackStatus]) -> None:
        return None


async def watch_jsonl(
    settings: Settings,
    tokens: Sequence[str],
    out: IO[str] = sys.stdout,
    clock: Callable[[], float] | None = None,
) -> None:
    """Watch `tokens` until cancelled, writing events to `out`."""
    import time

    async with OrderClient.from_settings(settings) as client:
        watcher = OrderWatcher(
            client,
            JsonLinesEvents(out, clock or time.time),
            poll_interval=settings.poll_interval,
            refresh_interval=settings.refresh_interval,
            concurrency=settings.concurrency,
            **settings.budgets,
        )
        for token in tokens:
            watcher.add(token)
        await watcher.run()


def run_jsonl(settings: Settings, tokens: Sequence[str]) -> int:
    # stdout carries the JSON lines: logging goes to the log file or nowhere
    ensure_configured(settings.log_file, [settings.bearer_token])
    startup.resume()  # from here on it runs for hours: the collector back on
    try:
        asyncio.run(watch_jsonl(settings, tokens))
    except KeyboardInterrupt:
        return 0
    return 0
