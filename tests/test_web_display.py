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

import asyncio
import contextlib
import io
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import zxingcpp
from PIL import Image

from conftest import make_settings
from orderdash.core.customer.channel import Publisher, channel_path
from orderdash.core.customer.face import customer_face
from orderdash.core.domain.payment import payment_state
from orderdash.core.qr.payload import QRContent, qr_payload
from orderdash.core.service.client import OrderClient
from orderdash.simulator import SimulatorServer

playwright_api = pytest.importorskip("playwright.sync_api")

#: The banner's colour once a payment is in (CustomerPanel's `-good`).
GOOD = (0x2E, 0x8B, 0x57)
VIEWPORT = {"width": 1100, "height": 760}


def chromium_path() -> str | None:
    given = os.environ.get("ORDERDASH_CHROMIUM")
    if given:
        return given if Path(given).exists() else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


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


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def wait_for_port(host: str, port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on {host}:{port}")


class Display:
    """`orderdash display --web` in a subprocess; `key` is the pairing key it printed."""

    def __init__(self, host: str, port: int, runtime_dir: Path) -> None:
        self.host, self.port = host, port
        env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime_dir), "ORDERDASH_CONFIG": os.devnull}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "orderdash", "display", "--web", "--host", host,
             "--port", str(port), "--title", "Test Shop"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )  # fmt: skip
        self.key: str | None = None
        assert self.process.stderr is not None
        for _ in range(2):
            line = self.process.stderr.readline()
            found = re.search(r"pairing key (\S+)", line)
            if found:
                self.key = found.group(1)
            if "serving on" in line:
                break
        wait_for_port(host, port)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def children(self) -> list[str]:
        """The display processes the server started."""
        found = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", str(self.process.pid)], capture_output=True, text=True
        )
        return found.stdout.split()

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self.process.stderr is not None:
            self.process.stderr.close()


class OrderPublisher:
    """What a dashboard does for the customer display, in a thread: read the order through the
    client, build the customer's face, publish it, every half second."""

    def __init__(self, server: SimulatorServer, token: str, runtime_dir: Path) -> None:
        self.settings = make_settings(server.base_url)
        self.token = token
        self.publisher = Publisher(channel_path("default", runtime_dir / "orderdash"))
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self.thread.start()

    async def _run(self) -> None:
        async with OrderClient.from_settings(self.settings) as client:
            while not self.stop_event.is_set():
                fetched = await client.get_order(self.token)
                state = payment_state(fetched.order, fetched.received_at)
                payload = qr_payload(fetched.order, state, QRContent.AUTO)
                self.publisher.publish(customer_face(fetched.order, state, payload))
                await asyncio.sleep(0.5)
        self.publisher.end()

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(timeout=10)


def screenshot(page: object) -> Image.Image:
    return Image.open(io.BytesIO(page.screenshot())).convert("RGB")  # type: ignore[attr-defined]


def decoded(image: Image.Image) -> list[str]:
    return [result.text for result in zxingcpp.read_barcodes(image)]


def wait_for(predicate, timeout: float = 20.0, step: float = 0.3):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(step)


def banner_colour(image: Image.Image) -> tuple[int, int, int]:
    # the middle row of the three-row banner, away from its text
    return image.getpixel((8, 25))  # type: ignore[return-value]


def close_to(colour: tuple[int, int, int], wanted: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 12 for a, b in zip(colour, wanted, strict=True))


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
    display = Display("127.0.0.1", free_port(), runtime_dir)
    try:
        page = browser.new_page(viewport=VIEWPORT)  # type: ignore[attr-defined]
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.on("websocket", lambda socket: requests.append(socket.url))
        page.goto(display.url)
        texts = wait_for(lambda: decoded(screenshot(page)))
        due = sim_server.sim.order_wire(token, with_qr=False)["amount"]
        assert texts == [f"BITCOIN:{address.upper()}?amount={due}"]
        before = banner_colour(screenshot(page))
        assert not close_to(before, GOOD)

        sim_server.sim.add_transaction(token)  # pays what is due

        def paid() -> Image.Image | None:
            shot = screenshot(page)
            return shot if close_to(banner_colour(shot), GOOD) else None

        image = wait_for(paid)
        assert decoded(image) == []  # nothing left to pay: no code

        # the page asked nothing of any other origin (websocket included)
        origin = re.compile(rf"^(http|ws)://127\.0\.0\.1:{display.port}/")
        assert requests and all(origin.match(url) for url in requests), requests

        # the server goes away and comes back: the page reconnects by itself
        display.stop()
        wait_for(lambda: page.locator(".notice.-reconnecting").is_visible(), timeout=10)
        assert not close_to(banner_colour(screenshot(page)), GOOD)
        display = Display("127.0.0.1", display.port, runtime_dir)
        wait_for(lambda: close_to(banner_colour(screenshot(page)), GOOD), timeout=25)
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
                urllib.request.urlopen(display.url + path, timeout=5)
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
        page.goto(f"{display.url}?key={display.key}")
        texts = wait_for(lambda: decoded(screenshot(page)))
        assert address.upper() in texts[0]
        assert len(display.children()) == 1
        page.close()
    finally:
        display.stop()
