"""The callback receiver's web server: the service's callbacks taken at one path,
`POST /callback` (docs/receiver.md), over uvicorn and Starlette (the simulator's web stack, a
dependency already). Each request is answered once journaled (`core/usecases/receive.py`, in a
thread); the order's read comes after the answer. Anything but `POST /callback` is 404 or 405,
answered by Starlette without a journal row: the journal is of what was sent as a callback.

`orderdash receive` serves it (`cli/receive.py`), and so does a dashboard or `watch` with
`receive = true` (`inside.py`)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol

from orderdash.core.model.errors import UsageError
from orderdash.core.usecases.receive import MAX_BODY_BYTES, Arrival, CallbackDesk

PATH = "/callback"
#: How long a stopping server lets the answers it has begun finish.
GRACEFUL_SECONDS = 1.0
#: How long a body may take to arrive (the service's is one packet).
BODY_SECONDS = 10.0
#: Connections served at once; beyond, uvicorn answers 503.
MAX_CONNECTIONS = 512
#: How long a request's headers may take to arrive, on a new connection or after an answer:
#: uvicorn waits for them without end, and connections held open so would take every place.
HEADER_SECONDS = 10.0


class _Server(uvicorn.Server):
    """uvicorn's server, which says once it listens."""

    def __init__(self, config: uvicorn.Config, listening: Callable[[], None]) -> None:
        super().__init__(config)
        self._listening = listening

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if not self.should_exit:
            self._listening()


class _Http(H11Protocol):
    """uvicorn's HTTP/1.1 connection, closed when no request is under way `HEADER_SECONDS`
    after it opened or after its last answer (a request's body has its own deadline)."""

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(HEADER_SECONDS, self._too_slow)

    def _too_slow(self) -> None:
        self._deadline = None
        under_way = self.cycle is not None and not self.cycle.response_complete
        if not under_way and not self.transport.is_closing():
            self.transport.close()


class ReceiverServer:
    """`desk` served at `host`:`port` (0: a free one) until `stop()` (or Ctrl-C in the main
    thread); the reads run beside it on the same loop."""

    def __init__(self, desk: CallbackDesk, host: str = "127.0.0.1", port: int = 0) -> None:
        self.desk, self.host, self.port = desk, host, port
        self._server: uvicorn.Server | None = None
        #: The socket it listens on, once it does.
        self.listening: socket.socket | None = None

    def url(self, port: int) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{port}{PATH}"

    async def serve(self, started: Callable[[str], None]) -> None:
        try:
            sock = socket.create_server((self.host, self.port), backlog=128)
        except OSError as exc:
            raise UsageError(f"cannot listen on {self.host}:{self.port}: {exc.strerror}") from None
        # asyncio sends at once (TCP_NODELAY) only on the connections of a socket made with
        # IPPROTO_TCP, and create_server's is not: without it each answer's body waited for the
        # sender's delayed ACK (40 ms on Linux). The accepted connections inherit it.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.listening = sock
        config = uvicorn.Config(
            make_app(self.desk),
            log_level="warning",
            access_log=False,
            log_config=None,
            lifespan="off",
            http=_Http,
            limit_concurrency=MAX_CONNECTIONS,
            timeout_graceful_shutdown=GRACEFUL_SECONDS,  # type: ignore[arg-type]
        )
        server = _Server(config, lambda: started(self.url(sock.getsockname()[1])))
        self._server = server
        reads = asyncio.create_task(self.desk.run())
        try:
            await server.serve(sockets=[sock])
        finally:
            reads.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reads
            sock.close()

    def stop(self) -> None:
        """Ask the server to stop (from any thread)."""
        if self._server is not None:
            self._server.should_exit = True


def make_app(desk: CallbackDesk) -> Starlette:
    """The receiver's web app: one route."""

    async def callback(request: Request) -> PlainTextResponse:
        try:
            async with asyncio.timeout(BODY_SECONDS):
                raw, oversized = await _body(request)
        except TimeoutError:  # a body sent drop by drop holds no connection for long
            return PlainTextResponse("too slow\n", status_code=408)
        client = request.client
        answer = await desk.receive(
            Arrival(
                raw=raw,
                oversized=oversized,
                content_type=request.headers.get("content-type"),
                peer=client.host if client is not None else None,
                forwarded=tuple(request.headers.getlist("x-forwarded-for")),
            )
        )
        # the service only logs the answer: the outcome's word is enough
        return PlainTextResponse(answer.outcome + "\n", status_code=answer.status)

    return Starlette(routes=[Route(PATH, callback, methods=["POST"])])


async def _body(request: Request) -> tuple[bytes, bool]:
    """The body, read to `MAX_BODY_BYTES` and one chunk more at most: (its first
    `MAX_BODY_BYTES`, whether there was more)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            break
    raw = b"".join(chunks)
    return raw[:MAX_BODY_BYTES], size > MAX_BODY_BYTES
