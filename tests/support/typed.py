"""Typing into an input of a screen under Pilot, key by key, as a person does."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input


async def type_into(pilot: Pilot[object], screen: Screen[object], selector: str, text: str) -> None:
    screen.query_one(selector, Input).focus()
    await pilot.pause()
    await pilot.press(*text)
