"""`--timeout` is the overall deadline of a request in every command, the blocking client of
`orderdash get` (and of a dashboard's first read) too: a server on loopback that accepts and
then holds its headers, or drips them a byte at a time, is given up on at the deadline, not
after the read timeout (10 s) or never."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from conftest import run_cli
from orderdash.core.model import errors
from orderdash.core.service.client import OrderClient, Timeouts
from orderdash.simulator import DEMO_TOKENS

TOKEN = DEMO_TOKENS[0]
#: The server gives up on its own after this long, whatever the client does.
SERVER_LIFETIME = 30.0
#: Far under the read timeout (10 s) that bounded the wait before, far over the deadline (2 s).
GENEROUS = 7.0


class HoldingServer:
    """Accepts, reads the request, then holds the headers (`drip`: sends them a byte every
    0.5 s, for ever). Stops by itself after `SERVER_LIFETIME`."""

    def __init__(self, *, drip: bool = False) -> None:
        self.drip = drip
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> HoldingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(5)
        self.listener.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        end = time.monotonic() + SERVER_LIFETIME
        held: list[socket.socket] = []
        try:
            while not self.stopping.is_set() and time.monotonic() < end:
                try:
                    conn, _ = self.listener.accept()
                except TimeoutError:
                    continue
                conn.settimeout(1.0)
                held.append(conn)
                threading.Thread(target=self._talk, args=(conn, end), daemon=True).start()
        finally:
            for conn in held:
                conn.close()

    def _talk(self, conn: socket.socket, end: float) -> None:
        try:
            conn.recv(65536)
            headers = b"HTTP/1.1 200 OK\r\n" + b"X-Slow: " + b"a" * 10_000
            for byte in headers:
                if self.stopping.wait(0.5) or time.monotonic() > end:
                    return
                if self.drip:
                    conn.sendall(bytes([byte]))
        except OSError:
            return


@pytest.mark.parametrize("drip", [False, True], ids=["held", "dripped"])
def test_the_blocking_client_gives_up_at_the_overall_deadline(drip: bool) -> None:
    timeouts = Timeouts(connect=5.0, read=10.0, deadline=2.0)
    with HoldingServer(drip=drip) as server:
        client = OrderClient(server.url, timeouts=timeouts)
        started = time.monotonic()
        with pytest.raises(errors.Timeout, match="within 2 s"):
            client.get_order_now(TOKEN)
        elapsed = time.monotonic() - started
    assert 1.5 < elapsed < GENEROUS


def test_get_with_timeout_2_returns_in_about_2_seconds() -> None:
    with HoldingServer() as server:
        started = time.monotonic()
        done = run_cli("get", TOKEN, "--base-url", server.url, "--timeout", "2")
        elapsed = time.monotonic() - started
    assert done.returncode != 0
    assert "within 2 s" in done.stderr
    assert elapsed < GENEROUS + 3  # the interpreter's start on a busy machine besides
