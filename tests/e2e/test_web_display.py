"""`orderdash display --web` in a real browser: Debian's Chromium driven by playwright.

The simulator serves an order; a publisher (the dashboard's own publishing code, reading the
order through the real client) puts it on the channel; `orderdash display --web` serves the
display; Chromium loads it. The QR is decoded from the screenshot's pixels; a payment through
the simulator turns the banner green and the code goes; a non-loopback bind refuses anything
without the pairing key (and starts no process); the page asks nothing of any other origin;
a dropped server comes back by itself.

Chromium comes from `ORDERDASH_CHROMIUM` or `chromium` on PATH (playwright's own download is
not used); without one the tests skip and say so. One browser for the module.
"""

from __future__ import annotations

import re
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from orderdash.core.domain.text import amount_text
from orderdash.simulator import SimulatorServer
from support.browser import (
    GOOD,
    VIEWPORT,
    Display,
    OrderPublisher,
    banner_colour,
    chromium_path,
    close_to,
    decoded,
    free_port,
    screenshot,
    wait_for,
)

pytestmark = pytest.mark.heavy

playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    path = chromium_path()
    if path is None:
        pytest.skip(
            "no Chromium: install Debian's chromium (apt-get install chromium) or set "
            "ORDERDASH_CHROMIUM to its executable"
        )
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=path, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def order(sim_server: SimulatorServer, runtime_dir: Path) -> Iterator[tuple[str, str]]:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="25.00")
    publisher = OrderPublisher(sim_server, token, runtime_dir)
    yield token, sim_server.sim.order_wire(token, with_qr=False)["address"]
    publisher.stop()


def test_the_browser_shows_the_order_and_its_payment(
    browser: object, sim_server: SimulatorServer, order: tuple[str, str], runtime_dir: Path
) -> None:
    token, address = order
    # a configured key: the page's address stays the same when the server comes back
    key = "kiosk-key-0123456789abcdef"
    display = Display("127.0.0.1", free_port(), runtime_dir, key=key)
    try:
        page = browser.new_page(viewport=VIEWPORT)  # type: ignore[attr-defined]
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.on("websocket", lambda socket: requests.append(socket.url))
        page.goto(display.url)

        def expected() -> list[str]:
            # the simulator renews the amount with the rate every minute: what it asks now
            due = sim_server.sim.order_wire(token, with_qr=False)["amount"]
            return [f"BITCOIN:{address.upper()}?amount={amount_text(due)}"]

        wait_for(
            lambda: decoded(screenshot(page)) == expected(),
            what="the QR code of the amount due in the page",
        )
        before = banner_colour(screenshot(page))
        assert not close_to(before, GOOD)

        sim_server.sim.add_transaction(token)  # pays what is due

        def paid() -> Image.Image | None:
            shot = screenshot(page)
            return shot if close_to(banner_colour(shot), GOOD) else None

        image = wait_for(paid, what="the green banner after the payment")
        assert decoded(image) == []  # nothing left to pay: no code

        # the page asked nothing of any other origin (websocket included)
        origin = re.compile(rf"^(http|ws)://127\.0\.0\.1:{display.port}/")
        assert requests and all(origin.match(url) for url in requests), requests

        # the server goes away and comes back: the page reconnects by itself
        display.stop()
        wait_for(
            lambda: page.locator(".notice.-reconnecting").is_visible(),
            timeout=10,
            what="the page to say it reconnects",
        )
        assert not close_to(banner_colour(screenshot(page)), GOOD)
        display = Display("127.0.0.1", display.port, runtime_dir, key=key)
        wait_for(
            lambda: close_to(banner_colour(screenshot(page)), GOOD),
            timeout=25,
            what="the page to come back by itself",
        )
        assert not page.locator(".notice.-reconnecting").is_visible()
        page.close()
    finally:
        display.stop()


def test_a_lan_bind_wants_the_pairing_key(
    browser: object, order: tuple[str, str], runtime_dir: Path
) -> None:
    _, address = order
    # 127.0.0.2 is not 127.0.0.1/::1/localhost, so it counts as a network bind; connecting to
    # it stays on this machine
    display = Display("127.0.0.2", free_port("127.0.0.2"), runtime_dir)
    try:
        assert display.key and len(display.key) >= 20
        for path in ("", "?key=wrong", "static/js/textual.js", "ws?width=80&height=24"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(display.bare_url + path, timeout=5)
            assert refused.value.code == 403
        # a websocket handshake without the key: refused, and no display process started
        with socket.create_connection((display.host, display.port), timeout=5) as raw:
            raw.sendall(
                b"GET /ws?width=80&height=24 HTTP/1.1\r\nHost: 127.0.0.2\r\n"
                b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
            )
            assert raw.recv(100).startswith(b"HTTP/1.1 403")
        time.sleep(0.5)
        assert display.children() == []

        page = browser.new_page(viewport=VIEWPORT)  # type: ignore[attr-defined]
        page.goto(display.url)
        texts = wait_for(lambda: decoded(screenshot(page)), what="a QR code with the key")
        assert address.upper() in texts[0]
        assert len(display.children()) == 1
        page.close()
    finally:
        display.stop()


@pytest.mark.parametrize(
    ("device", "viewport", "language"),
    [
        ("phone", {"width": 390, "height": 844}, "ja"),
        ("tablet", {"width": 1024, "height": 768}, "en"),
    ],
)
def test_a_phone_and_a_tablet_show_a_code_sized_to_the_screen(
    browser: object,
    sim_server: SimulatorServer,
    runtime_dir: Path,
    device: str,
    viewport: dict[str, int],
    language: str,
) -> None:
    """An ETH order (its EIP-681 request is a version 5 code, 41 cells with its margin) on a
    phone at 390x844 in Japanese and a tablet at 1024x768: the code is decoded from Chromium's
    pixels, and takes a good part of the screen's width."""
    import zxingcpp

    token = sim_server.sim.create_order(coin="eth", currency="EUR", amount_fiat="35.54")
    address = sim_server.sim.order_wire(token, with_qr=False)["address"]
    publisher = OrderPublisher(sim_server, token, runtime_dir, language=language)
    display = Display("127.0.0.1", free_port(), runtime_dir)
    try:
        page = browser.new_page(viewport=viewport)  # type: ignore[attr-defined]
        page.goto(display.url)

        def expected() -> set[str]:
            due = sim_server.sim.order_wire(token, with_qr=False)["amount"]
            wei = int((due * 10**18).to_integral_value(rounding="ROUND_CEILING"))
            return {f"ethereum:{address}?value={wei}"}

        def found() -> list[object]:
            codes = zxingcpp.read_barcodes(screenshot(page))
            return codes if {code.text for code in codes} <= expected() and codes else []

        codes = wait_for(found, timeout=30, what=f"the EIP-681 code on the {device}")
        position = codes[0].position  # type: ignore[attr-defined]
        width = max(position.top_right.x, position.bottom_right.x) - min(
            position.top_left.x, position.bottom_left.x
        )
        assert width >= viewport["width"] * (0.6 if device == "phone" else 0.25), width
        page.close()
    finally:
        display.stop()
        publisher.stop()
