"""A scripted order client for the watcher without a server: answers from a list, every call
counted; and a recorder of what the watcher reports."""

from __future__ import annotations

import time
from pathlib import Path

from orderdash.core.model import jsontext
from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import Order, OrderEnvelope
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.watcher import Change, Failure

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXAMPLE = OrderEnvelope.model_validate(
    jsontext.loads((FIXTURES / "get_order_example.json").read_bytes())
).data


def with_transactions(count: int) -> Order:
    base = EXAMPLE.transactions[0]
    txs = tuple(base.model_copy(update={"id": 1000 + i}) for i in range(count))
    return EXAMPLE.model_copy(update={"transactions": txs})


class ScriptedClient:
    """Answers getOrder from a list (the last answer repeats); counts calls."""

    def __init__(self, answers: list[Order | Exception], *, rates: bool = True) -> None:
        self.answers = answers
        self.calls = {Kind.ORDER: 0, Kind.RATES: 0}
        self.has_credentials = rates

    def _next(self, kind: Kind) -> Fetched:
        self.calls[kind] += 1
        answer = self.answers[min(self.calls[Kind.ORDER] - 1, len(self.answers) - 1)]
        if kind is Kind.ORDER and isinstance(answer, Exception):
            raise answer
        order = answer if isinstance(answer, Order) else with_transactions(1)
        return Fetched(order=order, raw={}, received_at=time.time(), elapsed=0.0)

    async def get_order(self, token: str) -> Fetched:
        return self._next(Kind.ORDER)

    async def get_order_first(self, token: str) -> Fetched:
        return await self.get_order(token)  # as the real client does with a test transport

    async def refresh_rate(self, token: str) -> Fetched:
        return self._next(Kind.RATES)


class Recorder:
    def __init__(self) -> None:
        self.fetched: list[tuple[Kind, tuple[int, ...]]] = []
        self.failures: list[Failure] = []
        self.changes: list[Change] = []
        self.statuses = 0

    def on_fetched(self, token: str, kind: Kind, fetched: Fetched, change: Change) -> None:
        self.fetched.append((kind, change.new_transaction_ids))
        self.changes.append(change)

    def on_failure(self, token: str, failure: Failure) -> None:
        self.failures.append(failure)

    def on_status(self, token: str, status: object) -> None:
        self.statuses += 1
