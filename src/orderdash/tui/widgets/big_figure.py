"""BigFigure: an amount and its unit in large glyphs that a customer reads from a metre away.

A 3x5 pixel font drawn with quadrant blocks (two by two pixels a cell), scaled by whole
pixels to the room there is: 3 rows at the smallest, 5 at twice the size, 8 at three times.
A quadrant pixel is twice as high as it is wide, so each height is drawn from condensed (as
wide as the scale) to square (twice that) glyphs, the widest that fits.
The unit ("BTC", "EUR") is drawn in the same glyphs as the digits. A figure is shown whole or
not at all (`fit` says whether it fits): never cut, so nobody reads a prefix as the amount.
"""

from __future__ import annotations

from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

#: Glyphs as rows of pixels, top to bottom ("#" set). Letters cover the currency and coin codes.
FONT: dict[str, tuple[str, ...]] = {
    "0": ("###", "# #", "# #", "# #", "###"),
    "1": (" # ", "## ", " # ", " # ", "###"),
    "2": ("###", "  #", "###", "#  ", "###"),
    "3": ("###", "  #", "###", "  #", "###"),
    "4": ("# #", "# #", "###", "  #", "  #"),
    "5": ("###", "#  ", "###", "  #", "###"),
    "6": ("###", "#  ", "###", "# #", "###"),
    "7": ("###", "  #", "  #", "  #", "  #"),
    "8": ("###", "# #", "###", "# #", "###"),
    "9": ("###", "# #", "###", "  #", "###"),
    ".": (" ", " ", " ", " ", "#"),
    ",": ("  ", "  ", "  ", " #", "# "),
    "-": ("   ", "   ", "###", "   ", "   "),
    "+": ("   ", " # ", "###", " # ", "   "),
    " ": ("  ", "  ", "  ", "  ", "  "),
    "A": (" # ", "# #", "###", "# #", "# #"),
    "B": ("## ", "# #", "## ", "# #", "## "),
    "C": (" ##", "#  ", "#  ", "#  ", " ##"),
    "D": ("## ", "# #", "# #", "# #", "## "),
    "E": ("###", "#  ", "## ", "#  ", "###"),
    "F": ("###", "#  ", "## ", "#  ", "#  "),
    "G": (" ##", "#  ", "# #", "# #", " ##"),
    "H": ("# #", "# #", "###", "# #", "# #"),
    "I": ("###", " # ", " # ", " # ", "###"),
    "J": ("  #", "  #", "  #", "# #", " # "),
    "K": ("# #", "# #", "## ", "# #", "# #"),
    "L": ("#  ", "#  ", "#  ", "#  ", "###"),
    "M": ("# #", "###", "###", "# #", "# #"),
    "N": ("## ", "# #", "# #", "# #", "# #"),
    "O": (" # ", "# #", "# #", "# #", " # "),
    "P": ("## ", "# #", "## ", "#  ", "#  "),
    "Q": (" # ", "# #", "# #", "## ", " ##"),
    "R": ("## ", "# #", "## ", "# #", "# #"),
    "S": (" ##", "#  ", " # ", "  #", "## "),
    "T": ("###", " # ", " # ", " # ", " # "),
    "U": ("# #", "# #", "# #", "# #", "###"),
    "V": ("# #", "# #", "# #", "# #", " # "),
    "W": ("# #", "# #", "###", "###", "# #"),
    "X": ("# #", "# #", " # ", "# #", "# #"),
    "Y": ("# #", "# #", " # ", " # ", " # "),
    "Z": ("###", "  #", " # ", "#  ", "###"),
}
GLYPH_ROWS = 5
#: Pixels between glyphs, and between two lines of glyphs.
GAP = 1
#: The tallest scale tried (glyphs 15 rows high).
MAX_SCALE = 6
#: Quadrant blocks by (upper left, upper right, lower left, lower right).
QUADRANTS = {
    (0, 0, 0, 0): " ",
    (1, 0, 0, 0): "\u2598",
    (0, 1, 0, 0): "\u259d",
    (0, 0, 1, 0): "\u2596",
    (0, 0, 0, 1): "\u2597",
    (1, 1, 0, 0): "\u2580",
    (0, 0, 1, 1): "\u2584",
    (1, 0, 1, 0): "\u258c",
    (0, 1, 0, 1): "\u2590",
    (1, 0, 0, 1): "\u259a",
    (0, 1, 1, 0): "\u259e",
    (1, 1, 1, 0): "\u259b",
    (1, 1, 0, 1): "\u259c",
    (1, 0, 1, 1): "\u2599",
    (0, 1, 1, 1): "\u259f",
    (1, 1, 1, 1): "\u2588",
}


def drawable(text: str) -> bool:
    """Every character of `text` has a glyph (lower case is drawn as upper case)."""
    return bool(text) and all(ch in FONT for ch in text.upper())


def _pixels(line: str) -> list[list[int]]:
    """The pixel rows of one line of text at scale 1."""
    rows: list[list[int]] = [[] for _ in range(GLYPH_ROWS)]
    for index, ch in enumerate(line.upper()):
        glyph = FONT[ch]
        for y in range(GLYPH_ROWS):
            if index:
                rows[y].extend([0] * GAP)
            rows[y].extend(1 if px == "#" else 0 for px in glyph[y])
    return rows


Scale = tuple[int, int]
"""Pixels a glyph pixel takes across and down (quadrant pixels, half a cell each way)."""


@lru_cache(maxsize=64)
def render_lines(lines: tuple[str, ...], scale: Scale) -> tuple[str, ...]:
    """`lines` drawn at `scale`: one string per terminal row, all of the same width."""
    across, down = scale
    pixels: list[list[int]] = []
    for index, line in enumerate(lines):
        if index:
            pixels.extend([] for _ in range(GAP))
        pixels.extend(_pixels(line))
    width = max(len(row) for row in pixels)
    grid = [
        [px for px in (row + [0] * (width - len(row))) for _ in range(across)]
        for row in pixels
        for _ in range(down)
    ]
    if len(grid) % 2:
        grid.append([0] * (width * across))
    if (width * across) % 2:
        for row in grid:
            row.append(0)
    out = []
    for y in range(0, len(grid), 2):
        top, bottom = grid[y], grid[y + 1]
        out.append(
            "".join(
                QUADRANTS[(top[x], top[x + 1], bottom[x], bottom[x + 1])]
                for x in range(0, len(top), 2)
            )
        )
    return tuple(out)


@lru_cache(maxsize=1024)
def figure_size(lines: tuple[str, ...], scale: Scale) -> Size:
    """Cells taken by `lines` at `scale`."""
    across, down = scale
    width = max(
        sum(len(FONT[ch][0]) for ch in line.upper()) + GAP * (len(line) - 1) for line in lines
    )
    height = GLYPH_ROWS * len(lines) + GAP * (len(lines) - 1)
    return Size((width * across + 1) // 2, (height * down + 1) // 2)


NOTHING: tuple[tuple[str, ...], Scale] = ((), (0, 0))


@lru_cache(maxsize=256)
def best_layout(amount: str, unit: str, width: int, rows: int) -> tuple[tuple[str, ...], Scale]:
    """The largest drawing of `amount` and `unit` within `width` x `rows` cells: the lines
    (one, or the unit under the amount when that is larger) and the scale; `NOTHING` when
    even the smallest would be cut."""
    text = f"{amount} {unit}".strip()
    if not drawable(text):
        return NOTHING
    choices: list[tuple[str, ...]] = [(text,)]
    if amount and unit:
        choices.append((amount, unit))
    for down in range(MAX_SCALE, 0, -1):  # the tallest glyphs first, then the widest
        for across in range(2 * down, down - 1, -1):
            for lines in choices:
                size = figure_size(lines, (across, down))
                if size.width <= width and size.height <= rows:
                    return lines, (across, down)
    return NOTHING


class BigFigure(Widget):
    """An amount and its unit in large glyphs; `show` it, then `fit` it to the room."""

    DEFAULT_CSS = """
    BigFigure {
        width: auto;
        height: auto;
        color: $text;
        text-style: bold;
    }
    """

    lines: reactive[tuple[str, ...]] = reactive((), layout=True)
    scale: reactive[Scale] = reactive((0, 0), layout=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.amount = ""
        self.unit = ""
        self._strips_key: tuple[object, ...] | None = None
        self._strips: list[Strip] = []

    @property
    def text(self) -> str:
        """What the figure says, "" when it is not drawn."""
        return " ".join(self.lines) if self.lines else ""

    @property
    def rows(self) -> int:
        return figure_size(self.lines, self.scale).height if self.lines else 0

    def show(self, amount: str, unit: str) -> None:
        self.amount, self.unit = amount, unit

    def fit(self, width: int, rows: int) -> bool:
        """Draw at the largest scale that fits `width` x `rows`; False (nothing drawn) when
        even the smallest would be cut."""
        lines, scale = best_layout(self.amount, self.unit, width, rows)
        self.lines, self.scale = lines, scale
        return bool(lines)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return figure_size(self.lines, self.scale).width if self.lines else 0

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.rows

    def render_line(self, y: int) -> Strip:
        # drawn once per figure and size as plain strips: repaints (each countdown tick)
        # cost nothing, and the glyphs are never wrapped or measured again
        width, style = self.size.width, self.rich_style
        key = (self.lines, self.scale, width, style)
        if key != self._strips_key:
            self._strips_key = key
            drawn = render_lines(self.lines, self.scale) if self.lines else ()
            self._strips = [self._strip(row, width, style) for row in drawn]
        if 0 <= y < len(self._strips):
            return self._strips[y]
        return Strip.blank(width, style)

    @staticmethod
    def _strip(row: str, width: int, style: Style) -> Strip:
        # every quadrant block is one cell wide
        return Strip([Segment(row, style)], len(row)).adjust_cell_length(width, style)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips_key = None
