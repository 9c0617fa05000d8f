"""`watch --jsonl`: `amount` is the coin amount in every line, `amountFiat` the fiat one. An
`order` line (an order new in the account's history) has the fiat alone: its coin amount is
null until the order is read."""

from __future__ import annotations

import io
import json
from typing import Any

from orderdash.core.model import jsontext
from orderdash.core.model.account import HistoryItem
from orderdash.core.polling.account import AccountOrder
from orderdash.headless import AccountLines, JsonLinesEvents


class _Watcher:
    def __init__(self) -> None:
        self.added: list[str] = []

    def add(self, token: str) -> None:
        self.added.append(token)


def test_an_order_line_has_the_fiat_as_amount_fiat_and_no_coin_amount() -> None:
    raw: dict[str, Any] = jsontext.loads(
        '{"id": 7, "token": "new-order-1", "createdAtMiliseconds": 1800000000000,'
        ' "amount": "12.30", "status": {"code": "IN_PROGRESS", "label": "In-progress"},'
        ' "currency": {"id": 1, "currency": "Euro", "abbreviation": "EUR"}}'
    )
    out = io.StringIO()
    watcher = _Watcher()
    lines = AccountLines(JsonLinesEvents(out, lambda: 1_800_000_000.0), watcher, 50)
    lines.on_new_order(AccountOrder(HistoryItem.model_validate(raw), raw))
    (line,) = [json.loads(text) for text in out.getvalue().splitlines()]
    assert line["event"] == "order" and line["amountFiat"] == "12.30"
    assert line["amount"] is None and line["currency"] == "EUR"
    assert watcher.added == ["new-order-1"]
