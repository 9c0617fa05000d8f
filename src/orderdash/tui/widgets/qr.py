"""QRView: a scannable QR code drawn with half blocks, with the encoded text under it.

It can also show a given module matrix (the service's own QR image, recovered module-exact by
`orderdash.core.qr.image`) with a caption of the caller's choosing: `show_matrix`.

The code is drawn module-exact in pure black on pure white whatever the theme, since a
phone camera needs contrast and a quiet zone, not the theme's palette. Every string shown
goes through `clean` and is built as Content, never parsed as markup.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import groupby

from rich.cells import cell_len
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.style import Style as ContentStyle
from textual.widget import Widget

from orderdash.core.qr.matrix import (
    QRError,
    QRMatrix,
    best_scale,
    cells_needed,
    matrix_for,
    matrix_size,
)
from orderdash.core.safetext import clean, shorten_middle

__all__ = ["QRView", "caption_lines"]

QUIET_ZONE = 2
CAPTION_MAX_LINES = 3
#: Lines at most for the note shown between a given matrix and its caption.
MATRIX_NOTE_MAX_LINES = 2
EMPTY_NOTE = "No QR: the order has no payment address yet"

_BLACK = Color.from_rgb(0, 0, 0)
_WHITE = Color.from_rgb(255, 255, 255)
_UPPER_HALF = "\u2580"

# (top_dark, bottom_dark) -> the cell that shows it. Uniform cells are spaces with the
# background set, which no font can draw with a seam between the two halves.
_CELLS: dict[tuple[bool, bool], tuple[str, Style]] = {
    (True, True): (" ", Style(color=_BLACK, bgcolor=_BLACK)),
    (False, False): (" ", Style(color=_WHITE, bgcolor=_WHITE)),
    (True, False): (_UPPER_HALF, Style(color=_BLACK, bgcolor=_WHITE)),
    (False, True): (_UPPER_HALF, Style(color=_WHITE, bgcolor=_BLACK)),
}


def caption_lines(text: str, width: int, max_lines: int = CAPTION_MAX_LINES) -> list[str]:
    """`text` made printable and folded to `width`, shortened in the middle to fit `max_lines`."""
    if width < 1 or max_lines < 1 or not text:
        return []
    budget = width * max_lines
    # Shorten before cleaning so a huge server string costs no more than what is shown.
    shown = clean(shorten_middle(text, budget))
    while True:
        lines = [line.plain for line in Content(shown).fold(width)]
        if len(lines) <= max_lines:
            return lines
        # Only double-width characters get here: give up a little and fold again.
        budget = max(1, budget - (len(lines) - max_lines) * width // 2 - 1)
        shown = clean(shorten_middle(text, budget))


@dataclass(frozen=True, eq=False, repr=False)
class _Layout:
    """What goes where in a content area of a given size."""

    width: int
    height: int
    matrix: QRMatrix | None = None
    scale: int = 0
    note: str = ""
    note_kind: str = "note"  # component class suffix: "note" or "placeholder"
    caption: tuple[str, ...] = ()
    source: str = "text"  # "text": encoded from the text; "server": a matrix given as is
    code_note: tuple[str, ...] = ()  # lines shown between a given matrix and its caption

    def code_size(self) -> tuple[int, int]:
        if self.matrix is None or not self.scale:
            return 0, 0
        return cells_needed(self.matrix, self.scale)


def _wrap_note(note: str, width: int, max_lines: int) -> list[str]:
    if width < 1 or max_lines < 1:
        return []
    lines = [line.plain for line in Content(clean(note)).wrap(width)]
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = Content(lines[-1]).truncate(width - 1).plain + "\u2026"
    return lines


def _plan(
    text: str,
    width: int,
    height: int,
    max_scale: int,
    with_caption: bool,
    caption_text: str = "",
    placeholder: str = EMPTY_NOTE,
    no_room: str = "",
) -> _Layout:
    if width < 1 or height < 1:
        return _Layout(width, height)
    if not text:
        return _Layout(width, height, note=placeholder, note_kind="placeholder")

    def caption(rows_left: int) -> tuple[str, ...]:
        if not with_caption:
            return ()
        return tuple(caption_lines(caption_text or text, width, min(CAPTION_MAX_LINES, rows_left)))

    try:
        matrix = matrix_for(text, QUIET_ZONE)
    except QRError as error:
        # Room for the note and a blank line first; the caption says which text failed.
        return _Layout(width, height, note=str(error), caption=caption(height - 2))
    return _fit(
        matrix, caption_text or text, "", "text", width, height, max_scale, with_caption, no_room
    )


def _fit(
    matrix: QRMatrix,
    caption_text: str,
    code_note: str,
    source: str,
    width: int,
    height: int,
    max_scale: int,
    with_caption: bool,
    no_room: str = "",
) -> _Layout:
    """The layout of a matrix known to exist: at the largest scale that fits, or hidden (with
    `no_room` said instead, when given: the operator's note names cells and the terminal)."""
    if width < 1 or height < 1:
        return _Layout(width, height, source=source)
    with_caption = with_caption and bool(caption_text)

    def caption(rows_left: int) -> tuple[str, ...]:
        if not with_caption:
            return ()
        return tuple(caption_lines(caption_text, width, min(CAPTION_MAX_LINES, rows_left)))

    # One caption line is reserved: the code is no use if nobody can see what it says.
    reserved = 1 if with_caption else 0
    notes = tuple(_wrap_note(code_note, width, MATRIX_NOTE_MAX_LINES)) if code_note else ()
    scale = best_scale(matrix, width, height - reserved - len(notes), max_scale)
    if scale:
        _, code_rows = cells_needed(matrix, scale)
        return _Layout(
            width,
            height,
            matrix,
            scale,
            caption=caption(height - code_rows - len(notes)),
            source=source,
            code_note=notes,
        )
    columns, rows = cells_needed(matrix, 1)
    note = no_room or (
        f"QR hidden: needs {columns}x{rows + reserved + len(notes)} cells, have {width}x{height}"
        " - enlarge the terminal"
    )
    return _Layout(width, height, note=note, caption=caption(height - 2), source=source)


#: Width asked for when no code fits: enough for the note to wrap over a few lines.
HIDDEN_NOTE_WIDTH = 26


class QRView(Widget):
    """A QR code for `text`, at the largest scale that fits, with the encoded text under it.

    `show_matrix` shows a given module matrix instead (with its own caption and note) until
    `text` is set again or `show_matrix(None, ...)` is called.
    """

    ALLOW_SELECT = False

    COMPONENT_CLASSES = {"qrview--caption", "qrview--note", "qrview--placeholder"}

    DEFAULT_CSS = """
    QRView {
        width: 1fr;
        height: 1fr;
    }
    QRView > .qrview--caption {
        color: $foreground;
    }
    QRView > .qrview--note {
        color: $text-warning;
    }
    QRView > .qrview--placeholder {
        color: $text-muted;
        text-style: italic;
    }
    """

    text: reactive[str] = reactive("", layout=True)
    """The content to encode; set it to change the code."""

    caption_text: reactive[str] = reactive("", layout=True)
    """What the caption under the code says instead of `text` ("": `text` itself), e.g. the
    ordinary lower-case form of a payment URI encoded in upper case."""

    placeholder: reactive[str] = reactive("", layout=True)
    """What is shown while `text` is empty (why there is no code; "" before any order is
    read)."""

    no_room: reactive[str] = reactive("", layout=True)
    """What is said when the code does not fit ("": the operator's note, with the sizes); a
    customer's screen sets words from the customer's catalogue."""

    def __init__(
        self,
        text: str = "",
        *,
        max_scale: int = 2,
        caption: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        if max_scale < 1:
            raise ValueError(f"max_scale must be 1 or more, not {max_scale}")
        super().__init__(name=name, id=id, classes=classes)
        self._max_scale = max_scale
        self._caption = caption
        self._layout_key: tuple[object, ...] | None = None
        self._layout_value = _Layout(0, 0)
        self._strips_key: tuple[object, ...] | None = None
        self._strips: list[Strip] = []
        # A matrix given by show_matrix, with its caption and note; None in text mode.
        self._given: tuple[QRMatrix, str, str] | None = None
        #: Laid out but not drawn yet (`draw_later`).
        self._later = False
        self._blank_line: tuple[int, Strip] | None = None
        self.set_reactive(QRView.text, text)

    def draw_later(self) -> None:
        """Take the code's room but leave it blank until `draw_now`: the dashboard paints the
        order first and the code one frame later (encoding a payment URI is ~10 ms of the
        start-up, measured with bench/run.py --case startup). The room comes from the code's
        version alone, so nothing moves when it is drawn."""
        self._later = True

    def draw_now(self) -> None:
        if self._later:
            self._later = False
            self.refresh()

    def validate_text(self, text: object) -> str:
        # Runs on every assignment, even of the same value: setting `text` is what switches
        # back from a given matrix to encoding the text.
        if self._given is not None:
            self._given = None
            self.refresh(layout=True)
        return "" if text is None else str(text)

    def show_matrix(self, matrix: QRMatrix | None, caption: str, *, note: str = "") -> None:
        """Show this exact module matrix (e.g. the service's image) instead of encoding `text`.

        `caption` is shown under the code (cleaned and folded like the text's caption) and
        `note`, if any, between the code and the caption. The matrix is drawn as given, quiet
        zone included. `None` goes back to showing the code of `text`.
        """
        if matrix is None:
            given = None
        elif isinstance(matrix, QRMatrix):
            given = (
                matrix,
                "" if caption is None else str(caption),
                "" if note is None else str(note),
            )
        else:
            raise TypeError(f"matrix must be a QRMatrix or None, not {type(matrix).__name__}")
        if given != self._given:
            self._given = given
            self.refresh(layout=True)

    # -- what tests and callers can ask ------------------------------------------------------

    @property
    def scale(self) -> int:
        """Scale of the code on screen now; 0 when no code is shown."""
        return self._current_layout().scale

    @property
    def encoded_text(self) -> str:
        """What the visible code encodes; "" when no code is shown or its content is unknown."""
        layout = self._current_layout()
        if layout.source != "text":
            return ""
        return layout.matrix.text if layout.matrix is not None and layout.scale else ""

    @property
    def note(self) -> str:
        """The note shown instead of a code.

        While a code is shown this is "" for text, and the note given to `show_matrix` for a
        given matrix.
        """
        layout = self._current_layout()
        if layout.scale and self._given is not None:
            return self._given[2]
        return layout.note

    @property
    def source(self) -> str:
        """ "server" while a matrix given by `show_matrix` is shown, "text" otherwise."""
        return "text" if self._given is None else "server"

    # -- layout ------------------------------------------------------------------------------

    def _inputs(self, width: int, height: int) -> tuple[object, ...]:
        """Everything a layout depends on: the cache key of the layout and of its strips."""
        return (
            self.text,
            self.caption_text,
            self.placeholder,
            self.no_room,
            self._given,
            width,
            height,
            self._max_scale,
            self._caption,
        )

    def _layout_for(self, width: int, height: int) -> _Layout:
        key = self._inputs(width, height)
        if key != self._layout_key:
            self._layout_value = self._plan_now(width, height)
            self._layout_key = key
        return self._layout_value

    def _plan_now(self, width: int, height: int) -> _Layout:
        if self._given is None:
            return _plan(
                self.text,
                width,
                height,
                self._max_scale,
                self._caption,
                self.caption_text,
                self.placeholder,
                self.no_room,
            )
        matrix, caption, note = self._given
        return _fit(
            matrix,
            caption,
            note,
            "server",
            width,
            height,
            self._max_scale,
            self._caption,
            self.no_room,
        )

    def _current_layout(self) -> _Layout:
        width, height = self.size
        return self._layout_for(width, height)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """The width of the largest code the container's height allows, or a narrow note column.

        Asking for the full code width when the height cannot hold it would take space from
        the other panes for nothing.
        """
        matrix: QRMatrix | int  # the code, or only its side when it is drawn later
        if self._given is not None:
            matrix, caption, note = self._given
            reserved = 1 if self._caption and caption else 0
            for scale in range(self._max_scale, 0, -1):
                columns, rows = cells_needed(matrix, scale)
                notes = len(_wrap_note(note, columns, MATRIX_NOTE_MAX_LINES)) if note else 0
                if rows + reserved + notes <= container.height:
                    return columns
            return HIDDEN_NOTE_WIDTH
        if not self.text:
            return min(len(self.placeholder), HIDDEN_NOTE_WIDTH)
        try:
            if self._later:
                matrix = matrix_size(self.text, QUIET_ZONE)
            else:
                matrix = matrix_for(self.text, QUIET_ZONE)
        except QRError as error:
            return min(len(str(error)), HIDDEN_NOTE_WIDTH)
        rows_for_code = container.height - 1  # one caption row at least
        for scale in range(self._max_scale, 0, -1):
            columns, rows = cells_needed(matrix, scale)
            if rows <= rows_for_code:
                return columns
        return HIDDEN_NOTE_WIDTH

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Height is free here: the width alone picks the scale.
        layout = self._plan_now(width, 10_000)
        if layout.scale:
            return layout.code_size()[1] + len(layout.code_note) + len(layout.caption)
        return len(_wrap_note(layout.note, width, 10_000)) + len(layout.caption)

    # -- rendering ---------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width, height = self.size
        if y < 0 or y >= height or self._later:
            return self._blank(width)
        return self._rendered(width, height)[y]

    def _blank(self, width: int) -> Strip:
        """One blank line of the view's style, made once per width until the style changes
        (the style is worked out from every ancestor's: not for each line)."""
        if self._blank_line is None or self._blank_line[0] != width:
            self._blank_line = (width, Strip.blank(width, self.rich_style))
        return self._blank_line[1]

    def _rendered(self, width: int, height: int) -> list[Strip]:
        base = self.rich_style
        key = (*self._inputs(width, height), base)
        if key != self._strips_key:
            self._strips = self._build_strips(self._layout_for(width, height), base)
            self._strips_key = key
        return self._strips

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips_key = None
        self._blank_line = None

    def _build_strips(self, layout: _Layout, base: Style) -> list[Strip]:
        width, height = layout.width, layout.height
        body: list[Strip] = []
        if layout.matrix is not None and layout.scale:
            columns, _ = layout.code_size()
            left = (width - columns) // 2
            matrix = layout.matrix
            if layout.source == "text":
                code = _code_rows(matrix.text, matrix.quiet_zone, layout.scale)
            else:
                code = _matrix_rows(matrix, layout.scale)
            for row in code:
                body.append(
                    Strip.join(
                        [
                            Strip.blank(left, base),
                            row,
                            Strip.blank(width - left - columns, base),
                        ]
                    )
                )
            if layout.code_note:
                style = self.get_component_rich_style("qrview--note")
                body.extend(self._text_strip(line, width, style) for line in layout.code_note)
        elif layout.note:
            style = self.get_component_rich_style(f"qrview--{layout.note_kind}")
            room = height - (len(layout.caption) + 1 if layout.caption else 0)
            for line in _wrap_note(layout.note, width, max(room, 1)):
                body.append(self._text_strip(line, width, style))
            if layout.caption and len(body) + 1 + len(layout.caption) <= height:
                body.append(Strip.blank(width, base))
        if layout.caption and len(body) + len(layout.caption) <= height:
            style = self.get_component_rich_style("qrview--caption")
            # The caption is centred as a block so a folded address reads as one column.
            indent = max(0, (width - max(cell_len(line) for line in layout.caption)) // 2)
            body.extend(self._text_strip(line, width, style, indent) for line in layout.caption)
        body = body[:height]
        top = (height - len(body)) // 2
        blank = Strip.blank(width, base)
        return [blank] * top + body + [blank] * (height - top - len(body))

    @staticmethod
    def _text_strip(line: str, width: int, style: Style, indent: int | None = None) -> Strip:
        """`line` (already clean) as Content, centred or indented by `indent` cells."""
        content = Content(line)
        content = content.center(width) if indent is None else content.pad_left(indent)
        segments = content.render_segments(ContentStyle.from_rich_style(style))
        return Strip(segments).adjust_cell_length(width, style)


@functools.lru_cache(maxsize=32)
def _code_rows(text: str, quiet_zone: int, scale: int) -> tuple[Strip, ...]:
    """The code's own strips (no margins), built once per (text, quiet zone, scale)."""
    return _strips_of(matrix_for(text, quiet_zone), scale)


@functools.lru_cache(maxsize=8)
def _matrix_rows(matrix: QRMatrix, scale: int) -> tuple[Strip, ...]:
    """The strips of a given matrix, built once per (matrix, scale)."""
    return _strips_of(matrix, scale)


def _strips_of(matrix: QRMatrix, scale: int) -> tuple[Strip, ...]:
    """One strip per text row: each cell shows two module half-rows (see `half_block_rows`),
    runs of equal cells become one segment. Built from the module rows directly, runs counted
    once per module and widened by `scale`, and equal row pairs (the quiet zone, and every pair
    at an even scale) share one strip."""
    size = matrix.size
    half_rows = [row for row in matrix.modules for _ in range(scale)]
    if len(half_rows) % 2:
        half_rows.append((False,) * size)
    built: dict[tuple[tuple[bool, ...], tuple[bool, ...]], Strip] = {}
    strips: list[Strip] = []
    for index in range(0, len(half_rows), 2):
        pair = (half_rows[index], half_rows[index + 1])
        strip = built.get(pair)
        if strip is None:
            segments = []
            for cell, run in groupby(zip(*pair, strict=True)):
                glyph, style = _CELLS[cell]
                segments.append(Segment(glyph * (sum(1 for _ in run) * scale), style))
            strip = built[pair] = Strip(segments, size * scale)
        strips.append(strip)
    return tuple(strips)
