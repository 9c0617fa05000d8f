"""What `orderdash stats` prints: the day (or week) at a glance as text within 80 columns, or
with `--json` as one JSON object, every amount decimal text (`core/usecases/stats.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from orderdash.cli.render import warnings_said
from orderdash.core.usecases.stats import stats_json, stats_lines

if TYPE_CHECKING:
    from orderdash.core.jsontypes import JSONValue
    from orderdash.core.usecases.stats import DayStats


@dataclass(frozen=True)
class StatsShown:
    """The glance read from the ledger; its warnings go to stderr."""

    stats: DayStats

    @property
    def exit_code(self) -> int:
        return 0

    def notes(self) -> list[str]:
        return warnings_said(self.stats.warnings)

    def json(self) -> JSONValue:
        return stats_json(self.stats)

    def text(self) -> list[str]:
        return stats_lines(self.stats, warnings=False)  # (said on stderr already)

    def empty(self) -> str | None:
        return None
