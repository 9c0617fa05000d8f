"""The simulator's HTTP face: a Starlette ASGI app serving a `Simulator`.

API endpoints (docs/service-api.md#endpoints), mounted under `prefix`:
  GET {prefix}/order/<token>/           -> 200 {"status": 1, "data": Order}   (no qrCode)
  GET {prefix}/orders/api/<token>/rates -> 200 {"success": true, "data": Order, "message": null}
Account endpoints (docs/account-api.md), under the same prefix:
  POST {prefix}/orders/api/login  {"token": <access token>}
      -> 200 {"success": true, "data": "<JWT-shaped bearer>", "message": null}
      a wrong token -> 401 {"success": false, "data": null, "message": "Invalid access token"}
  GET  {prefix}/orders/api/<token>  (bearer) -> 200 {"success": true, "data": Order with qrCode,
      plus "coins" while no coin is chosen, "message": null}
  POST {prefix}/orders/api/<token>  (bearer) {"coin": code} -> 200 {"status": 1, "data": Order}
      chooses the coin (code or basename, any case); unknown coin, chosen already or closed
      -> 422 {"status": "error", "status_code ": 422, "message": {"coin": ...}}
  POST {create_prefix}/api/generateOrder  {customer_id, access_token, order_id, order_token,
      amount} -> 200 {"success": true, "message": null, "data": {id, payment_url, token}} (or,
      with create_answer="status", 201 {"status": 1, "status_code ": 201, "message": {...}});
      an order without a coin; a taken order_token, a missing field or a wrong customer_id
      -> 422 in the docs' error form; a wrong access token -> 401; over `create_per_hour`
      orders in the last hour -> 429 with Retry-After. `create_prefix` defaults to `prefix`.
  GET  {prefix}/orders/api?page=&limit=  (bearer)
      -> 200 {"statusCode": 200, "data": {"items": [...], "meta": {...}}}: pages from 0, at most
      `history_page_cap` items a page whatever `limit` asks; bad page/limit -> 400
A bearer is the fixed `bearer_token` (never expires) or one issued by the log-in, which expires
`bearer_lifetime` seconds (simulator clock) after it was issued; then it gets 401 like a wrong one.
Assumed error forms (the contract shows none):
  getOrder, unknown token   -> 404 {"status": 0, "data": null, "message": "Order not found"}
  rates, bearer_token header missing or wrong -> 401
                               {"success": false, "data": null, "message": "Unauthorized"}
                               (checked before the token is looked up)
  rates, unknown token      -> 404 {"success": false, "data": null, "message": "Order not found"}
  any other path or method  -> 404 / 405 {"message": ...}
The token path segment is percent-decoded from the raw request path, so "a%2Fb" is token "a/b".

Control endpoints for tests and demos live under /_sim/ (never under the prefix):
  GET  /_sim/orders                         list of {token, status, companyName, coin}
  POST /_sim/orders                         {companyName?, coin?, currency?, amountFiat?, token?,
                                             email?, lifetimeS?, amount?} -> 201 {token}
                                            (amount: a fixed coin amount, every decimal kept)
  POST /_sim/orders/<token>/transactions    {amount?: "decimal text"} -> 201 the transaction
  POST /_sim/orders/<token>/status          {code, label?}
  POST /_sim/orders/<token>/fields          object of raw wire-field overrides
  POST /_sim/faults                         Fault fields -> 201;  DELETE /_sim/faults -> 204
  POST /_sim/clock                          {advance: seconds}
  GET  /_sim/requests;  DELETE /_sim/requests -> 204
  POST /_sim/customer/step                  -> the transaction or null
Bodies are parsed with jsontext.loads; bad input -> 400 {"message": ...}, unknown token -> 404.

Faults (`Fault`) apply to the API endpoints only; the first matching fault wins. On generateOrder
a fault may also rewrite the answer (`answerToken`, `answerPaymentUrl`: the order is made with
the token sent, the answer names another token or carries another checkout link). Two are
the history's own: `endlessPages` (nextPage is never null) and `extraItems` (a huge page of
made-up orders, `extraStatus` their status code).
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import json
import secrets
from decimal import Decimal
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, quote, unquote

from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from orderdash.core.service import jsontext
from orderdash.simulator.state import Fault, Simulator, UnknownOrderError

BEARER_HEADER = b"bearer_token"
MAX_CONTROL_BODY = 1_000_000
CONTROL_ROOT = "/_sim"
#: The access token the simulator's log-in accepts unless told otherwise.
DEFAULT_ACCESS_TOKEN = "demo"
DEFAULT_BEARER_LIFETIME = 3600.0
#: The history's own page size cap: below what clients usually ask, so paging is exercised.
DEFAULT_HISTORY_PAGE_CAP = 25
DEFAULT_HISTORY_LIMIT = 10
API_ENDPOINTS = ("order", "rates", "login", "history", "ui_order", "create")
#: The account number the simulator's generateOrder accepts unless told otherwise.
DEFAULT_CUSTOMER_ID = "4711"
#: Orders an account may create per hour (docs/limits.md#creating-orders).
DEFAULT_CREATE_PER_HOUR = 500
#: Where the simulated hosted checkout would be: never served, only handed out.
CHECKOUT_URL = "https://pay.example/invoice?token="


class SimulatedReset(ConnectionAbortedError):
    """Raised inside a response body to make the server drop the connection (a Fault)."""


def normalize_prefix(prefix: str) -> str:
    """'' or '/a/b' (leading slash, no trailing slash)."""
    prefix = (prefix or "").strip()
    if not prefix or prefix == "/":
        return ""
    return "/" + prefix.strip("/")


def _json_bytes(obj: Any) -> bytes:
    return jsontext.dumps(obj).encode("ascii")


class _Reply:
    __slots__ = ("status", "body", "headers")

    def __init__(self, status: int, obj: Any = None, *, raw: bytes | None = None) -> None:
        self.status = status
        self.body = raw if raw is not None else (b"" if status == 204 else _json_bytes(obj))
        self.headers: dict[str, tuple[str, str]] = {}
        if status != 204:
            self.headers["content-type"] = ("content-type", "application/json")

    def set_header(self, name: str, value: str) -> None:
        self.headers[name.lower()] = (name.lower(), value)


class _BadRequest(ValueError):
    pass


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
        if not isinstance(bearer_token, str) or not bearer_token:
            raise ValueError("bearer_token must be a non-empty string")
        if not isinstance(access_token, str) or not access_token:
            raise ValueError("access_token must be a non-empty string")
        if not bearer_lifetime > 0:
            raise ValueError("bearer_lifetime must be positive")
        if history_page_cap < 1:
            raise ValueError("history_page_cap must be at least 1")
        if create_answer not in ("success", "status"):
            raise ValueError(
                "create_answer must be 'success' or 'status' (the two published forms)"
            )
        self.customer_id = str(customer_id)
        self.create_answer = create_answer
        self.create_per_hour = int(create_per_hour)
        #: Simulator times of the orders created through generateOrder (the hourly cap).
        self._created: list[float] = []
        self.sim = sim
        self._secret = bearer_token.encode("latin-1")
        self._access_token = access_token.encode("utf-8")
        self.bearer_lifetime = float(bearer_lifetime)
        self.history_page_cap = int(history_page_cap)
        #: Bearers issued by the log-in: value -> expiry (simulator clock).
        self._issued: dict[bytes, float] = {}
        self.prefix = normalize_prefix(prefix)
        self.create_prefix = (
            self.prefix if create_prefix is None else normalize_prefix(create_prefix)
        )

    # -------------------------------------------------------------- routing
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

    def _bearer(self, scope: Scope) -> str:
        for name, value in scope.get("headers", []):
            if name.lower() == BEARER_HEADER:
                if hmac.compare_digest(value, self._secret):
                    return "ok"
                expiry = self._issued.get(value)
                if expiry is None:
                    return "wrong"
                return "ok" if self.sim.now() < expiry else "expired"
        return "missing"

    def _issue_bearer(self) -> str:
        """A JWT-shaped bearer (header.payload.signature, `iat` and `exp` claims)."""
        now = self.sim.now()
        expiry = now + self.bearer_lifetime

        def part(obj: Any) -> str:
            raw = json.dumps(obj, separators=(",", ":")).encode("ascii")
            return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")

        header = part({"alg": "HS256", "typ": "JWT"})
        payload = part({"iat": int(now), "exp": int(expiry), "jti": secrets.token_hex(8)})
        signature = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode("ascii")
        bearer = f"{header}.{payload}.{signature}"
        # expired bearers are forgotten as new ones are issued: the dict stays small
        self._issued = {k: v for k, v in self._issued.items() if v > now}
        self._issued[bearer.encode("ascii")] = expiry
        return bearer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # pragma: no cover - websockets are not served
            return
        raw = scope.get("raw_path")
        if raw is None:
            raw = quote(scope["path"]).encode("ascii")
        path = raw.split(b"?", 1)[0].decode("latin-1")
        method = scope["method"].upper()
        endpoint, token, segments = self._classify(path)
        bearer = self._bearer(scope)
        self.sim.log_request(method, path, endpoint, token, bearer)

        if endpoint in API_ENDPOINTS:
            fault = self.sim.take_fault(endpoint, token)
            if fault is not None and fault.delay > 0:
                await asyncio.sleep(fault.delay)
            if endpoint == "login":
                reply = self._login(method, await _read_body(receive))
            elif endpoint == "history":
                reply = self._history(method, scope, bearer, fault)
            elif endpoint == "create":
                reply = self._create(method, await _read_body(receive), fault)
            elif endpoint == "ui_order":
                reply = self._ui_order(method, token, bearer, await _read_body(receive))
            else:
                reply = self._api(method, endpoint, token, bearer)
            if fault is not None:
                await self._send_faulty(send, reply, fault)
                return
        elif endpoint == "control":
            reply = await self._control(method, segments, scope, receive)
        else:
            reply = _Reply(404, {"message": "Not found"})
        await self._send(send, reply)

    # -------------------------------------------------------------- API
    def _api(self, method: str, endpoint: str, token: str | None, bearer: str) -> _Reply:
        assert token is not None
        if method not in ("GET", "HEAD"):
            reply = _Reply(405, {"message": "Method not allowed"})
            reply.set_header("Allow", "GET")
            return reply
        if endpoint == "order":
            try:
                data = self.sim.order_wire(token, with_qr=False)
            except UnknownOrderError:
                return _Reply(404, {"status": 0, "data": None, "message": "Order not found"})
            return _Reply(200, {"status": 1, "data": data})
        if bearer != "ok":
            return _Reply(401, {"success": False, "data": None, "message": "Unauthorized"})
        try:
            data = self.sim.order_wire(token, with_qr=True)
        except UnknownOrderError:
            return _Reply(404, {"success": False, "data": None, "message": "Order not found"})
        return _Reply(200, {"success": True, "data": data, "message": None})

    def _login(self, method: str, body: bytes) -> _Reply:
        if method != "POST":
            return _not_allowed("POST")
        given = _api_object(body).get("token")
        if not isinstance(given, str) or not given:
            return _Reply(
                422, {"success": False, "data": None, "message": "The token field is required."}
            )
        if not hmac.compare_digest(given.encode("utf-8"), self._access_token):
            return _Reply(401, {"success": False, "data": None, "message": "Invalid access token"})
        return _Reply(200, {"success": True, "data": self._issue_bearer(), "message": None})

    def _create(self, method: str, body: bytes, fault: Fault | None = None) -> _Reply:
        """generateOrder: one order per new `order_token`; the docs' 422 form for bad fields.
        A fault's `answer_token` / `answer_payment_url` replace those of the answer."""
        if method != "POST":
            return _not_allowed("POST")
        obj = _api_object(body)
        fields = ("customer_id", "access_token", "order_id", "order_token", "amount")
        for name in fields:
            value = obj.get(name)
            if value is None or value == "":
                return _unprocessable({name: f"The {name.replace('_', ' ')} field is required."})
        given = obj["access_token"]
        if not isinstance(given, str) or not hmac.compare_digest(
            given.encode("utf-8"), self._access_token
        ):
            return _Reply(401, {"status": "error", "status_code ": 401, "message": "Unauthorized"})
        if str(obj["customer_id"]) != self.customer_id:
            return _unprocessable({"customer_id": "Invalid customer_id"})
        token = obj["order_token"]
        if not isinstance(token, str) or not token.strip() or len(token) > 200:
            return _unprocessable({"order_token": "The order token must be text."})
        amount = obj["amount"]
        if isinstance(amount, bool) or not isinstance(amount, (str, int, Decimal)):
            return _unprocessable({"amount": "The amount must be a number."})
        now = self.sim.now()
        self._created = [t for t in self._created if t > now - 3600]
        if len(self._created) >= self.create_per_hour:
            reply = _Reply(
                429,
                {
                    "status": "error",
                    "status_code ": 429,
                    "message": f"Too many orders: {self.create_per_hour} an hour",
                },
            )
            reply.set_header("Retry-After", str(int(self._created[0] + 3600 - now) + 1))
            return reply
        if self.sim.has_order(token):
            return _unprocessable({"order_token": "The order token has already been taken."})
        try:
            self.sim.create_order(token=token, coin=None, amount_fiat=amount)
        except ValueError as exc:
            if self.sim.has_order(token):  # created meanwhile by a request racing this one
                return _unprocessable({"order_token": "The order token has already been taken."})
            return _unprocessable({"amount": str(exc)[:200]})
        self._created.append(now)
        order = self.sim.order_wire(token, with_qr=False)
        created = {
            "id": order["id"],
            "payment_url": CHECKOUT_URL + quote(token, safe=""),
            "token": token,
        }
        if fault is not None and fault.answer_token is not None:
            created["token"] = fault.answer_token
        if fault is not None and fault.answer_payment_url is not None:
            created["payment_url"] = fault.answer_payment_url
        if self.create_answer == "status":
            return _Reply(201, {"status": 1, "status_code ": 201, "message": created})
        return _Reply(200, {"success": True, "message": None, "data": created})

    def _ui_order(self, method: str, token: str | None, bearer: str, body: bytes) -> _Reply:
        assert token is not None
        if method not in ("GET", "HEAD", "POST"):
            return _not_allowed("GET, POST")
        if bearer != "ok":
            return _Reply(401, {"success": False, "data": None, "message": "Unauthorized"})
        try:
            if method == "POST":
                coin = _api_object(body).get("coin")
                if not isinstance(coin, str) or not coin:
                    return _unprocessable({"coin": "The coin field is required."})
                try:
                    data = self.sim.choose_coin(token, coin)
                except ValueError as exc:
                    return _unprocessable({"coin": str(exc)})
                return _Reply(200, {"status": 1, "data": data})
            data = self.sim.ui_order_wire(token)
        except UnknownOrderError:
            return _Reply(404, {"success": False, "data": None, "message": "Order not found"})
        return _Reply(200, {"success": True, "data": data, "message": None})

    def _history(self, method: str, scope: Scope, bearer: str, fault: Fault | None) -> _Reply:
        if method not in ("GET", "HEAD"):
            return _not_allowed("GET")
        if bearer != "ok":
            return _Reply(401, {"success": False, "data": None, "message": "Unauthorized"})
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        try:
            page = _query_int(query, "page", 0)
            limit = _query_int(query, "limit", DEFAULT_HISTORY_LIMIT)
            if limit < 1:
                raise _BadRequest("limit must be at least 1")
        except _BadRequest as exc:
            return _Reply(400, {"statusCode": 400, "message": str(exc)})
        data = self.sim.history_page(page, min(limit, self.history_page_cap))
        if fault is not None and fault.endless_pages:
            data["meta"]["nextPage"] = page + 1
        if fault is not None and fault.extra_items:
            # written compactly, as a service would: 50,000 of them make ~7.9 MB
            items = [jsontext.dumps(item) for item in data["items"]]
            items += _made_up_items(page, fault.extra_items, fault.extra_status)
            meta = jsontext.dumps(data["meta"])
            body = f'{{"statusCode":200,"data":{{"items":[{",".join(items)}],"meta":{meta}}}}}'
            return _Reply(200, raw=body.encode("ascii"))
        return _Reply(200, {"statusCode": 200, "data": data})

    # -------------------------------------------------------------- control
    async def _control(
        self, method: str, segments: list[str], scope: Scope, receive: Receive
    ) -> _Reply:
        try:
            body = await _read_body(receive)
            return self._control_dispatch(method, segments, body)
        except UnknownOrderError as exc:
            return _Reply(404, {"message": f"Order not found: {exc.token!r}"})
        except (_BadRequest, ValueError, TypeError) as exc:
            return _Reply(400, {"message": str(exc)[:500] or "Bad request"})

    def _control_dispatch(self, method: str, seg: list[str], body: bytes) -> _Reply:
        sim = self.sim
        if seg == ["orders"]:
            if method == "GET":
                return _Reply(200, sim.list_orders())
            if method == "POST":
                obj = _object(body)
                allowed = {
                    "companyName",
                    "coin",
                    "currency",
                    "amountFiat",
                    "token",
                    "email",
                    "lifetimeS",
                    "amount",
                }
                _only(obj, allowed)
                kwargs: dict[str, Any] = {}
                if "companyName" in obj:
                    kwargs["company_name"] = obj["companyName"]
                if "coin" in obj:
                    kwargs["coin"] = obj["coin"]
                if "currency" in obj:
                    kwargs["currency"] = obj["currency"]
                if "amountFiat" in obj:
                    kwargs["amount_fiat"] = _decimal_or_text(obj["amountFiat"], "amountFiat")
                if "token" in obj:
                    kwargs["token"] = obj["token"]
                if "email" in obj:
                    kwargs["email"] = obj["email"]
                if "lifetimeS" in obj:
                    kwargs["lifetime_s"] = obj["lifetimeS"]
                if "amount" in obj:
                    kwargs["amount"] = _decimal_or_text(obj["amount"], "amount")
                token = sim.create_order(**kwargs)
                return _Reply(201, {"token": token})
            return _not_allowed("GET, POST")
        if len(seg) == 3 and seg[0] == "orders" and seg[1]:
            token, action = seg[1], seg[2]
            if method != "POST":
                return _not_allowed("POST")
            if action == "transactions":
                obj = _object(body) if body.strip() else {}
                _only(obj, {"amount"})
                amount = obj.get("amount")
                if amount is not None:
                    amount = _decimal_or_text(amount, "amount")
                return _Reply(201, sim.add_transaction(token, amount))
            if action == "status":
                obj = _object(body)
                _only(obj, {"code", "label"})
                if not isinstance(obj.get("code"), str):
                    raise _BadRequest("code (text) is required")
                sim.set_status(token, obj["code"], obj.get("label"))
                return _Reply(200, {"ok": True})
            if action == "fields":
                obj = _object(body)
                sim.set_fields(token, obj)
                return _Reply(200, {"ok": True})
            return _Reply(404, {"message": "Not found"})
        if seg == ["faults"]:
            if method == "POST":
                sim.add_fault(Fault.from_json(_object(body)))
                return _Reply(201, {"faults": len(sim.faults)})
            if method == "DELETE":
                sim.clear_faults()
                return _Reply(204)
            return _not_allowed("POST, DELETE")
        if seg == ["clock"]:
            if method != "POST":
                return _not_allowed("POST")
            obj = _object(body)
            _only(obj, {"advance"})
            advance = obj.get("advance")
            if isinstance(advance, bool) or not isinstance(advance, (int, Decimal)):
                raise _BadRequest("advance (seconds, a number) is required")
            sim.advance_clock(float(advance))
            return _Reply(200, {"now": Decimal(repr(sim.now()))})
        if seg == ["requests"]:
            if method == "GET":
                entries = sim.requests
                for entry in entries:
                    entry["t"] = Decimal(repr(entry["t"]))
                return _Reply(200, entries)
            if method == "DELETE":
                sim.clear_requests()
                return _Reply(204)
            return _not_allowed("GET, DELETE")
        if seg == ["customer", "step"]:
            if method != "POST":
                return _not_allowed("POST")
            return _Reply(200, sim.customer_step())
        return _Reply(404, {"message": "Not found"})

    # -------------------------------------------------------------- sending
    @staticmethod
    async def _send(send: Send, reply: _Reply) -> None:
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in reply.headers.values()]
        if reply.status != 204:
            headers.append((b"content-length", str(len(reply.body)).encode("ascii")))
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        await send({"type": "http.response.body", "body": reply.body, "more_body": False})

    @staticmethod
    async def _send_faulty(send: Send, reply: _Reply, fault: Fault) -> None:
        status = fault.status if fault.status is not None else reply.status
        body = fault.body_bytes()
        if body is None:
            if fault.status is not None:
                try:
                    phrase = HTTPStatus(fault.status).phrase
                except ValueError:
                    phrase = "Simulated fault"
                body = _json_bytes({"message": phrase})
            else:
                body = reply.body
        headers = dict(reply.headers)
        headers.setdefault("content-type", ("content-type", "application/json"))
        bodyless = status in (204, 304)
        if bodyless:
            body = b""
            headers.pop("content-type", None)
        else:
            headers["content-length"] = ("content-length", str(len(body)))
        for name, value in fault.headers.items():
            headers[name.lower()] = (name.lower(), value)
        raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.values()]
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        if fault.drip_delay <= 0 and fault.reset_after is None:
            await send({"type": "http.response.body", "body": body, "more_body": False})
            return
        limit = fault.reset_after
        if limit is not None:
            body = body[:limit]
        size = fault.drip_chunk if fault.drip_delay > 0 else max(len(body), 1)
        chunks = [body[i : i + size] for i in range(0, len(body), size)]
        for index, chunk in enumerate(chunks):
            if index and fault.drip_delay > 0:
                await asyncio.sleep(fault.drip_delay)
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        if limit is not None:
            raise SimulatedReset(f"simulated connection reset after {len(body)} body bytes")
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def _made_up_items(page: int, count: int, status: str = "IN_PROGRESS") -> list[str]:
    """`count` orders no order stands behind (a history fault's huge page), as JSON text as
    short as the API lets them be; their tokens name the page, so each page's are new. Written
    as text, not made as objects: 50,000 dicts would set off the collector in this process,
    where a test measures the client's pauses."""
    code = json.dumps(status)
    return [
        f'{{"id":{index + 1},"token":"x{page}-{index}","createdAtMiliseconds":{index},'
        f'"amount":"1","status":{{"code":{code},"label":""}},'
        '"currency":{"id":1,"currency":"","abbreviation":"EUR"}}'
        for index in range(count)
    ]


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_CONTROL_BODY:
            raise _BadRequest("the body is too large")
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _query_int(query: dict[str, list[str]], name: str, default: int) -> int:
    values = query.get(name)
    if not values:
        return default
    text = values[-1].strip()
    if not text.isdigit() or len(text) > 9:
        raise _BadRequest(f"{name} must be a non-negative whole number")
    return int(text)


def _api_object(body: bytes) -> dict[str, Any]:
    """An API request's JSON object, or {} when the body is not one: the service answers a
    missing or malformed field with its own 422, not with a parse error."""
    try:
        obj = jsontext.loads(body)
    except jsontext.JsonTextError:
        return {}
    return obj if isinstance(obj, dict) else {}


def _object(body: bytes) -> dict[str, Any]:
    if not body.strip():
        raise _BadRequest("a JSON object body is required")
    try:
        obj = jsontext.loads(body)
    except jsontext.JsonTextError as exc:
        raise _BadRequest(f"the body is not JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise _BadRequest("the body must be a JSON object")
    return obj


def _only(obj: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise _BadRequest(f"unknown field(s): {', '.join(unknown)}")


def _decimal_or_text(value: Any, name: str) -> Decimal | str:
    if isinstance(value, bool) or not isinstance(value, (str, int, Decimal)):
        raise _BadRequest(f"{name} must be decimal text or a number")
    if isinstance(value, int):
        return Decimal(value)
    return value


def _unprocessable(message: dict[str, str]) -> _Reply:
    """The docs' error body: `"status_code "` with its trailing space."""
    return _Reply(422, {"status": "error", "status_code ": 422, "message": message})


def _not_allowed(allow: str) -> _Reply:
    reply = _Reply(405, {"message": "Method not allowed"})
    reply.set_header("Allow", allow)
    return reply


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
