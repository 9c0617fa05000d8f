"""A tiny PNG writer (zlib + struct) for the simulator's QR codes; no pillow at runtime."""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Sequence
from functools import lru_cache

import qrcode
from qrcode.constants import ERROR_CORRECT_M

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MODULE_PX = 4


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_from_matrix(matrix: Sequence[Sequence[bool]], scale: int = MODULE_PX) -> bytes:
    """A 1-bit grayscale PNG of a module matrix: True = dark (black), False = light (white).

    Each module becomes a scale x scale block of pixels.
    """
    if not matrix or not matrix[0]:
        raise ValueError("empty matrix")
    if scale < 1:
        raise ValueError("scale must be at least 1")
    columns = len(matrix[0])
    width = columns * scale
    height = len(matrix) * scale
    raw = bytearray()
    for row in matrix:
        if len(row) != columns:
            raise ValueError("ragged matrix")
        bits = 0
        nbits = 0
        line = bytearray(b"\x00")  # filter type 0 (None)
        for dark in row:
            for _ in range(scale):
                bits = (bits << 1) | (0 if dark else 1)  # 1-bit gray: 0 black, 1 white
                nbits += 1
                if nbits == 8:
                    line.append(bits)
                    bits = 0
                    nbits = 0
        if nbits:
            line.append(bits << (8 - nbits))
        raw += bytes(line) * scale
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        PNG_SIGNATURE
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"IDAT", zlib.compress(bytes(raw), 9))
        + _chunk(b"IEND", b"")
    )


def qr_matrix(text: str) -> list[list[bool]]:
    """The QR module matrix (error correction M, 4-module quiet zone) of a text.

    Raises ValueError when the text is over the QR capacity.
    """
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, border=4)
    code.add_data(text)
    try:
        code.make(fit=True)
    except ValueError:
        raise
    except Exception as exc:  # qrcode's DataOverflowError is a plain Exception subclass
        raise ValueError(f"cannot encode the text as a QR code: {exc}") from exc
    return [[bool(cell) for cell in row] for row in code.get_matrix()]


@lru_cache(maxsize=256)
def qr_png(text: str) -> bytes:
    """PNG bytes of the QR code of a text, 4 px per module, black on white."""
    return png_from_matrix(qr_matrix(text))


def qr_data_uri(text: str) -> str:
    """A `data:image/png;base64,...` URI holding the QR code of a text."""
    return "data:image/png;base64," + base64.b64encode(qr_png(text)).decode("ascii")
