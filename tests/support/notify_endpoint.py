"""A JSON webhook on loopback for Apprise's `json://` URLs: what the notification tests receive."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: Parts of a URL that must never be seen outside the request itself.
USER, PASSWORD, KEY = "owner-x7", "pw-S3cretValue", "hook-K3y-9f81"


class Endpoint:
    """A JSON webhook on 127.0.0.1: records each POST by path; `/fail...` answers 500 always,
    `/flaky...` answers 500 to its first request only."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, object]]] = []
        self._lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with endpoint._lock:
                    seen = sum(1 for path, _ in endpoint.received if path == self.path)
                    endpoint.received.append((self.path, json.loads(body)))
                failing = self.path.startswith("/fail") or (
                    self.path.startswith("/flaky") and seen == 0
                )
                self.send_response(500 if failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str, *, secret: bool = False) -> str:
        who = f"{USER}:{PASSWORD}@" if secret else ""
        return f"json://{who}127.0.0.1:{self.port}/{path}"

    def at(self, path: str) -> list[dict[str, object]]:
        with self._lock:
            return [body for where, body in self.received if where == f"/{path}"]

    def clear(self) -> None:
        with self._lock:
            self.received.clear()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
