"""The list an operator looks at first: newest first by the order's creation time (the
service's `createdAtMiliseconds`), a Created column that `s` offers at every width from 80
columns, and a line of its own above the rows that says what the list shows and in which
order ("showing 2 of 7 · partly paid · newest first"), whole at 80 and 120 columns. Driven by
Pilot against the simulator's demo orders (created 1 to 125 minutes before)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from conftest import make_settings, screen_text, wait_until
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.widgets.watch_list import WatchListPane, WatchTable

SIZES = [(80, 24), (120, 40)]


def list_app(server: SimulatorServer) -> OrderDashApp:
    settings = make_settings(server.base_url, poll_interval=0.3, refresh_interval=60.0)
    return make_app(settings, tokens=list(DEMO_TOKENS))


def all_loaded(app: OrderDashApp) -> bool:
    return all(entry.fetched for entry in app.state.entries.values())


def header_line(table: WatchTable) -> str:
    return "".join(segment.text for segment in table.render_line(0))


def newest_first(app: OrderDashApp) -> list[str]:
    """The tokens by their orders' creation time as the service sent it, the newest first."""
    created = {t: e.order.created_at_ms for t, e in app.state.entries.items() if e.order}
    return sorted(created, key=lambda token: created[token], reverse=True)


def view(app: OrderDashApp) -> str:
    """The list's view line as drawn (the screen's row that holds it)."""
    return next(line for line in screen_text(app).splitlines() if "Filter" in line)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_list_opens_newest_first_offers_created_and_says_what_it_shows(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    app = list_app(sim_server)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        pane = app.dashboard.query_one(WatchListPane)
        table = pane.table
        await pilot.pause()
        assert pane.shown_tokens() == newest_first(app)
        assert pane.shown_tokens()[:3] == [DEMO_TOKENS[6], DEMO_TOKENS[5], DEMO_TOKENS[0]]
        assert "created" in pane.columns and "Created \u25b2" in header_line(table)
        assert view(app).rstrip(" \u2502").endswith("showing 7 of 7 \u00b7 newest first")

        # `s` goes round the columns on screen, Created among them, back to newest first
        pane.sort_by("token")
        await pilot.pause()
        assert "showing 7 of 7 \u00b7 by token" in view(app)
        offered = []
        for _ in range(len(pane.columns)):
            await pilot.press("s")
            offered.append(pane.sort_column)
            if pane.sort_column == "created":
                break
        assert offered[-1] == "created", offered
        await pilot.pause()
        assert pane.shown_tokens() == newest_first(app)
        assert "showing 7 of 7 \u00b7 newest first" in view(app)

        await pilot.press("t", "t")  # open, then partly paid
        await wait_until(pilot, lambda: len(pane.shown_tokens()) == 2)
        await pilot.pause()
        assert "showing 2 of 7 \u00b7 partly paid \u00b7 newest first" in view(app)
        assert pane.shown_tokens() == [DEMO_TOKENS[0], DEMO_TOKENS[1]]  # 6 and 14 minutes old

        await pilot.press("S")
        await pilot.pause()
        assert "showing 2 of 7 \u00b7 partly paid \u00b7 oldest first" in view(app)
        assert pane.shown_tokens() == [DEMO_TOKENS[1], DEMO_TOKENS[0]]
        assert "Created \u25bc" in header_line(table)

        # a text filter (in its own box) counts in "showing"
        await pilot.press("t", "t", "t", "t")  # back to all
        app.dashboard.query_one("#watch-filter", Input).value = "bakery"
        await wait_until(pilot, lambda: len(pane.shown_tokens()) == 1)
        await pilot.pause()
        assert "showing 1 of 7 \u00b7 oldest first" in view(app)
