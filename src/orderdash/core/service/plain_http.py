"""httpx transports for a service reached over plain http only: no TLS context is made.

httpx's transports make a TLS context as they are made, whatever the URLs they will serve
(httpx 0.28 `create_ssl_context`: an OpenSSL context, ~1.1 MiB of resident memory and ~1.5 ms,
measured). A client whose every URL is plain http (the simulator, `orderdash demo`, a service
on this machine) never opens TLS: it follows no redirect, and httpx gives a proxy a transport of
its own (made, for a service on another host, with the verified context the client loads for
it). These transports build the same connection pool without one; should TLS be asked for
anyway, httpcore makes its own verified default context then.

It is kept for what it buys the dashboard's first paint: ~0.7 MiB of peak RSS (bench/README,
"What each speed mechanism buys").

Built on httpx 0.28's `HTTPTransport` (pinned <0.29): its `__init__` is replaced, its request
handling is kept, and that handling uses the pool alone (`self._pool`).
"""

from __future__ import annotations

from typing import TypedDict

import httpcore
import httpx

#: httpx's own default limits (`httpx._config.DEFAULT_LIMITS`), except that an idle connection
#: is dropped after 4 s, not 5: servers commonly close theirs after 5 s idle (uvicorn, Apache),
#: and a request sent on a connection of the same age meets the server's close on the way and
#: fails with no answer ("broke off mid-response": a false outage alarm). Every client of ours
#: uses these, with or without TLS.
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=4.0)


class _PoolOptions(TypedDict):
    ssl_context: None
    max_connections: int | None
    max_keepalive_connections: int | None
    keepalive_expiry: float | None


#: The connection pool as httpx's transports make it with no proxy, but without a TLS context.
POOL_OPTIONS: _PoolOptions = {
    "ssl_context": None,
    "max_connections": LIMITS.max_connections,
    "max_keepalive_connections": LIMITS.max_keepalive_connections,
    "keepalive_expiry": LIMITS.keepalive_expiry,
}


class PlainHTTPTransport(httpx.HTTPTransport):
    """`httpx.HTTPTransport()` without a TLS context, for plain-http URLs."""

    def __init__(self) -> None:  # not HTTPTransport's: it makes the TLS context first thing
        self._pool = httpcore.ConnectionPool(**POOL_OPTIONS)


class PlainAsyncHTTPTransport(httpx.AsyncHTTPTransport):
    """`httpx.AsyncHTTPTransport()` without a TLS context, for plain-http URLs."""

    def __init__(self) -> None:  # not AsyncHTTPTransport's: it makes the TLS context first thing
        self._pool = httpcore.AsyncConnectionPool(**POOL_OPTIONS)
