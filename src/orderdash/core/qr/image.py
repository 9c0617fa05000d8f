"""The service's QR image (`qrCode`, a PNG data URI) turned back into its exact module grid.

The TUI cannot show pixels, so the image is decoded here and its module grid recovered
exactly (`grid.py`). The pixels are Pillow's work, an optional extra (`orderdash[server-qr]`),
imported with the first image decoded, never at start-up; without it every image is refused
with QRImageUnavailable, whose message says what to install, and the address is shown instead.

Every input is untrusted. Before Pillow sees a byte, the URI's length is bounded, and the PNG's
signature, chunk structure, checksums and header are checked here on the raw bytes: the
header's size and pixels times bits per pixel (MAX_IMAGE_BITS) bound what decoding may cost, so
a huge image is refused unread, and image data that inflates to more or less than the header
says (a zip bomb, a cut stream) is refused one step past the image's size, its output never
kept. Pillow then reads only a PNG (no other format's plugin) made of the chunks that decide
the pixels, of exactly that header: its own limits (Image.MAX_IMAGE_PIXELS, the text chunks')
are shared settings left as they are, and never reached.
`cached_matrix_from_data_uri` keeps results by content hash, failures included, so a bad image
costs once; the UI calls it from a worker thread and asks `cached_matrix_from_data_uri.peek`
(no work) on the event loop.
"""

from __future__ import annotations

import base64
import binascii
import io
import struct
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from orderdash.core.qr.grid import ContentCache, QRImageError, framed, symbol_from_luminance
from orderdash.core.qr.matrix import QRMatrix

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = [
    "INSTALL_NOTE",
    "MAX_IMAGE_BITS",
    "MAX_IMAGE_SIDE",
    "MAX_URI_LENGTH",
    "QRImageError",
    "QRImageUnavailable",
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
#: The most pixels any header that passes the bounds above can have (1 bit a pixel).
_MAX_PIXELS = min(MAX_IMAGE_SIDE * MAX_IMAGE_SIDE, MAX_IMAGE_BITS)

INSTALL_NOTE = "install orderdash[server-qr] to check the service's QR image"

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Allowed bit depths per colour type, and samples per pixel.
_BIT_DEPTHS = {
    0: (1, 2, 4, 8, 16),
    2: (8, 16),
    3: (1, 2, 4, 8),
    4: (8, 16),
    6: (8, 16),
}
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
# The chunks that decide the pixels: their checksums are verified, and they alone are handed
# to Pillow (text, ICC profiles, animation frames and the like are dropped unread, so Pillow
# never inflates them: its limits for those are shared settings, up to 64 MiB of text).
_PIXEL_CHUNKS = {b"IHDR", b"PLTE", b"tRNS", b"IDAT", b"IEND"}

_BASE64_WHITESPACE = str.maketrans("", "", " \t\r\n")


class QRImageUnavailable(QRImageError):
    """Pillow is not installed: the image was not checked (the message says what to do)."""


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


def _check_png(data: bytes) -> tuple[tuple[int, int, int, int, int], bytes, bytes | None]:
    """(width, height, bit depth, colour type, interlace) of a PNG whose structure holds (the
    signature, a header within the bounds first, every chunk whole up to IEND with the
    checksums of those that decide the pixels, no critical chunk unknown to PNG, image data),
    the PNG of only the chunks that decide the pixels, and its tRNS chunk. The image data is
    inflated once, a step at a time into nothing, to see it holds exactly what the header says:
    Pillow would stop reading a zip bomb at the image's end, but take data that ends early for
    an image with black rows."""
    if not data.startswith(PNG_SIGNATURE):
        raise QRImageError("not a PNG image")
    header: tuple[int, int, int, int, int] | None = None
    has_palette = False
    transparency: bytes | None = None
    kept: list[bytes | memoryview] = [PNG_SIGNATURE]
    compressed: list[memoryview] = []
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
        if kind in _PIXEL_CHUNKS:
            chunk = memoryview(data)[position:end]
            (crc,) = struct.unpack_from(">I", data, end - 4)
            if zlib.crc32(chunk[8:-4], zlib.crc32(kind)) != crc:
                raise QRImageError(f"corrupt PNG ({kind.decode()} checksum mismatch)")
            kept.append(chunk)
        if header is None:
            if kind != b"IHDR" or length != 13:
                raise QRImageError("corrupt PNG (no image header)")
            header = _check_header(*struct.unpack_from(">IIBBBBB", data, position + 8))
        elif kind == b"PLTE":
            if length % 3 or not 3 <= length <= 768:
                raise QRImageError("corrupt PNG palette")
            has_palette = True
        elif kind == b"tRNS":
            transparency = data[position + 8 : end - 4]
        elif kind == b"IDAT":
            compressed.append(memoryview(data)[position + 8 : end - 4])
        elif kind == b"IEND":
            break
        elif kind[0:1].isupper() and kind != b"IHDR":
            raise QRImageError(f"unsupported PNG chunk {kind.decode()}")
        position = end
    if not compressed:
        raise QRImageError("truncated PNG (no image data)")
    if header[3] == 3 and not has_palette:
        raise QRImageError("corrupt PNG (palette missing)")
    _check_inflated_size(compressed, _data_size(*header))
    return header, b"".join(kept), transparency


# Adam7's passes: (first column, first row, column step, row step).
_ADAM7: tuple[tuple[int, int, int, int], ...] = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8))
_ADAM7 += ((2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


def _data_size(width: int, height: int, depth: int, colour: int, interlace: int) -> int:
    """How many bytes the image data inflates to: each scanline's filter byte and samples."""
    bits_per_pixel = depth * _CHANNELS[colour]
    passes = _ADAM7 if interlace else ((0, 0, 1, 1),)
    size = 0
    for left, top, across, down in passes:
        columns = -(-(width - left) // across) if width > left else 0
        rows = -(-(height - top) // down) if height > top else 0
        if columns and rows:
            size += rows * (1 + (columns * bits_per_pixel + 7) // 8)
    return size


#: Inflate in steps of at most this much input and output: a zip bomb is stopped one step past
#: the image's size, and nothing is kept.
_INFLATE_STEP = 1 << 16


def _check_inflated_size(compressed: list[memoryview], expected: int) -> None:
    """QRImageError unless the IDAT stream inflates to exactly `expected` bytes."""
    filled = 0
    inflater = zlib.decompressobj()
    try:
        for body in compressed:
            for start in range(0, len(body), _INFLATE_STEP):
                pending: bytes | memoryview = body[start : start + _INFLATE_STEP]
                while pending and not inflater.eof:
                    filled += len(inflater.decompress(pending, _INFLATE_STEP))
                    if filled > expected:
                        raise QRImageError("corrupt PNG (more image data than the image holds)")
                    pending = inflater.unconsumed_tail
                if inflater.eof:
                    break
            if inflater.eof:
                break
        while not inflater.eof and filled <= expected:  # output zlib still holds
            piece = inflater.decompress(b"", _INFLATE_STEP)
            if not piece:
                break
            filled += len(piece)
    except zlib.error:
        raise QRImageError("corrupt PNG image data") from None
    if filled > expected:
        raise QRImageError("corrupt PNG (more image data than the image holds)")
    if filled < expected or not inflater.eof:
        raise QRImageError("truncated PNG image data")


def _check_header(
    width: int,
    height: int,
    depth: int,
    colour: int,
    compression: int,
    filtering: int,
    interlace: int,
) -> tuple[int, int, int, int, int]:
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
    if interlace not in (0, 1):  # 1 is Adam7
        raise QRImageError("corrupt PNG (unknown interlace method)")
    return width, height, depth, colour, interlace


def _pillow() -> None:
    """Pillow imported (its PNG plugin registered) with the first image decoded, never at
    start-up: then `from PIL import Image` finds it; QRImageUnavailable when Pillow is not
    installed."""
    try:
        from PIL import PngImagePlugin  # noqa: F401 - registers the PNG reader alone
    except ImportError:
        raise QRImageUnavailable(INSTALL_NOTE) from None


def _open_png(data: bytes, width: int, height: int) -> Image:
    """The PNG's pixels, read by Pillow as a PNG and nothing else, of the size checked."""
    _pillow()
    from PIL import Image as image_module

    # Pillow's own bomb check reads the shared Image.MAX_IMAGE_PIXELS, which is not ours to
    # change; the header is already bounded far below it, and its size is checked again here.
    image = image_module.open(io.BytesIO(data), formats=["PNG"])
    if image.format != "PNG" or image.size != (width, height) or width * height > _MAX_PIXELS:
        raise QRImageError("corrupt PNG (image header)")
    try:
        image.load()
    except (OSError, SyntaxError, ValueError) as error:  # Pillow's words for damaged data
        if "truncated" in str(error):
            raise QRImageError("truncated PNG image data") from None
        raise QRImageError("corrupt PNG image data") from None
    return image


def _decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Like decode_png, with rows as bytes (internal, faster to threshold and compare)."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise QRImageError("not a PNG image")
    (width, height, depth, colour, _), pixel_chunks, transparency = _check_png(bytes(data))
    image = _open_png(pixel_chunks, width, height)
    if colour == 0 and depth < 8 and transparency is not None and len(transparency) >= 2:
        # Pillow scales grey samples of 1, 2 and 4 bits to 0..255 but keeps the colour key as
        # written (a 1-bit one excepted): scale it alike. A key no sample can have is none.
        key, top = int.from_bytes(transparency[:2], "big"), (1 << depth) - 1
        image.info.pop("transparency", None)
        if key <= top:
            image.info["transparency"] = key * 255 // top
    luminance = _luminance(image)
    # a row at a time: no second copy of the whole image
    rows = [luminance.crop((0, y, width, y + 1)).tobytes() for y in range(height)]
    return width, height, rows


def _luminance(image: Image) -> Image:
    """The image in mode "L" (ITU-R 601 luminance), transparency composited over white."""
    _pillow()
    from PIL import Image as image_module

    mode = image.mode
    transparency = image.info.get("transparency")
    if mode == "P":
        entries = len(image.getpalette() or ()) // 3
        highest = image.getextrema()[1]  # one band in mode P: its highest index
        if isinstance(highest, tuple) or highest >= entries:  # Pillow: a missing entry is black
            raise QRImageError("corrupt PNG (palette index out of range)")
    if mode in ("I;16", "I;16B", "I"):
        return _grey16(image, transparency)
    if mode == "RGB" and isinstance(transparency, tuple) and max(transparency) > 255:
        # A 16-bit colour key: Pillow keeps each sample's high byte, so the key is matched on
        # those (a colour differing from it only below 1/256 reads as the key).
        image.info["transparency"] = tuple(sample >> 8 for sample in transparency)
    if transparency is None and mode in ("1", "L", "P", "RGB"):
        return image.convert("L")
    rgba = image.convert("RGBA")
    white = image_module.new("L", image.size, 255)
    return image_module.composite(rgba.convert("L"), white, rgba.getchannel("A"))


def _grey16(image: Image, transparency: object) -> Image:
    """A 16-bit grey image's high bytes (Pillow's own conversion clips at 255 instead), the
    colour key (exact, all 16 bits) made white."""
    _pillow()
    from PIL import Image as image_module

    samples = image.convert("I;16") if image.mode != "I;16" else image
    raw = samples.tobytes()  # little-endian
    high = image_module.frombytes("L", image.size, raw[1::2])
    if not isinstance(transparency, int):
        return high
    low = image_module.frombytes("L", image.size, raw[0::2])
    del raw
    is_high = high.point([255 if value == transparency >> 8 else 0 for value in range(256)])
    is_low = low.point([255 if value == transparency & 0xFF else 0 for value in range(256)])
    keyed = image_module.composite(is_low, is_high, is_high)
    white = image_module.new("L", image.size, 255)
    return image_module.composite(white, high, keyed)


# -- module grid ---------------------------------------------------------------------------


def matrix_from_data_uri(uri: str, *, quiet_zone: int = 2) -> QRMatrix:
    """The QR code in a `data:image/png;base64,` URI as modules, framed by `quiet_zone`.

    The content is not decoded, so `text` is "". Raises QRImageError (one line) for anything
    that is not a module-exact QR code image, QRImageUnavailable (one of them) when Pillow is
    not installed; ValueError for a negative quiet zone.
    """
    if not isinstance(quiet_zone, int) or quiet_zone < 0:
        raise ValueError(f"quiet_zone must be 0 or more, not {quiet_zone}")
    return framed(_guarded(_symbol_from_uri, uri), quiet_zone)


def _symbol_from_uri(uri: str) -> tuple[tuple[bool, ...], ...]:
    data = _png_bytes(uri)
    _pillow()  # without it nothing here is checked: say so first, whatever the image
    _, _, rows = _decode_png(data)
    return symbol_from_luminance(rows)


def _refused_unread(uri: object) -> QRImageError | None:
    """The refusal of a URI that is not a string or too long to hash (no decoding)."""
    if isinstance(uri, str) and len(uri) <= MAX_URI_LENGTH:
        return None
    try:
        _png_bytes(uri)
    except QRImageError as error:
        return error
    return QRImageError("not a PNG data URI")  # pragma: no cover - _png_bytes refused it


def _decode_for_cache(uri: str) -> QRMatrix:
    return matrix_from_data_uri(uri)  # looked up at each call: tests replace it


#: matrix_from_data_uri (quiet zone 2) cached by the URI's SHA-256, failures included.
cached_matrix_from_data_uri = ContentCache(_decode_for_cache, _refused_unread, maxsize=16)
