"""The QR version counted without qrcode (`core/qr/version.py`) is qrcode's own choice."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
import qrcode
from qrcode.constants import ERROR_CORRECT_M
from qrcode.exceptions import DataOverflowError

from orderdash.core.qr.matrix import QRError, matrix_for, matrix_size
from orderdash.core.qr.version import code_version

ALPHABETS = (
    "0123456789",
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:",
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEF:?=.&/",
    "0123456789ABCDEF:?=.\n",
    "0123456789é€:?",
)


def qrcode_version(text: str) -> int | None:
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M)
    try:
        code.add_data(text)
        return code.best_fit()
    except (DataOverflowError, ValueError):
        return None


def version_or_none(text: str) -> int | None:
    try:
        return code_version(text)
    except ValueError:
        return None


def texts() -> list[str]:
    rng = random.Random(29)
    found = []
    for alphabet in ALPHABETS:
        for length in (*range(1, 45), 60, 100, 200, 400, 800, 1500, 2500, 3000, 4300, 7089):
            found.append("".join(rng.choice(alphabet) for _ in range(length)))
    # runs of each kind around qrcode's minimum run of 20, mixed
    for _ in range(300):
        parts = [
            rng.choice(ALPHABETS[:3])[: rng.randint(1, 45)] * rng.randint(1, 3)
            for _ in range(rng.randint(1, 6))
        ]
        found.append("".join(parts))
    found += ["123\n", "ABC\n", "bitcoin:BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ?amount=0.5"]
    return found


def test_the_version_is_qrcodes_for_every_kind_of_text() -> None:
    for text in texts():
        assert version_or_none(text) == qrcode_version(text), text


def test_text_that_cannot_be_encoded_is_refused_as_qrcode_refuses_it() -> None:
    assert qrcode_version("\ud800") is None
    with pytest.raises(QRError):
        matrix_size("\ud800")
    with pytest.raises(QRError):
        matrix_size("é" * 3000)  # 6,000 bytes: over any version


def test_the_size_is_the_drawn_codes() -> None:
    for text in (
        "1",
        "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00123",
        "A" * 300,
    ):
        assert matrix_size(text) == matrix_for(text).size


def test_the_size_loads_no_qrcode() -> None:
    code = (
        "import sys; from orderdash.core.qr.matrix import matrix_size; "
        "matrix_size('bitcoin:abc?amount=1'); print('qrcode' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
