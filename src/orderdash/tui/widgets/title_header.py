"""The header: one line, one widget, drawing what Textual's Header draws without a clock.

Textual's Header is a container of three widgets (HeaderIcon, HeaderTitle, HeaderClockSpace):
four widgets to mount, style, lay out and render before the dashboard's first paint (~15 ms of
the start-up, measured with the bench's child in interleaved runs). This header draws the same
cells, segment for segment (the screenshots are unchanged), itself: the
icon in the left 8 cells, the screen's title and sub-title (the app's when the screen has none)
centred between it and the clock's 10 empty cells, in the same colours. It keeps what Header
does for the mouse: the icon is highlighted under the mouse, tells what it does in a tooltip and
opens the command palette when clicked; a click elsewhere makes the header three lines tall and
another one line again.

A count of the watched orders that need a human (`attention`, bound from the screen's:
`data_bind`) stands at the right of the title, in the warning colour,
shortened to fit ("! 3 watched need attention", "! 3 attention", "!3"): the title gives way to
it, cut with "…".
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

#: Cells of Header's parts: the icon (its padding included) and the clock's space, which
#: Textual's Header keeps empty at the right when it shows no clock.
ICON_WIDTH = 8
CLOCK_WIDTH = 10
ICON_TOOLTIP = "Open the command palette"
NOT_REVERSE = RichStyle(reverse=False)


def attention_badge(count: int, room: int) -> str:
    """The count of orders needing a human in at most about `room` cells: the longest form
    that fits, else the shortest ("" for none)."""
    if count <= 0:
        return ""
    forms = (
        f"! {count} watched {'needs' if count == 1 else 'need'} attention",
        f"! {count} attention",
        f"!{count}",
    )
    return next((form for form in forms if len(form) <= room), forms[-1])


def offsets(segments: list[Segment]) -> list[Segment]:
    """`segments` marked with their offsets in their content, as Textual marks a widget's."""
    return list(Strip(segments).apply_offsets(0, 0))


class TitleHeader(Widget, can_focus=False):
    """The icon, the title and the sub-title: Textual's Header (no clock) as one widget."""

    #: The title is no text to copy (and this widget has no selection of its own).
    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"title-header--icon-hover"}
    DEFAULT_CSS = """
    TitleHeader {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
        .title-header--icon-hover {
            background: $foreground 10%;
        }
    }
    TitleHeader.-tall {
        height: 3;
    }
    """

    #: True: three lines tall (a click on the header toggles it, as on Textual's Header).
    tall: reactive[bool] = reactive(False)
    #: The character at the top left.
    icon: reactive[str] = reactive("\u2b58")
    #: Orders that need a human (0: no count shown).
    attention: reactive[int] = reactive(0)

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._icon_hover = False

    def on_mount(self) -> None:
        def redraw() -> None:
            # a watcher of no parameters: `refresh` takes regions and flags, not the values
            self.refresh()

        for node in (self.app, self.screen):
            self.watch(node, "title", redraw, init=False)
            self.watch(node, "sub_title", redraw, init=False)

    def watch_tall(self, tall: bool) -> None:
        self.set_class(tall, "-tall")

    @property
    def screen_title(self) -> str:
        """The title shown: the screen's, or the app's when the screen has none."""
        title = self.screen.title
        return title if title is not None else self.app.title

    @property
    def screen_sub_title(self) -> str:
        """The sub-title shown: the screen's, or the app's when the screen has none."""
        sub_title = self.screen.sub_title
        return sub_title if sub_title is not None else self.app.sub_title

    def render_line(self, y: int) -> Strip:
        # Header's cells, segment for segment as its three widgets gave them (so the
        # screenshots stay the same): padding cells carry the background only.
        width, height = self.size
        base = self.visual_style.rich_style
        back = RichStyle(bgcolor=base.bgcolor)
        icon_style = (
            self.get_visual_style("title-header--icon-hover").rich_style
            if self._icon_hover
            else base
        )
        icon_back = RichStyle(bgcolor=icon_style.bgcolor)
        # the blanks Textual adds to align a widget's content carry `not reverse`
        aligned, icon_aligned = base + NOT_REVERSE, icon_style + NOT_REVERSE
        inner = ICON_WIDTH - 2  # HeaderIcon's `padding: 0 1`
        segments = [Segment(" ", icon_back)]
        if y == height // 2:  # HeaderIcon's `content-align: left middle`
            segments += offsets([Segment(self.icon, icon_style)])
            segments += [Segment(" " * max(0, inner - cell_len(self.icon)), icon_aligned)]
        else:
            segments.append(Segment(" " * inner, icon_aligned))
        segments.append(Segment(" ", icon_back))
        rest = max(0, width - ICON_WIDTH)
        if y != 0:  # three lines tall, Header's title stays on the first line
            segments.append(Segment(" " * rest, back))
            return Strip(segments, width)
        title_width = max(0, rest - CLOCK_WIDTH)
        badge = attention_badge(self.attention, title_width // 2)
        if badge:
            title_width = max(0, title_width - len(badge) - 1)
        title = self.app.format_title(self.screen_title, self.screen_sub_title)
        title = title.rstrip().truncate(title_width, ellipsis=True)
        left = (title_width - title.cell_length) // 2  # HeaderTitle's `content-align: center`
        segments.append(Segment(" " * left, aligned))
        segments += offsets(title.render_segments(self.visual_style))
        segments.append(Segment(" " * (title_width - title.cell_length - left), aligned))
        if badge:
            warning = self.app.current_theme.warning or "yellow"
            segments += [
                Segment(" ", aligned),
                Segment(badge, base + RichStyle.parse(f"bold {warning}")),
            ]
        # HeaderClockSpace: its padding, its empty render, its blank
        segments += [Segment(" ", back), *offsets([Segment("", base)])]
        segments += [Segment(" " * (CLOCK_WIDTH - 2), back), Segment(" ", back)]
        return Strip(segments).crop_extend(0, width, back)

    def _on_icon(self, x: int) -> bool:
        return 0 <= x < ICON_WIDTH and self.app.ENABLE_COMMAND_PALETTE

    def _hover(self, over_icon: bool) -> None:
        if over_icon != self._icon_hover:
            self._icon_hover = over_icon
            self.tooltip = ICON_TOOLTIP if over_icon else None
            self.refresh()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover(self._on_icon(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._hover(False)

    async def on_click(self, event: events.Click) -> None:
        event.stop()
        if self._on_icon(event.x):
            await self.run_action("app.command_palette")
        elif not 0 <= event.x < ICON_WIDTH:  # Textual's icon without a palette is disabled
            self.tall = not self.tall
