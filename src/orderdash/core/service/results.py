"""What the client's reads hand back: one order as fetched, the account's orders, a history page
(the models of the wire itself are in models.py and account_models.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orderdash.core.service.account_models import HistoryItem, HistoryPage
    from orderdash.core.service.models import Order


@dataclass(frozen=True, eq=False, repr=False)
class Fetched:
    """One successful read: the model, the wire `data` object as received, and when it arrived."""

    order: Order
    raw: dict[str, Any]
    received_at: float
    elapsed: float


@dataclass(frozen=True, eq=False, repr=False)
class AccountOrders:
    """Every order of the account in the order the history pages listed them, page 0 first."""

    items: tuple[HistoryItem, ...]
    #: The wire item objects as received (numbers with their digits), for --json.
    raw: tuple[dict[str, Any], ...]
    pages: int
    #: True when the page bound stopped the reading before nextPage was null.
    truncated: bool
    #: Items left out because they do not match the API (one bad order does not hide the rest).
    skipped: int = 0
    #: Why the first of them was left out.
    skipped_reason: str | None = None

    def warnings(self) -> list[str]:
        """One line for each way this reading is incomplete (none when it is whole)."""
        lines = []
        if self.truncated:
            lines.append(
                f"stopped after {self.pages:,} pages of the order history (history_max_pages): "
                f"the account has more orders than the {len(self.items):,} read"
            )
        if self.skipped:
            orders = "order" if self.skipped == 1 else "orders"
            lines.append(
                f"{self.skipped:,} {orders} of the order history left out, not as the API "
                f"describes: {self.skipped_reason}"
            )
        return lines


@dataclass(frozen=True, eq=False, repr=False)
class HistoryRead:
    """One history page: its valid items, their wire objects, and what was left out."""

    page: HistoryPage
    wire: list[dict[str, Any]]
    skipped: int
    skipped_reason: str | None
