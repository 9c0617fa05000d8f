"""`orderdash display --web`: the customer display served to browsers through textual-serve,
one display process per browser connection.

- Loopback by default. Any other `--host` (anything but 127.0.0.1, ::1, localhost) requires a
  pairing key: random, printed once at start, required as `?key=...` on every request (the
  page, its assets, the websocket). Without it: 403, and no process is started.
- On a loopback bind without a key, the Host header must name loopback (a page elsewhere
  cannot reach it by rebinding a DNS name to 127.0.0.1), and a websocket's Origin must be the
  page's own.
- The page (`templates/app_index.html`, ours, replacing textual-serve's) asks nothing of any
  other origin: the font is textual-serve's own Roboto Mono, served here, with the system's
  monospace as fallback (textual-serve's page loads it from a CDN; a kiosk is often offline).
- A dropped connection comes back by itself: when the session ends the page waits for the
  server to answer and reloads, so a tablet never stays on "Session ended".
"""

from __future__ import annotations

import os
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from aiohttp import web
from textual_serve.server import Server

from orderdash.core.runtime.config import SECRET_VARIABLES

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
TEMPLATES = Path(__file__).parent / "templates"

CSP = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; font-src 'self'; "
    "style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def needs_key(host: str) -> bool:
    """A bind other than loopback is reachable from the network: it takes a pairing key."""
    return host.strip("[]").lower() not in LOOPBACK_HOSTS


def _host_name(host_header: str) -> str:
    """'127.0.0.1:8080' -> '127.0.0.1'; '[::1]:8080' -> '::1'."""
    if host_header.startswith("["):
        return host_header[1:].partition("]")[0].lower()
    return host_header.rpartition(":")[0].lower() if ":" in host_header else host_header.lower()


class DisplayServer(Server):
    """textual-serve's server with a pairing key, loopback Host checks and our own page."""

    def __init__(self, command: str, host: str, port: int, *, key: str | None) -> None:
        super().__init__(command, host=host, port=port, title="orderdash display")
        self.templates_path = TEMPLATES
        self.key = key

    def _refused(self, request: web.Request) -> str | None:
        """Why `request` is refused, or None."""
        if self.key is not None:
            given = request.query.get("key", "")
            if not secrets.compare_digest(given.encode(), self.key.encode()):
                return "pairing key required"
            return None
        if _host_name(request.host) not in LOOPBACK_HOSTS:
            return "loopback only"
        origin = request.headers.get("Origin")
        if origin is not None and origin.split("://", 1)[-1] != request.host:
            return "another origin"
        return None

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()

        @web.middleware
        async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
            # before any handler: a refused websocket never reaches the one that starts a process
            reason = self._refused(request)
            if reason is not None:
                return web.Response(status=403, text=f"403 Forbidden: {reason}\n")
            response = await handler(request)
            response.headers.setdefault("Cache-Control", "no-store")
            response.headers.setdefault("Referrer-Policy", "no-referrer")
            # the browser itself holds the page to its own origin (textual.js would fetch a
            # `?ping=` address of any origin)
            response.headers.setdefault("Content-Security-Policy", CSP)
            return response

        app.middlewares.append(guard)
        return app

    async def handle_index(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        import aiohttp_jinja2

        # URLs from the request's own origin: a LAN client must not be sent to 0.0.0.0
        scheme = "wss" if request.secure else "ws"
        query = f"?key={self.key}" if self.key else ""
        context: dict[str, Any] = {
            "font_size": 16,
            "app_websocket_url": f"{scheme}://{request.host}/ws",
            "static_url": "/static/",
            "key_query": query,
            "title": "orderdash display",
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    async def on_startup(self, app: web.Application) -> None:
        where = f"http://{self.host}:{self.port}/"
        if ":" in self.host:
            where = f"http://[{self.host}]:{self.port}/"
        if self.key is not None:
            where += f"?key={self.key}"
            print(f"orderdash display: pairing key {self.key} (shown once)", file=sys.stderr)
        print(f"orderdash display: serving on {where}  (Ctrl+C to stop)", file=sys.stderr)

    def initialize_logging(self) -> None:
        """Quiet: the key is printed once above and never logged with each request."""


def display_command(channel: str, options: Mapping[str, str]) -> str:
    """The command line of one display process (run by textual-serve through a shell)."""
    parts = [sys.executable, "-m", "orderdash", "display", "--channel", channel]
    for option, value in options.items():
        parts += [option, value]
    return " ".join(shlex.quote(part) for part in parts)


def serve_display(host: str, port: int, channel: str, options: Mapping[str, str]) -> int:
    # textual-serve starts every display process with this process's environment; this one
    # reads no token, so the secrets' variables go before any process (or thread) starts
    for name in SECRET_VARIABLES:
        os.environ.pop(name, None)
    key = secrets.token_urlsafe(18) if needs_key(host) else None
    server = DisplayServer(display_command(channel, options), host, port, key=key)
    try:
        server.serve()
    except OSError as error:
        from orderdash.core.service.errors import UsageError

        raise UsageError(f"cannot serve on {host}:{port}: {error.strerror or error}") from None
    return 0
