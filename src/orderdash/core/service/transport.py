"""How a request reaches the service and its answer's bytes come back (see
docs/library-pitfalls.md#httpx): httpx set up once, the overall deadline, the body cap with
the inflation under it, and httpx's failures turned into this project's errors, in one place.

- redirects are never followed, so the `bearer_token` header cannot travel to another host;
- no header but the fixed ones is set on the client: the bearer goes on the private requests;
- every call has an overall deadline (httpx's read timeout is per chunk);
- the body is capped by raw bytes before any decoding, and compressed bodies are inflated here
  with the same cap, so a gzip bomb costs at most the cap.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

# httpx imports its optional command-line tool (click, rich, pygments) whenever those packages
# happen to be installed, which they are beside textual and uvicorn. We never use it; loading it
# would double httpx's import time for `orderdash get` and drag rich into the core.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx

from orderdash import __version__
from orderdash.core.model.errors import (
    CannotConnect,
    InvalidResponse,
    NetworkError,
    ResponseTooLarge,
    Timeout,
)
from orderdash.core.safetext import clean
from orderdash.core.service.net import Timeouts, is_loopback_host

if TYPE_CHECKING:
    import ssl

# asyncio is imported where it is used, not here: `orderdash get` asks once through the
# blocking client (`fetch_now`) and never loads it (~13 ms of that command's start).

DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024


class _CappedBody:
    """Raw chunks of an answer counted against the cap (before any decoding), then inflated."""

    def __init__(self, transport: ServiceTransport, encoding: str) -> None:
        self._transport, self._encoding = transport, encoding
        self._chunks: list[bytes] = []
        self._size = 0

    def add(self, chunk: bytes) -> None:
        self._size += len(chunk)
        if self._size > self._transport.max_body_bytes:
            raise ResponseTooLarge(self._transport.too_large(self._size, at_least=True))
        self._chunks.append(chunk)

    def body(self) -> bytes:
        return self._transport.inflate(b"".join(self._chunks), self._encoding)


class _Deadline:
    """The overall deadline of one blocking request. httpx bounds each wait (the connect, one
    read) but not their sum: a server that holds its headers keeps the call for the whole read
    timeout, one that drips them a byte at a time for ever. When the deadline passes, a timer
    shuts the request's socket down, which ends the read that blocks on it (the socket comes
    from httpcore's `trace` extension as the connection is made)."""

    def __init__(self, seconds: float) -> None:
        self._lock = threading.Lock()
        self._socket: Any = None
        self.passed = False
        self._timer = threading.Timer(seconds, self._end)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if not event.startswith("connection.connect_") or not event.endswith(".complete"):
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        with self._lock:
            self._socket = sock
            if self.passed:
                self._shut()

    def _end(self) -> None:
        with self._lock:
            self.passed = True
            self._shut()

    def _shut(self) -> None:
        import socket

        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)


class ServiceTransport:
    """Every request of one client: the async client (one connection pool) or, for a command
    that asks once, httpx's blocking one; each answer as (status, headers, capped body)."""

    def __init__(
        self,
        base_url: str,
        create_url: str,
        *,
        timeouts: Timeouts,
        max_body_bytes: int,
        transport: httpx.AsyncBaseTransport | None,
    ) -> None:
        self._base_url, self._create_url = base_url, create_url
        parts = urlsplit(base_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.timeouts = timeouts
        self.max_body_bytes = max_body_bytes
        #: An async transport of its own (tests): the blocking client is never used then.
        self.transport = transport
        #: Made by the first async request (`http`): `fetch_now` asks without it.
        self._async_http: httpx.AsyncClient | None = None
        self._closed = False
        self._tls_context: ssl.SSLContext | None = None

    @property
    def http(self) -> httpx.AsyncClient:
        """The async client every async request goes through (one connection pool), made at
        its first request: `get` and a dashboard's first read go through the blocking one
        (`fetch_now`), and an https client loads the CA bundle as it is made (~30 ms)."""
        if self._closed:
            # as httpx says it of a closed client (one never used is not made to be closed)
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        if self._async_http is None:
            self._async_http = httpx.AsyncClient(**self.options(asynchronous=True))
        return self._async_http

    async def aclose(self) -> None:
        self._closed = True
        if self._async_http is not None:
            await self._async_http.aclose()

    def options(self, *, asynchronous: bool) -> dict[str, Any]:
        """How every request is sent: the async client's and `fetch_now`'s blocking one."""
        parts = urlsplit(self._base_url)
        loopback = is_loopback_host(parts.hostname or "")
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = (
            self.transport if asynchronous else None
        )
        from orderdash.core.service import plain_http  # (its limits: every client's)

        if transport is None and self._plain_http:
            # no TLS context (~1.1 MiB) for a client that never opens TLS (see plain_http)
            transport = (
                plain_http.PlainAsyncHTTPTransport()
                if asynchronous
                else plain_http.PlainHTTPTransport()
            )
        return dict(
            transport=transport,
            limits=plain_http.LIMITS,
            follow_redirects=False,
            # Loading the CA bundle costs ~30 ms of every start. A client whose every URL is
            # plain http on a loopback host (the simulator, the demo) never opens TLS: it
            # follows no redirect and uses no proxy. Any https URL (a Generate Order address
            # of its own, say) is verified; so is an https proxy the environment names.
            verify=False if self._plain_http and loopback else self._tls(not loopback),
            timeout=httpx.Timeout(
                connect=self.timeouts.connect,
                read=self.timeouts.read,
                write=self.timeouts.read,
                pool=self.timeouts.connect,
            ),
            headers={
                "Accept": "application/json",
                "Accept-Encoding": "identity",
                "User-Agent": f"orderdash/{__version__}",
            },
            # proxies from the environment, except for a loopback service (the simulator)
            trust_env=not loopback,
        )

    @property
    def _plain_http(self) -> bool:
        """Every URL this client sends to is plain http (getOrder's and Generate Order's)."""
        return all(urlsplit(url).scheme == "http" for url in (self._base_url, self._create_url))

    def _tls(self, trust_env: bool) -> ssl.SSLContext:
        """The TLS settings with the CA bundle loaded, once: the blocking client of a dashboard's
        first read and the async client after it share them (each loaded the bundle, ~30 ms)."""
        if self._tls_context is None:
            self._tls_context = httpx.create_ssl_context(trust_env=trust_env)
        return self._tls_context

    async def fetch(
        self,
        url: str,
        headers: dict[str, str] | None,
        *,
        method: str = "GET",
        content: bytes | None = None,
    ) -> tuple[int, httpx.Headers, bytes]:
        import asyncio

        with self._network_errors():
            async with asyncio.timeout(self.timeouts.deadline):
                async with self.http.stream(
                    method, url, headers=headers, content=content
                ) as response:
                    body = await self._read_capped(response)
        return response.status_code, response.headers, body

    def fetch_now(self, url: str) -> tuple[int, httpx.Headers, bytes]:
        """`fetch` of a GET through httpx's blocking client, made for this one request."""
        with httpx.Client(**self.options(asynchronous=False)) as http:
            return self._fetch_now(http, url)

    def _fetch_now(self, http: httpx.Client, url: str) -> tuple[int, httpx.Headers, bytes]:
        """`fetch` for the blocking client: a GET within the overall deadline. Each wait is
        bounded by the deadline too, and `_Deadline` ends the request when it passes, whatever
        it is waiting for (held or dripped headers, a slow body)."""
        limits = self.timeouts
        seconds = limits.deadline
        give_up_at = time.monotonic() + seconds
        timeout = httpx.Timeout(
            connect=min(limits.connect, seconds),
            read=min(limits.read, seconds),
            write=min(limits.read, seconds),
            pool=min(limits.connect, seconds),
        )
        with self._network_errors(), _Deadline(seconds) as deadline:
            try:
                with http.stream(
                    "GET", url, timeout=timeout, extensions={"trace": deadline.trace}
                ) as response:
                    capped = self._capped(response)
                    for chunk in response.iter_raw():
                        if time.monotonic() > give_up_at:
                            raise TimeoutError
                        capped.add(chunk)
                    body = capped.body()
            except httpx.HTTPError:
                if deadline.passed or time.monotonic() >= give_up_at:
                    raise TimeoutError from None
                raise
        return response.status_code, response.headers, body

    @contextlib.contextmanager
    def _network_errors(self) -> Iterator[None]:
        """httpx's failures (and the overall deadline's) as this client's errors."""
        deadline = self.timeouts.deadline
        try:
            yield
        except TimeoutError:
            raise Timeout(f"{self.origin} did not answer within {deadline:g} s") from None
        except httpx.TimeoutException:
            raise Timeout(f"{self.origin} timed out") from None
        except httpx.ConnectError:
            raise CannotConnect(f"cannot connect to {self.origin}") from None
        except (httpx.RemoteProtocolError, httpx.ReadError):
            raise NetworkError(f"the connection to {self.origin} broke off mid-response") from None
        except httpx.HTTPError as exc:
            raise NetworkError(
                f"network error talking to {self.origin}: {type(exc).__name__}"
            ) from None

    async def _read_capped(self, response: httpx.Response) -> bytes:
        capped = self._capped(response)
        if response.is_stream_consumed:
            # An in-memory transport hands over a response that httpx has read and decoded
            # already: nothing left to bound but its size.
            if len(response.content) > self.max_body_bytes:
                raise ResponseTooLarge(self.too_large(len(response.content)))
            return response.content
        async for chunk in response.aiter_raw():
            capped.add(chunk)
        return capped.body()

    def _capped(self, response: httpx.Response) -> _CappedBody:
        """The answer's body read against the cap (its declared length checked first)."""
        cap = self.max_body_bytes
        declared = response.headers.get("content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > cap:
            raise ResponseTooLarge(self.too_large(int(declared)))
        return _CappedBody(self, response.headers.get("content-encoding", ""))

    def inflate(self, raw: bytes, encoding: str) -> bytes:
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            return raw
        if encoding not in ("gzip", "x-gzip", "deflate"):
            raise InvalidResponse(
                f"the service used an unsupported content encoding {clean(encoding, limit=20)!r}"
            )
        wbits = 16 + zlib.MAX_WBITS if "gzip" in encoding else zlib.MAX_WBITS
        inflater = zlib.decompressobj(wbits)
        try:
            body = inflater.decompress(raw, self.max_body_bytes + 1)
        except zlib.error:
            raise InvalidResponse("the service sent a corrupt compressed body") from None
        if len(body) > self.max_body_bytes or inflater.unconsumed_tail:
            raise ResponseTooLarge(self.too_large(len(body), at_least=True))
        return body

    def too_large(self, size: int, *, at_least: bool = False) -> str:
        """`at_least`: reading stopped at the first byte over the limit, the size is unknown."""
        limit = f"{self.max_body_bytes / (1024 * 1024):g} MiB"
        if at_least:
            return f"the response is too large (over the {limit} limit)"
        return f"the response is too large ({size:,} bytes; the limit is {limit})"
