"""Hostile PNG images for the server-QR path, built in memory (too big to store).

`paeth_bomb()` is the image of issue 19: 4096x4096, 16-bit RGBA, every row Paeth-filtered, the
last row's filter byte invalid, about 180 KB as a data URI. A pure-Python decoder spent ~40 s
unfiltering it before the bad byte was found; its header is now refused before any work.
"""

from __future__ import annotations

import base64
import functools
import struct
import zlib

_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


# Adam7's passes: (first column, first row, column step, row step).
_ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2)]
_ADAM7.append((0, 1, 1, 2))


@functools.cache
def paeth_png(
    width: int,
    height: int,
    depth: int = 16,
    colour: int = 6,
    bad_last_filter: bool = True,
    interlaced: bool = False,
) -> bytes:
    """A PNG of zero samples whose every row is Paeth-filtered (type 4), compressed row by row
    (the 128 MiB of raw rows never exist at once); the last row's filter type 5 does not exist.
    `interlaced`: the same in Adam7's seven passes (the last row of the last pass is bad)."""
    bits = _CHANNELS[colour] * depth
    passes = _ADAM7 if interlaced else [(0, 0, 1, 1)]
    rows = []  # (stride, count) of each pass
    for left, top, across, down in passes:
        columns, lines = -(-(width - left) // across), -(-(height - top) // down)
        if columns > 0 and lines > 0:
            rows.append(((columns * bits + 7) // 8, lines))
    compressor = zlib.compressobj(9)
    parts = []
    for index, (stride, count) in enumerate(rows):
        parts += [compressor.compress(b"\x04" + bytes(stride)) for _ in range(count - 1)]
        last = b"\x05" if bad_last_filter and index == len(rows) - 1 else b"\x04"
        parts.append(compressor.compress(last + bytes(stride)))
    parts.append(compressor.flush())
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, int(interlaced))
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", b"".join(parts))
        + _chunk(b"IEND", b"")
    )


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def paeth_bomb() -> str:
    """The 4096x4096 16-bit RGBA Paeth image with a bad last filter byte, as a data URI."""
    return data_uri(paeth_png(4096, 4096))
