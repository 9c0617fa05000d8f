"""A JSON webhook on loopback for Apprise's `json://` URLs: what the notification tests receive."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: Parts of a URL that must never be seen outside the request itself.
USER, PASSWORD, KEY = "owner-x7", "pw-S3cretValue", "hook-K3y-9f81"


class Endpoint:
    """A JSON webhook on 127.0.0.1: records each POST by path; `/fail...` answers 500 always,
    `/flaky...` answers 500 to its first request only, `/redirect...` answers 302 to
    `/moved...` (the same path's rest). Every request, whatever its method, is in `requests`."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, object]]] = []
        #: (method, path) of every request, in the order they came.
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with endpoint._lock:
                    endpoint.requests.append(("POST", self.path))
                    seen = sum(1 for path, _ in endpoint.received if path == self.path)
                    endpoint.received.append((self.path, json.loads(body)))
                if self.path.startswith("/redirect"):
                    self.send_response(302)
                    self.send_header("Location", "/moved" + self.path.removeprefix("/redirect"))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                failing = self.path.startswith("/fail") or (
                    self.path.startswith("/flaky") and seen == 0
                )
                self.send_response(500 if failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                with endpoint._lock:
                    endpoint.requests.append(("GET", self.path))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        # a short poll: `close` waits for it (the default half second, at each test's end)
        serve = {"poll_interval": 0.05}
        threading.Thread(target=self.server.serve_forever, kwargs=serve, daemon=True).start()

    def url(self, path: str, *, secret: bool = False) -> str:
        who = f"{USER}:{PASSWORD}@" if secret else ""
        return f"json://{who}127.0.0.1:{self.port}/{path}"

    def at(self, path: str) -> list[dict[str, object]]:
        with self._lock:
            return [body for where, body in self.received if where == f"/{path}"]

    def clear(self) -> None:
        with self._lock:
            self.received.clear()
            self.requests.clear()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
