"""A network receipt printer on loopback for the tests: it records the bytes of each
connection (one receipt each), and can be off (nothing listens on its port) and on again on
the same port, as a printer switched off and on. `closed_port()`: a printer that is off."""

from __future__ import annotations

import socket
import threading


def closed_port(host: str = "127.0.0.1") -> int:
    """A port on `host` nothing listens on: a printer that is off (connection refused)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.create_server((host, 0), family=family) as probe:
        return int(probe.getsockname()[1])


class FakePrinter:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self._family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.port = closed_port(host)
        self.name = f"[{host}]:{self.port}" if ":" in host else f"{host}:{self.port}"
        self.received: list[bytes] = []
        self._got = threading.Condition()
        self._server: socket.socket | None = None
        self._taken = 0

    def on(self) -> FakePrinter:
        """Listening on its port (the same every time)."""
        self._server = socket.create_server((self.host, self.port), family=self._family)
        threading.Thread(target=self._serve, args=(self._server,), daemon=True).start()
        return self

    def off(self) -> None:
        """Nothing listens on its port: a printer switched off (connection refused)."""
        if self._server is not None:
            # (a close alone leaves the port listening while the thread waits in accept)
            self._server.shutdown(socket.SHUT_RDWR)
            self._server.close()
            self._server = None

    def _serve(self, server: socket.socket) -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            data = bytearray()
            with connection:
                while chunk := connection.recv(65536):
                    data += chunk
            with self._got:
                self.received.append(bytes(data))
                self._got.notify_all()

    def count(self) -> int:
        with self._got:
            return len(self.received)

    def wait(self, timeout: float = 5.0) -> bytes:
        """The newest receipt, once one has come since the last `wait` (or since it was made)."""
        with self._got:
            got = self._got.wait_for(lambda: len(self.received) > self._taken, timeout)
            assert got, "the printer got nothing"
            self._taken = len(self.received)
            return self.received[-1]
