"""Reading QR codes back from a running Textual app's screen, for any test that shows one.

The screen is read from the compositor (what the driver turns into escape codes, after every
Textual filter and style), rebuilt as a bitmap with one pixel per cell column and two per cell
row (the two halves of "▀"), and decoded with zxing-cpp. A code that only looks right in a
snapshot but does not scan fails here.

    from support.qr_screen import decode_qr_in_region, decode_qr_on_screen, screen_cells
"""

from __future__ import annotations

from dataclasses import dataclass

import zxingcpp
from PIL import Image
from rich.cells import cell_len
from rich.color import Color
from rich.style import Style
from textual.app import App
from textual.geometry import Region

from orderdash.core.qr.matrix import QRMatrix

__all__ = [
    "BLACK",
    "FULL_BLOCK",
    "LOWER_HALF",
    "UPPER_HALF",
    "WHITE",
    "Painted",
    "decode_bitmap",
    "decode_qr_in_region",
    "decode_qr_on_screen",
    "find_code",
    "rgb",
    "screen_cells",
]

UPPER_HALF = "\u2580"
LOWER_HALF = "\u2584"
FULL_BLOCK = "\u2588"
BLACK = (0, 0, 0)
WHITE = (255, 255, 255)

#: Light pixels added around a region before decoding, so a code whose quiet zone is cut by
#: the region's edge still scans.
MARGIN = 4


def screen_cells(app: App) -> list[list[tuple[str, Style]]]:
    """The composited screen of `app.screen`: (character, style) per cell, per row.

    A double-width character is followed by ("", style) for its second cell, so columns line
    up with screen x. Segments without a style get the null style.
    """
    rows: list[list[tuple[str, Style]]] = []
    for strip in app.screen._compositor.render_strips():
        row: list[tuple[str, Style]] = []
        for segment in strip:
            if segment.control:
                continue
            style = segment.style or Style.null()
            for char in segment.text:
                row.append((char, style))
                row.extend([("", style)] * (cell_len(char) - 1))
        rows.append(row)
    return rows


@dataclass
class Painted:
    """The composited screen as cells: (character, style) per column, per row."""

    cells: list[list[tuple[str, Style]]]

    @classmethod
    def of(cls, app: App) -> Painted:
        return cls(screen_cells(app))

    @property
    def text(self) -> str:
        return "\n".join("".join(char for char, _ in row) for row in self.cells)

    def bitmap(self, region: Region | None = None) -> list[bytes]:
        """Two pixel rows per cell row (of `region`, default all): 0 dark, 255 light."""
        rows = self.cells
        if region is not None:
            rows = [row[region.x : region.right] for row in rows[region.y : region.bottom]]
        pixels: list[bytes] = []
        for row in rows:
            top, bottom = bytearray(), bytearray()
            for char, style in row:
                fg = rgb(style.color, WHITE)
                bg = rgb(style.bgcolor, BLACK)
                upper, lower = {
                    UPPER_HALF: (fg, bg),
                    LOWER_HALF: (bg, fg),
                    FULL_BLOCK: (fg, fg),
                }.get(char, (bg, bg))
                top.append(_grey(upper))
                bottom.append(_grey(lower))
            pixels += [bytes(top), bytes(bottom)]
        return pixels


def rgb(color: Color | None, default: tuple[int, int, int]) -> tuple[int, int, int]:
    """The colour as (r, g, b), or `default` when there is none."""
    return default if color is None else tuple(color.get_truecolor())


def _grey(value: tuple[int, int, int]) -> int:
    red, green, blue = value
    return 0 if 0.299 * red + 0.587 * green + 0.114 * blue < 128 else 255


def decode_bitmap(bitmap: list[bytes], text_mode=zxingcpp.TextMode.HRI) -> list[str]:  # noqa: ANN001
    """Every QR code zxing-cpp finds in the bitmap (framed in light pixels), as text."""
    if not bitmap or not bitmap[0]:
        return []
    width = len(bitmap[0]) + 2 * MARGIN
    light = b"\xff" * width
    framed = [light] * MARGIN + [b"\xff" * MARGIN + row + b"\xff" * MARGIN for row in bitmap]
    framed += [light] * MARGIN
    image = Image.frombytes("L", (width, len(framed)), b"".join(framed))
    image = image.resize((image.width * 4, image.height * 4), Image.Resampling.NEAREST)
    found = zxingcpp.read_barcodes(
        image, formats=zxingcpp.BarcodeFormat.QRCode, try_invert=False, text_mode=text_mode
    )
    return [barcode.text for barcode in found]


def decode_qr_in_region(app: App, region: Region, text_mode=zxingcpp.TextMode.HRI) -> list[str]:  # noqa: ANN001
    """The texts of every QR code inside `region` (screen cells) of the current screen."""
    region = region.intersection(app.screen.region)
    if not region:
        return []
    return decode_bitmap(Painted.of(app).bitmap(region), text_mode)


def decode_qr_on_screen(app: App, text_mode=zxingcpp.TextMode.HRI) -> list[str]:  # noqa: ANN001
    """The texts of every QR code on the whole current screen."""
    return decode_qr_in_region(app, app.screen.region, text_mode)


def find_code(bitmap: list[bytes], matrix: QRMatrix, scale: int) -> list[tuple[int, int]]:
    """Pixel offsets where the matrix appears exactly, each module scale x scale pixels."""
    side = matrix.size * scale
    expected = [
        bytes(0 if matrix.modules[y // scale][x // scale] else 255 for x in range(side))
        for y in range(side)
    ]
    anchor = matrix.quiet_zone * scale  # first pixel row of the finder patterns
    hits = []
    for y, row in enumerate(bitmap):
        top = y - anchor
        if top < 0 or top + len(expected) > len(bitmap):
            continue
        x = row.find(expected[anchor])
        while x != -1:
            if all(bitmap[top + dy][x : x + side] == line for dy, line in enumerate(expected)):
                hits.append((x, top))
            x = row.find(expected[anchor], x + 1)
    return hits
