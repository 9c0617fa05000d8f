"""A network receipt printer on 127.0.0.1 for the tests: it records the bytes of each
connection (one receipt each), and can be off (nothing listens on its port) and on again on
the same port, as a printer switched off and on."""

from __future__ import annotations

import socket
import threading


class FakePrinter:
    def __init__(self) -> None:
        with socket.create_server(("127.0.0.1", 0)) as probe:
            self.port = int(probe.getsockname()[1])
        self.name = f"127.0.0.1:{self.port}"
        self.received: list[bytes] = []
        self._got = threading.Condition()
        self._server: socket.socket | None = None

    def on(self) -> None:
        """Listening on its port (the same every time)."""
        self._server = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._serve, args=(self._server,), daemon=True).start()

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
