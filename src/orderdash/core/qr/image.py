"""The service's QR image (`qrCode`, a PNG data URI) turned back into its exact module grid.

The TUI cannot show pixels, so the image is decoded here (stdlib zlib/struct/base64 only) and
its module grid recovered exactly: the module size comes from the top-left finder pattern,
every module must be a uniform square of that size, and the finder, separator and timing
patterns must be where a QR code has them. Anything else (a resampled, blurred or non-QR
image) is refused with a one-line QRImageError instead of guessed at.

Every input is untrusted: the URI, the image size and the inflated data are all bounded
before the memory they imply is allocated, and the work before it is spent: the header's pixels
times bits per pixel (MAX_IMAGE_BITS) bound what the pure-Python unfiltering costs (a 4096x4096
16-bit RGBA image took ~40 s). `cached_matrix_from_data_uri` keeps results by content hash,
failures included, so a bad image costs once; the UI calls it from a worker thread and asks
`cached_matrix_from_data_uri.peek` (no work) on the event loop.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
import sys
import threading
import time
import zlib
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import TypeVar

from orderdash.core.qr.matrix import QRMatrix

__all__ = [
    "MAX_IMAGE_BITS",
    "MAX_IMAGE_SIDE",
    "MAX_URI_LENGTH",
    "QRImageError",
    "cached_matrix_from_data_uri",
    "decode_png",
    "matrix_from_data_uri",
]

DATA_URI_PREFIX = "data:image/png;base64,"
MAX_URI_LENGTH = 2 * 1024 * 1024
MAX_IMAGE_SIDE = 4096
#: Largest image decoded, in pixels times bits per pixel (8 MiB of unfiltered rows): an RGBA
#: 8-bit 1448x1448, a grey 8-bit 2896x2896, far more than a QR code drawn module-exact needs
#: (177 modules of 10 pixels with a border are 1,850 pixels a side, 1 to 8 bits deep). Checked
#: on the header, before anything is inflated or unfiltered.
MAX_IMAGE_BITS = 64 * 1024 * 1024

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Versions 1..40: 21 + 4k modules per side.
_MIN_MODULES = 21
_MAX_MODULES = 177

# Chunks whose content is used: their checksum is verified. Others are skipped unread.
_USED_CHUNKS = {b"IHDR", b"PLTE", b"tRNS", b"IDAT", b"IEND"}

# Allowed bit depths per colour type, and samples per pixel.
_BIT_DEPTHS = {
    0: (1, 2, 4, 8, 16),
    2: (8, 16),
    3: (1, 2, 4, 8),
    4: (8, 16),
    6: (8, 16),
}
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}

_BASE64_WHITESPACE = str.maketrans("", "", " \t\r\n")
_DARK = bytes(1 if value < 128 else 0 for value in range(256))


class QRImageError(ValueError):
    """The image is not a QR code we can show module-exact; the message is one line."""


# -- data URI ------------------------------------------------------------------------------


def _png_bytes(uri: object) -> bytes:
    if not isinstance(uri, str):
        raise QRImageError("not a PNG data URI")
    if len(uri) > MAX_URI_LENGTH:
        raise QRImageError(f"image too large ({len(uri)} characters, at most {MAX_URI_LENGTH})")
    if uri[: len(DATA_URI_PREFIX)].lower() != DATA_URI_PREFIX:
        raise QRImageError("not a PNG data URI")
    payload = uri[len(DATA_URI_PREFIX) :]
    if any(space in payload for space in " \t\r\n"):  # base64 folded over lines
        payload = payload.translate(_BASE64_WHITESPACE)
    if not payload:
        raise QRImageError("empty PNG data URI")
    try:
        # A str is decoded without an ASCII copy; anything not base64 is refused.
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise QRImageError("bad base64 in the PNG data URI") from None


# -- PNG -----------------------------------------------------------------------------------


def decode_png(data: bytes) -> tuple[int, int, list[list[int]]]:
    """(width, height, rows of luminance 0..255), transparency composited over white.

    Raises QRImageError, and nothing else, for anything it cannot read.
    """
    width, height, rows = _guarded(_decode_png, data)
    return width, height, [list(row) for row in rows]


_T = TypeVar("_T")


def _guarded(function: Callable[..., _T], *args: object) -> _T:
    """Run `function`; any failure that is not already a QRImageError becomes one."""
    try:
        return function(*args)
    except QRImageError:
        raise
    except MemoryError:
        raise QRImageError("image too large") from None
    except Exception as error:  # untrusted input: every failure is the same to us
        raise QRImageError(f"unreadable PNG image ({type(error).__name__})") from None


def _chunks(data: bytes) -> Iterator[tuple[bytes, memoryview]]:
    """(kind, body) of each chunk up to and including IEND; raises on truncated data.

    Bodies are memoryviews into `data`: the image data is never copied before inflating.
    """
    view = memoryview(data)
    position = len(PNG_SIGNATURE)
    while True:
        if position + 8 > len(data):
            raise QRImageError("truncated PNG")
        length, kind = struct.unpack_from(">I4s", data, position)
        if length > 0x7FFFFFFF or not kind.isalpha():
            raise QRImageError("corrupt PNG chunk")
        end = position + 8 + length + 4
        if end > len(data):
            raise QRImageError("truncated PNG")
        body = view[position + 8 : end - 4]
        if kind in _USED_CHUNKS:
            (crc,) = struct.unpack_from(">I", data, end - 4)
            if zlib.crc32(body, zlib.crc32(kind)) != crc:
                raise QRImageError(f"corrupt PNG ({kind.decode()} checksum mismatch)")
        yield kind, body
        if kind == b"IEND":
            return
        position = end


def _decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Like decode_png, with rows as bytes (internal, faster to threshold and compare)."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise QRImageError("not a PNG image")
    data = bytes(data)
    if not data.startswith(PNG_SIGNATURE):
        raise QRImageError("not a PNG image")

    header: tuple[int, ...] | None = None
    palette: bytes | None = None
    transparency: bytes | None = None
    compressed: list[memoryview] = []
    for kind, body in _chunks(data):
        if header is None:
            if kind != b"IHDR" or len(body) != 13:
                raise QRImageError("corrupt PNG (no image header)")
            header = struct.unpack(">IIBBBBB", body)
            _check_header(*header)
        elif kind == b"PLTE":
            if len(body) % 3 or not 3 <= len(body) <= 768:
                raise QRImageError("corrupt PNG palette")
            palette = bytes(body)
        elif kind == b"tRNS":
            transparency = bytes(body)
        elif kind == b"IDAT":
            compressed.append(body)
        elif kind[0:1].isupper() and kind not in (b"IHDR", b"IEND"):
            raise QRImageError(f"unsupported PNG chunk {kind.decode()}")
    if header is None:  # unreachable: _chunks yields IHDR first or raises
        raise QRImageError("corrupt PNG (no image header)")
    width, height, depth, colour, _, _, _ = header
    if not compressed:
        raise QRImageError("truncated PNG (no image data)")
    if colour == 3 and palette is None:
        raise QRImageError("corrupt PNG (palette missing)")

    bits_per_pixel = depth * _CHANNELS[colour]
    stride = (width * bits_per_pixel + 7) // 8
    expected = height * (stride + 1)
    raw = _inflate(compressed, expected)
    to_luminance = _converter(width, depth, colour, palette, transparency)
    rows = [to_luminance(line) for line in _unfilter(raw, height, stride, bits_per_pixel)]
    return width, height, rows


def _check_header(
    width: int,
    height: int,
    depth: int,
    colour: int,
    compression: int,
    filtering: int,
    interlace: int,
) -> None:
    if width == 0 or height == 0:
        raise QRImageError("corrupt PNG (empty image)")
    if width > MAX_IMAGE_SIDE or height > MAX_IMAGE_SIDE:
        raise QRImageError(
            f"image too large ({width}x{height}, at most {MAX_IMAGE_SIDE}x{MAX_IMAGE_SIDE})"
        )
    if colour not in _BIT_DEPTHS or depth not in _BIT_DEPTHS[colour]:
        raise QRImageError(f"unsupported PNG format (colour type {colour}, {depth}-bit)")
    bits = width * height * depth * _CHANNELS[colour]
    if bits > MAX_IMAGE_BITS:
        raise QRImageError(
            f"image too large to decode ({width}x{height}, {depth * _CHANNELS[colour]} bits a "
            f"pixel; at most {MAX_IMAGE_BITS // 8 // 1024 // 1024} MiB of pixels)"
        )
    if compression != 0 or filtering != 0:
        raise QRImageError("unsupported PNG compression or filter method")
    if interlace == 1:
        raise QRImageError("interlaced PNG not supported")
    if interlace != 0:
        raise QRImageError("corrupt PNG (unknown interlace method)")


#: Inflate in steps of at most this much input and output, so that neither a copy of the
#: unread input nor zlib's output buffers add more than a little to the image's own size.
_INFLATE_STEP = 1 << 16


def _inflate(compressed: list[memoryview], expected: int) -> bytearray:
    """The IDAT stream inflated: exactly `expected` bytes, or QRImageError.

    The output goes into one buffer of the expected size, filled a step at a time; a stream
    that inflates to more (a zip bomb) is stopped one byte past it.
    """
    raw = bytearray(expected)
    filled = 0
    inflater = zlib.decompressobj()
    try:
        for body in compressed:
            for start in range(0, len(body), _INFLATE_STEP):
                pending: bytes | memoryview = body[start : start + _INFLATE_STEP]
                while not inflater.eof:
                    limit = min(_INFLATE_STEP, expected + 1 - filled)
                    piece = inflater.decompress(pending, limit)
                    if filled + len(piece) > expected:
                        raise QRImageError("corrupt PNG (more image data than the image holds)")
                    raw[filled : filled + len(piece)] = piece
                    filled += len(piece)
                    pending = inflater.unconsumed_tail
                    # A full piece may leave output inside zlib even when all input is read.
                    if not pending and len(piece) < limit:
                        break
                if inflater.eof:
                    break
            if inflater.eof:
                break
    except zlib.error:
        raise QRImageError("corrupt PNG image data") from None
    if filled < expected or not inflater.eof:
        raise QRImageError("truncated PNG image data")
    return raw


def _unfilter(raw: bytearray, height: int, stride: int, bits_per_pixel: int) -> Iterator[bytes]:
    """Each scanline with its filter undone (PNG filter types 0-4)."""
    step = max(1, bits_per_pixel // 8)  # the byte distance to "the pixel on the left"
    low7 = int.from_bytes(b"\x7f" * stride, "big")
    high = int.from_bytes(b"\x80" * stride, "big")
    previous = bytes(stride)
    first = True
    for y in range(height):
        # Let go of the GIL once a row: decoding runs in a worker thread, and the event loop's
        # thread, when it wants the GIL back, would otherwise wait out a whole switch interval.
        time.sleep(0)
        start = y * (stride + 1)
        kind = raw[start]
        line = raw[start + 1 : start + 1 + stride]
        if kind == 0:
            pass
        elif kind == 1:
            line = bytearray(line)
            for i in range(step, stride):
                line[i] = (line[i] + line[i - step]) & 0xFF
        elif kind == 2:
            if not first:
                # Byte-wise addition mod 256 on whole rows: add the low 7 bits of every byte
                # (no carry can leave a byte), then fix each top bit with an exclusive or.
                a = int.from_bytes(line, "big")
                b = int.from_bytes(previous, "big")
                total = ((a & low7) + (b & low7)) ^ ((a ^ b) & high)
                line = total.to_bytes(stride, "big")
        elif kind == 3:
            line = bytearray(line)
            for i in range(min(step, stride)):
                line[i] = (line[i] + (previous[i] >> 1)) & 0xFF
            for i in range(step, stride):
                line[i] = (line[i] + ((line[i - step] + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            line = bytearray(line)
            for i in range(min(step, stride)):
                line[i] = (line[i] + previous[i]) & 0xFF  # a = c = 0: Paeth picks b
            for i in range(step, stride):
                a = line[i - step]
                b = previous[i]
                c = previous[i - step]
                pa = abs(b - c)
                pb = abs(a - c)
                pc = abs(a + b - c - c)
                if pa <= pb and pa <= pc:
                    predictor = a
                elif pb <= pc:
                    predictor = b
                else:
                    predictor = c
                line[i] = (line[i] + predictor) & 0xFF
        else:
            raise QRImageError(f"corrupt PNG (filter type {kind})")
        line = bytes(line)
        yield line
        previous = line
        first = False


def _unpack_table(depth: int) -> list[bytes]:
    """Byte value -> its samples (most significant first) for bit depths below 8."""
    per_byte = 8 // depth
    mask = (1 << depth) - 1
    return [
        bytes((value >> (8 - depth * (index + 1))) & mask for index in range(per_byte))
        for value in range(256)
    ]


def _over_white(luminance: int, alpha: int) -> int:
    return 255 - ((255 - luminance) * alpha + 127) // 255


def _grey(red: int, green: int, blue: int) -> int:
    return (299 * red + 587 * green + 114 * blue + 500) // 1000


def _words(line: bytes) -> array:
    """16-bit big-endian samples as integers."""
    samples = array("H", line)
    if sys.byteorder == "little":
        samples.byteswap()
    return samples


def _converter(
    width: int, depth: int, colour: int, palette: bytes | None, transparency: bytes | None
) -> Callable[[bytes], bytes]:
    """A function from an unfiltered scanline to its luminance row (bytes, one per pixel)."""
    if colour == 3:
        if palette is None:
            raise QRImageError("corrupt PNG (palette missing)")
        alphas = transparency or b""
        table = bytearray(256)
        for index in range(len(palette) // 3):
            red, green, blue = palette[index * 3 : index * 3 + 3]
            alpha = alphas[index] if index < len(alphas) else 255
            table[index] = _over_white(_grey(red, green, blue), alpha)
        entries = len(palette) // 3
        table = bytes(table)
        unpack = _unpack_table(depth) if depth < 8 else None

        def palette_row(line: bytes) -> bytes:
            indices = b"".join(map(unpack.__getitem__, line))[:width] if unpack else line
            if max(indices) >= entries:
                raise QRImageError("corrupt PNG (palette index out of range)")
            return indices.translate(table)

        return palette_row

    if colour == 0:
        key = None
        if transparency is not None and len(transparency) >= 2:
            key = struct.unpack(">H", transparency[:2])[0]
        if depth == 16:

            def grey16_row(line: bytes) -> bytes:
                if key is None:
                    return line[0::2]
                return bytes(255 if value == key else value >> 8 for value in _words(line))

            return grey16_row
        top = (1 << depth) - 1
        table = bytearray(value * 255 // top if value <= top else 0 for value in range(256))
        if key is not None and key <= top:
            table[key] = 255
        table = bytes(table)
        unpack = _unpack_table(depth) if depth < 8 else None

        def grey_row(line: bytes) -> bytes:
            samples = b"".join(map(unpack.__getitem__, line))[:width] if unpack else line
            return samples.translate(table)

        return grey_row

    if colour == 2:
        key_rgb = None
        if transparency is not None and len(transparency) >= 6:
            key_rgb = struct.unpack(">HHH", transparency[:6])
        if depth == 8:

            def rgb_row(line: bytes) -> bytes:
                pixels = zip(line[0::3], line[1::3], line[2::3], strict=True)
                if key_rgb is None:
                    return bytes(_grey(*pixel) for pixel in pixels)
                return bytes(255 if pixel == key_rgb else _grey(*pixel) for pixel in pixels)

            return rgb_row

        def rgb16_row(line: bytes) -> bytes:
            words = _words(line)
            pixels = zip(words[0::3], words[1::3], words[2::3], strict=True)
            return bytes(
                255 if pixel == key_rgb else _grey(*(value >> 8 for value in pixel))
                for pixel in pixels
            )

        return rgb16_row

    if colour == 4:
        size = depth // 8

        def grey_alpha_row(line: bytes) -> bytes:
            grey = line[0 :: 2 * size]
            alpha = line[size :: 2 * size]
            return bytes(map(_over_white, grey, alpha))

        return grey_alpha_row

    size = depth // 8  # colour type 6

    def rgba_row(line: bytes) -> bytes:
        step = 4 * size
        greys = map(_grey, line[0::step], line[size::step], line[2 * size :: step])
        return bytes(map(_over_white, greys, line[3 * size :: step]))

    return rgba_row


# -- module grid ---------------------------------------------------------------------------


def matrix_from_data_uri(uri: str, *, quiet_zone: int = 2) -> QRMatrix:
    """The QR code in a `data:image/png;base64,` URI as modules, framed by `quiet_zone`.

    The content is not decoded, so `text` is "". Raises QRImageError (one line) for anything
    that is not a module-exact QR code image; ValueError for a negative quiet zone.
    """
    if not isinstance(quiet_zone, int) or quiet_zone < 0:
        raise ValueError(f"quiet_zone must be 0 or more, not {quiet_zone}")
    symbol = _guarded(_symbol_from_uri, uri)
    side = len(symbol) + 2 * quiet_zone
    light_row = (False,) * side
    margin = (False,) * quiet_zone
    modules = (
        (light_row,) * quiet_zone
        + tuple(margin + row + margin for row in symbol)
        + (light_row,) * quiet_zone
    )
    return QRMatrix(text="", modules=modules, quiet_zone=quiet_zone)


class _ByContent:
    """matrix_from_data_uri (quiet zone 2) cached by the URI's SHA-256, failures included (an
    image refused once is refused again without decoding it again). One decode at a time:
    two callers asking for the same new image decode it once."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
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
        only a hash of at most MAX_URI_LENGTH characters (a longer URI is refused at once)."""
        if not isinstance(uri, str) or len(uri) > MAX_URI_LENGTH:
            return _guarded_error(uri)
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
                        result = matrix_from_data_uri(uri)
                    except QRImageError as error:
                        result = error
                    with self._lock:
                        self._results[self._key(uri)] = result
                        while len(self._results) > self.maxsize:
                            self._results.popitem(last=False)
        if isinstance(result, QRImageError):
            raise QRImageError(str(result))
        return result

    def _cache_info(self) -> SimpleNamespace:
        with self._lock:
            return SimpleNamespace(maxsize=self.maxsize, currsize=len(self._results))

    def _cache_clear(self) -> None:
        with self._lock:
            self._results.clear()


def _guarded_error(uri: object) -> QRImageError:
    try:
        _png_bytes(uri)
    except QRImageError as error:
        return error
    return QRImageError("not a PNG data URI")  # pragma: no cover - _png_bytes refused it


cached_matrix_from_data_uri = _ByContent(maxsize=16)


def _symbol_from_uri(uri: str) -> tuple[tuple[bool, ...], ...]:
    _, _, rows = _decode_png(_png_bytes(uri))
    return _symbol(rows)


def _symbol(luminance: list[bytes]) -> tuple[tuple[bool, ...], ...]:
    """The QR symbol's modules (no quiet zone) of a module-exact image; True is dark."""
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


def _has_function_patterns(symbol: tuple[tuple[bool, ...], ...]) -> bool:
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
