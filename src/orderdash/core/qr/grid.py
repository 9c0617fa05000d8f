"""A module-exact QR code image's pixels turned back into its module grid, and the results kept
by the image's content.

The module size comes from the top-left finder pattern, every module must be a uniform square
of that size, and the finder, separator and timing patterns must be where a QR code has them.
Anything else (a resampled, blurred or non-QR image) is refused with a one-line QRImageError
instead of guessed at. Reading the image itself (a PNG data URI) is `image.py`'s job.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from types import SimpleNamespace

from orderdash.core.qr.matrix import QRMatrix

__all__ = ["ContentCache", "QRImageError", "framed", "symbol_from_luminance"]

# Versions 1..40: 21 + 4k modules per side.
_MIN_MODULES = 21
_MAX_MODULES = 177

_DARK = bytes(1 if value < 128 else 0 for value in range(256))

Symbol = tuple[tuple[bool, ...], ...]


class QRImageError(ValueError):
    """The image is not a QR code we can show module-exact; the message is one line."""


def framed(symbol: Symbol, quiet_zone: int) -> QRMatrix:
    """The symbol's modules with a light border of `quiet_zone` modules (`text` is "")."""
    side = len(symbol) + 2 * quiet_zone
    light_row = (False,) * side
    margin = (False,) * quiet_zone
    modules = (
        (light_row,) * quiet_zone
        + tuple(margin + row + margin for row in symbol)
        + (light_row,) * quiet_zone
    )
    return QRMatrix(text="", modules=modules, quiet_zone=quiet_zone)


def symbol_from_luminance(luminance: list[bytes]) -> Symbol:
    """The QR symbol's modules (no quiet zone) of a module-exact image given as rows of
    luminance (one byte a pixel, below 128 is dark); True is dark."""
    dark = [row.translate(_DARK) for row in luminance]
    inked = [y for y, row in enumerate(dark) if 1 in row]
    if not inked:
        raise QRImageError("no QR code grid found (the image has no dark pixels)")
    top, bottom = inked[0], inked[-1]
    left = min(dark[y].find(1) for y in inked)
    right = max(dark[y].rfind(1) for y in inked)
    width, height = right - left + 1, bottom - top + 1
    if width != height:
        raise QRImageError(f"no QR code grid found (dark area {width}x{height} is not square)")

    # The top-left finder pattern's outer ring is 7 modules of dark along the top row and
    # down the left column; the top-right one ends the top row the same way.
    top_row = dark[top]
    run = _run(top_row, left, 1)
    if (
        run < 7
        or run % 7
        or _run(bytes(dark[y][left] for y in range(top, bottom + 1)), 0, 1) != run
        or _run(top_row, right, -1) != run
    ):
        raise QRImageError("no QR code grid found (finder patterns do not match)")
    module = run // 7
    count, rest = divmod(width, module)
    if rest or not _MIN_MODULES <= count <= _MAX_MODULES or (count - _MIN_MODULES) % 4:
        raise QRImageError(
            f"no QR code grid found ({width} px is not a QR size at {module} px per module)"
        )

    centre = module // 2
    symbol = tuple(
        tuple(
            bool(dark[top + i * module + centre][left + j * module + centre]) for j in range(count)
        )
        for i in range(count)
    )
    # Every pixel of every module must agree with its centre: a resampled or blurred image
    # fails here instead of being read wrong.
    for i, row in enumerate(symbol):
        expected = b"".join((b"\x01" if dark_module else b"\x00") * module for dark_module in row)
        start = top + i * module
        if any(dark[y][left : right + 1] != expected for y in range(start, start + module)):
            raise QRImageError("no QR code grid found (modules are not uniform squares)")
    if not _has_function_patterns(symbol):
        raise QRImageError("no QR code grid found (finder or timing patterns missing)")
    return symbol


def _run(row: bytes, start: int, direction: int) -> int:
    """How many dark pixels run from `start` in `direction` (1 right, -1 left)."""
    if direction > 0:
        end = row.find(0, start)
        return (len(row) if end == -1 else end) - start
    end = row.rfind(0, 0, start + 1)
    return start - end


def _has_function_patterns(symbol: Symbol) -> bool:
    """Finder patterns with their separators in three corners, and both timing patterns."""
    size = len(symbol)

    def finder_at(top: int, left: int) -> bool:
        for i in range(-1, 8):
            for j in range(-1, 8):
                y, x = top + i, left + j
                if not (0 <= y < size and 0 <= x < size):
                    continue
                ring = max(abs(i - 3), abs(j - 3))
                if symbol[y][x] != (ring != 2 and ring != 4):
                    return False
        return True

    if not (finder_at(0, 0) and finder_at(0, size - 7) and finder_at(size - 7, 0)):
        return False
    timing = range(8, size - 8)
    if any(symbol[6][k] != (k % 2 == 0) or symbol[k][6] != (k % 2 == 0) for k in timing):
        return False
    return symbol[size - 8][8]  # the dark module every version has


class ContentCache:
    """`decode` (a URI to its matrix) cached by the URI's SHA-256, failures included (an image
    refused once is refused again without decoding it again). One decode at a time: two callers
    asking for the same new image decode it once. `refused_unread` answers, without hashing or
    decoding, for what is refused on sight (not a string, too long)."""

    def __init__(
        self,
        decode: Callable[[str], QRMatrix],
        refused_unread: Callable[[object], QRImageError | None],
        maxsize: int,
    ) -> None:
        self.maxsize = maxsize
        self._decode = decode
        self._refused_unread = refused_unread
        self._results: OrderedDict[bytes, QRMatrix | QRImageError] = OrderedDict()
        self._lock = threading.Lock()
        self._decoding = threading.Lock()
        # bound per instance, as on functools' cache wrappers: code that clears every cache it
        # finds (the soak test) must not find them on the class
        self.cache_info = self._cache_info
        self.cache_clear = self._cache_clear

    @staticmethod
    def _key(uri: str) -> bytes:
        return hashlib.sha256(uri.encode("utf-8", "surrogatepass")).digest()

    def peek(self, uri: str) -> QRMatrix | QRImageError | None:
        """The cached result for `uri`, or None when it has not been decoded: no decoding here,
        only a hash of a URI `refused_unread` lets through."""
        refusal = self._refused_unread(uri)
        if refusal is not None:
            return refusal
        key = self._key(uri)
        with self._lock:
            result = self._results.get(key)
            if result is not None:
                self._results.move_to_end(key)
            return result

    def __call__(self, uri: str) -> QRMatrix:
        """The matrix of `uri`, decoded at most once; raises the (cached) QRImageError."""
        result = self.peek(uri)
        if result is None:
            with self._decoding:
                result = self.peek(uri)
                if result is None:
                    try:
                        result = self._decode(uri)
                    except QRImageError as error:
                        result = error
                    with self._lock:
                        self._results[self._key(uri)] = result
                        while len(self._results) > self.maxsize:
                            self._results.popitem(last=False)
        if isinstance(result, QRImageError):
            raise type(result)(str(result))
        return result

    def _cache_info(self) -> SimpleNamespace:
        with self._lock:
            return SimpleNamespace(maxsize=self.maxsize, currsize=len(self._results))

    def _cache_clear(self) -> None:
        with self._lock:
            self._results.clear()
