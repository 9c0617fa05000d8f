"""The day at a glance in the close of day screen (`Z`): the day's takings hour by hour as bars,
each a Textual widget, with the numbers as a table beside them (the hour, its takings, the same
hour a week earlier), the hour now marked in progress; the orders, the average sale, per coin
and per till below. Narrow (`narrow`), it is the text form alone, the `stats` command's lines.

It is handed the figures (`show`, `unavailable`); it reads nothing itself. Every figure is
whole: a bar's length is worked out in whole cells from the exact amounts, never through a
float.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import DataTable, Static

from orderdash.core.safetext import clean
from orderdash.core.usecases.stats import (
    NO_TILL,
    NO_TILL_WORDS,
    STATE_WORDS,
    bucket_rows,
    money,
    stats_lines,
    summary,
)
from orderdash.tui.text import one_line

if TYPE_CHECKING:
    from orderdash.core.usecases.stats import DayStats

#: The longest bar, in cells (the day's best hour).
BAR_CELLS = 8
IN_PROGRESS = "in_progress"
TO_COME = "to_come"
#: Beside the hour under way (the bar is drawn in the warning colour too).
NOW_MARK = "\u25c2"
READING = "At a glance: reading the ledger\u2026"


def bar_cells(amount: Decimal, most: Decimal, cells: int = BAR_CELLS) -> int:
    """How many cells of `cells` `amount` fills against `most` (the longest bar): whole cells
    rounded down, and one at least for any takings, so that a small hour still shows."""
    if amount <= 0 or most <= 0:
        return 0
    whole = int((amount * cells / most).to_integral_value(rounding=ROUND_FLOOR))
    return max(1, min(cells, whole))


def tally_words(stats: DayStats) -> list[str]:
    """Per coin and per till, one short line each (the text form's are for 80 columns):
    "BTC 12.00 EUR, 3 payments, 0.0004 BTC"."""
    lines = []
    for coin in stats.coins:
        amount = "" if coin.amount is None else f", {format(coin.amount, 'f')} {coin.name}"
        lines.append(f"{coin.name} {_fiat(coin.takings)}, {_count(coin.payments)}{amount}")
    for till in stats.tills:
        name = NO_TILL_WORDS if till.name == NO_TILL else till.name
        orders = f"{till.orders} order{'' if till.orders == 1 else 's'}"
        lines.append(f"Till {name}: {_fiat(till.takings)}, {orders}, {_count(till.payments)}")
    return lines


def _fiat(takings: dict[str, Decimal]) -> str:
    return ", ".join(f"{money(a, u)} {u}" for u, a in sorted(takings.items())) or "nothing"


def _count(payments: int) -> str:
    return f"{payments} payment{'' if payments == 1 else 's'}"


def short_when(label: str, offset: str, unit: str) -> str:
    """An hour as the table shows it: "10:00+01" (the offset's minutes when it has any:
    "10:00+05:30"); a day as its date."""
    if unit != "hour":
        return label
    return label + (offset[:3] if offset.endswith(":00") else offset)


def _lines(lines: list[str]) -> Text:
    return Text("\n".join(clean(line, limit=300) for line in lines))


class DayGlance(Vertical):
    """The day at a glance: the chart with its table beside it and the totals below, or
    (`narrow`) the text form."""

    DEFAULT_CSS = """
    DayGlance {
        height: 1fr;
        #glance-title { height: 1; text-style: bold; }
        #glance-wide { height: 1fr; }
        #glance-chart-table { height: auto; }
        #glance-chart { width: auto; height: auto; }
        .glance-row { height: 1; width: auto; }
        .glance-bar { height: 1; width: 0; background: $accent; }
        .glance-bar.-in-progress { background: $warning; }
        .glance-spacer { height: 1; width: BAR_WIDTH; }
        #glance-table { width: auto; height: auto; }
        #glance-summary { height: auto; }
        #glance-tallies { height: auto; margin-top: 1; color: $text-muted; }
        #glance-text { height: 1fr; display: none; }
        &.-narrow #glance-wide { display: none; }
        &.-narrow #glance-title { display: none; }
        &.-narrow #glance-text { display: block; }
    }
    """.replace("BAR_WIDTH", str(BAR_CELLS))

    narrow: reactive[bool] = reactive(False)

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        #: The figures on show (None while none are).
        self.stats: DayStats | None = None

    def compose(self) -> ComposeResult:
        yield Static(one_line(READING), id="glance-title")
        with VerticalScroll(id="glance-wide"):
            yield Static(id="glance-summary")
            with Horizontal(id="glance-chart-table"):
                yield Vertical(id="glance-chart")
                table: DataTable[Text] = DataTable(id="glance-table", show_cursor=False)
                table.can_focus = False
                yield table
            yield Static(id="glance-tallies")
        with VerticalScroll(id="glance-text"):
            yield Static(id="glance-lines")

    def watch_narrow(self, narrow: bool) -> None:
        self.set_class(narrow, "-narrow")

    def waiting(self) -> None:
        """The figures on show are another day's: said, until the new ones come."""
        self.stats = None
        self.query_one("#glance-title", Static).update(one_line(READING))

    def unavailable(self, reason: str) -> None:
        """No figures: why, in one line."""
        self.stats = None
        self.query_one("#glance-title", Static).update(
            one_line(f"At a glance: not read ({reason})", "bold")
        )

    def show(self, stats: DayStats) -> None:
        """Show `stats` (a day's: hours, or a week's: days)."""
        self.stats = stats
        unit = f" in {clean(stats.currency, limit=12)}" if stats.currency else ""
        self.query_one("#glance-title", Static).update(one_line(f"At a glance{unit}"))
        self.query_one("#glance-summary", Static).update(_lines(summary(stats)))
        notes = tally_words(stats) + [f"warning: {w}" for w in stats.warnings]
        self.query_one("#glance-tallies", Static).update(_lines(notes))
        self._show_table(stats)
        self._show_chart(stats)
        # the text form: its own title, the totals, then the hours
        self.query_one("#glance-lines", Static).update(
            Text("\n".join(stats_lines(stats)), no_wrap=True)
        )

    def _show_table(self, stats: DayStats) -> None:
        table: DataTable[Text] = self.query_one("#glance-table", DataTable)
        table.clear(columns=True)
        unit = clean(stats.currency or "", limit=12)
        table.add_column(Text("Hour" if stats.unit == "hour" else "Day"), key="when")
        table.add_column(Text(unit or "Takings", justify="right"), key="takings")
        table.add_column(Text("Wk ago", justify="right"), key="before")
        table.add_column(Text(""), key="state")
        # (at most 25 rows: an hour a row, or a day of a week)
        for bucket, (_when, takings, _pays, before, _state) in zip(
            stats.buckets, bucket_rows(stats), strict=True
        ):
            style = "bold" if bucket.state == IN_PROGRESS else ""
            table.add_row(
                Text(short_when(bucket.label, bucket.offset, stats.unit), style),
                Text(takings, style, justify="right"),
                Text(before, "dim", justify="right"),
                Text(NOW_MARK if bucket.state == IN_PROGRESS else "", "bold"),
            )

    def _show_chart(self, stats: DayStats) -> None:
        chart = self.query_one("#glance-chart", Vertical)
        chart.remove_children()
        unit = stats.currency
        amounts = [
            Decimal(0) if unit is None else b.takings.get(unit, Decimal(0)) for b in stats.buckets
        ]
        most = max(amounts, default=Decimal(0))
        rows: list[Static | Horizontal] = [Static(classes="glance-spacer")]  # the table's head
        for bucket, amount in zip(stats.buckets, amounts, strict=True):
            now = " -in-progress" if bucket.state == IN_PROGRESS else ""
            bar = Static(classes="glance-bar" + now)
            bar.styles.width = 0 if bucket.state == TO_COME else bar_cells(amount, most)
            row = Horizontal(bar, classes="glance-row")
            row.tooltip = f"{bucket.label} {bucket.offset} {STATE_WORDS.get(bucket.state, '')}"
            rows.append(row)
        chart.mount_all(rows)
