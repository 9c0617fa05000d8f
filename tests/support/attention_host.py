"""The attention view alone: orders that need a human made up at fixed ages, and an App that
shows the view on a keeper the test holds (the view's table by key and in bounded steps)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace as NS

from textual.app import App
from textual.reactive import reactive

from orderdash.core.books.attention import Attention, OrderAttention
from orderdash.tui.screens.attention import AttentionScreen

#: The view's clock (epoch ms).
NOW = 1_800_000_000_000


def needs(token: str, minutes_ago: int, excess: str = "0.0001") -> OrderAttention:
    """An overpaid order `minutes_ago` old: one row of the view."""
    item = Attention(
        token,
        "overpaid",
        "excess",
        Decimal(excess),
        Decimal("9.5"),
        "BTC",
        "EUR",
        NOW - minutes_ago * 60_000,
        "overpaid",
        "Shop",
    )
    return OrderAttention(token, (item,))


class Host(App[None]):
    """The view on `keeper` (anything with the keeper's `found` and callbacks)."""

    attention = reactive(0)
    tick = reactive(0)

    def __init__(self, keeper: NS) -> None:
        super().__init__()
        self.keeper = keeper

    def on_ready(self) -> None:
        self.push_screen(AttentionScreen(self.keeper, now_ms=lambda: NOW))  # type: ignore[arg-type]
