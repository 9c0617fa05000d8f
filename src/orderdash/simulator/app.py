"""The simulator's HTTP face: a Starlette ASGI app serving a `Simulator`, assembled from its
parts: the service's endpoints (`api.py`, under `prefix`), the control endpoints (`control.py`,
under /_sim/), the answers and their sending (`reply.py`). The token path segment is
percent-decoded from the raw request path, so "a%2Fb" is token "a/b"; any other path or method
-> 404 / 405 {"message": ...}.

Faults (`Fault`) apply to the API endpoints only; the first matching fault wins. On generateOrder
a fault may also rewrite the answer (`answerToken`, `answerPaymentUrl`: the order is made with
the token sent, the answer names another token or carries another checkout link). Two are
the history's own: `endlessPages` (nextPage is never null) and `extraItems` (a huge page of
made-up orders, `extraStatus` their status code).
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote, unquote

from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

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
    "SimulatorASGI",
    "create_app",
    "normalize_prefix",
]


def normalize_prefix(prefix: str) -> str:
    """'' or '/a/b' (leading slash, no trailing slash)."""
    prefix = (prefix or "").strip()
    if not prefix or prefix == "/":
        return ""
    return "/" + prefix.strip("/")


class SimulatorASGI:
    """The raw ASGI handler behind create_app (one catch-all route)."""

    def __init__(
        self,
        sim: Simulator,
        bearer_token: str,
        prefix: str,
        *,
        access_token: str = DEFAULT_ACCESS_TOKEN,
        bearer_lifetime: float = DEFAULT_BEARER_LIFETIME,
        history_page_cap: int = DEFAULT_HISTORY_PAGE_CAP,
        customer_id: str = DEFAULT_CUSTOMER_ID,
        create_prefix: str | None = None,
        create_answer: str = "success",
        create_per_hour: int = DEFAULT_CREATE_PER_HOUR,
    ) -> None:
        self.sim = sim
        self.api = ServiceAPI(
            sim,
            bearer_token,
            access_token=access_token,
            bearer_lifetime=bearer_lifetime,
            history_page_cap=history_page_cap,
            customer_id=customer_id,
            create_answer=create_answer,
            create_per_hour=create_per_hour,
        )
        self.prefix = normalize_prefix(prefix)
        self.create_prefix = (
            self.prefix if create_prefix is None else normalize_prefix(create_prefix)
        )

    def _classify(self, path: str) -> tuple[str, str | None, list[str]]:
        """(endpoint, token, control segments) of a raw (still percent-encoded) path."""
        if path == CONTROL_ROOT or path.startswith(CONTROL_ROOT + "/"):
            segments = [unquote(s) for s in path[len(CONTROL_ROOT) + 1 :].split("/")]
            token = segments[1] if len(segments) >= 2 and segments[0] == "orders" else None
            return "control", token, segments
        if path == self.create_prefix + "/api/generateOrder":
            return "create", None, []
        prefix = self.prefix
        if prefix and not path.startswith(prefix + "/"):
            return "other", None, []
        parts = path[len(prefix) :].split("/")
        if len(parts) == 4 and parts[:2] == ["", "order"] and parts[2] and parts[3] == "":
            return "order", unquote(parts[2]), []
        if parts == ["", "orders", "api", "login"]:
            return "login", None, []
        if parts == ["", "orders", "api"]:
            return "history", None, []
        if len(parts) == 4 and parts[:3] == ["", "orders", "api"] and parts[3]:
            return "ui_order", unquote(parts[3]), []
        if (
            len(parts) == 5
            and parts[:3] == ["", "orders", "api"]
            and parts[3]
            and parts[4] == "rates"
        ):
            return "rates", unquote(parts[3]), []
        return "other", None, []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # pragma: no cover - websockets are not served
            return
        raw = scope.get("raw_path")
        if raw is None:
            raw = quote(scope["path"]).encode("ascii")
        path = raw.split(b"?", 1)[0].decode("latin-1")
        method = scope["method"].upper()
        endpoint, token, segments = self._classify(path)
        api = self.api
        bearer = api.bearer(scope)
        self.sim.log_request(method, path, endpoint, token, bearer)

        if endpoint in API_ENDPOINTS:
            fault = self.sim.take_fault(endpoint, token)
            if fault is not None and fault.delay > 0:
                await asyncio.sleep(fault.delay)
            if endpoint == "login":
                reply = api.login(method, await read_body(receive))
            elif endpoint == "history":
                reply = api.history(method, scope, bearer, fault)
            elif endpoint == "create":
                reply = api.create(method, await read_body(receive), fault)
            elif endpoint == "ui_order":
                reply = api.ui_order(method, token, bearer, await read_body(receive))
            else:
                reply = api.order(method, endpoint, token, bearer)
            if fault is not None:
                await send_faulty(send, reply, fault)
                return
        elif endpoint == "control":
            reply = await control(self.sim, method, segments, receive)
        else:
            reply = Reply(404, {"message": "Not found"})
        await send_reply(send, reply)


def create_app(
    sim: Simulator, bearer_token: str = "secret", prefix: str = "", **account: Any
) -> Starlette:
    """A Starlette app serving `sim`: API endpoints under `prefix`, control under /_sim/.
    `account`: access_token, bearer_lifetime, history_page_cap (SimulatorASGI)."""
    handler = SimulatorASGI(sim, bearer_token, prefix, **account)
    app = Starlette(routes=[Route("/{rest:path}", endpoint=handler)])
    app.state.simulator = sim
    app.state.handler = handler
    return app
