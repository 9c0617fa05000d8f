"""A small HTTP proxy in front of the simulator, for `doctor`'s tests: it can drop request
headers whose names have an underscore (as nginx does by default) and send a `Date` header
skewed by so many seconds."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_HOP = frozenset({"host", "connection", "keep-alive", "transfer-encoding", "content-length"})


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    upstream: tuple[str, int]
    drop_underscores: bool
    date_skew: float


class _Forward(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _ProxyServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
        pass  # quiet: the test reads the doctor's output

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {
            name: value
            for name, value in self.headers.items()
            if name.lower() not in _HOP and not (self.server.drop_underscores and "_" in name)
        }
        upstream = http.client.HTTPConnection(*self.server.upstream, timeout=5)
        try:
            upstream.request(self.command, self.path, body=body, headers=headers)
            answer = upstream.getresponse()
            data = answer.read()
            self.send_response_only(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in _HOP and name.lower() != "date":
                    self.send_header(name, value)
        finally:
            upstream.close()
        self.send_header("Date", formatdate(time.time() + self.server.date_skew, usegmt=True))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_POST = do_HEAD = _forward


@contextmanager
def header_proxy(
    upstream_url: str, *, drop_underscores: bool = False, date_skew: float = 0.0
) -> Iterator[str]:
    """A proxy to `upstream_url` on a free loopback port, while the block runs: its base URL."""
    parts = urlsplit(upstream_url)
    server = _ProxyServer(("127.0.0.1", 0), _Forward)
    server.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
    server.drop_underscores, server.date_skew = drop_underscores, date_skew
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{parts.path}"
    finally:
        server.shutdown()
        server.server_close()
