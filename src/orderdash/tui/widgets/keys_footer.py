"""The footer of keys: one line, one widget, showing the keys that fit, the most needed first.

Textual's Footer is a container of one FooterKey widget per key, rebuilt whenever the screen's
bindings are refreshed. On the dashboard that was 13 widgets to mount, style, measure and
render before the first paint, and a rebuild of all of them once the focus was set (~30 ms of
the start-up, measured with bench/run.py --case startup). This footer draws the same line
itself: a key in the footer's key style, its description in the description style, the
command palette's key at the right end. What changes is a repaint of one line, and only when
what it shows changes. A click on a key presses it; the mouse over a key highlights it and
shows its tooltip. A mark (READ-ONLY) given to it stands first on the line at every width.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from rich.cells import cell_len
from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.style import Style
from textual.widget import Widget

#: Actions shown by another key of theirs when the focused widget takes their own.
ALWAYS = ("help", "quit")


class Key(NamedTuple):
    """One key as the footer shows it."""

    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str

    @property
    def width(self) -> int:
        """Cells taken: " key " then "description " (Textual's footer spacing)."""
        return key_width(self.display, self.description)


def key_width(key_display: str, description: str) -> int:
    """Cells one key takes: " key " then "description "."""
    return cell_len(key_display) + 2 + (cell_len(description) + 1 if description else 0)


def mark_width(mark: str) -> int:
    """Cells the mark takes at the left end: " mark "."""
    return cell_len(mark) + 2


def palette_width(key: Key) -> int:
    """Cells the command palette's key takes at the right end: "▏key description "."""
    return 1 + cell_len(key.display) + 1 + cell_len(key.description) + 1


def fitting(keys: Sequence[tuple[Binding, Key]], width: int, first: Sequence[str]) -> list[Key]:
    """The keys that fit in `width` cells, chosen in the order of `first` (by action), then in
    their own order; shown in their own order."""
    rank = {action: n for n, action in enumerate(first)}
    order = sorted(range(len(keys)), key=lambda i: (rank.get(keys[i][0].action, len(rank)), i))
    chosen: set[int] = set()
    used = 0
    for i in order:
        if used + keys[i][1].width <= width:
            chosen.add(i)
            used += keys[i][1].width
    return [keys[i][1] for i in sorted(chosen)]


class KeysFooter(Widget, can_focus=False):
    """The screen's shown keys on one line: the actions in `first` are chosen first (help and
    quit, so a new operator always finds `?`), then the others in the screen's order; the rest
    stay on `?` and in the command palette."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "keys-footer--key",
        "keys-footer--description",
        "keys-footer--hover",
        "keys-footer--bar",
        "keys-footer--mark",
    }
    DEFAULT_CSS = """
    KeysFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        text-wrap: nowrap;
        color: $footer-foreground;
        background: $footer-background;
        .keys-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .keys-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .keys-footer--hover {
            background: $block-hover-background;
        }
        .keys-footer--bar {
            color: $foreground 20%;
        }
        .keys-footer--mark {
            color: $background;
            background: $warning;
            text-style: bold;
        }
    }
    """

    def __init__(
        self,
        *,
        first: Iterable[str] = ("help", "quit"),
        mark: str = "",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`mark`: a word drawn first on the line at every width, before any key (read-only)."""
        super().__init__(name=name, id=id, classes=classes)
        self.first = tuple(first)
        self.mark = mark
        #: What the line shows: the keys from the left, and the palette's key at the right.
        self.shown: tuple[tuple[Key, ...], Key | None] = ((), None)
        #: Each key's cells on the line, for the mouse: (start, end, key).
        self._spans: list[tuple[int, int, Key]] = []
        self._hover: Key | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self.screen:
            self._update()

    def on_resize(self, event: events.Resize) -> None:
        self._update()

    def _keys(self) -> tuple[tuple[Key, ...], Key | None]:
        app = self.app
        bindings = self.screen.active_bindings
        palette = None
        room = self.size.width or app.size.width
        if self.mark:
            room -= mark_width(self.mark)
        if app.ENABLE_COMMAND_PALETTE:
            found = bindings.get(app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                display = app.get_key_display(binding)
                palette = Key(
                    binding.key,
                    display,
                    binding.description,
                    enabled,
                    binding.tooltip or binding.description,
                )
                room -= palette_width(palette)
        seen: set[str] = set()
        keys: list[tuple[Binding, Key]] = []
        for _, binding, enabled, tooltip in bindings.values():
            if not binding.show or binding.action in seen:
                continue
            if palette is not None and binding.key == palette.key:
                continue
            seen.add(binding.action)
            display = app.get_key_display(binding)
            keys.append((binding, Key(binding.key, display, binding.description, enabled, tooltip)))
        # help's or quit's key taken by the focused widget (`q` and `?` typed into an input):
        # its other key (ctrl+q, f1), so neither is ever out of sight
        for _, binding, enabled, tooltip in bindings.values():
            action = binding.action.removeprefix("app.")
            if action in seen or action not in ALWAYS:
                continue
            if palette is not None and binding.key == palette.key:
                continue
            seen.add(action)
            display = app.get_key_display(binding)
            description = binding.description or action.capitalize()
            keys.append((binding, Key(binding.key, display, description, enabled, tooltip)))
        return tuple(fitting(keys, room, self.first)), palette

    def _update(self) -> None:
        shown = self._keys()
        if shown != self.shown:
            self.shown = shown
            self._hover = None
            self.refresh()

    def render(self) -> Content:
        keys, palette = self.shown
        key_style = self.get_visual_style("keys-footer--key")
        description_style = self.get_visual_style("keys-footer--description")
        hover_style = self.get_visual_style("keys-footer--hover")
        parts: list[tuple[str, Style] | str] = []
        spans: list[tuple[int, int, Key]] = []
        at = 0
        if self.mark:
            parts.append((f" {self.mark} ", self.get_visual_style("keys-footer--mark")))
            at += mark_width(self.mark)

        def add(key: Key, key_text: str, description_text: str) -> None:
            nonlocal at
            over = Style(dim=not key.enabled) + (hover_style if key == self._hover else Style())
            parts.append((key_text, key_style + over))
            if description_text:
                parts.append((description_text, description_style + over))
            width = cell_len(key_text) + cell_len(description_text)
            spans.append((at, at + width, key))
            at += width

        for key in keys:
            add(key, f" {key.display} ", f"{key.description} " if key.description else "")
        if palette is not None:
            gap = self.size.width - at - palette_width(palette)
            if gap >= 0:
                parts.append(" " * gap)
                parts.append(("\u258f", self.get_visual_style("keys-footer--bar")))
                at += gap + 1
                # compact, as Textual's footer draws it: no padding around the key
                add(palette, palette.display, f" {palette.description} ")
        self._spans = spans
        return Content.assemble(*parts)

    def _key_at(self, x: int) -> Key | None:
        for start, end, key in self._spans:
            if start <= x < end:
                return key
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        key = self._key_at(event.x)
        if key != self._hover:
            self._hover = key
            self.tooltip = key.tooltip or None if key is not None else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self._key_at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()
