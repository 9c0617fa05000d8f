"""The customer's screen at a phone's size and in narrow windows: the code on top of the
amounts when narrow and tall (a phone's browser at 390x844 is about 50x55 cells at the page's
font), never the operator's "QR hidden ... enlarge the terminal" (the customer's catalogue
words instead, in their language), and an amount never wrapped inside the number.

Chromium at the phone's and the tablet's sizes: tests/e2e/test_web_display.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import screen_text, wait_until
from orderdash.core.customer.catalogue import LANGUAGES, catalogue
from orderdash.core.customer.channel import Publisher, channel_path
from orderdash.core.customer.face import CustomerFace
from orderdash.tui.customer_display import DisplayApp
from orderdash.tui.widgets.qr import QRView
from support.qr_screen import decode_qr_in_region

ETH_AMOUNT = "0.010452272222947413"
ETH_URI = "ethereum:0x4addc49138459efe3baec3b817dbdec6b8fe1674?value=10452272222947413"


def eth_face() -> CustomerFace:
    return CustomerFace.model_validate(
        {
            "phase": "AWAITING",
            "coin": "ETH",
            "currency": "EUR",
            "payable": True,
            "amount_label": "label_amount_due",
            "coin_amount": ETH_AMOUNT,
            "fiat_amount": "35.54",
            "qr_text": ETH_URI,
            "address": "0x4addc49138459efe3baec3b817dbdec6b8fe1674",
            "company": "Shop",
            "order_id": "7",
        }
    )


async def shown(tmp_path: Path, size: tuple[int, int], language: str) -> tuple[str, list[str]]:
    """The display's screen text and the codes decoded from it, with the ETH order on it (the
    display speaks its own language, whatever the dashboard published in)."""
    path = channel_path("default", tmp_path)
    Publisher(path, language="en").publish(eth_face())
    app = DisplayApp(path, poll_interval=0.05, language=language)
    async with app.run_test(size=size) as pilot:
        qr = app.query_one("#pos-qr", QRView)
        await wait_until(pilot, lambda: qr.display and ETH_AMOUNT in screen_text(app))
        await pilot.pause(0.3)
        return screen_text(app), decode_qr_in_region(app, qr.region)


def whole_amount_on_one_line(text: str) -> bool:
    return any(
        re.search(rf"(^|\s){re.escape(ETH_AMOUNT)}(\s|$)", line) for line in text.split("\n")
    )


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_phone_shows_the_code_above_the_amount(tmp_path: Path, language: str) -> None:
    text, codes = await shown(tmp_path, (50, 55), language)
    assert codes == [ETH_URI]
    assert "QR hidden" not in text and "enlarge" not in text
    assert whole_amount_on_one_line(text)
    lines = text.split("\n")
    first_amount = next(i for i, line in enumerate(lines) if ETH_AMOUNT in line)
    code_rows = [i for i, line in enumerate(lines) if "\u2580" in line]
    assert code_rows and max(code_rows) < first_amount  # stacked: the code on top


@pytest.mark.parametrize("language", LANGUAGES)
async def test_no_room_for_the_code_is_said_in_the_customers_words(
    tmp_path: Path, language: str
) -> None:
    text, codes = await shown(tmp_path, (40, 30), language)
    assert codes == []
    assert "QR hidden" not in text and "enlarge the terminal" not in text
    words = catalogue(language).text("qr_no_room")
    # folded over a few lines in a narrow column: its first characters are on screen
    assert words[:4] in text.replace("\n", "")
    assert whole_amount_on_one_line(text)


@pytest.mark.parametrize("size", [(60, 24), (72, 24), (80, 24), (120, 40)])
async def test_an_amount_is_never_wrapped_inside_the_number(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    text, codes = await shown(tmp_path, size, "en")
    assert whole_amount_on_one_line(text), text
    assert "QR hidden" not in text
    if size[0] >= 72:
        assert codes == [ETH_URI]
