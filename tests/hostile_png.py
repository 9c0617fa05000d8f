"""Hostile PNG images for the server-QR path, built in memory (too big to store).

`paeth_bomb()` is the image of issue 19: 4096x4096, 16-bit RGBA, every row Paeth-filtered, the
last row's filter byte invalid, about 180 KB as a data URI. A pure-Python decoder spends ~40 s
unfiltering it before the bad byte is found.
"""

from __future__ import annotations

import base64
import functools
import struct
import zlib

_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


@functools.cache
def paeth_png(
    width: int, height: int, depth: int = 16, colour: int = 6, bad_last_filter: bool = True
) -> bytes:
    """A PNG of zero samples whose every row is Paeth-filtered (type 4), compressed row by row
    (the 128 MiB of raw rows never exist at once); the last row's filter type 5 does not exist."""
    stride = width * _CHANNELS[colour] * depth // 8
    compressor = zlib.compressobj(9)
    row = b"\x04" + bytes(stride)
    parts = [compressor.compress(row) for _ in range(height - 1)]
    parts.append(compressor.compress((b"\x05" if bad_last_filter else b"\x04") + bytes(stride)))
    parts.append(compressor.flush())
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
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
