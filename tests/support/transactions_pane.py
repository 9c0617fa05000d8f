"""The transactions pane on its own: an app holding only it, and transactions as the service
sends them (`wire`) and as the client hands them on (`parsed`)."""

from __future__ import annotations

import copy
from typing import Any

from textual.app import App, ComposeResult

from orderdash.core.model import jsontext
from orderdash.core.model.wire import Transaction
from orderdash.tui.widgets.transactions import TransactionsPane


def wire(tx_id: int, minute: int, base: str = "0.0001") -> dict[str, Any]:
    return {
        "id": tx_id,
        "hash": f"{tx_id:064x}",
        "hashUrl": f"https://explorer.example/btc/tx/{tx_id:064x}",
        "amount": {"base": base, "total": base, "underPaid": "-0.0002", "overPaid": "0"},
        "amountFiat": {"base": "9.00", "total": "9.00", "underPaid": "-18.00", "overPaid": "0.00"},
        "createdAt": f"2026-11-21 10:{minute:02d}",
        "createdAtMiliseconds": 1795255200000 + minute * 60_000,
    }


def parsed(wires: list[dict[str, Any]]) -> tuple[Transaction, ...]:
    """Fresh model objects, as every answer of the client brings (Decimal, never float)."""
    document = jsontext.loads(jsontext.dumps(copy.deepcopy(wires)))
    return tuple(Transaction.model_validate(tx) for tx in document)


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TransactionsPane()
