"""The day at a glance in the close of day screen (`Z`): beside the report on a wide screen, a
bar per hour (each a widget) with the numbers as a table beside the bars, the hour of the
frozen "now" marked; on 80x24 the report as before, and `g` puts the text form in its place.
The figures are the ledger's, read in a worker thread once the report is read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

from textual.app import App
from textual.widgets import DataTable, Static

from conftest import screen_text, wait_until
from orderdash.core.ledger.sqlite import SqliteEngine
from orderdash.core.ledger.store import SqlBook
from orderdash.core.model.errors import NotFound
from orderdash.core.service.account_answers import AccountOrders
from orderdash.core.usecases.close import CloseOptions
from orderdash.core.usecases.stats import StatsOptions
from orderdash.tui.screens.close_day import CloseDayScreen
from orderdash.tui.widgets.day_glance import NOW_MARK, DayGlance, bar_cells
from support.glance_book import HOUR, a_day

BERLIN = ZoneInfo("Europe/Berlin")
MIDNIGHT = datetime(2026, 11, 21, tzinfo=BERLIN)
#: 14:30 in Berlin: the 14:00 hour under way.
NOW = (MIDNIGHT + 14.5 * HOUR).timestamp()


class _NoHistory:
    """An account with no orders in its history: the report is empty, the ledger is not."""

    async def account_orders(
        self, *, max_pages: int, before_page: Callable[[], Awaitable[None]] | None = None
    ) -> AccountOrders:
        return AccountOrders(items=(), raw=(), pages=1, truncated=False)

    async def get_order(self, token: str) -> object:
        raise NotFound(token)


class _Open:
    async def take_turn(self) -> None:
        return None


def _app(path: Path) -> App[None]:
    book = SqlBook(SqliteEngine(path))
    a_day(book, MIDNIGHT)
    book.close_connection()
    screen = CloseDayScreen(
        client=_NoHistory(),  # type: ignore[arg-type]
        options=CloseOptions("front", 1, 1, "EUR", Decimal(0)),
        readonly=False,
        zone=BERLIN,
        today=date(2026, 11, 21),
        open_book=lambda: SqlBook(SqliteEngine(path)),
        order_gate=_Open(),
        private_gate=_Open(),
        glance=StatsOptions("Europe/Berlin", "EUR"),
        clock=lambda: NOW,
    )

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(screen)

    return Host()


def test_a_bar_is_whole_cells_of_the_best_hour_and_one_at_least() -> None:
    assert bar_cells(Decimal("5.00"), Decimal("5.00")) == 8
    assert bar_cells(Decimal("2.49"), Decimal("5.00")) == 3
    assert bar_cells(Decimal("0.01"), Decimal("5000")) == 1
    assert bar_cells(Decimal(0), Decimal("5.00")) == 0


def _shown(app: App[None]) -> CloseDayScreen:
    screen = app.screen
    assert isinstance(screen, CloseDayScreen)
    return screen


async def test_z_shows_the_chart_and_its_table_beside_the_report_at_120x40(
    tmp_path: Path,
) -> None:
    app = _app(tmp_path / "ledger.sqlite3")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: _shown(app).glance is not None)
        await pilot.pause()
        screen = _shown(app)
        stats = screen.glance
        assert stats is not None
        glance = screen.query_one(DayGlance)
        assert glance.display and screen.query_one("#close-report").display
        # a bar per hour, as long as its takings against the best hour's (11:00, 25.00)
        bars = list(glance.query(".glance-bar"))
        assert len(bars) == len(stats.buckets) == 24
        widths = [bar.region.width for bar in bars]
        takings = ("20.50", "12.00", "25.00", "0", "7.10", "0")  # 09:00 to 14:00 (now)
        assert widths[9:15] == [bar_cells(Decimal(t), Decimal("25.00")) for t in takings]
        assert widths[9:15] == [6, 3, 8, 0, 2, 0] and set(widths[15:]) == {0}
        # the numbers beside: the hour of "now" in progress, the hours after it to come
        table = glance.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]
        assert len(rows) == 24
        assert [n for n, row in enumerate(rows) if row[3] == NOW_MARK] == [14]
        assert bars[14].has_class("-in-progress")
        assert rows[9][:3] == ["09:00+01", "20.50", "4.00"]
        assert rows[13][:3] == ["13:00+01", "7.10", "3.33"]
        assert rows[15][:2] == ["15:00+01", ""]
        text = screen_text(app)
        assert "At a glance in EUR" in text
        assert "Takings 64.60 EUR in 5 payments;" in text  # (wrapped at the panel's width)
        summary = str(glance.query_one("#glance-summary", Static).render())
        assert "Takings 64.60 EUR in 5 payments; a week earlier 7.33 EUR" in summary
        tallies = str(glance.query_one("#glance-tallies", Static).render()).splitlines()
        assert tallies == [
            "BTC 37.50 EUR, 2 payments, 0.002 BTC",
            "ETH 27.10 EUR, 3 payments, 0.003 ETH",
            "Till back: 27.10 EUR, 2 orders, 3 payments",
            "Till front: 37.50 EUR, 3 orders, 2 payments",
        ]


async def test_at_80x24_the_report_stays_and_g_shows_the_text_form(tmp_path: Path) -> None:
    app = _app(tmp_path / "ledger.sqlite3")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: _shown(app).glance is not None)
        screen = _shown(app)
        glance = screen.query_one(DayGlance)
        assert not glance.display and "Orders: 0 made in the period" in screen_text(app)
        await pilot.press("g")
        await pilot.pause()
        assert glance.display and not screen.query_one("#close-report").display
        text = screen_text(app)
        assert "The day at a glance: 2026-11-21, Europe/Berlin, in EUR" in text
        assert "Orders: 5 made, 3 paid, 1 short; average sale 13.20 EUR" in text
        shown = str(glance.query_one("#glance-lines", Static).render())
        assert [line for line in shown.splitlines() if "in progress" in line] == [
            "14:00 +01:00     0.00     0        0.00  in progress"
        ]
        assert max(len(line) for line in shown.splitlines()) <= 80
        await pilot.press("g")
        await pilot.pause()
        assert not glance.display and screen.query_one("#close-report").display
