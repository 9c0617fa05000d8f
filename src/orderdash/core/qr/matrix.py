"""QR module matrices for addresses and payment URIs, independent of any UI toolkit.

The TUI draws the matrix itself with half blocks and explicit black-on-white colours:
qrcode's own terminal output writes raw escape codes, which cannot go through Textual.
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import dataclass

# qrcode imports its Pillow image drawers "for backwards compatibility" whenever Pillow is
# installed (it is, beside the tests). We draw no images; Pillow costs ~15 ms of start-up.
sys.modules.setdefault("qrcode.image.styles.moduledrawers.pil", None)  # type: ignore[arg-type]

import qrcode
from qrcode import constants
from qrcode.exceptions import DataOverflowError

__all__ = [
    "QRError",
    "QRMatrix",
    "best_scale",
    "build_matrix",
    "cells_needed",
    "half_block_rows",
    "matrix_for",
    "matrix_size",
    "same_code",
]

_ERROR_CORRECTION = {
    "L": constants.ERROR_CORRECT_L,
    "M": constants.ERROR_CORRECT_M,
    "Q": constants.ERROR_CORRECT_Q,
    "H": constants.ERROR_CORRECT_H,
}

# The most any QR code holds: version 40, level L, all digits.
_MAX_CHARACTERS = 7089


class QRError(ValueError):
    """The text cannot become a QR code; the message is one line fit to show the user."""


@dataclass(frozen=True)
class QRMatrix:
    """A QR code as modules, quiet zone included."""

    text: str
    modules: tuple[tuple[bool, ...], ...]
    quiet_zone: int

    @property
    def size(self) -> int:
        """Modules per side, quiet zone included."""
        return len(self.modules)


def build_matrix(text: str, *, quiet_zone: int = 2, error_correction: str = "M") -> QRMatrix:
    """Encode `text` exactly; raises QRError when it is empty or over QR capacity."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if quiet_zone < 0:
        raise ValueError(f"quiet_zone must be 0 or more, not {quiet_zone}")
    try:
        level = _ERROR_CORRECTION[error_correction.upper()]
    except KeyError:
        raise ValueError(
            f"error_correction must be one of L, M, Q, H, not {error_correction!r}"
        ) from None
    if not text:
        raise QRError("nothing to encode")
    if len(text) > _MAX_CHARACTERS:
        # Skip qrcode's chunk optimiser, which is slow on megabytes of text that cannot fit.
        raise QRError(f"too long for a QR code ({len(text)} characters)")
    code = qrcode.QRCode(error_correction=level, border=quiet_zone)
    try:
        code.add_data(text)
        code.make(fit=True)
        rows = code.get_matrix()
    # qrcode signals overflow with DataOverflowError (not a ValueError) from best_fit and with
    # ValueError from some other paths; both mean the same thing to the user.
    except (DataOverflowError, ValueError):
        raise QRError(f"too long for a QR code ({len(text)} characters)") from None
    modules = tuple(tuple(bool(module) for module in row) for row in rows)
    return QRMatrix(text=text, modules=modules, quiet_zone=quiet_zone)


@functools.lru_cache(maxsize=64)
def matrix_size(text: str, quiet_zone: int = 2) -> int:
    """Modules per side of `build_matrix(text)`'s code, quiet zone included, without drawing
    it: its version alone (qrcode's best fit), a fraction of the build, whose choice of mask
    draws the code eight times. Raises QRError as `build_matrix` does."""
    if not text:
        raise QRError("nothing to encode")
    if len(text) > _MAX_CHARACTERS:
        raise QRError(f"too long for a QR code ({len(text)} characters)")
    code = qrcode.QRCode(error_correction=_ERROR_CORRECTION["M"], border=quiet_zone)
    try:
        code.add_data(text)
        version = code.best_fit()
    except (DataOverflowError, ValueError):
        raise QRError(f"too long for a QR code ({len(text)} characters)") from None
    return version * 4 + 17 + 2 * quiet_zone


@functools.lru_cache(maxsize=64)
def matrix_for(text: str, quiet_zone: int = 2) -> QRMatrix:
    """Cached build_matrix, so a repaint never re-encodes the same text."""
    return build_matrix(text, quiet_zone=quiet_zone)


def same_code(matrix: QRMatrix, text: str) -> bool:
    """`matrix` (an image's modules read back) is, module for module, the code `build_matrix`
    makes of `text`: the image encodes `text`. A QR decoder is not needed to know that, only
    our own encoder (both cached: a repaint asks again)."""
    try:
        if matrix_size(text, matrix.quiet_zone) != matrix.size:
            return False  # (the version alone, without drawing the code)
        return matrix_for(text, matrix.quiet_zone).modules == matrix.modules
    except QRError:
        return False


def cells_needed(matrix: QRMatrix | int, scale: int) -> tuple[int, int]:
    """(columns, rows) of terminal cells for the matrix (or a matrix of that many modules per
    side) drawn with half blocks at `scale`."""
    if scale < 1:
        raise ValueError(f"scale must be 1 or more, not {scale}")
    extent = (matrix if isinstance(matrix, int) else matrix.size) * scale
    return extent, math.ceil(extent / 2)


def best_scale(matrix: QRMatrix, max_columns: int, max_rows: int, max_scale: int = 2) -> int:
    """The largest scale from 1 to `max_scale` that fits the cells given; 0 if none does."""
    for scale in range(max_scale, 0, -1):
        columns, rows = cells_needed(matrix, scale)
        if columns <= max_columns and rows <= max_rows:
            return scale
    return 0


def half_block_rows(matrix: QRMatrix, scale: int) -> list[list[tuple[bool, bool]]]:
    """Per text row, per column: (top_dark, bottom_dark), each module `scale` x `scale`.

    A terminal cell shows two module half-rows, so `scale` half-rows are one module's height
    and `scale` columns its width. An odd last half-row is paired with a light one.
    """
    if scale < 1:
        raise ValueError(f"scale must be 1 or more, not {scale}")
    half_rows = [
        tuple(dark for dark in row for _ in range(scale))
        for row in matrix.modules
        for _ in range(scale)
    ]
    if len(half_rows) % 2:
        half_rows.append((False,) * (matrix.size * scale))
    return [
        list(zip(half_rows[index], half_rows[index + 1], strict=True))
        for index in range(0, len(half_rows), 2)
    ]
