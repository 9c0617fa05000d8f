"""The service's QR image (a PNG data URI) read back module-exact, and shown by QRView.

PNGs come from qrcode + pillow (what a server would produce) and from a small writer here
that covers every colour type, bit depth, filter type and Adam7 interlacing; the recovered
modules must equal what orderdash.core.qr.matrix builds for the same text and settings, bit for
bit. Pillow reads the pixels (`orderdash[server-qr]`); without it the address is shown with a
note saying what to install.
"""

from __future__ import annotations

import ast
import base64
import io
import random
import struct
import subprocess
import sys
import time
import tracemalloc
import zlib
from collections.abc import Sequence
from pathlib import Path

import pytest
import qrcode
from PIL import Image, ImageFilter
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region, Size

import orderdash.core.qr.grid as qr_grid_module
import orderdash.core.qr.image as qr_image_module
from conftest import make_settings, screen_text, wait_until
from orderdash.core.qr.image import (
    QRImageError,
    QRImageUnavailable,
    cached_matrix_from_data_uri,
    decode_png,
    matrix_from_data_uri,
)
from orderdash.core.qr.matrix import QRMatrix, build_matrix
from orderdash.simulator import DEMO_TOKENS, Simulator, SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.widgets.qr import QRView
from support.qr_screen import (
    Painted,
    decode_qr_in_region,
    decode_qr_on_screen,
    find_code,
    screen_cells,
)

PREFIX = "data:image/png;base64,"
BECH32 = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
PAYLOADS = {
    "short": "hi",  # version 1
    "address": "3AxYawtkGxsnTfy6KxswzAFNDiGRuw1dH3",
    "uri": "bitcoin:" + BECH32 + "?amount=0.00012345",
    "long": "bitcoin:" + BECH32 + "?label=" + "x" * 150,  # version 7+: version information
}
LEVELS = {
    "L": qrcode.constants.ERROR_CORRECT_L,
    "M": qrcode.constants.ERROR_CORRECT_M,
    "Q": qrcode.constants.ERROR_CORRECT_Q,
    "H": qrcode.constants.ERROR_CORRECT_H,
}
# (box_size, border, error correction): every box size 1..10, every border 0..6, every level.
SETTINGS = [
    (1, 0, "L"),
    (2, 1, "M"),
    (3, 2, "Q"),
    (4, 4, "M"),
    (5, 3, "H"),
    (6, 5, "L"),
    (7, 6, "Q"),
    (8, 0, "H"),
    (9, 1, "M"),
    (10, 2, "L"),
]


# -- making PNGs ---------------------------------------------------------------------------


def uri_of(png: bytes) -> str:
    return PREFIX + base64.b64encode(png).decode("ascii")


def expected_modules(text: str, level: str = "M") -> tuple[tuple[bool, ...], ...]:
    return build_matrix(text, quiet_zone=2, error_correction=level).modules


def qr_image(text: str, box: int = 4, border: int = 4, level: str = "M") -> Image.Image:
    """The code as qrcode + pillow draw it, in mode "L" (0 dark, 255 light)."""
    code = qrcode.QRCode(error_correction=LEVELS[level], box_size=box, border=border)
    code.add_data(text)
    code.make(fit=True)
    return code.make_image().get_image().convert("L")


def pillow_png(image: Image.Image, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", **options)
    return buffer.getvalue()


def header_of(png: bytes) -> tuple[int, int, int, int]:
    """(width, height, bit depth, colour type) from the IHDR chunk."""
    width, height, depth, colour = struct.unpack(">IIBB", png[16:26])
    return width, height, depth, colour


def as_pillow_format(image: Image.Image, kind: str) -> bytes:
    """The "L" image saved by pillow in one PNG format."""
    if kind == "gray1":
        return pillow_png(image.convert("1", dither=Image.Dither.NONE))
    if kind == "gray8":
        return pillow_png(image)
    if kind == "rgb":
        return pillow_png(image.convert("RGB"))
    if kind == "rgba-transparent":
        # Transparent black where the code is light: only compositing over white reads it.
        zero = Image.new("L", image.size, 0)
        alpha = image.point(lambda value: 255 - value)
        return pillow_png(Image.merge("RGBA", (zero, zero, zero, alpha)))
    if kind == "palette":
        return pillow_png(image.convert("P"))
    if kind == "gray16":
        return pillow_png(image.point(lambda value: value * 257, "I").convert("I;16"))
    raise AssertionError(kind)


PILLOW_FORMATS = {
    # kind: (bit depth, colour type) pillow must have written
    "gray1": (1, 0),
    "gray8": (8, 0),
    "rgb": (8, 2),
    "rgba-transparent": (8, 6),
    "palette": (8, 3),
    "gray16": (16, 0),
}


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_line(kind: int, line: bytes, previous: bytes, step: int) -> bytes:
    """PNG filter `kind` applied to one scanline (the encoder's side)."""
    out = bytearray()
    for i, value in enumerate(line):
        a = line[i - step] if i >= step else 0
        b = previous[i]
        c = previous[i - step] if i >= step else 0
        predictor = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]
        out.append((value - predictor) & 0xFF)
    return bytes(out)


def write_png(
    width: int,
    height: int,
    colour: int,
    depth: int,
    lines: Sequence[bytes],
    *,
    filters: Sequence[int] = (0,),
    palette: bytes | None = None,
    transparency: bytes | None = None,
    interlace: int = 0,
    idat_parts: int = 1,
) -> bytes:
    """A PNG from unfiltered scanlines; row y uses filters[y % len(filters)]. (`interlace`
    only sets the header's flag: `adam7_png` writes real interlaced data.)"""
    raw = filtered(lines, colour, depth, filters)
    return assemble_png(
        width, height, colour, depth, raw, palette, transparency, interlace, idat_parts
    )


def filtered(
    lines: Sequence[bytes], colour: int, depth: int, filters: Sequence[int], first: int = 0
) -> bytes:
    """Scanlines each with its filter byte and filtered; line y uses filters[(first + y) % n]."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    step = max(1, depth * channels // 8)
    raw = bytearray()
    previous = bytes(len(lines[0]))
    for y, line in enumerate(lines):
        kind = filters[(first + y) % len(filters)]
        raw.append(kind)
        raw += filter_line(kind, line, previous, step)
        previous = line
    return bytes(raw)


def assemble_png(
    width: int,
    height: int,
    colour: int,
    depth: int,
    raw: bytes,
    palette: bytes | None = None,
    transparency: bytes | None = None,
    interlace: int = 0,
    idat_parts: int = 1,
) -> bytes:
    data = zlib.compress(raw, 9)
    size = -(-len(data) // idat_parts)
    body = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace))
    if palette is not None:
        body += chunk(b"PLTE", palette)
    if transparency is not None:
        body += chunk(b"tRNS", transparency)
    body += chunk(b"tEXt", b"Comment\x00ignored")
    for start in range(0, len(data), size):
        body += chunk(b"IDAT", data[start : start + size])
    return b"\x89PNG\r\n\x1a\n" + body + chunk(b"IEND", b"")


def pack(samples: Sequence[int], depth: int) -> bytes:
    """One scanline from samples at a bit depth (1, 2, 4, 8 or 16)."""
    if depth == 16:
        return b"".join(struct.pack(">H", sample) for sample in samples)
    if depth == 8:
        return bytes(samples)
    out = bytearray()
    per_byte = 8 // depth
    for start in range(0, len(samples), per_byte):
        group = list(samples[start : start + per_byte])
        group += [0] * (per_byte - len(group))
        byte = 0
        for sample in group:
            byte = (byte << depth) | sample
        out.append(byte)
    return bytes(out)


def pixels_of(text: str, box: int, border: int, level: str = "M") -> list[list[bool]]:
    """Dark flags per pixel of the code at `box` pixels per module."""
    modules = build_matrix(text, quiet_zone=border, error_correction=level).modules
    return [[dark for dark in row for _ in range(box)] for row in modules for _ in range(box)]


# Per format: colour type, bit depth, samples of a dark and of a light pixel (alternatives are
# used in turn), and PLTE / tRNS. Light pixels are often dark colours made transparent, and
# the values sit close to the 128 threshold, so only exact decoding reads them right.
HAND_FORMATS: dict[str, tuple[int, int, list[tuple[int, ...]], list[tuple[int, ...]], dict]] = {
    "gray1": (0, 1, [(0,)], [(1,)], {}),
    "gray2": (0, 2, [(0,), (1,)], [(2,), (3,)], {}),  # 1 -> 85 dark, 2 -> 170 light
    "gray4": (0, 4, [(7,)], [(8,)], {}),  # 119 dark, 136 light
    "gray1-trns": (0, 1, [(0,)], [(1,)], {"transparency": struct.pack(">H", 1)}),
    "gray2-trns": (0, 2, [(0,)], [(1,), (3,)], {"transparency": struct.pack(">H", 1)}),
    "gray4-trns": (0, 4, [(7,)], [(3,)], {"transparency": struct.pack(">H", 3)}),  # 51 unless keyed
    "gray8": (0, 8, [(127,)], [(128,)], {}),
    "gray8-trns": (0, 8, [(60,)], [(0,)], {"transparency": struct.pack(">H", 0)}),
    "gray16": (0, 16, [(0x7FFF,)], [(0x8000,)], {}),
    "gray16-trns": (0, 16, [(0x0101,)], [(0x0001,)], {"transparency": struct.pack(">H", 1)}),
    "rgb8": (2, 8, [(0, 0, 128), (120, 120, 120)], [(255, 255, 0), (140, 130, 120)], {}),
    "rgb8-trns": (2, 8, [(0, 0, 0)], [(1, 2, 3)], {"transparency": struct.pack(">HHH", 1, 2, 3)}),
    "rgb16": (2, 16, [(0x1000, 0x2000, 0x3000)], [(0xFFFF, 0xEEEE, 0xDDDD)], {}),
    # Pillow keeps the high byte of 16-bit colour samples, so a colour key is matched on those
    "rgb16-trns": (
        2,
        16,
        [(0x0102, 0x0304, 0x0506)],
        [(0x0102, 0x0304, 0x0707)],
        {"transparency": struct.pack(">HHH", 0x0102, 0x0304, 0x0707)},
    ),
    "palette1": (3, 1, [(1,)], [(0,)], {"palette": bytes([255, 255, 255, 0, 0, 0])}),
    "palette2": (
        3,
        2,
        [(1,), (2,)],
        [(0,), (3,)],
        {"palette": bytes([255, 255, 255, 0, 0, 0, 255, 0, 0, 255, 255, 0])},
    ),
    "palette4-trns": (
        3,
        4,
        [(1,)],
        [(0,)],
        {"palette": bytes([0, 0, 0, 0, 0, 0]), "transparency": bytes([0])},
    ),
    "palette8": (
        3,
        8,
        [(200,)],
        [(7,)],
        {"palette": bytes(range(256)) * 3, "transparency": bytes([255] * 7 + [0])},
    ),
    "gray-alpha8": (4, 8, [(0, 255), (40, 200)], [(0, 0), (200, 255)], {}),
    "gray-alpha16": (4, 16, [(0, 0xFFFF)], [(0, 0)], {}),
    "rgba8": (6, 8, [(10, 20, 30, 255)], [(0, 0, 0, 0), (0, 0, 0, 100)], {}),
    "rgba16": (6, 16, [(0x0A0A, 0x1414, 0x1E1E, 0xFFFF)], [(0, 0, 0, 0)], {}),
}


def hand_pixels(kind: str, text: str, box: int, border: int) -> list[list[tuple[int, ...]]]:
    """The samples of each pixel of the code in one of HAND_FORMATS."""
    _, _, darks, lights, _ = HAND_FORMATS[kind]
    return [
        [
            (darks if dark else lights)[(x + y) % len(darks if dark else lights)]
            for x, dark in enumerate(row)
        ]
        for y, row in enumerate(pixels_of(text, box, border))
    ]


def hand_png(kind: str, text: str, box: int = 2, border: int = 3, **options: object) -> bytes:
    colour, depth, _, _, extra = HAND_FORMATS[kind]
    pixels = hand_pixels(kind, text, box, border)
    lines = [pack([sample for pixel in row for sample in pixel], depth) for row in pixels]
    return write_png(len(pixels), len(pixels), colour, depth, lines, **extra, **options)


# Adam7's passes: (first column, first row, column step, row step).
ADAM7 = [
    (0, 0, 8, 8),
    (4, 0, 8, 8),
    (0, 4, 4, 8),
    (2, 0, 4, 4),
    (0, 2, 2, 4),
    (1, 0, 2, 2),
    (0, 1, 1, 2),
]


def adam7_png(
    kind: str, text: str, box: int = 2, border: int = 3, filters: Sequence[int] = (0,)
) -> bytes:
    """The code in one of HAND_FORMATS, Adam7-interlaced: seven passes over a subset of the
    pixels each, each pass filtered on its own (its first line against zeros), empty passes
    left out, as the PNG specification has it."""
    colour, depth, _, _, extra = HAND_FORMATS[kind]
    pixels = hand_pixels(kind, text, box, border)
    raw = b""
    for left, top, across, down in ADAM7:
        rows = [row[left::across] for row in pixels[top::down]]
        if not rows or not rows[0]:
            continue
        lines = [pack([sample for pixel in row for sample in pixel], depth) for row in rows]
        raw += filtered(lines, colour, depth, filters, first=len(raw))
    side = len(pixels)
    return assemble_png(side, side, colour, depth, raw, interlace=1, **extra)


# -- round trips ---------------------------------------------------------------------------


@pytest.mark.parametrize(("box", "border", "level"), SETTINGS, ids=str)
@pytest.mark.parametrize("payload", list(PAYLOADS), ids=str)
def test_pillow_pngs_give_back_the_exact_modules(
    payload: str, box: int, border: int, level: str
) -> None:
    text = PAYLOADS[payload]
    if payload == "long" and box > 4:
        box -= 4  # keep the pure-Python decode quick; large boxes are covered by the others
    image = qr_image(text, box, border, level)
    expected = expected_modules(text, level)
    for kind, format_ in PILLOW_FORMATS.items():
        png = as_pillow_format(image, kind)
        assert header_of(png)[2:] == format_, kind
        matrix = matrix_from_data_uri(uri_of(png))
        assert isinstance(matrix, QRMatrix), kind
        assert matrix.text == "" and matrix.quiet_zone == 2
        assert matrix.modules == expected, kind


def test_a_164_pixel_image_like_the_real_sample() -> None:
    text = "bitcoin:" + BECH32  # version 3 at level M: 29 + 2 * 4 border modules, 4 px each
    png = pillow_png(qr_image(text, box=4, border=4))
    assert header_of(png)[:2] == (164, 164)
    assert matrix_from_data_uri(uri_of(png)).modules == expected_modules(text)


def test_the_simulators_image_is_the_code_of_its_address() -> None:
    wire = Simulator(seed=7).order_wire(DEMO_TOKENS[0], with_qr=True)
    address = wire["address"]
    assert isinstance(address, str) and address
    matrix = matrix_from_data_uri(wire["qrCode"])
    assert matrix.modules == expected_modules(address)
    assert matrix.size == build_matrix(address).size


@pytest.mark.parametrize("kind", list(HAND_FORMATS))
def test_every_colour_type_and_bit_depth(kind: str) -> None:
    text = PAYLOADS["address"]
    png = hand_png(kind, text)
    colour, depth, *_ = HAND_FORMATS[kind]
    assert header_of(png)[2:] == (depth, colour)
    assert matrix_from_data_uri(uri_of(png)).modules == expected_modules(text)


@pytest.mark.parametrize("kind", ["gray1", "gray8", "rgb8", "palette2", "gray-alpha16", "rgba8"])
@pytest.mark.parametrize("filters", [(0,), (1,), (2,), (3,), (4,), (0, 1, 2, 3, 4)], ids=str)
def test_every_filter_type_on_a_qr_image(kind: str, filters: tuple[int, ...]) -> None:
    text = PAYLOADS["uri"]
    png = hand_png(kind, text, box=3, border=1, filters=filters, idat_parts=3)
    assert matrix_from_data_uri(uri_of(png)).modules == expected_modules(text)


@pytest.mark.parametrize("filters", [(0,), (1,), (2,), (3,), (4,), (4, 3, 2, 1, 0)], ids=str)
@pytest.mark.parametrize(
    ("colour", "depth"), [(0, 8), (0, 16), (2, 8), (4, 8), (6, 8), (6, 16), (0, 2)], ids=str
)
def test_filters_undo_exactly_on_noise(colour: int, depth: int, filters: tuple[int, ...]) -> None:
    """Random samples, so every filter's arithmetic (wrap-around included) is exercised."""
    rng = random.Random(colour * 100 + depth + sum(filters))
    width, height = 13, 9
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    top = (1 << depth) - 1
    samples = [[rng.randint(0, top) for _ in range(width * channels)] for _ in range(height)]
    if colour in (4, 6):  # alpha 255 or 0 only, so the expected luminance is exact
        for row in samples:
            for index in range(channels - 1, len(row), channels):
                row[index] = rng.choice((0, top))
    png = write_png(
        width, height, colour, depth, [pack(row, depth) for row in samples], filters=filters
    )
    got_width, got_height, rows = decode_png(png)
    assert (got_width, got_height) == (width, height)
    assert all(isinstance(value, int) for row in rows for value in row)

    def to8(sample: int) -> int:
        return sample >> 8 if depth == 16 else sample * 255 // top

    expected = []
    for row in samples:
        line = []
        for x in range(width):
            pixel = [to8(sample) for sample in row[x * channels : (x + 1) * channels]]
            if colour in (4, 6) and pixel[-1] == 0:
                line.append(255)
                continue
            if colour in (2, 6):
                red, green, blue = pixel[:3]
                line.append((299 * red + 587 * green + 114 * blue + 500) // 1000)
            else:
                line.append(pixel[0])
        expected.append(line)
    assert rows == expected


def test_quiet_zone_is_reframed_whatever_the_image_border() -> None:
    text = PAYLOADS["address"]
    for border in (0, 1, 9):
        uri = uri_of(pillow_png(qr_image(text, box=2, border=border)))
        for quiet_zone in (0, 2, 5):
            matrix = matrix_from_data_uri(uri, quiet_zone=quiet_zone)
            assert matrix.quiet_zone == quiet_zone
            assert matrix.modules == build_matrix(text, quiet_zone=quiet_zone).modules
    with pytest.raises(ValueError) as caught:
        matrix_from_data_uri(uri, quiet_zone=-1)
    assert not isinstance(caught.value, QRImageError)


def test_uri_prefix_is_case_insensitive_and_base64_may_be_wrapped() -> None:
    text = PAYLOADS["short"]
    encoded = base64.b64encode(pillow_png(qr_image(text, box=1, border=0))).decode()
    wrapped = "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60))
    for uri in ("DATA:IMAGE/PNG;BASE64," + encoded, "data:image/PNG;base64," + wrapped):
        assert matrix_from_data_uri(uri).modules == expected_modules(text)


def test_decode_png_gives_luminance_rows() -> None:
    image = qr_image(PAYLOADS["short"], box=1, border=1)
    width, height, rows = decode_png(pillow_png(image))
    assert (width, height) == image.size
    assert rows == [list(image.crop((0, y, width, y + 1)).tobytes()) for y in range(height)]


def test_cached_matrix_from_data_uri() -> None:
    uri = uri_of(pillow_png(qr_image(PAYLOADS["uri"], box=2, border=2)))
    first = cached_matrix_from_data_uri(uri)
    assert cached_matrix_from_data_uri(uri) is first
    assert first == matrix_from_data_uri(uri)
    assert cached_matrix_from_data_uri.cache_info().maxsize == 16


# -- rejections ----------------------------------------------------------------------------


def _rejected(uri: object) -> str:
    with pytest.raises(QRImageError) as caught:
        matrix_from_data_uri(uri)  # type: ignore[arg-type]
    message = str(caught.value)
    assert message and "\n" not in message and len(message) < 120
    return message


GOOD_PNG = pillow_png(qr_image(PAYLOADS["address"], box=2, border=2))


@pytest.mark.parametrize(
    "uri",
    [
        "",
        "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
        "https://example.com/qr.png",
        "data:image/jpeg;base64," + base64.b64encode(GOOD_PNG).decode(),
        "data:image/png," + base64.b64encode(GOOD_PNG).decode(),
        "data:image/png;charset=utf-8;base64," + base64.b64encode(GOOD_PNG).decode(),
        " data:image/png;base64," + base64.b64encode(GOOD_PNG).decode(),
        None,
        GOOD_PNG,
    ],
)
def test_wrong_prefix(uri: object) -> None:
    assert _rejected(uri) == "not a PNG data URI"


@pytest.mark.parametrize("payload", ["@@@@", "abc", "ab=c", "\u00e9\u00e9\u00e9\u00e9", "a-_b"])
def test_bad_base64(payload: str) -> None:
    assert _rejected(PREFIX + payload) == "bad base64 in the PNG data URI"


def test_empty_data_uri() -> None:
    assert _rejected(PREFIX) == "empty PNG data URI"
    assert _rejected(PREFIX + " \n") == "empty PNG data URI"


def test_a_jpeg_is_not_a_png() -> None:
    buffer = io.BytesIO()
    qr_image(PAYLOADS["address"]).save(buffer, "JPEG")
    assert _rejected(uri_of(buffer.getvalue())) == "not a PNG image"
    assert _rejected(uri_of(b"GIF89a" + bytes(40))) == "not a PNG image"


def test_every_truncation_is_a_qr_image_error() -> None:
    png = pillow_png(qr_image(PAYLOADS["short"], box=1, border=0))
    for length in range(len(png)):
        _rejected(uri_of(png[:length]))


def test_corrupted_bytes_never_raise_anything_else() -> None:
    rng = random.Random(5)
    png = hand_png("rgb8", PAYLOADS["short"], box=1, border=1, filters=(4,))
    for _ in range(300):
        damaged = bytearray(png)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        try:
            matrix = matrix_from_data_uri(uri_of(bytes(damaged)))
        except QRImageError as error:
            assert "\n" not in str(error)
        else:
            assert matrix.modules == expected_modules(PAYLOADS["short"])  # e.g. tEXt damaged


def test_checksum_mismatch_is_rejected() -> None:
    png = bytearray(GOOD_PNG)
    png[29] ^= 0xFF  # the IHDR checksum
    assert "checksum" in _rejected(uri_of(bytes(png)))


@pytest.mark.parametrize(
    ("kind", "box", "border"),
    [("gray8", 2, 3), ("gray1", 3, 1), ("rgba8", 1, 0), ("palette2", 5, 2), ("rgb16-trns", 2, 2)],
    ids=str,
)
def test_interlaced_images_give_back_the_exact_modules(kind: str, box: int, border: int) -> None:
    """Adam7 images, at sizes that leave passes short or empty (1 px a module, no border), with
    every filter type across the passes."""
    text = PAYLOADS["uri"]
    png = adam7_png(kind, text, box, border, filters=(0, 1, 2, 3, 4))
    assert png[28] == 1  # the header's interlace method: Adam7
    assert matrix_from_data_uri(uri_of(png)).modules == expected_modules(text)
    # the same image without interlacing reads the same, pixel for pixel
    assert decode_png(png) == decode_png(hand_png(kind, text, box, border))


def test_interlaced_data_of_the_wrong_size_is_refused() -> None:
    png = hand_png("gray8", PAYLOADS["short"], interlace=1)  # rows laid out as if not interlaced
    assert _rejected(uri_of(png)) == "truncated PNG image data"  # Adam7 has more filter bytes


def test_unknown_interlace_method_is_refused() -> None:
    png = hand_png("gray8", PAYLOADS["short"], interlace=2)
    assert _rejected(uri_of(png)) == "corrupt PNG (unknown interlace method)"


@pytest.mark.parametrize("size", [(10_000, 10_000), (4097, 21), (21, 4097), (2**31 - 1, 1)])
def test_huge_header_is_rejected_before_any_decoding(size: tuple[int, int]) -> None:
    width, height = size
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\x00" * 1000))
        + chunk(b"IEND", b"")
    )
    assert _rejected(uri_of(png)).startswith("image too large")


def test_uri_over_2_mb_is_rejected() -> None:
    assert _rejected(PREFIX + "A" * (2 * 1024 * 1024)).startswith("image too large")


def _bomb(width: int, height: int, inflated: int) -> bytes:
    squeezer = zlib.compressobj(9)
    block = bytes(1 << 20)
    compressed = [squeezer.compress(block) for _ in range(inflated >> 20)]
    compressed.append(squeezer.flush())
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", b"".join(compressed))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(("width", "height"), [(21, 21), (1000, 1000)])
def test_zlib_bomb_is_refused_quickly_in_small_memory(width: int, height: int) -> None:
    uri = uri_of(_bomb(width, height, 64 << 20))  # 64 MiB of zeros, about 65 KB squeezed
    assert len(uri) < 2 * 1024 * 1024
    tracemalloc.start()
    started = time.perf_counter()
    try:
        message = _rejected(uri)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 2
    assert "more image data" in message
    expected = height * (width + 1)
    # One image's worth, the decoded URI, and a constant for zlib's own state and steps.
    assert peak < expected + len(uri) + (1 << 20), peak


def test_short_image_data_is_truncated() -> None:
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 50, 50, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(bytes(51 * 49)))
        + chunk(b"IEND", b"")
    )
    assert _rejected(uri_of(png)) == "truncated PNG image data"


def test_palette_image_without_palette_or_bad_index() -> None:
    lines = [bytes([0, 1, 5])] * 3
    no_palette = write_png(3, 3, 3, 8, lines)
    assert "palette" in _rejected(uri_of(no_palette))
    bad_index = write_png(3, 3, 3, 8, lines, palette=bytes(6))
    assert "palette index" in _rejected(uri_of(bad_index))


@pytest.mark.parametrize("box", [1, 3])
def test_non_integer_resampling_is_refused(box: int) -> None:
    image = qr_image(PAYLOADS["uri"], box=box, border=2)
    side = image.width * 3 // 2
    resampled = image.resize((side, side), Image.Resampling.NEAREST)
    assert "no QR code grid found" in _rejected(uri_of(pillow_png(resampled)))
    # An integer factor is still module-exact.
    doubled = image.resize((image.width * 2,) * 2, Image.Resampling.NEAREST)
    assert matrix_from_data_uri(uri_of(pillow_png(doubled))).modules == expected_modules(
        PAYLOADS["uri"]
    )


def test_blur_is_read_exactly_or_refused() -> None:
    image = qr_image(PAYLOADS["uri"], box=5, border=3)
    for radius in (0.6, 1, 1.5, 3):
        blurred = image.filter(ImageFilter.GaussianBlur(radius))
        try:
            matrix = matrix_from_data_uri(uri_of(pillow_png(blurred)))
        except QRImageError as error:
            assert str(error).startswith("no QR code grid found")
        else:
            assert matrix.modules == expected_modules(PAYLOADS["uri"])
    smeared = image.filter(ImageFilter.BoxBlur(4))
    assert "no QR code grid found" in _rejected(uri_of(pillow_png(smeared)))


@pytest.mark.parametrize("seed", range(5))
def test_random_noise_is_refused(seed: int) -> None:
    rng = random.Random(seed)
    side = rng.choice([21, 84, 100, 164])
    noise = Image.frombytes("L", (side, side), rng.randbytes(side * side))
    assert "no QR code grid found" in _rejected(uri_of(pillow_png(noise)))


def test_blank_images_are_refused() -> None:
    white = Image.new("L", (164, 164), 255)
    assert "no dark pixels" in _rejected(uri_of(pillow_png(white)))
    clear = Image.new("RGBA", (164, 164), (0, 0, 0, 0))  # black, but fully transparent
    assert "no dark pixels" in _rejected(uri_of(pillow_png(clear)))


def test_not_a_qr_code_is_refused() -> None:
    image = qr_image(PAYLOADS["address"], box=4, border=4)
    inverted = image.point(lambda value: 255 - value)
    assert "no QR code grid found" in _rejected(uri_of(pillow_png(inverted)))
    dotted = image.copy()
    dotted.putpixel((1, 1), 0)  # a speck outside the symbol
    assert "no QR code grid found" in _rejected(uri_of(pillow_png(dotted)))
    square = Image.new("L", (164, 164), 255)
    square.paste(0, (4, 4, 160, 160))
    assert "no QR code grid found" in _rejected(uri_of(pillow_png(square)))
    # Right geometry, finder patterns intact, data area damaged: still a code, read as is;
    # but a missing timing pattern means it is not one.
    broken = image.copy()
    broken.paste(255, (16 + 6 * 4, 16 + 8 * 4, 16 + 7 * 4, 16 + 12 * 4))
    assert "no QR code grid found" in _rejected(uri_of(pillow_png(broken)))


def _imports(module: object) -> tuple[set[str], set[str]]:
    """(modules imported at the top level, modules imported inside functions) of a module."""
    tree = ast.parse(Path(module.__file__).read_text())  # type: ignore[attr-defined]
    nested = {
        node
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef)
        for node in ast.walk(function)
    }
    top, inside = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names = {node.module or ""}
        else:
            continue
        (inside if node in nested else top).update(names)
    return top, inside


def test_core_modules_are_plain_python_and_pillow_loads_only_to_decode() -> None:
    stdlib = {"__future__", "base64", "binascii", "io", "struct", "zlib", "hashlib", "threading"}
    stdlib |= {"collections", "collections.abc", "types", "typing"}
    top, inside = _imports(qr_image_module)
    # PIL only under TYPE_CHECKING at the top (never run), and inside the function that decodes
    assert top <= stdlib | {"orderdash.core.qr.grid", "orderdash.core.qr.matrix", "PIL.Image"}, top
    assert inside == {"PIL"}, inside
    top, inside = _imports(qr_grid_module)
    assert top <= stdlib | {"orderdash.core.qr.matrix"} and not inside, (top, inside)
    code = (
        "import sys, orderdash.core.qr.image\n"
        "print(','.join(sorted(m for m in sys.modules\n"
        "    if m.split('.')[0] in ('textual', 'rich', 'PIL'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == ""


# -- QRView.show_matrix --------------------------------------------------------------------


class MatrixApp(App):
    def compose(self) -> ComposeResult:
        yield QRView()


def _server_matrix() -> tuple[str, QRMatrix]:
    wire = Simulator(seed=7).order_wire(DEMO_TOKENS[0], with_qr=True)
    return wire["address"], cached_matrix_from_data_uri(wire["qrCode"])


async def test_show_matrix_displays_the_servers_code() -> None:
    address, matrix = _server_matrix()
    app = MatrixApp()
    async with app.run_test(size=(100, 34)) as pilot:
        view = app.query_one(QRView)
        assert view.source == "text" and view.note == ""  # nothing yet, nothing said
        view.show_matrix(matrix, address)
        await pilot.pause()
        assert view.source == "server"
        assert view.encoded_text == ""
        assert view.scale == 2 and view.note == ""
        assert decode_qr_on_screen(app) == [address]
        assert decode_qr_in_region(app, view.region) == [address]
        assert decode_qr_in_region(app, Region(0, 0, 10, 40)) == []

        bitmap = Painted.of(app).bitmap()
        assert len(find_code(bitmap, matrix, 2)) == 1  # module-exact, drawn once
        text = "\n".join("".join(char for char, _ in row) for row in screen_cells(app))
        assert address in text

        view.show_matrix(matrix, address, note="QR code from the service")
        await pilot.pause()
        assert view.note == "QR code from the service"
        assert view.scale == 1  # the note takes a row: scale 2 no longer fits 34 rows
        text = "\n".join("".join(char for char, _ in row) for row in screen_cells(app))
        assert "QR code from the service" in text and address in text
        assert decode_qr_on_screen(app) == [address]

        view.text = BECH32
        await pilot.pause()
        assert view.source == "text" and view.encoded_text == BECH32
        assert decode_qr_on_screen(app) == [BECH32]

        view.show_matrix(matrix, address)
        await pilot.pause()
        assert view.source == "server"
        view.text = BECH32  # the same text as before still switches back
        await pilot.pause()
        assert view.source == "text" and decode_qr_on_screen(app) == [BECH32]

        view.show_matrix(matrix, address)
        await pilot.pause()
        view.show_matrix(None, "")
        await pilot.pause()
        assert view.source == "text" and view.encoded_text == BECH32
        assert decode_qr_on_screen(app) == [BECH32]


async def test_show_matrix_too_small_hides_with_a_note_and_keeps_the_caption() -> None:
    address, matrix = _server_matrix()
    app = MatrixApp()
    async with app.run_test(size=(30, 12)) as pilot:
        view = app.query_one(QRView)
        view.show_matrix(matrix, address)
        await pilot.pause()
        assert view.scale == 0 and view.source == "server" and view.encoded_text == ""
        assert view.note == "QR hidden: needs 33x18 cells, have 30x12 - enlarge the terminal"
        assert decode_qr_on_screen(app) == []
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert view.scale == 1 and decode_qr_on_screen(app) == [address]


async def test_show_matrix_caption_is_shown_literally() -> None:
    _, matrix = _server_matrix()
    hostile = "ACME [/] [@click=app.quit]x[/] \x1b[2J"
    app = MatrixApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(QRView)
        view.show_matrix(matrix, hostile, note="[b]note\x1b]52;c;x")
        await pilot.pause()
        cells = screen_cells(app)
        text = "\n".join("".join(char for char, _ in row) for row in cells)
        assert "ACME [/] [@click=app.quit]x[/] \ufffd[2J" in text
        assert not any("\x1b" in char for row in cells for char, _ in row)
        assert app.is_running


async def test_sizing_follows_the_given_matrix() -> None:
    address, matrix = _server_matrix()
    app = MatrixApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(QRView)
        view.show_matrix(matrix, address)
        await pilot.pause()
        size = Size(200, 40)
        assert view.get_content_width(size, size) == matrix.size * 2
        assert view.get_content_width(Size(200, 20), size) == matrix.size
        assert view.get_content_height(size, size, matrix.size * 2) == matrix.size + 1


class TwoCodesApp(App):
    CSS = "QRView { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield QRView(BECH32, id="text")
            yield QRView(id="server")


async def test_two_codes_are_read_region_by_region() -> None:
    address, matrix = _server_matrix()
    app = TwoCodesApp()
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one("#server", QRView).show_matrix(matrix, address)
        await pilot.pause()
        left = app.query_one("#text", QRView).region
        right = app.query_one("#server", QRView).region
        assert decode_qr_in_region(app, left) == [BECH32]
        assert decode_qr_in_region(app, right) == [address]
        assert sorted(decode_qr_on_screen(app)) == sorted([BECH32, address])


def test_the_cost_limit_is_checked_on_the_header_before_any_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from support.hostile_png import paeth_bomb

    def no_work(*args: object) -> None:
        raise AssertionError("inflated or unfiltered before the cost was checked")

    monkeypatch.setattr(qr_image_module, "_check_inflated_size", no_work)
    monkeypatch.setattr(qr_image_module, "_open_png", no_work)
    message = _rejected(paeth_bomb())
    assert message.startswith("image too large to decode (4096x4096, 64 bits a pixel")


def test_a_failure_is_cached_by_content_and_never_decoded_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from support.hostile_png import data_uri, paeth_png

    uri = data_uri(paeth_png(64, 64, depth=8, colour=0))  # bad last filter byte
    calls: list[str] = []
    decode = qr_image_module.matrix_from_data_uri

    def counted(text: str) -> object:
        calls.append(text)
        return decode(text)

    monkeypatch.setattr(qr_image_module, "matrix_from_data_uri", counted)
    cached_matrix_from_data_uri.cache_clear()
    assert cached_matrix_from_data_uri.peek(uri) is None
    for _ in range(3):
        with pytest.raises(QRImageError, match="corrupt PNG image data"):  # filter type 5
            cached_matrix_from_data_uri("".join(uri))  # an equal string, not the same object
    assert len(calls) == 1
    assert isinstance(cached_matrix_from_data_uri.peek(uri), QRImageError)


# -- without Pillow ------------------------------------------------------------------------


def _pillow_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pillow as if not installed: `import PIL` (and so every `from PIL import ...`) fails, the
    modules already loaded included. Results cached with Pillow are forgotten."""
    monkeypatch.setitem(sys.modules, "PIL", None)  # type: ignore[arg-type]
    with pytest.raises(ImportError):
        from PIL import Image  # noqa: F401
    cached_matrix_from_data_uri.cache_clear()


def test_without_pillow_every_image_is_refused_with_the_install_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from support.hostile_png import paeth_bomb

    good = Simulator(seed=7).order_wire(DEMO_TOKENS[0], with_qr=True)["qrCode"]
    with monkeypatch.context() as patch:
        _pillow_missing(patch)
        for uri in (good, paeth_bomb(), uri_of(GOOD_PNG[:100])):
            with pytest.raises(QRImageUnavailable) as caught:
                matrix_from_data_uri(uri)
            assert str(caught.value) == (
                "install orderdash[server-qr] to check the service's QR image"
            )
            with pytest.raises(QRImageUnavailable):
                cached_matrix_from_data_uri(uri)
            assert isinstance(cached_matrix_from_data_uri.peek(uri), QRImageUnavailable)
        # what is not a PNG data URI at all is still said to be so
        assert isinstance(cached_matrix_from_data_uri.peek(None), QRImageError)  # type: ignore[arg-type]
        assert _rejected("https://example.com/qr.png") == "not a PNG data URI"
    cached_matrix_from_data_uri.cache_clear()
    assert cached_matrix_from_data_uri(good).modules  # Pillow back: the image is read again


@pytest.mark.parametrize("open_pos", [False, True], ids=["dashboard", "point-of-sale"])
async def test_without_pillow_the_address_is_shown_with_a_note(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch, open_pos: bool
) -> None:
    """The dashboard says what to install; the point of sale's customer side says only that
    the server's image is not used here. Either way the address's own code is shown."""
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
    address = sim_server.sim.order_wire(token, with_qr=True)["address"]
    settings = make_settings(
        sim_server.base_url, poll_interval=0.2, refresh_interval=60.0, qr_content="server"
    )
    app = make_app(settings, token=token, open_pos=open_pos)
    note = "QR image is not used here" if open_pos else "orderdash[server-qr] to check"
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            with monkeypatch.context() as patch:
                _pillow_missing(patch)
                await wait_until(pilot, lambda: note in screen_text(app), timeout=20)
                app.watcher.refresh_now(token)  # shown again: from the cache, still the note
                await pilot.pause(0.5)
                assert note in screen_text(app)
                assert "unusable" not in screen_text(app)
                assert app.is_running
            # (the screen is read with Pillow, so once it is back)
            assert [text.lower() for text in decode_qr_on_screen(app)] == [address.lower()]
    finally:
        cached_matrix_from_data_uri.cache_clear()
