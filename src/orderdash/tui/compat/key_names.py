"""Textual 8.2.8 finds how a bound key is shown (`textual.keys.format_key`, for the footer) and
which character it types (`key_to_character`, asked for every binding above the focused widget:
would an Input take the key as text?) in the names of the Unicode characters
(`unicodedata.lookup`). The first lookups page that database in: the ~20 of the dashboard's
first paint cost ~0.9 MiB of resident memory (20 lookups in a bare interpreter: +950 KiB; the
bench's start-up child: peak RSS 0.88 MiB lower without them), about an eighth of what the
dashboard adds to its floor, to learn that "r" is shown "r".

A key of one character is shown as itself: Textual looks it up as a name and finds none (no
character is named with one letter). The named keys bound in orderdash and in the Textual widgets
it uses are answered from the tables below, which hold Textual's own answers (checked against
its functions by tests/tui/test_compat.py, with a check that every key bound is in them). Any
other key goes to Textual as before.

Test: tests/tui/test_compat.py::test_the_first_paint_looks_up_no_key_name.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import textual.app
import textual.screen

#: `format_key(key)` of Textual 8.2.8 for the named keys bound in orderdash and its widgets.
DISPLAYS = {
    "backspace": "⌫",
    "delete": "del",
    "down": "↓",
    "end": "end",
    "enter": "⏎",
    "escape": "esc",
    "exclamation_mark": "!",
    "f1": "f1",
    "f6": "f6",
    "f7": "f7",
    "home": "home",
    "left": "←",
    "pagedown": "pgdn",
    "pageup": "pgup",
    "question_mark": "?",
    "right": "→",
    "slash": "/",
    "space": "space",
    "tab": "tab",
    "up": "↑",
}
#: `key_to_character(key)` of Textual 8.2.8 for the same keys.
CHARACTERS: dict[str, str | None] = {
    "backspace": "\x08",
    "delete": "\x7f",
    "down": None,
    "end": None,
    "enter": None,
    "escape": "\x1b",
    "exclamation_mark": "!",
    "f1": None,
    "f6": None,
    "f7": None,
    "home": None,
    "left": None,
    "pagedown": None,
    "pageup": None,
    "question_mark": "?",
    "right": None,
    "slash": None,
    "space": " ",
    "tab": "\t",
    "up": None,
}

_installed = False


def _format_key(textual_format_key: Callable[[str], str]) -> Callable[[str], str]:
    def format_key(key: str) -> str:
        if len(key) == 1:
            return key
        known = DISPLAYS.get(key)
        return known if known is not None else textual_format_key(key)

    return format_key


def _key_to_character(
    textual_key_to_character: Callable[[str], str | None],
) -> Callable[[str], str | None]:
    def key_to_character(key: str) -> str | None:
        if key in CHARACTERS:
            return CHARACTERS[key]
        return textual_key_to_character(key)

    return key_to_character


def install() -> None:
    # the names are looked up where Textual calls them: App.get_key_display and
    # Screen._binding_chain each use the module-level name they imported
    global _installed
    if _installed:
        return
    _installed = True
    # cached as Textual caches its own (which keeps the names' type what Textual declares)
    textual.app.format_key = lru_cache(1024)(_format_key(textual.app.format_key))
    textual.screen.key_to_character = lru_cache(1024)(
        _key_to_character(textual.screen.key_to_character)
    )
