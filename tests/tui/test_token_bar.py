"""The token bar: its label, its input, and the line under it for a refused token, which is
mounted the first time a token is refused (not at start-up)."""

from __future__ import annotations

import pytest
from test_watch_list_pane import list_app
from textual.widgets import Input

from conftest import screen_text, wait_until
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.widgets.token_bar import TokenBar


def bar_lines(app) -> list[str]:  # noqa: ANN001 - the running OrderDashApp
    bar = app.dashboard.query_one(TokenBar)
    top, height = bar.region.y, bar.region.height
    return screen_text(app).splitlines()[top : top + height]


async def test_the_bar_starts_with_its_label_and_input_and_no_error_line(
    sim_server: SimulatorServer,
) -> None:
    app = list_app(sim_server, [])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        bar = app.dashboard.query_one(TokenBar)
        assert isinstance(bar.input, Input) and bar.input.id == "token-input"
        assert not app.dashboard.query("#token-error")
        [line] = bar_lines(app)
        assert line.startswith(" Order token  paste or type a token"), line


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_refused_token_gets_a_line_under_the_input_until_a_good_one(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    app = list_app(sim_server, [])
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        bar = app.dashboard.query_one(TokenBar)
        bar.input.focus()
        await pilot.press(*"xyz!!", "enter")
        await wait_until(pilot, lambda: len(bar_lines(app)) > 1)
        assert "'xyz!!' is not an order token" in bar_lines(app)[1]
        # service text in the line is shown as it is, never as markup
        bar.show_error("ACME [/] Corp [b]refused[/b]")
        await pilot.pause()
        assert "ACME [/] Corp [b]refused[/b]" in bar_lines(app)[1]
        bar.input.value = ""
        await pilot.press(*DEMO_TOKENS[0], "enter")
        await wait_until(pilot, lambda: app.state.order is not None)
        await wait_until(pilot, lambda: len(bar_lines(app)) == 1)
        assert "refused" not in screen_text(app)
        bar.input.focus()
        bar.input.value = ""
        await pilot.press(*"again!!", "enter")  # refused again: the line comes back
        await wait_until(pilot, lambda: len(bar_lines(app)) > 1)
        assert "'again!!' is not an order token" in bar_lines(app)[1]
