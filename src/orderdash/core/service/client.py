"""The async client of the order API: one keep-alive connection pool, two reads, typed errors.

Safety rules that shape this file (see docs/library-pitfalls.md#httpx):
- redirects are never followed, so the `bearer_token` header cannot travel to another host;
- the header is set on the private requests only, never on the client;
- the access token travels only in the log-in body; the bearer it buys is kept in memory only,
  renewed once on a 401, never in a loop;
- every call has an overall deadline (httpx's read timeout is per chunk);
- the body is capped by raw bytes before any decoding, and compressed bodies are inflated here
  with the same cap, so a gzip bomb costs at most the cap;
- JSON is parsed with Decimal for every fractional number.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
import threading
import time
import zlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

# httpx imports its optional command-line tool (click, rich, pygments) whenever those packages
# happen to be installed, which they are beside textual and uvicorn. We never use it; loading it
# would double httpx's import time for `orderdash get` and drag rich into the core.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx
from pydantic import SecretStr, ValidationError

from orderdash import __version__
from orderdash.core.safetext import clean, without_secret
from orderdash.core.service import jsontext
from orderdash.core.service.errors import (
    ApiError,
    AuthRefused,
    AuthRequired,
    CannotConnect,
    FailureReported,
    InvalidResponse,
    NetworkError,
    NotFound,
    OrderdashError,
    OrderTokenTaken,
    RateLimited,
    ResponseTooLarge,
    ServiceError,
    Timeout,
    UnexpectedRedirect,
)
from orderdash.core.service.models import Order, OrderEnvelope, RatesEnvelope, Transaction
from orderdash.core.service.net import Timeouts, is_loopback_host
from orderdash.core.service.tokens import token_segment

if TYPE_CHECKING:
    import asyncio
    import ssl

    from orderdash.core.runtime.config import Settings
    from orderdash.core.service.account_models import (
        CoinChoice,
        CreatedOrder,
        HistoryItem,
        HistoryPage,
    )

# asyncio is imported where it is used, not here: `orderdash get` asks once through the
# blocking client (`get_order_now`) and never loads it (~13 ms of that command's start).

log = logging.getLogger(__name__)
#: The longest bearer a log-in may hand out (4 KiB): it is sent as a header on every private
#: request.
MAX_BEARER_BYTES = 4096
#: A JWT in its compact form: header, payload and signature, base64url without padding.
_JWT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")

DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
#: A longer wait than this from Retry-After is treated as this: a dashboard must come back.
MAX_RETRY_AFTER = 3600.0


@dataclass(frozen=True, eq=False, repr=False)
class Fetched:
    """One successful read: the model, the wire `data` object as received, and when it arrived."""

    order: Order
    raw: dict[str, Any]
    received_at: float
    elapsed: float


#: Answers at least this large are parsed and validated in a worker thread: a 10,000-transaction
#: order (~4 MB) takes about half a second, which on the event loop would freeze the screen.
LARGE_BODY_BYTES = 256 * 1024
#: Orders with at least this many transactions keep their validated transactions for the next
#: answer (see `_Reuse`); how many such orders are remembered.
REUSE_MIN_TRANSACTIONS = 200
REMEMBERED_ORDERS = 8
#: Orders asked for per history page (the service may send fewer: paging follows nextPage).
HISTORY_PAGE_LIMIT = 100
#: History pages read at most by `account_orders` unless told (the `history_max_pages`
#: setting): 5,000 orders at the page size asked, what the watch list holds; a service whose
#: nextPage never ends must not keep a command reading forever.
MAX_HISTORY_PAGES = 50


@dataclass(frozen=True, eq=False, repr=False)
class AccountOrders:
    """Every order of the account in the order the history pages listed them, page 0 first."""

    items: tuple[HistoryItem, ...]
    #: The wire item objects as received (numbers with their digits), for --json.
    raw: tuple[dict[str, Any], ...]
    pages: int
    #: True when the page bound stopped the reading before nextPage was null.
    truncated: bool
    #: Items left out because they do not match the API (one bad order does not hide the rest).
    skipped: int = 0
    #: Why the first of them was left out.
    skipped_reason: str | None = None

    def warnings(self) -> list[str]:
        """One line for each way this reading is incomplete (none when it is whole)."""
        lines = []
        if self.truncated:
            lines.append(
                f"stopped after {self.pages:,} pages of the order history (history_max_pages): "
                f"the account has more orders than the {len(self.items):,} read"
            )
        if self.skipped:
            orders = "order" if self.skipped == 1 else "orders"
            lines.append(
                f"{self.skipped:,} {orders} of the order history left out, not as the API "
                f"describes: {self.skipped_reason}"
            )
        return lines


@dataclass(frozen=True, eq=False, repr=False)
class _HistoryRead:
    """One history page: its valid items, their wire objects, and what was left out."""

    page: HistoryPage
    wire: list[dict[str, Any]]
    skipped: int
    skipped_reason: str | None


#: Words by which a refusal names a request limit (the envelope's message, any status).
_LIMIT_WORDS = re.compile(
    r"rate.?limit|too many requests|request limit|limit (?:exceeded|reached)|quota", re.I
)


def envelope_message(document: Any) -> str | None:
    """The `message` of a service envelope as one line: text as sent, or an object's entries as
    `key: value; ...` (the docs' error example: `{"customer_id": "Invalid customer_id"}`)."""
    if not isinstance(document, dict):
        return None
    message = document.get("message")
    if isinstance(message, str):
        return message.strip() or None
    if isinstance(message, dict):
        parts = []
        for key, value in message.items():
            if isinstance(value, list):
                value = ", ".join(str(item) for item in value)
            parts.append(f"{key}: {value}")
        return "; ".join(parts) or None
    if isinstance(message, list):
        return "; ".join(str(item) for item in message) or None
    return None


def envelope_status_code(document: Any) -> int | None:
    """`status_code` of an error envelope; the docs spell the key with a trailing space."""
    if not isinstance(document, dict):
        return None
    for key, value in document.items():
        if key.strip() in ("status_code", "statusCode") and type(value) is int:
            return value
    return None


def _is_error_envelope(document: dict[str, Any], *, rates: bool) -> bool:
    """`{"status": "error", ...}` (the docs' error body), or `success: false` on getOrder (the
    rate answer's own `success: false` is read with its envelope)."""
    status = document.get("status")
    if isinstance(status, str) and status.strip().lower() == "error":
        return True
    return not rates and document.get("success") is False


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date), bounded."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        import email.utils  # an HTTP-date is rare: not worth its import on every start

        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


@dataclass(eq=False, repr=False)
class _Outcome:
    """One request as `_reported` logs it: when it started, the status once answered."""

    started: float
    status: int | None = None


class _CappedBody:
    """Raw chunks of an answer counted against the cap (before any decoding), then inflated."""

    def __init__(self, client: OrderClient, encoding: str) -> None:
        self._client, self._encoding = client, encoding
        self._chunks: list[bytes] = []
        self._size = 0

    def add(self, chunk: bytes) -> None:
        self._size += len(chunk)
        if self._size > self._client._max_body_bytes:
            raise ResponseTooLarge(self._client._too_large(self._size, at_least=True))
        self._chunks.append(chunk)

    def body(self) -> bytes:
        return self._client._inflate(b"".join(self._chunks), self._encoding)


#: The GIL switch interval while a first read's thread runs (`_FirstRead`).
FIRST_READ_SWITCH_INTERVAL = 0.0005


class _ShortSwitchInterval:
    """The process's GIL switch interval made short while at least one first read runs, and
    put back as it was when the last one ends (two dashboards may start in one process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._saved = 0.0

    def begin(self) -> None:
        with self._lock:
            if self._running == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(FIRST_READ_SWITCH_INTERVAL)
            self._running += 1

    def end(self) -> None:
        with self._lock:
            self._running -= 1
            if self._running == 0:
                sys.setswitchinterval(self._saved)


_first_reads = _ShortSwitchInterval()


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


class _FirstRead:
    """One getOrder sent at once in a thread of its own, whose answer an event loop may await
    later (`OrderClient.begin_first_read`), even one that did not run yet when it was sent."""

    def __init__(self, token: str, ask: Callable[[str], Fetched]) -> None:
        self.token = token
        self._lock = threading.Lock()
        #: The answer or the failure, once the thread has one.
        self._outcome: tuple[Fetched | None, BaseException | None] | None = None
        #: The loop and future of the one awaiting it, if it awaits before the answer came.
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[Fetched]] | None = None
        # The request takes and gives back the GIL at every socket call, and the main thread
        # is busy importing and building the dashboard meanwhile: at the default switch
        # interval (5 ms) each take waits up to that long, and a ~10 ms request took ~145 ms.
        # A short interval while it runs lets it through.
        _first_reads.begin()
        try:
            threading.Thread(
                target=self._ask, args=(ask,), name="orderdash-first-read", daemon=True
            ).start()
        except BaseException:
            _first_reads.end()
            raise

    def _ask(self, ask: Callable[[str], Fetched]) -> None:
        fetched, failure = None, None
        try:
            fetched = ask(self.token)
        except BaseException as error:  # noqa: BLE001 - handed to whoever awaits it
            failure = error
        finally:
            _first_reads.end()
        with self._lock:
            self._outcome = (fetched, failure)
            waiter = self._waiter
        if waiter is not None:
            loop, future = waiter
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting
                loop.call_soon_threadsafe(_settle, future, fetched, failure)

    async def answer(self) -> Fetched:
        import asyncio  # not at the top: `orderdash get` runs without an event loop

        loop = asyncio.get_running_loop()
        with self._lock:
            outcome = self._outcome
            if outcome is None:
                future: asyncio.Future[Fetched] = loop.create_future()
                self._waiter = (loop, future)
        if outcome is None:
            return await future
        fetched, failure = outcome
        if failure is not None:
            raise failure
        return fetched  # type: ignore[return-value]


def _settle(
    future: asyncio.Future[Fetched], fetched: Fetched | None, error: BaseException | None
) -> None:
    if future.done():  # cancelled: the dashboard quit or no longer wants it
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(fetched)  # type: ignore[arg-type]


class OrderClient:
    """getOrder and Update Exchange rate against one configured service origin."""

    def __init__(
        self,
        base_url: str,
        *,
        bearer_token: SecretStr | None = None,
        access_token: SecretStr | None = None,
        timeouts: Timeouts | None = None,
        create_url: str | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        parts = urlsplit(self._base_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self._bearer_token = bearer_token
        self._access_token = (
            access_token if access_token and access_token.get_secret_value() else None
        )
        #: Where Generate Order is served (the docs' second address); default the base URL.
        self._create_url = (create_url or base_url).rstrip("/")
        #: The bearer bought by logging in with the access token (memory only).
        self._session: SecretStr | None = None
        self._login_lock: asyncio.Lock | None = None  # made by the first log-in
        #: The service refused the access token: no log-in is sent again (a refused token
        #: does not become good by asking once a minute), every private call raises this.
        self.login_refused: AuthRefused | None = None
        #: Told once when the access token is refused (the dashboard's banner).
        self.on_login_refused: Callable[[AuthRefused], None] | None = None
        #: A log-in waits until this is set (the dashboard sets it at its first paint, so that
        #: logging in never makes the start-up slower); None: at once.
        self.login_after: asyncio.Event | None = None
        #: Log-ins sent.
        self.logins = 0
        #: Called for each private request beyond the one asked for (a log-in, a retry): the
        #: service counts them against the same private limit, so the rate budget must too.
        self.on_extra_private_request: Callable[[], None] | None = None
        self._timeouts = timeouts or Timeouts()
        self._max_body_bytes = max_body_bytes
        self._clock = clock
        #: Per big order (by token, most recent last): its transactions as last received.
        self._reuse: dict[str, _Reuse] = {}
        self._transport = transport
        #: Made by the first async request (`_http`): `get_order_now` asks without it.
        self._async_http: httpx.AsyncClient | None = None
        self._closed = False
        self._tls_context: ssl.SSLContext | None = None
        #: The read `begin_first_read` sent, until `get_order_first` takes it.
        self._first_read: _FirstRead | None = None

    @property
    def _http(self) -> httpx.AsyncClient:
        """The async client every async request goes through (one connection pool), made at
        its first request: `get` and a dashboard's first read go through the blocking one
        (`get_order_now`, `get_order_first`), and an https client loads the CA bundle as it is
        made (~30 ms)."""
        if self._closed:
            # as httpx says it of a closed client (one never used is not made to be closed)
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        if self._async_http is None:
            self._async_http = httpx.AsyncClient(**self._http_options(asynchronous=True))
        return self._async_http

    def _http_options(self, *, asynchronous: bool) -> dict[str, Any]:
        """How every request is sent: the async client's and `get_order_now`'s blocking one."""
        parts = urlsplit(self._base_url)
        loopback = is_loopback_host(parts.hostname or "")
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = (
            self._transport if asynchronous else None
        )
        if transport is None and self._plain_http:
            # no TLS context (~1.1 MiB) for a client that never opens TLS (see plain_http)
            from orderdash.core.service import plain_http

            transport = (
                plain_http.PlainAsyncHTTPTransport()
                if asynchronous
                else plain_http.PlainHTTPTransport()
            )
        return dict(
            transport=transport,
            follow_redirects=False,
            # Loading the CA bundle costs ~30 ms of every start. A client whose every URL is
            # plain http on a loopback host (the simulator, the demo) never opens TLS: it
            # follows no redirect and uses no proxy. Any https URL (a Generate Order address
            # of its own, say) is verified; so is an https proxy the environment names.
            verify=False if self._plain_http and loopback else self._tls(not loopback),
            timeout=httpx.Timeout(
                connect=self._timeouts.connect,
                read=self._timeouts.read,
                write=self._timeouts.read,
                pool=self._timeouts.connect,
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

    @classmethod
    def from_settings(
        cls, settings: Settings, *, clock: Callable[[], float] = time.time
    ) -> OrderClient:
        """The client every command uses: origin, token, timeouts and body cap from settings."""
        return cls(
            settings.base_url,
            bearer_token=settings.bearer_token,
            access_token=settings.access_token,
            timeouts=settings.timeouts,
            create_url=settings.create_url,
            max_body_bytes=settings.max_body_bytes,
            clock=clock,
        )

    @property
    def has_bearer_token(self) -> bool:
        return self._bearer_token is not None and bool(self._bearer_token.get_secret_value())

    @property
    def has_credentials(self) -> bool:
        """The private endpoints can be called: a bearer token, or an access token to log in."""
        return self.has_bearer_token or self._access_token is not None

    def __repr__(self) -> str:
        token = "set" if self.has_bearer_token else "unset"
        access = "set" if self._access_token is not None else "unset"
        return f"OrderClient({self._base_url!r}, bearer_token={token}, access_token={access})"

    async def __aenter__(self) -> OrderClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._closed = True
        if self._async_http is not None:
            await self._async_http.aclose()

    async def get_order(self, token: str) -> Fetched:
        """getOrder: `GET {base_url}/order/<token>/`."""
        return await self._call(self._order_url(token), token, headers=None, rates=False)

    def get_order_now(self, token: str) -> Fetched:
        """getOrder without an event loop, for a command that asks once and exits (`orderdash
        get`): sent through httpx's blocking client, which never loads anyio's asyncio backend
        (~20 ms of that command's start). Same request, checks, answer and errors as
        `get_order`, within the same overall deadline (`_fetch_now`). The async client is
        never made (~1 ms). A client built with an async transport (tests) asks through it
        instead."""
        if self._transport is not None:
            import asyncio

            async def once() -> Fetched:
                async with self:
                    return await self.get_order(token)

            return asyncio.run(once())
        with self._reported(token, rates=False) as report:
            with httpx.Client(**self._http_options(asynchronous=False)) as http:
                report.status, headers, body = self._fetch_now(http, self._order_url(token))
            order, raw = self._interpret(report.status, headers, body, token, rates=False)
        return self._fetched(order, raw, report.started)

    def begin_first_read(self, token: str) -> None:
        """Send getOrder for the order a dashboard opens with now, in a thread of its own
        (`get_order_now`), before the dashboard is built: `orderdash tui` calls this before it
        imports Textual, so the request, the wait for the service and the answer's parsing
        overlap the imports and the screen's composing instead of following them.
        `get_order_first` of the same token takes this answer; one read at a time is kept (a
        second call replaces nothing). A client built with an async transport (tests) sends
        nothing here: `get_order_first` asks through it."""
        if self._transport is None and self._first_read is None:
            self._first_read = _FirstRead(token, self.get_order_now)

    async def get_order_first(self, token: str) -> Fetched:
        """getOrder for the order a dashboard opens with: the read `begin_first_read` sent, or
        one sent now the same way. The blocking client in a thread: the async transport's
        first request imports anyio's asyncio backend (~37 ms of CPU, timed in the bench's
        start-up child), which the first paint does not need. The thread is a daemon:
        quitting never waits for it (a request is bounded by the timeouts anyway). A client
        built with an async transport (tests) asks through it."""
        if self._transport is not None:
            return await self.get_order(token)
        first, self._first_read = self._first_read, None  # taken, or not wanted: another order
        if first is None or first.token != token:
            first = _FirstRead(token, self.get_order_now)
        return await first.answer()

    def _order_url(self, token: str) -> str:
        return f"{self._base_url}/order/{token_segment(token)}/"

    async def refresh_rate(self, token: str) -> Fetched:
        """Update Exchange rate: `GET {base_url}/orders/api/<token>/rates` with `bearer_token`."""
        url = f"{self._base_url}/orders/api/{token_segment(token)}/rates"
        return await self._private(
            lambda bearer: self._call(url, token, headers={"bearer_token": bearer}, rates=True),
            "the rate refresh",
        )

    async def create_order(
        self, *, customer_id: str, order_id: str, order_token: str, amount: Decimal
    ) -> CreatedOrder:
        """Generate Order: `POST {create_url}/api/generateOrder`, the access token in the body.
        OrderTokenTaken when the service says the token is taken."""
        if self._access_token is None:
            raise AuthRequired("creating an order needs the access token (access_token_file)")
        body = {
            "customer_id": customer_id,
            "access_token": self._access_token.get_secret_value(),
            "order_id": order_id,
            "order_token": order_token,
            "amount": format(amount, "f"),
        }
        return await self._call_json(
            f"{self._create_url}/api/generateOrder",
            "create",
            order_token,
            headers={"Content-Type": "application/json"},
            interpret=self._interpret_created,
            method="POST",
            content=json.dumps(body).encode("utf-8"),
        )

    def _interpret_created(self, status: int, headers: httpx.Headers, body: bytes) -> CreatedOrder:
        document: Any = None
        if body.strip():
            try:
                document = jsontext.loads(body)
            except jsontext.JsonTextError:
                document = None
        message = document.get("message") if isinstance(document, dict) else None
        if isinstance(message, dict) and any(
            "order_token" in str(key) and "taken" in str(value).lower()
            for key, value in message.items()
        ):
            raise OrderTokenTaken("an order with this token exists")
        if status in (401, 403):
            detail = self._error_detail(body)
            said = f": {detail}" if detail else ""
            raise AuthRefused(f"the service refused the access token (HTTP {status}{said})")
        if not 200 <= status < 300:
            self._refuse_account(status, headers, body, "charge")
        document = self._parse_json(body, headers)
        code = envelope_status_code(document)
        if _is_error_envelope(document, rates=False) or (code is not None and code >= 300):
            detail = self._error_detail(body, document)
            if code is not None and code >= 300:
                self._refuse(code, headers, detail, "", "charge", rates=True)
            raise FailureReported(
                f"the service reported a failure: {detail or 'no message given'}", detail
            )
        # two published forms: {"success": true, "data": {...}} and {"status": 1, "message": {...}}
        created = document.get("data")
        if not isinstance(created, dict):
            created = document.get("message")
        from orderdash.core.service.account_models import CreatedOrder  # account paths only

        try:
            return CreatedOrder.model_validate(created)
        except ValidationError as exc:
            raise InvalidResponse(
                f"the charge answer does not match the API: {_first_error(exc)}"
            ) from None

    @property
    def base_url(self) -> str:
        """The configured service base URL (a charge's checkout link may point at it)."""
        return self._base_url

    async def order_coins(self, token: str) -> tuple[CoinChoice, ...]:
        """The coins an order without a coin offers (`GET {base_url}/orders/api/<token>`)."""
        return (await self.order_offer(token))[1]

    async def order_offer(self, token: str) -> tuple[Fetched, tuple[CoinChoice, ...]]:
        """The order as the UI's get order reads it (its currency, say), and the coins it
        offers while none is chosen (`GET {base_url}/orders/api/<token>`)."""
        url = f"{self._base_url}/orders/api/{token_segment(token)}"
        fetched: Fetched = await self._private(
            lambda bearer: self._call(url, token, headers={"bearer_token": bearer}, rates=True),
            "the order's coins",
        )
        return fetched, self._coins_offered(fetched)

    @staticmethod
    def _coins_offered(fetched: Fetched) -> tuple[CoinChoice, ...]:
        coins = fetched.raw.get("coins")
        if coins is None:
            return ()
        if not isinstance(coins, list) or len(coins) > 1000:
            raise InvalidResponse("the order's coins should be a JSON array")
        from orderdash.core.service.account_models import CoinChoice

        try:
            return tuple(CoinChoice.model_validate(coin) for coin in coins)
        except ValidationError as exc:
            raise InvalidResponse(
                f"the order's coins do not match the API: {_first_error(exc)}"
            ) from None

    async def choose_coin(self, token: str, code: str) -> Fetched:
        """Choose crypto: `POST {base_url}/orders/api/<token>` `{"coin": code}`."""
        url = f"{self._base_url}/orders/api/{token_segment(token)}"
        body = json.dumps({"coin": code}).encode("utf-8")
        return await self._private(
            lambda bearer: self._call(
                url,
                token,
                headers={"bearer_token": bearer, "Content-Type": "application/json"},
                rates=False,
                method="POST",
                content=body,
            ),
            "choosing the coin",
        )

    async def order_history(self, page: int, limit: int = HISTORY_PAGE_LIMIT) -> HistoryPage:
        """Get Order History: `GET {base_url}/orders/api?page=&limit=` with `bearer_token`.
        Items that do not match the API are left out (`account_orders` counts them)."""
        read = await self._history_page(page, limit)
        return read.page

    async def account_orders(
        self,
        *,
        limit: int = HISTORY_PAGE_LIMIT,
        max_pages: int = MAX_HISTORY_PAGES,
        before_page: Callable[[], Awaitable[None]] | None = None,
    ) -> AccountOrders:
        """Every order of the account: history pages from 0, following `meta.nextPage` until it
        is null (never assuming a page size), at most `max_pages` pages. `before_page` is
        awaited before each page is asked for (the private budget's gate). An item that does
        not match the API is left out and counted, not the whole history refused."""
        self._check_login_refused()
        items: list[HistoryItem] = []
        raw: list[dict[str, Any]] = []
        page: int | None = 0
        seen: set[int] = set()
        read = skipped = 0
        skipped_reason: str | None = None
        while page is not None and read < max_pages:
            if page in seen:
                raise InvalidResponse(
                    f"the order history sent page {page} twice (nextPage goes back): stopped"
                )
            seen.add(page)
            if before_page is not None:
                await before_page()
            one = await self._history_page(page, limit)
            read += 1
            items.extend(one.page.items)
            raw.extend(one.wire)
            skipped += one.skipped
            skipped_reason = skipped_reason or one.skipped_reason
            page = one.page.meta.next_page
        return AccountOrders(
            tuple(items),
            tuple(raw),
            read,
            truncated=page is not None,
            skipped=skipped,
            skipped_reason=skipped_reason,
        )

    async def _history_page(self, page: int, limit: int) -> _HistoryRead:
        url = f"{self._base_url}/orders/api?page={int(page)}&limit={int(limit)}"
        return await self._private(
            lambda bearer: self._call_json(
                url,
                "history",
                f"page {page}",
                headers={"bearer_token": bearer},
                interpret=self._interpret_history,
            ),
            "the order history",
        )

    # ------------------------------------------------------------------ the bearer
    async def _private(self, call: Callable[[str], Any], what: str) -> Any:
        """Run `call(bearer)` with the bearer token, or with one bought by logging in (lazily,
        before the first private request); on a refusal of a bought bearer, log in again and
        retry once. A configured `bearer_token` is used as it is."""
        if self.has_bearer_token:
            assert self._bearer_token is not None
            return await call(self._bearer_token.get_secret_value())
        if self._access_token is None:
            raise AuthRequired(
                f"{what} needs a bearer token (--bearer-token-file) or an access token "
                "(access_token_file) to log in with"
            )
        self._check_login_refused()
        bearer = self._session or await self._login(stale=None)
        try:
            return await call(bearer.get_secret_value())
        except AuthRefused:
            # the bought bearer expired (or was revoked): one new log-in, one retry
            bearer = await self._login(stale=bearer)
            self._extra_private_request()
            return await call(bearer.get_secret_value())

    async def _login(self, stale: SecretStr | None) -> SecretStr:
        """A bearer from `POST {base_url}/orders/api/login`; requests that find theirs refused
        at the same time share one new log-in."""
        import asyncio

        if self._login_lock is None:
            self._login_lock = asyncio.Lock()
        async with self._login_lock:
            current = self._session
            if current is not None and (
                stale is None or current.get_secret_value() != stale.get_secret_value()
            ):
                return current
            if self.login_after is not None:
                await self.login_after.wait()
            self._check_login_refused()
            self._session = None
            assert self._access_token is not None
            body = json.dumps({"token": self._access_token.get_secret_value()}).encode("utf-8")
            self.logins += 1
            self._extra_private_request()
            try:
                bearer = await self._call_json(
                    f"{self._base_url}/orders/api/login",
                    "login",
                    "",
                    headers={"Content-Type": "application/json"},
                    interpret=self._interpret_login,
                    method="POST",
                    content=body,
                )
            except AuthRefused as refused:
                self.login_refused = refused
                if self.on_login_refused is not None:
                    self.on_login_refused(refused)
                raise
            self._session = bearer
            return bearer

    def _check_login_refused(self) -> None:
        """A refused access token stays refused: raise its error again, send nothing."""
        if self.login_refused is not None and not self.has_bearer_token:
            # a new error each time: one raised again and again would grow its traceback
            raise AuthRefused(self.login_refused.message)

    def _extra_private_request(self) -> None:
        if self.on_extra_private_request is not None:
            self.on_extra_private_request()

    def _interpret_login(self, status: int, headers: httpx.Headers, body: bytes) -> SecretStr:
        if status in (401, 403, 422):
            detail = self._error_detail(body)
            said = f": {detail}" if detail else ""
            raise AuthRefused(
                f"the service refused the access token (HTTP {status}{said}): check "
                "access_token, its expiry and the cabinet's IP allow-list"
            )
        if not 200 <= status < 300:
            self._refuse_account(status, headers, body, "log-in")
        document = self._parse_json(body, headers)
        from orderdash.core.service.account_models import LoginEnvelope

        try:
            envelope = LoginEnvelope.model_validate(document)
        except ValidationError as exc:
            raise InvalidResponse(
                f"the log-in answer does not match the API: {_first_error(exc)}"
            ) from None
        if not envelope.success:
            detail = self._error_detail(body, document)
            raise AuthRefused(
                f"the service refused the access token: {detail or 'no message given'}"
            )
        bearer = (envelope.data or "").strip()
        # it travels as an HTTP header value: one word of visible ASCII
        if not bearer or not (bearer.isascii() and bearer.isprintable() and " " not in bearer):
            raise InvalidResponse("the log-in answer carries no usable bearer token")
        # it goes out with every private request: a JWT of sane size, nothing else
        if len(bearer) > MAX_BEARER_BYTES:
            raise InvalidResponse(
                f"the log-in answer's bearer token is too long ({len(bearer):,} bytes; "
                f"at most {MAX_BEARER_BYTES:,}): not used"
            )
        if not _JWT.fullmatch(bearer):
            raise InvalidResponse(
                "the log-in answer's bearer token is not a JWT (three base64url parts "
                "separated by dots): not used"
            )
        return SecretStr(bearer)

    def _interpret_history(self, status: int, headers: httpx.Headers, body: bytes) -> _HistoryRead:
        if not 200 <= status < 300:
            self._refuse_account(status, headers, body, "order history")
        if len(body) < LARGE_BODY_BYTES:
            return self._history_read(headers, body)
        from orderdash.core.runtime.bulk import bulk_objects

        # in a worker thread (`_call_json`): see bulk.py for why the collector pauses
        with bulk_objects():
            return self._history_read(headers, body)

    def _history_read(self, headers: httpx.Headers, body: bytes) -> _HistoryRead:
        document = self._parse_json(body, headers)
        if _is_error_envelope(document, rates=False):
            code = envelope_status_code(document)
            detail = self._error_detail(body, document)
            if code is not None and not 200 <= code < 300:
                self._refuse(code, headers, detail, "", "order history", rates=True)
            raise FailureReported(
                f"the service reported a failure: {detail or 'no message given'}", detail
            )
        from orderdash.core.service.account_models import HistoryEnvelope, HistoryItem

        data = document.get("data")
        wire = data.get("items") if isinstance(data, dict) else None
        try:
            if isinstance(wire, list):
                # the page without its items: their checks follow one by one
                envelope = HistoryEnvelope.model_validate(
                    {**document, "data": {**data, "items": []}}
                )
            else:  # no list of items: the page's check says what is wrong
                envelope = HistoryEnvelope.model_validate(document)
                wire = []
        except ValidationError as exc:
            raise InvalidResponse(
                f"the order history answer does not match the API: {_first_error(exc)}"
            ) from None
        # One model call an item, not one for the page: a large page is checked in a worker
        # thread, and each call holds the GIL; 50,000 items in one call froze the screen 0.2 s.
        items: list[HistoryItem] = []
        kept: list[dict[str, Any]] = []
        skipped = 0
        reason: str | None = None
        for index, item in enumerate(wire):
            try:
                items.append(HistoryItem.model_validate(item))
            except ValidationError as exc:
                skipped += 1
                reason = reason or f"item {index} of a page: {_first_error(exc)}"
                continue
            kept.append(item)
        page = envelope.data.model_copy(update={"items": tuple(items)})
        return _HistoryRead(page, kept, skipped, reason)

    def _refuse_account(
        self, status: int, headers: httpx.Headers, body: bytes, what: str
    ) -> NoReturn:
        detail = self._error_detail(body)
        if status == 404:
            # no order is named here: the endpoint itself is missing at this address
            said = f": {detail}" if detail else ""
            raise ServiceError(
                f"the service has no {what} at {self.origin} (HTTP 404{said}): check the base URL",
                status,
                None,
            )
        self._refuse(status, headers, detail, "", what, rates=True)

    async def _call_json(
        self,
        url: str,
        endpoint: str,
        label: str,
        *,
        headers: dict[str, str] | None,
        interpret: Callable[[int, httpx.Headers, bytes], Any],
        method: str = "GET",
        content: bytes | None = None,
    ) -> Any:
        """One request of the account endpoints: fetched, interpreted, logged, errors redacted."""
        started = time.monotonic()
        status: int | None = None
        try:
            status, response_headers, body = await self._fetch(
                url, headers, method=method, content=content
            )
            if len(body) >= LARGE_BODY_BYTES:
                import asyncio

                # a long history page: validated off the event loop
                result = await asyncio.to_thread(interpret, status, response_headers, body)
            else:
                result = interpret(status, response_headers, body)
        except OrderdashError as exc:
            error = self._redacted(exc)
            _log_outcome(endpoint, label, started, status, error)
            raise error from None
        except Exception as exc:
            _log_outcome(endpoint, label, started, status, exc)
            raise
        _log_outcome(endpoint, label, started, status, None)
        return result

    def _secrets(self) -> list[str]:
        return [
            secret.get_secret_value()
            for secret in (self._bearer_token, self._session, self._access_token)
            if secret is not None and secret.get_secret_value()
        ]

    def _redacted(self, error: OrderdashError) -> OrderdashError:
        for secret in self._secrets():
            error = error.redacted(secret)
        return error

    async def _call(
        self,
        url: str,
        token: str,
        *,
        headers: dict[str, str] | None,
        rates: bool,
        method: str = "GET",
        content: bytes | None = None,
    ) -> Fetched:
        with self._reported(token, rates=rates) as report:
            report.status, response_headers, body = await self._fetch(
                url, headers, method=method, content=content
            )
            order, raw = await self._interpret_answer(
                report.status, response_headers, body, token, rates
            )
        return self._fetched(order, raw, report.started)

    @contextlib.contextmanager
    def _reported(self, token: str, *, rates: bool) -> Iterator[_Outcome]:
        """One request's outcome logged (secrets redacted from its error) as it ends."""
        outcome = _Outcome(time.monotonic())
        what = "rates" if rates else "order"
        try:
            yield outcome
        except OrderdashError as exc:
            error = self._redacted(exc)
            _log_outcome(what, token, outcome.started, outcome.status, error)
            raise error from None
        except Exception as exc:
            _log_outcome(what, token, outcome.started, outcome.status, exc)
            raise
        _log_outcome(what, token, outcome.started, outcome.status, None)

    def _fetched(self, order: Order, raw: dict[str, Any], started: float) -> Fetched:
        return Fetched(
            order=order, raw=raw, received_at=self._clock(), elapsed=time.monotonic() - started
        )

    async def _fetch(
        self,
        url: str,
        headers: dict[str, str] | None,
        *,
        method: str = "GET",
        content: bytes | None = None,
    ) -> tuple[int, httpx.Headers, bytes]:
        import asyncio

        with self._network_errors():
            async with asyncio.timeout(self._timeouts.deadline):
                async with self._http.stream(
                    method, url, headers=headers, content=content
                ) as response:
                    body = await self._read_capped(response)
        return response.status_code, response.headers, body

    def _fetch_now(self, http: httpx.Client, url: str) -> tuple[int, httpx.Headers, bytes]:
        """`_fetch` for the blocking client: a GET within the overall deadline. Each wait is
        bounded by the deadline too, and `_Deadline` ends the request when it passes, whatever
        it is waiting for (held or dripped headers, a slow body)."""
        limits = self._timeouts
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
        deadline = self._timeouts.deadline
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
            if len(response.content) > self._max_body_bytes:
                raise ResponseTooLarge(self._too_large(len(response.content)))
            return response.content
        async for chunk in response.aiter_raw():
            capped.add(chunk)
        return capped.body()

    def _capped(self, response: httpx.Response) -> _CappedBody:
        """The answer's body read against the cap (its declared length checked first)."""
        cap = self._max_body_bytes
        declared = response.headers.get("content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > cap:
            raise ResponseTooLarge(self._too_large(int(declared)))
        return _CappedBody(self, response.headers.get("content-encoding", ""))

    def _inflate(self, raw: bytes, encoding: str) -> bytes:
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
            body = inflater.decompress(raw, self._max_body_bytes + 1)
        except zlib.error:
            raise InvalidResponse("the service sent a corrupt compressed body") from None
        if len(body) > self._max_body_bytes or inflater.unconsumed_tail:
            raise ResponseTooLarge(self._too_large(len(body), at_least=True))
        return body

    def _too_large(self, size: int, *, at_least: bool = False) -> str:
        """`at_least`: reading stopped at the first byte over the limit, the size is unknown."""
        limit = f"{self._max_body_bytes / (1024 * 1024):g} MiB"
        if at_least:
            return f"the response is too large (over the {limit} limit)"
        return f"the response is too large ({size:,} bytes; the limit is {limit})"

    async def _interpret_answer(
        self, status: int, headers: httpx.Headers, body: bytes, token: str, rates: bool
    ) -> tuple[Order, dict[str, Any]]:
        if status != 200 or len(body) < LARGE_BODY_BYTES:
            return self._interpret(status, headers, body, token, rates=rates)
        import asyncio

        reuse = self._reuse.pop(token, None) or _Reuse()
        order, raw = await asyncio.to_thread(
            self._interpret, status, headers, body, token, rates=rates, reuse=reuse
        )
        if len(order.transactions) >= REUSE_MIN_TRANSACTIONS:
            self._reuse[token] = reuse
            while len(self._reuse) > REMEMBERED_ORDERS:
                del self._reuse[next(iter(self._reuse))]
        return order, raw

    def _interpret(
        self,
        status: int,
        headers: httpx.Headers,
        body: bytes,
        token: str,
        *,
        rates: bool,
        reuse: _Reuse | None = None,
    ) -> tuple[Order, dict[str, Any]]:
        what = "rate refresh" if rates else "order lookup"
        if not 200 <= status < 300:
            self._refuse(status, headers, self._error_detail(body), token, what, rates=rates)
        document = self._parse_json(body, headers)
        if _is_error_envelope(document, rates=rates):
            # an error envelope with HTTP 200: its own status_code says what failed
            code = envelope_status_code(document)
            detail = self._error_detail(body, document)
            if code is not None and not 200 <= code < 300:
                self._refuse(code, headers, detail, token, what, rates=rates)
            raise FailureReported(
                f"the service reported a failure: {detail or 'no message given'}", detail
            )
        if reuse is not None:
            return reuse.interpret(document, lambda doc: self._validate(doc, what, rates=rates))
        return self._validate(document, what, rates=rates)

    def _error_detail(self, body: bytes, document: Any = None) -> str | None:
        """The envelope's message of an error answer, safe to show, or None."""
        if document is None:
            if not body.strip() or len(body) > 64 * 1024:
                return None
            try:
                document = jsontext.loads(body)
            except jsontext.JsonTextError:
                return None
        # redact before cutting: a token cut in two would escape the redaction
        message = self._without_secret(envelope_message(document))
        return clean(message, limit=120) if message else None

    def _refuse(
        self,
        status: int,
        headers: httpx.Headers,
        detail: str | None,
        token: str,
        what: str,
        *,
        rates: bool,
    ) -> NoReturn:
        """Raise the error of a refused answer (HTTP status, or an envelope's status_code)."""
        said = f": {detail}" if detail else ""
        if 300 <= status < 400:
            try:
                target = urlsplit(headers.get("location", "")).netloc
            except ValueError:  # e.g. "http://[bad": a hostile Location must not crash us
                target = ""
            target = self._without_secret(target) or "another address"
            raise UnexpectedRedirect(
                f"the {what} was redirected (HTTP {status}) to {clean(target, limit=60)}, "
                "not followed: check the base URL"
            )
        retry_after = parse_retry_after(headers.get("retry-after"))
        if status == 429 or (detail and _LIMIT_WORDS.search(detail)):
            wait = f"; retry in {retry_after:g} s" if retry_after is not None else ""
            raise RateLimited(
                f"the service is rate limiting the {what} (HTTP {status}{said}){wait}", retry_after
            )
        if status in (401, 403):
            if rates:
                raise AuthRefused(
                    f"the service refused the bearer token (HTTP {status}{said}): check it, and "
                    "that no proxy drops the bearer_token header (underscores)"
                )
            raise AuthRefused(
                f"the service requires authentication for the order lookup (HTTP {status}{said})"
            )
        if status == 404:
            raise NotFound(f"no order with token {clean(token, limit=60)!r} (HTTP 404{said})")
        if status >= 500:
            raise ServiceError(f"the service failed (HTTP {status}{said})", status, retry_after)
        raise ServiceError(
            f"the service rejected the {what} (HTTP {status}{said})", status, retry_after
        )

    def _validate(
        self, document: dict[str, Any], what: str, *, rates: bool
    ) -> tuple[Order, dict[str, Any]]:
        try:
            if rates:
                rates_envelope = RatesEnvelope.model_validate(document)
                if not rates_envelope.success:
                    # redact before cutting: a token cut in two would escape the redaction
                    echoed = self._without_secret(envelope_message(document))
                    server_message = clean(echoed, limit=120) if echoed else None
                    if server_message and _LIMIT_WORDS.search(server_message):
                        raise RateLimited(
                            f"the service is rate limiting the rate refresh: {server_message}",
                            None,
                        )
                    raise FailureReported(
                        f"the service reported a failure: {server_message or 'no message given'}",
                        server_message,
                    )
                if rates_envelope.data is None:
                    raise InvalidResponse("the rate refresh succeeded but sent no order")
                order = rates_envelope.data
            else:
                order = OrderEnvelope.model_validate(document).data
        except ValidationError as exc:
            raise InvalidResponse(
                f"the {what} answer does not match the API: {_first_error(exc)}"
            ) from None
        return order, document["data"]

    def _without_secret(self, text: str | None) -> str | None:
        if text:
            for secret in self._secrets():
                text = without_secret(text, secret)
        return text

    @staticmethod
    def _parse_json(body: bytes, headers: httpx.Headers) -> Any:
        if not body.strip():
            raise InvalidResponse("the service sent an empty response")
        try:
            document = jsontext.loads(body)
        except jsontext.JsonTextError as exc:
            content_type = headers.get("content-type", "").split(";")[0].strip().lower()
            if "html" in content_type or body.lstrip()[:1] == b"<":
                raise InvalidResponse("the service sent an HTML page instead of JSON") from None
            raise InvalidResponse(f"the service sent invalid JSON: {exc}") from None
        if not isinstance(document, dict):
            raise InvalidResponse("the service sent JSON that is not an object")
        return document


class _Reuse:
    """The validated transactions of a big order, kept for its next answer.

    A big order's answer is mostly transactions that were in the previous answer too (every
    answer differs anyway: `expirationTime` counts down). A transaction whose wire object is
    the same as before, strictly (same types, same digits), gets the model it had, without
    validation; and the table, seeing the same objects, has nothing to compare. Anything else,
    or any doubt, takes the full path.
    """

    def __init__(self) -> None:
        self._by_id: dict[object, tuple[Any, Transaction]] = {}

    def interpret(
        self,
        document: dict[str, Any],
        validate: Callable[[dict[str, Any]], tuple[Order, dict[str, Any]]],
    ) -> tuple[Order, dict[str, Any]]:
        data = document.get("data")
        wire = data.get("transactions") if isinstance(data, dict) else None
        if not isinstance(wire, list) or not self._by_id:
            return self._remember(validate(document))
        kept: dict[int, Transaction] = {}
        fresh: list[Any] = []
        for index, tx in enumerate(wire):
            known = self._by_id.get(_tx_key(tx))
            if known is not None and _same_wire(known[0], tx):
                kept[index] = known[1]
            else:
                fresh.append(tx)
        if not kept:
            return self._remember(validate(document))
        assert isinstance(data, dict)
        try:
            order, _ = validate({**document, "data": {**data, "transactions": fresh}})
        except InvalidResponse:
            # the message must name the transaction's place in the whole answer
            return self._remember(validate(document))
        new = iter(order.transactions)
        merged = tuple(kept[i] if i in kept else next(new) for i in range(len(wire)))
        order = order.model_copy(update={"transactions": merged})
        return self._remember((order, data))

    def _remember(self, result: tuple[Order, dict[str, Any]]) -> tuple[Order, dict[str, Any]]:
        order, data = result
        wire = data.get("transactions")
        if isinstance(wire, list) and len(wire) == len(order.transactions):
            self._by_id = {
                key: (tx, model)
                for tx, model in zip(wire, order.transactions, strict=True)
                if (key := _tx_key(tx)) is not None
            }
        else:
            self._by_id = {}
        return result


def _tx_key(tx: Any) -> object:
    tx_id = tx.get("id") if isinstance(tx, dict) else None
    return tx_id if type(tx_id) in (int, str) else None


def _same_wire(a: Any, b: Any) -> bool:
    """Equal as JSON text would be: `==` says 1.0 == 1.00 and True == 1, which for money and
    for validation are different answers."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_wire(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same_wire, a, b))
    if isinstance(a, Decimal):
        return a.as_tuple() == b.as_tuple()
    return bool(a == b)


def _log_outcome(
    endpoint: str, token: str, started: float, status: int | None, error: BaseException | None
) -> None:
    """One line per request for the log file: endpoint, order token (or what was asked),
    status/error, elapsed ms.

    No secret is ever an argument here; the log handler redacts them anyway (logs.py).
    """
    if not log.isEnabledFor(logging.INFO):
        return
    elapsed_ms = (time.monotonic() - started) * 1000
    shown = clean(token, limit=80)
    outcome = "-" if status is None else str(status)
    if error is None:
        log.info(
            "request %s token=%r status=%s elapsed_ms=%.0f", endpoint, shown, outcome, elapsed_ms
        )
    elif isinstance(error, OrderdashError):
        log.warning(
            "request %s token=%r status=%s error=%s elapsed_ms=%.0f: %s",
            endpoint,
            shown,
            outcome,
            type(error).__name__,
            elapsed_ms,
            error.message,
        )
    else:
        log.error(
            "request %s token=%r status=%s error=%s elapsed_ms=%.0f: unexpected",
            endpoint,
            shown,
            outcome,
            type(error).__name__,
            elapsed_ms,
            exc_info=error,
        )


#: pydantic's words for a value of the wrong JSON type, in the words of JSON (a user reading
#: "Input should be a valid tuple" has to know how the models are written).
_JSON_TYPE_WORDS = {
    "missing": "is missing",
    "string_type": "should be a string",
    "int_type": "should be a whole number",
    "int_parsing": "should be a whole number",
    "int_from_float": "should be a whole number",
    "bool_type": "should be true or false",
    "bool_parsing": "should be true or false",
    "dict_type": "should be a JSON object",
    "model_type": "should be a JSON object",
    "model_attributes_type": "should be a JSON object",
    "list_type": "should be a JSON array",
    "tuple_type": "should be a JSON array",
}


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    location = clean(".".join(str(part) for part in first["loc"]) or "body", limit=60)
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    if isinstance(exc.errors(include_url=False)[0].get("input"), jsontext.OutOfRangeNumber):
        return f"{location}: number out of range{more}"
    words = _JSON_TYPE_WORDS.get(first["type"])
    if words is not None:
        return f"{location} {words}{more}"
    return f"{location}: {first['msg'].removeprefix('Value error, ')}{more}"


__all__ = [
    "AccountOrders",
    "ApiError",
    "Fetched",
    "OrderClient",
    "Timeouts",
    "is_loopback_host",
    "parse_retry_after",
]
