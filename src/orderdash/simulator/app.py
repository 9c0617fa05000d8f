"""The simulator's HTTP face: a Starlette app serving a `Simulator`, assembled from its parts:
the service's endpoints (`api.py`, routed under `prefix`; generateOrder under `create_prefix`),
the control endpoints (`control.py`, under /_sim/), the answers and their sending (`reply.py`).
Routes match the raw request path (still percent-encoded), so "a%2Fb" is one path segment, the
token "a/b"; any other path -> 404 {"message": "Not found"}, a method an endpoint does not take
-> 405. Every request is logged (`Simulator.requests`) before its body is read, unknown paths
too.

Faults (`Fault`) apply to the API endpoints only; the first matching fault wins. On generateOrder
a fault may also rewrite the answer (`answerToken`, `answerPaymentUrl`: the order is made with
the token sent, the answer names another token or carries another checkout link). Two are
the history's own: `endlessPages` (nextPage is never null) and `extraItems` (a huge page of
made-up orders, `extraStatus` their status code).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote, unquote

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from orderdash.simulator.api import (
    API_ENDPOINTS,
    BEARER_HEADER,
    CHECKOUT_URL,
    DEFAULT_ACCESS_TOKEN,
    DEFAULT_BEARER_LIFETIME,
    DEFAULT_CREATE_PER_HOUR,
    DEFAULT_CUSTOMER_ID,
    DEFAULT_HISTORY_LIMIT,
    DEFAULT_HISTORY_PAGE_CAP,
    ServiceAPI,
)
from orderdash.simulator.control import CONTROL_ROOT, control
from orderdash.simulator.faults import Fault
from orderdash.simulator.reply import (
    MAX_CONTROL_BODY,
    Reply,
    SimulatedReset,
    read_body,
    send_faulty,
    send_reply,
)
from orderdash.simulator.state import Simulator

__all__ = [
    "API_ENDPOINTS",
    "BEARER_HEADER",
    "CHECKOUT_URL",
    "CONTROL_ROOT",
    "DEFAULT_ACCESS_TOKEN",
    "DEFAULT_BEARER_LIFETIME",
    "DEFAULT_CREATE_PER_HOUR",
    "DEFAULT_CUSTOMER_ID",
    "DEFAULT_HISTORY_LIMIT",
    "DEFAULT_HISTORY_PAGE_CAP",
    "MAX_CONTROL_BODY",
    "SimulatedReset",
    "create_app",
    "normalize_prefix",
]


def normalize_prefix(prefix: str) -> str:
    """'' or '/a/b' (leading slash, no trailing slash)."""
    prefix = (prefix or "").strip()
    if not prefix or prefix == "/":
        return ""
    return "/" + prefix.strip("/")


class RawPath:
    """Routing by the raw request path: Starlette matches `scope["path"]`, which the server has
    percent-decoded (a token "a%2Fb" would read as two segments there)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw = scope.get("raw_path")
            if raw is None:
                raw = quote(scope["path"]).encode("ascii")
            scope = {**scope, "path": raw.split(b"?", 1)[0].decode("latin-1")}
        await self.app(scope, receive, send)


class Call:
    """One request to an API endpoint, as its answer needs it."""

    __slots__ = ("scope", "receive", "method", "token", "bearer", "fault")

    def __init__(
        self,
        scope: Scope,
        receive: Receive,
        token: str | None,
        bearer: str,
        fault: Fault | None,
    ) -> None:
        self.scope, self.receive = scope, receive
        self.method: str = scope["method"].upper()
        self.token, self.bearer, self.fault = token, bearer, fault

    async def body(self) -> bytes:
        return await read_body(self.receive)


Answer = Callable[[Call], Awaitable[Reply]]


class Endpoint:
    """One route's ASGI app: the request logged (before its body is read, so a test can tell
    a request came while its body is still on the way), then answered: here with a 404, for a
    path no route takes. A token in the path is percent-decoded here."""

    def __init__(self, sim: Simulator, api: ServiceAPI, name: str) -> None:
        self.sim, self.api, self.name = sim, api, name

    def token(self, scope: Scope) -> str | None:
        token: str | None = scope.get("path_params", {}).get("token")
        return None if token is None else unquote(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token, bearer = self.token(scope), self.api.bearer(scope)
        self.sim.log_request(scope["method"].upper(), scope["path"], self.name, token, bearer)
        await self.answer(scope, receive, send, token, bearer)

    async def answer(
        self, scope: Scope, receive: Receive, send: Send, token: str | None, bearer: str
    ) -> None:
        await send_reply(send, Reply(404, {"message": "Not found"}))


class ApiEndpoint(Endpoint):
    """An endpoint of the service: the faults in force for it (and its token) bend its answer."""

    def __init__(self, sim: Simulator, api: ServiceAPI, name: str, answer: Answer) -> None:
        super().__init__(sim, api, name)
        self._answer = answer

    async def answer(
        self, scope: Scope, receive: Receive, send: Send, token: str | None, bearer: str
    ) -> None:
        fault = self.sim.take_fault(self.name, token)
        if fault is not None and fault.delay > 0:
            await asyncio.sleep(fault.delay)
        reply = await self._answer(Call(scope, receive, token, bearer, fault))
        if fault is not None:
            await send_faulty(send, reply, fault)
        else:
            await send_reply(send, reply)


class ControlEndpoint(Endpoint):
    """The control endpoints under /_sim/ (`control.py`): never faulted."""

    def token(self, scope: Scope) -> str | None:
        segments = self.segments(scope)
        return segments[1] if len(segments) >= 2 and segments[0] == "orders" else None

    @staticmethod
    def segments(scope: Scope) -> list[str]:
        return [unquote(s) for s in scope["path"][len(CONTROL_ROOT) + 1 :].split("/")]

    async def answer(
        self, scope: Scope, receive: Receive, send: Send, token: str | None, bearer: str
    ) -> None:
        method = scope["method"].upper()
        await send_reply(send, await control(self.sim, method, self.segments(scope), receive))


def api_routes(sim: Simulator, api: ServiceAPI, prefix: str, create_prefix: str) -> list[Route]:
    """The service's endpoints as routes (docs/service-api.md, docs/account-api.md)."""

    async def order(call: Call) -> Reply:
        return api.order(call.method, "order", call.token, call.bearer)

    async def rates(call: Call) -> Reply:
        return api.order(call.method, "rates", call.token, call.bearer)

    async def login(call: Call) -> Reply:
        return api.login(call.method, await call.body())

    async def history(call: Call) -> Reply:
        return api.history(call.method, call.scope, call.bearer, call.fault)

    async def create(call: Call) -> Reply:
        return api.create(call.method, await call.body(), call.fault)

    async def ui_order(call: Call) -> Reply:
        return api.ui_order(call.method, call.token, call.bearer, await call.body())

    def route(path: str, name: str, answer: Answer) -> Route:
        # an ASGI app as the endpoint: every method reaches it (the API answers 405 itself)
        return Route(path, ApiEndpoint(sim, api, name, answer), name=name)

    # generateOrder first: it may be served under another prefix
    return [
        route(f"{create_prefix}/api/generateOrder", "create", create),
        route(f"{prefix}/order/{{token}}/", "order", order),
        route(f"{prefix}/orders/api/login", "login", login),
        route(f"{prefix}/orders/api", "history", history),
        route(f"{prefix}/orders/api/{{token}}", "ui_order", ui_order),
        route(f"{prefix}/orders/api/{{token}}/rates", "rates", rates),
    ]


def create_app(
    sim: Simulator,
    bearer_token: str = "secret",
    prefix: str = "",
    *,
    create_prefix: str | None = None,
    **account: Any,
) -> Starlette:
    """A Starlette app serving `sim`: API endpoints under `prefix` (generateOrder under
    `create_prefix`, default `prefix`), control under /_sim/. `account`: access_token,
    bearer_lifetime, history_page_cap, customer_id, create_answer, create_per_hour
    (`ServiceAPI`)."""
    api = ServiceAPI(sim, bearer_token, **account)
    prefix = normalize_prefix(prefix)
    create_prefix = prefix if create_prefix is None else normalize_prefix(create_prefix)
    control_endpoint = ControlEndpoint(sim, api, "control")
    routes = [
        Route(CONTROL_ROOT, control_endpoint, name="control"),
        Route(CONTROL_ROOT + "/{rest:path}", control_endpoint, name="control"),
        *api_routes(sim, api, prefix, create_prefix),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(RawPath)])
    # any other path: the simulator's own 404 (logged too), never a redirect to a near one
    app.router.default = Endpoint(sim, api, "other")
    app.router.redirect_slashes = False
    app.state.simulator = sim
    return app
