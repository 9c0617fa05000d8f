"""An in-memory `Book` (core/ledger) for the books' tests: what the Protocol's docstrings say,
nothing more (a close of a period and till is kept as first saved)."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import datetime

from orderdash.core.ledger import ChargeRecord, CloseRecord, SeenOrder


class MemoryBook:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.charges_made: dict[str, ChargeRecord] = {}
        self.seen: dict[str, SeenOrder] = {}
        self.saved: dict[tuple[str, datetime, datetime], CloseRecord] = {}
        #: Calls of orders_seen and order_seen, to check what a close asks of the ledger.
        self.seen_writes = 0
        self.closed = False

    def charge_started(self, record: ChargeRecord) -> None:
        with self._lock:
            self.charges_made[record.token] = record

    def charge_ended(self, token: str, outcome: str, detail: str = "") -> None:
        with self._lock:
            self.charges_made[token] = replace(
                self.charges_made[token], outcome=outcome, detail=detail
            )

    def unresolved_charges(self, till: str) -> list[ChargeRecord]:
        with self._lock:
            return [
                c
                for c in self.charges_made.values()
                if c.till == till and c.outcome in ("sending", "unknown")
            ]

    def charges(self, since: datetime, until: datetime, till: str | None) -> list[ChargeRecord]:
        with self._lock:
            return [
                c
                for c in self.charges_made.values()
                if since <= c.started_at < until and (till is None or c.till == till)
            ]

    def order_seen(self, token: str, till: str, seen_at: datetime, order_json: str) -> None:
        with self._lock:
            self.seen_writes += 1
            earlier = self.seen.get(token)
            first = earlier.first_seen if earlier else seen_at
            self.seen[token] = SeenOrder(token, till, first, seen_at, order_json)

    def orders_seen(self, tokens: list[str] | None = None) -> list[SeenOrder]:
        with self._lock:
            if tokens is None:
                return list(self.seen.values())
            return [self.seen[t] for t in tokens if t in self.seen]

    def find_close(
        self, till: str, period_from: datetime, period_until: datetime
    ) -> CloseRecord | None:
        with self._lock:
            return self.saved.get((till, period_from, period_until))

    def save_close(self, record: CloseRecord) -> CloseRecord:
        with self._lock:
            key = (record.till, record.period_from, record.period_until)
            return self.saved.setdefault(key, record)

    def closes(self, till: str) -> list[CloseRecord]:
        with self._lock:
            mine = [c for c in self.saved.values() if c.till == till]
            return sorted(mine, key=lambda c: c.period_from)

    def close_connection(self) -> None:
        self.closed = True
