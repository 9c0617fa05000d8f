"""The version (size) of the QR code `matrix.build_matrix` makes of a text, without qrcode.

The dashboard lays out its first paint with the code's room alone and draws the code a frame
later; importing qrcode for that room cost the start-up ~8 ms. This is qrcode's own choice
(`QRCode.add_data` then `best_fit`, at level M): the text split into numeric, alphanumeric and
byte runs as qrcode splits it (runs of 20 or more, by the same patterns), each run's bits
counted, the smallest version whose data capacity holds them. tests/test_qr_version.py checks
it against qrcode itself.
"""

from __future__ import annotations

import re
from bisect import bisect_left

__all__ = ["code_version"]

# qrcode's `add_data` splits into chunks of at least this many characters
_MINIMUM_RUN = 20
_ALPHA_NUM = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
_NUMBER, _ALPHA, _BYTE = 1, 2, 4
# bits of the length field per mode, by version band (1-9, 10-26, 27-40)
_LENGTH_BITS = (
    {_NUMBER: 10, _ALPHA: 9, _BYTE: 8},
    {_NUMBER: 12, _ALPHA: 11, _BYTE: 16},
    {_NUMBER: 14, _ALPHA: 13, _BYTE: 16},
)
# data bits each version holds at error correction level M (index: version; 0 unused)
_CAPACITY_M = (
    0, 128, 224, 352, 512, 688, 864, 992, 1232, 1456, 1728, 2032, 2320, 2672, 2920, 3320, 3624,
    4056, 4504, 5016, 5352, 5712, 6256, 6880, 7312, 8000, 8496, 9024, 9544, 10136, 10984, 11640,
    12328, 13048, 13800, 14496, 15312, 15936, 16816, 17728, 18672,
)  # fmt: skip
_NUMBER_GROUP_BITS = {3: 10, 2: 7, 1: 4}


def _band(version: int) -> dict[int, int]:
    return _LENGTH_BITS[0 if version < 10 else 1 if version < 27 else 2]


def _split(data: bytes, pattern: re.Pattern[bytes]) -> list[tuple[bool, bytes]]:
    runs: list[tuple[bool, bytes]] = []
    while data:
        match = pattern.search(data)
        if not match:
            break
        start, end = match.start(), match.end()
        if start:
            runs.append((False, data[:start]))
        runs.append((True, data[start:end]))
        data = data[end:]
    if data:
        runs.append((False, data))
    return runs


def _chunks(data: bytes) -> list[tuple[int, int]]:
    """(mode, length) of each chunk, as qrcode's `optimal_data_chunks` makes them."""
    digit, alpha = rb"\d", b"[" + re.escape(_ALPHA_NUM) + b"]"
    if len(data) <= _MINIMUM_RUN:
        numbers, letters = re.compile(b"^" + digit + b"+$"), re.compile(b"^" + alpha + b"+$")
    else:
        repeat = b"{%d,}" % _MINIMUM_RUN
        numbers, letters = re.compile(digit + repeat), re.compile(alpha + repeat)
    chunks: list[tuple[int, int]] = []
    for is_number, run in _split(data, numbers):
        if is_number:
            chunks.append((_NUMBER, len(run)))
            continue
        for is_alpha, part in _split(run, letters):
            chunks.append((_ALPHA if is_alpha else _BYTE, len(part)))
    return chunks


def _data_bits(mode: int, length: int) -> int:
    if mode == _NUMBER:
        return 10 * (length // 3) + (_NUMBER_GROUP_BITS[length % 3] if length % 3 else 0)
    if mode == _ALPHA:
        return 11 * (length // 2) + 6 * (length % 2)
    return 8 * length


def code_version(text: str) -> int:
    """The version (1-40) of `text`'s code at level M. Raises ValueError when it does not fit
    (or cannot be encoded as UTF-8), as qrcode does."""
    chunks = _chunks(text.encode("utf-8"))
    payload = sum(4 + _data_bits(mode, length) for mode, length in chunks)
    version = 1
    while True:
        band = _band(version)
        needed = payload + sum(band[mode] for mode, _ in chunks)
        version = bisect_left(_CAPACITY_M, needed, version)
        if version > 40:
            raise ValueError(f"too long for a QR code ({len(text)} characters)")
        if _band(version) is band:
            return version
