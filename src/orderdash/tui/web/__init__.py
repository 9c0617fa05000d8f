"""`orderdash display --web`: the customer display served to browsers through textual-serve,
one display process per browser connection.

- A key guards every request (the page, its assets, the websocket): `display_web_key` when
  configured, else a random one made at each start and printed once in the URL. Without it:
  403, and no process is started. On a loopback bind the Host header must also name loopback
  and a websocket's Origin must be the page's own.
- Bounded: the terminal size a browser asks for (the websocket's `width`/`height`, and every
  resize) is clamped to what a screen can have (`MAX_COLUMNS` x `MAX_ROWS`); at most
  `display_web_max` display processes run at once, and the next connection is told the display
  is busy (a page that tries again by itself) instead of starting one; a process ends with its
  connection, whatever it was doing (asked to quit, killed after `QUIT_GRACE` seconds: a
  process blocked writing a frame nobody reads is killed too). `/static/` lists no directory.
- The page (`templates/app_index.html`, ours, replacing textual-serve's) asks nothing of any
  other origin: the font is textual-serve's own Roboto Mono, served here, with the system's
  monospace as fallback (textual-serve's page loads it from a CDN; a kiosk is often offline).
- A dropped connection comes back by itself: when the session ends the page waits for the
  server to answer and reloads, so a tablet never stays on "Session ended".
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import os
import secrets
import shlex
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from orderdash.core.customer.catalogue import catalogue
from orderdash.core.model.errors import UsageError
from orderdash.core.settings.sources import SECRET_VARIABLES

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
TEMPLATES = Path(__file__).parent / "templates"

CSP = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; font-src 'self'; "
    "style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
#: The largest terminal a screen can show: an 8K screen (7680x4320 CSS pixels) at the page's
#: 16 px font (a cell about 9.6x19 pixels) is 800 columns by 227 rows. Larger sizes only cost
#: memory (a 3000x3000 terminal's first frame alone is hundreds of megabytes).
MAX_COLUMNS, MAX_ROWS = 800, 240
MIN_COLUMNS, MIN_ROWS = 10, 5
#: Seconds a display process has to quit once its browser left, before it is killed.
QUIT_GRACE = 2.0
#: Seconds to wait for a killed process to be reaped.
KILL_WAIT = 5.0
#: Seconds between the busy page's tries.
BUSY_RETRY = 10


def clamped_size(width: object, height: object) -> tuple[int, int]:
    """A terminal size from a browser (query text or JSON), within what a screen can have;
    anything not a whole number counts as the default 80x24."""
    return (
        _bounded(width, 80, MIN_COLUMNS, MAX_COLUMNS),
        _bounded(height, 24, MIN_ROWS, MAX_ROWS),
    )


def _bounded(value: object, default: int, low: int, high: int) -> int:
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 9:
        number = int(value)
    elif type(value) is int:
        number = value
    else:
        number = default
    return min(max(number, low), high)


async def _exited(process: asyncio.subprocess.Process, seconds: float) -> bool:
    """Whether `process` has exited, looking every 50 ms for `seconds` at most."""
    for _ in range(max(1, round(seconds / 0.05))):
        if process.returncode is not None:
            return True
        await asyncio.sleep(0.05)
    return process.returncode is not None


class DisplayProcess(AppService):
    """textual-serve's process for one connection, bounded: any size it is given is clamped,
    and `stop` ends it for sure."""

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        # textual-serve's own, in a process group of its own: the shell it runs the command
        # through and the display process end together when the group is killed
        environment = self._build_environment(width=width, height=height)
        self._process = process = await asyncio.create_subprocess_shell(
            self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width=width, height=height)
        # the key guards the server; a display process has no use for it
        environment.pop("ORDERDASH_DISPLAY_WEB_KEY", None)
        return environment

    async def start(self, width: int, height: int) -> None:
        await super().start(*clamped_size(width, height))

    async def set_terminal_size(self, width: int, height: int) -> None:
        await super().set_terminal_size(*clamped_size(width, height))

    async def stop(self) -> None:
        """Ask the process to quit; kill it if it has not within `QUIT_GRACE` seconds (a process
        blocked writing to a pipe nobody reads never reads the request)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + QUIT_GRACE
        try:
            await asyncio.wait_for(super().stop(), QUIT_GRACE)
        except (TimeoutError, OSError, RuntimeError):
            pass
        finally:
            await self.end(max(deadline - loop.time(), 0.1))

    async def end(self, grace: float) -> None:
        """Wait `grace` seconds at most for the process to be gone, then kill it; then close its
        pipes. Its exit is polled, not awaited with `wait()`: that waits for the pipes' end too,
        and a pipe whose reading was paused (its buffer full) never gets there."""
        process = self._process
        if process is None:
            return
        if not await _exited(process, grace):
            self.kill()
            await _exited(process, KILL_WAIT)
        transport = getattr(process, "_transport", None)  # asyncio's; Process has no close()
        if transport is not None:
            transport.close()

    def kill(self) -> None:
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)


def reachable_from_network(host: str) -> bool:
    """A bind other than loopback: the key alone decides (no loopback Host checks)."""
    return host.strip("[]").lower() not in LOOPBACK_HOSTS


def _host_name(host_header: str) -> str:
    """'127.0.0.1:8080' -> '127.0.0.1'; '[::1]:8080' -> '::1'."""
    if host_header.startswith("["):
        return host_header[1:].partition("]")[0].lower()
    return host_header.rpartition(":")[0].lower() if ":" in host_header else host_header.lower()


class DisplayServer(Server):
    """textual-serve's server with a key, loopback Host checks, bounded display processes and
    our own page."""

    def __init__(
        self,
        command: str,
        host: str,
        port: int,
        *,
        key: str,
        configured_key: bool = False,
        max_processes: int = 4,
        language: str = "en",
    ) -> None:
        super().__init__(command, host=host, port=port, title="orderdash display")
        self.templates_path = TEMPLATES
        self.key = key
        self.configured_key = configured_key
        self.max_processes = max_processes
        self.language = language
        #: Connections holding a display process (or about to), counted until it has ended.
        self.processes: set[DisplayProcess] = set()
        self.sessions = 0

    def _refused(self, request: web.Request) -> str | None:
        """Why `request` is refused, or None."""
        given = request.query.get("key", "")
        if not secrets.compare_digest(given.encode(), self.key.encode()):
            return "pairing key required"
        if reachable_from_network(self.host):
            return None
        if _host_name(request.host) not in LOOPBACK_HOSTS:
            return "loopback only"
        origin = request.headers.get("Origin")
        if origin is not None and origin.split("://", 1)[-1] != request.host:
            return "another origin"
        return None

    @property
    def busy(self) -> bool:
        return self.sessions >= self.max_processes

    async def _make_app(self) -> web.Application:
        import aiohttp_jinja2
        import jinja2

        # textual-serve's routes less the download route (a display delivers no files) and
        # with no directory listing under /static/
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.static("/static", self.statics_path, show_index=False, name="static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)

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

    def _busy_page(self) -> web.Response:
        words = html.escape(catalogue(self.language).text("web_display_busy"))
        page = (
            f'<!DOCTYPE html><html lang="{self.language}"><head><meta charset="utf-8">'
            f'<meta http-equiv="refresh" content="{BUSY_RETRY}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            "<title>orderdash display</title></head>"
            '<body style="background:#0c181f;color:#fff;font:20px sans-serif;margin:2em">'
            f"<p>{words}</p></body></html>"
        )
        return web.Response(status=503, text=page, content_type="text/html")

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        import aiohttp_jinja2

        if self.busy:
            return self._busy_page()
        # URLs from the request's own origin: a LAN client must not be sent to 0.0.0.0
        scheme = "wss" if request.secure else "ws"
        context: dict[str, Any] = {
            "font_size": 16,
            "app_websocket_url": f"{scheme}://{request.host}/ws",
            "static_url": "/static/",
            "key_query": f"?key={self.key}",
            "title": "orderdash display",
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """textual-serve's, bounded: the size clamped, no process past the cap, the process
        ended (killed if need be) when the connection ends, whatever it was doing."""
        if self.busy:
            # told before any upgrade: a browser's page polls and reloads when there is room
            raise web.HTTPServiceUnavailable(
                text=catalogue(self.language).text("web_display_busy") + "\n",
                headers={"Retry-After": str(BUSY_RETRY)},
            )
        width, height = clamped_size(request.query.get("width"), request.query.get("height"))
        self.sessions += 1  # no await since the check: the cap holds
        websocket = web.WebSocketResponse(heartbeat=15)
        process: DisplayProcess | None = None
        try:
            await websocket.prepare(request)
            process = DisplayProcess(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                # textual-serve's server passes the same: it annotates a None result where
                # aiohttp's close returns a bool, which nothing reads
                close=websocket.close,  # type: ignore[arg-type]
                download_manager=self.download_manager,
            )
            self.processes.add(process)
            await process.start(width, height)
            await self._process_messages(websocket, process)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception:  # noqa: BLE001 - a hostile message ends its own connection only
            await websocket.close()
        finally:
            try:
                if process is not None:
                    await process.stop()
                    self.processes.discard(process)
            finally:
                self.sessions -= 1
        return websocket

    async def on_shutdown(self, app: web.Application) -> None:
        # nothing outlives the server (the processes are in groups of their own)
        for process in list(self.processes):
            process.kill()

    async def on_startup(self, app: web.Application) -> None:
        where = f"http://{self.host}:{self.port}/"
        if ":" in self.host:
            where = f"http://[{self.host}]:{self.port}/"
        if self.configured_key:
            where += "?key=<display_web_key>"
        else:
            where += f"?key={self.key}"
            print(f"orderdash display: pairing key {self.key} (shown once)", file=sys.stderr)
        print(f"orderdash display: serving on {where}  (Ctrl+C to stop)", file=sys.stderr)
        print(f"orderdash display: at most {self.max_processes} screens at once", file=sys.stderr)

    def initialize_logging(self) -> None:
        """Quiet: the key is printed once above and never logged with each request."""


def display_command(channel: str, options: Mapping[str, str]) -> str:
    """The command line of one display process (run by textual-serve through a shell)."""
    parts = [sys.executable, "-m", "orderdash", "display", "--channel", channel]
    for option, value in options.items():
        parts += [option, value]
    return " ".join(shlex.quote(part) for part in parts)


def serve_display(
    host: str,
    port: int,
    channel: str,
    options: Mapping[str, str],
    *,
    key: str | None = None,
    max_processes: int = 4,
) -> int:
    """Serve until stopped; `key` is the configured `display_web_key` (None: a random one)."""
    # textual-serve starts every display process with this process's environment; this one
    # reads no token, so the secrets' variables go before any process (or thread) starts
    for name in SECRET_VARIABLES:
        os.environ.pop(name, None)
    server = DisplayServer(
        display_command(channel, options),
        host,
        port,
        key=key or secrets.token_urlsafe(18),
        configured_key=key is not None,
        max_processes=max_processes,
        language=options.get("--language", "en"),
    )
    try:
        server.serve()
    except OSError as error:
        raise UsageError(f"cannot serve on {host}:{port}: {error.strerror or error}") from None
    return 0
