"""Deterministic, realistic-looking payment addresses for the simulated coins.

The addresses are well formed (bech32 / CashAddr / Base58Check checksums are correct), but they
are derived from a hash of the simulator seed and the order token, so nobody holds their keys.
Never send real funds to them.
"""

from __future__ import annotations

import hashlib

_BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _convert_bits(data: bytes, from_bits: int, to_bits: int) -> list[int]:
    acc = 0
    bits = 0
    out: list[int] = []
    maxv = (1 << to_bits) - 1
    for value in data:
        acc = (acc << from_bits) | value
        bits += from_bits
        while bits >= to_bits:
            bits -= to_bits
            out.append((acc >> bits) & maxv)
    if bits:
        out.append((acc << (to_bits - bits)) & maxv)
    return out


def _bech32_polymod(values: list[int]) -> int:
    generator = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
    chk = 1
    for value in values:
        top = chk >> 25
        chk = ((chk & 0x1FFFFFF) << 5) ^ value
        for i in range(5):
            if (top >> i) & 1:
                chk ^= generator[i]
    return chk


def bech32_p2wpkh(hrp: str, program: bytes) -> str:
    """A segwit v0 address (bech32, BIP 173) for a 20-byte program."""
    data = [0, *_convert_bits(program, 8, 5)]
    expanded = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    polymod = _bech32_polymod(expanded + data + [0] * 6) ^ 1
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(_BECH32_CHARSET[d] for d in data + checksum)


def _cashaddr_polymod(values: list[int]) -> int:
    generators = (0x98F2BC8E61, 0x79B76D99E2, 0xF33E5FB3C4, 0xAE2EABE2A8, 0x1E4F43E470)
    c = 1
    for value in values:
        top = c >> 35
        c = ((c & 0x07FFFFFFFF) << 5) ^ value
        for i in range(5):
            if (top >> i) & 1:
                c ^= generators[i]
    return c ^ 1


def cashaddr_p2pkh(program: bytes, prefix: str = "bitcoincash") -> str:
    """A Bitcoin Cash CashAddr P2PKH address for a 20-byte hash."""
    payload = _convert_bits(bytes([0]) + program, 8, 5)
    prefix_data = [ord(c) & 0x1F for c in prefix] + [0]
    polymod = _cashaddr_polymod(prefix_data + payload + [0] * 8)
    checksum = [(polymod >> 5 * (7 - i)) & 0x1F for i in range(8)]
    return prefix + ":" + "".join(_BECH32_CHARSET[d] for d in payload + checksum)


def base58check(version: int, program: bytes) -> str:
    """Base58Check of one version byte and a 20-byte hash (legacy-style address)."""
    payload = bytes([version]) + program
    checksum = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    raw = payload + checksum
    number = int.from_bytes(raw, "big")
    chars: list[str] = []
    while number:
        number, rem = divmod(number, 58)
        chars.append(_BASE58_ALPHABET[rem])
    leading = len(raw) - len(raw.lstrip(b"\x00"))
    return "1" * leading + "".join(reversed(chars))


def make_address(coin: str, seed: int | str, token: str) -> str:
    """The deterministic address of one order for one coin ('' for an unknown coin)."""
    digest = hashlib.sha256(f"orderdash-sim:{seed}:{coin}:{token}".encode()).digest()
    program = digest[:20]
    if coin == "btc":
        return bech32_p2wpkh("bc", program)  # bc1q..., 42 characters
    if coin == "ltc":
        return bech32_p2wpkh("ltc", program)  # ltc1q..., 43 characters
    if coin == "eth":
        return "0x" + program.hex()  # 0x + 40 hex
    if coin == "doge":
        return base58check(0x1E, program)  # D..., 34 characters
    if coin == "usdt":
        return base58check(0x41, program)  # T... (TRC-20), 34 characters
    if coin == "bch":
        return cashaddr_p2pkh(program)  # bitcoincash:q..., 54 characters
    return ""
