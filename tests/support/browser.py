"""Driving the web customer display from Python: Debian's Chromium (found through
ORDERDASH_CHROMIUM or `chromium` on PATH), `orderdash display --web` in a subprocess, and a
publisher doing what a dashboard does for the display. Used by tests/e2e/test_web_display.py and
scripts/screenshots.py.
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
from pathlib import Path

import zxingcpp
from PIL import Image

from conftest import make_settings
from orderdash.core.customer.channel import Publisher, channel_path
from orderdash.core.customer.face import customer_face
from orderdash.core.domain.payment import payment_state
from orderdash.core.qr.payload import QRContent, qr_payload
from orderdash.core.service.client import OrderClient
from orderdash.simulator import SimulatorServer

#: The banner's colour once a payment is in (CustomerPanel's `-good`).
GOOD = (0x2E, 0x8B, 0x57)
VIEWPORT = {"width": 1100, "height": 760}


def chromium_path() -> str | None:
    given = os.environ.get("ORDERDASH_CHROMIUM")
    if given:
        return given if Path(given).exists() else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


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

    def __init__(
        self,
        host: str,
        port: int,
        runtime_dir: Path,
        *,
        extra: tuple[str, ...] = (),
        key: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.host, self.port = host, port
        env = {
            **os.environ,
            "XDG_RUNTIME_DIR": str(runtime_dir),
            "ORDERDASH_CONFIG": os.devnull,
            **(env or {}),
        }
        if key is not None:  # a configured key: the same address across restarts
            env["ORDERDASH_DISPLAY_WEB_KEY"] = key
        self.process = subprocess.Popen(
            [sys.executable, "-m", "orderdash", "display", "--web", "--host", host,
             "--port", str(port), "--title", "Test Shop", *extra],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )  # fmt: skip
        self.key: str | None = key
        #: What the server wrote on stderr (read all along: a full pipe would stall it).
        self.log: list[str] = []
        assert self.process.stderr is not None
        for _ in range(2):
            line = self.process.stderr.readline()
            self.log.append(line)
            found = re.search(r"pairing key (\S+)", line)
            if found:
                self.key = found.group(1)
            if "serving on" in line:
                break
        threading.Thread(target=self._drain, daemon=True).start()
        try:
            wait_for_port(host, port)
        except AssertionError:
            self.stop()
            raise AssertionError(f"the display did not start: {''.join(self.log)}") from None

    def _drain(self) -> None:
        assert self.process.stderr is not None
        with contextlib.suppress(ValueError, OSError):
            for line in self.process.stderr:
                self.log.append(line)
        self.process.stderr.close()

    @property
    def bare_url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    @property
    def url(self) -> str:
        """The page's address with the key, as the server printed it."""
        return f"{self.bare_url}?key={self.key}" if self.key else self.bare_url

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


class OrderPublisher:
    """What a dashboard does for the customer display, in a thread: read the order through the
    client, build the customer's face, publish it, every half second."""

    def __init__(
        self, server: SimulatorServer, token: str, runtime_dir: Path, *, language: str = "en"
    ) -> None:
        self.settings = make_settings(server.base_url)
        self.token = token
        path = channel_path("default", runtime_dir / "orderdash")
        self.publisher = Publisher(path, language=language)
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


def wait_for(predicate, timeout: float = 20.0, step: float = 0.3, what: str = ""):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or predicate}")
        time.sleep(step)


def banner_colour(image: Image.Image) -> tuple[int, int, int]:
    # the middle row of the three-row banner, away from its text
    return image.getpixel((8, 25))  # type: ignore[return-value]


def close_to(colour: tuple[int, int, int], wanted: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 12 for a, b in zip(colour, wanted, strict=True))
