"""The dashboard's header: one widget drawing what Textual's Header drew, and doing what it did
under the mouse."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from test_watch_list_pane import all_loaded, list_app
from textual.app import App, ComposeResult
from textual.command import CommandPalette
from textual.widget import Widget
from textual.widgets import Header, Static

from conftest import screen_text, wait_until
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.widgets.title_header import ICON_TOOLTIP, TitleHeader


class HeaderApp(App[None]):
    TITLE = "orderdash"

    def __init__(self, header: type[Widget]) -> None:
        super().__init__()
        self.header = header

    def compose(self) -> ComposeResult:
        yield self.header()
        yield Static("body")


async def cells(
    header: type[Widget], width: int, title: str | None, *, tall: bool, hover: bool
) -> list[list[tuple[str, object]]]:
    """The header's lines as drawn: each cell's character and what makes it look as it does
    (a blank's foreground colour shows nothing, so it is left out)."""
    app = HeaderApp(header)
    async with app.run_test(size=(width, 6)) as pilot:
        app.screen.sub_title = "ACME [/] Corp \u00b7 demo-btc-eur"
        if title is not None:
            app.screen.title = title
        await pilot.pause()
        if tall:
            await pilot.click(header, offset=(20, 0))
        if hover:
            await pilot.hover(header, offset=(2, 0))
        await pilot.pause()
        lines = []
        for strip in app.screen._compositor.render_strips()[:4]:
            line = []
            for segment in strip:
                style = segment.style
                look = (style.color, style.bgcolor, bool(style.bold), bool(style.dim))
                for character in segment.text:
                    line.append((character, look[1:] if character == " " else look))
            lines.append(line)
        return lines


@pytest.mark.parametrize("width", [80, 200])
@pytest.mark.parametrize("title", [None, "x" * 150], ids=["app-title", "long-title"])
@pytest.mark.parametrize(("tall", "hover"), [(False, False), (False, True), (True, True)])
async def test_the_header_draws_what_textuals_header_drew(
    width: int, title: str | None, tall: bool, hover: bool
) -> None:
    ours = await cells(TitleHeader, width, title, tall=tall, hover=hover)
    assert ours == await cells(Header, width, title, tall=tall, hover=hover)


async def test_the_header_follows_the_order_on_screen(sim_server: SimulatorServer) -> None:
    app = list_app(sim_server, [DEMO_TOKENS[0]])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        first = screen_text(app).splitlines()[0]
        assert f"orderdash \u2014 Demo Shop \u00b7 {DEMO_TOKENS[0]}" in first, first
        await pilot.press("slash", *DEMO_TOKENS[1], "enter")
        await wait_until(pilot, lambda: DEMO_TOKENS[1] in screen_text(app).splitlines()[0])
        assert DEMO_TOKENS[0] not in screen_text(app).splitlines()[0]
        app.title = "orderdash (test)"
        await pilot.pause()
        assert "orderdash (test) \u2014 " in screen_text(app).splitlines()[0]


@asynccontextmanager
async def dashboard_header(sim_server: SimulatorServer) -> AsyncIterator[tuple[Any, TitleHeader]]:
    """The dashboard on one demo order, loaded: its pilot and its header."""
    app = list_app(sim_server, [DEMO_TOKENS[0]])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        yield pilot, app.dashboard.query_one(TitleHeader)


async def test_the_header_icon_explains_itself_and_opens_the_command_palette(
    sim_server: SimulatorServer,
) -> None:
    async with dashboard_header(sim_server) as (pilot, header):
        await pilot.hover(TitleHeader, offset=(40, 0))
        assert header.tooltip is None, "only the icon has a tooltip"
        await pilot.hover(TitleHeader, offset=(1, 0))
        assert header.tooltip == ICON_TOOLTIP
        await pilot.click(TitleHeader, offset=(1, 0))
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
        assert not header.tall, "a click on the icon is not one on the header"


async def test_a_click_on_the_header_makes_it_tall_and_another_makes_it_one_line(
    sim_server: SimulatorServer,
) -> None:
    async with dashboard_header(sim_server) as (pilot, header):
        app = pilot.app
        await pilot.click(TitleHeader, offset=(60, 0))
        await pilot.pause()
        assert header.size.height == 3
        assert "orderdash" in screen_text(app).splitlines()[0]
        assert "\u2b58" in screen_text(app).splitlines()[1]
        await pilot.click(TitleHeader, offset=(60, 0))
        await pilot.pause()
        assert header.size.height == 1
