"""The simulated service's own endpoints (`ServiceAPI`): what a client of the service sees.

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
"""

from __future__ import annotations

import base64
import hmac
import json
import secrets
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, quote

from starlette.types import Scope

from orderdash.core.model import jsontext
from orderdash.simulator.faults import Fault
from orderdash.simulator.orders import UnknownOrderError
from orderdash.simulator.reply import BadRequest, Reply, not_allowed
from orderdash.simulator.state import Simulator
from orderdash.simulator.wire import made_up_items

BEARER_HEADER = b"bearer_token"
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


class ServiceAPI:
    """The API endpoints' answers for one `Simulator`, and the account they belong to: the
    access token, the bearers issued by the log-in, the orders created in the last hour."""

    def __init__(
        self,
        sim: Simulator,
        bearer_token: str,
        *,
        access_token: str = DEFAULT_ACCESS_TOKEN,
        bearer_lifetime: float = DEFAULT_BEARER_LIFETIME,
        history_page_cap: int = DEFAULT_HISTORY_PAGE_CAP,
        customer_id: str = DEFAULT_CUSTOMER_ID,
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

    def bearer(self, scope: Scope) -> str:
        """The request's bearer_token header: 'ok', 'expired', 'wrong' or 'missing'."""
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

    def order(self, method: str, endpoint: str, token: str | None, bearer: str) -> Reply:
        """getOrder (`endpoint` "order") or the rate endpoint ("rates", bearer only)."""
        assert token is not None
        if method not in ("GET", "HEAD"):
            reply = Reply(405, {"message": "Method not allowed"})
            reply.set_header("Allow", "GET")
            return reply
        if endpoint == "order":
            try:
                data = self.sim.order_wire(token, with_qr=False)
            except UnknownOrderError:
                return Reply(404, {"status": 0, "data": None, "message": "Order not found"})
            return Reply(200, {"status": 1, "data": data})
        if bearer != "ok":
            return Reply(401, {"success": False, "data": None, "message": "Unauthorized"})
        try:
            data = self.sim.order_wire(token, with_qr=True)
        except UnknownOrderError:
            return Reply(404, {"success": False, "data": None, "message": "Order not found"})
        return Reply(200, {"success": True, "data": data, "message": None})

    def login(self, method: str, body: bytes) -> Reply:
        if method != "POST":
            return not_allowed("POST")
        given = api_object(body).get("token")
        if not isinstance(given, str) or not given:
            return Reply(
                422, {"success": False, "data": None, "message": "The token field is required."}
            )
        if not hmac.compare_digest(given.encode("utf-8"), self._access_token):
            return Reply(401, {"success": False, "data": None, "message": "Invalid access token"})
        return Reply(200, {"success": True, "data": self._issue_bearer(), "message": None})

    def create(self, method: str, body: bytes, fault: Fault | None = None) -> Reply:
        """generateOrder: one order per new `order_token`; the docs' 422 form for bad fields.
        A fault's `answer_token` / `answer_payment_url` replace those of the answer."""
        if method != "POST":
            return not_allowed("POST")
        obj = api_object(body)
        fields = ("customer_id", "access_token", "order_id", "order_token", "amount")
        for name in fields:
            value = obj.get(name)
            if value is None or value == "":
                return unprocessable({name: f"The {name.replace('_', ' ')} field is required."})
        given = obj["access_token"]
        if not isinstance(given, str) or not hmac.compare_digest(
            given.encode("utf-8"), self._access_token
        ):
            return Reply(401, {"status": "error", "status_code ": 401, "message": "Unauthorized"})
        if str(obj["customer_id"]) != self.customer_id:
            return unprocessable({"customer_id": "Invalid customer_id"})
        token = obj["order_token"]
        if not isinstance(token, str) or not token.strip() or len(token) > 200:
            return unprocessable({"order_token": "The order token must be text."})
        amount = obj["amount"]
        if isinstance(amount, bool) or not isinstance(amount, (str, int, Decimal)):
            return unprocessable({"amount": "The amount must be a number."})
        now = self.sim.now()
        self._created = [t for t in self._created if t > now - 3600]
        if len(self._created) >= self.create_per_hour:
            reply = Reply(
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
            return unprocessable({"order_token": "The order token has already been taken."})
        try:
            client_order_id = str(obj["order_id"])[:200]
            self.sim.create_order(
                token=token, coin=None, amount_fiat=amount, client_order_id=client_order_id
            )
        except ValueError as exc:
            if self.sim.has_order(token):  # created meanwhile by a request racing this one
                return unprocessable({"order_token": "The order token has already been taken."})
            return unprocessable({"amount": str(exc)[:200]})
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
            return Reply(201, {"status": 1, "status_code ": 201, "message": created})
        return Reply(200, {"success": True, "message": None, "data": created})

    def ui_order(self, method: str, token: str | None, bearer: str, body: bytes) -> Reply:
        assert token is not None
        if method not in ("GET", "HEAD", "POST"):
            return not_allowed("GET, POST")
        if bearer != "ok":
            return Reply(401, {"success": False, "data": None, "message": "Unauthorized"})
        try:
            if method == "POST":
                coin = api_object(body).get("coin")
                if not isinstance(coin, str) or not coin:
                    return unprocessable({"coin": "The coin field is required."})
                try:
                    data = self.sim.choose_coin(token, coin)
                except ValueError as exc:
                    return unprocessable({"coin": str(exc)})
                return Reply(200, {"status": 1, "data": data})
            data = self.sim.ui_order_wire(token)
        except UnknownOrderError:
            return Reply(404, {"success": False, "data": None, "message": "Order not found"})
        return Reply(200, {"success": True, "data": data, "message": None})

    def history(self, method: str, scope: Scope, bearer: str, fault: Fault | None) -> Reply:
        if method not in ("GET", "HEAD"):
            return not_allowed("GET")
        if bearer != "ok":
            return Reply(401, {"success": False, "data": None, "message": "Unauthorized"})
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        try:
            page = query_int(query, "page", 0)
            limit = query_int(query, "limit", DEFAULT_HISTORY_LIMIT)
            if limit < 1:
                raise BadRequest("limit must be at least 1")
        except BadRequest as exc:
            return Reply(400, {"statusCode": 400, "message": str(exc)})
        data = self.sim.history_page(page, min(limit, self.history_page_cap))
        if fault is not None and fault.endless_pages:
            data["meta"]["nextPage"] = page + 1
        if fault is not None and fault.extra_items:
            # written compactly, as a service would: 50,000 of them make ~7.9 MB
            items = [jsontext.dumps(item) for item in data["items"]]
            items += made_up_items(page, fault.extra_items, fault.extra_status)
            meta = jsontext.dumps(data["meta"])
            body = f'{{"statusCode":200,"data":{{"items":[{",".join(items)}],"meta":{meta}}}}}'
            return Reply(200, raw=body.encode("ascii"))
        return Reply(200, {"statusCode": 200, "data": data})


def query_int(query: dict[str, list[str]], name: str, default: int) -> int:
    values = query.get(name)
    if not values:
        return default
    text = values[-1].strip()
    if not text.isdigit() or len(text) > 9:
        raise BadRequest(f"{name} must be a non-negative whole number")
    return int(text)


def api_object(body: bytes) -> dict[str, Any]:
    """An API request's JSON object, or {} when the body is not one: the service answers a
    missing or malformed field with its own 422, not with a parse error."""
    try:
        obj = jsontext.loads(body)
    except jsontext.JsonTextError:
        return {}
    return obj if isinstance(obj, dict) else {}


def unprocessable(message: dict[str, str]) -> Reply:
    """The docs' error body: `"status_code "` with its trailing space."""
    return Reply(422, {"status": "error", "status_code ": 422, "message": message})
