"""What a budget has spent and expects to spend, as the budget view (`b`) shows it. Apart from
`budget.py`: defined when the view first asks, not at every start.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BudgetUse:
    """What a budget has spent and what it expects to spend, for the budget view."""

    name: str
    per_minute: int
    per_hour: int
    last_minute: int
    last_hour: int
    #: Requests the current plan makes in the next hour (never over `per_hour`).
    projected_hour: int
    held_for: float
