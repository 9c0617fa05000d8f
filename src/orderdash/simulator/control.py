"""The simulator's control endpoints, for tests and demos: they change the state directly.

They live under /_sim/ (never under the prefix):
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
  GET  /_sim/callbacks (the delivery log);  DELETE /_sim/callbacks -> 204
  POST /_sim/callbacks                      {url: text or null, form?: bool}: where they go
  POST /_sim/customer/step                  -> the transaction or null
Bodies are parsed with jsontext.loads; bad input -> 400 {"message": ...}, unknown token -> 404.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from starlette.types import Receive

from orderdash.core.model import jsontext
from orderdash.simulator.faults import Fault
from orderdash.simulator.orders import UnknownOrderError
from orderdash.simulator.reply import BadRequest, Reply, not_allowed, read_body
from orderdash.simulator.state import Simulator

#: The control endpoints' root, never under the API's prefix.
CONTROL_ROOT = "/_sim"


async def control(sim: Simulator, method: str, segments: list[str], receive: Receive) -> Reply:
    """The answer to one request under /_sim/ (the body read here, bounded)."""
    try:
        body = await read_body(receive)
        return _dispatch(sim, method, segments, body)
    except UnknownOrderError as exc:
        return Reply(404, {"message": f"Order not found: {exc.token!r}"})
    except (BadRequest, ValueError, TypeError) as exc:
        return Reply(400, {"message": str(exc)[:500] or "Bad request"})


def _dispatch(sim: Simulator, method: str, seg: list[str], body: bytes) -> Reply:
    if seg == ["orders"]:
        if method == "GET":
            return Reply(200, sim.list_orders())
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
            return Reply(201, {"token": token})
        return not_allowed("GET, POST")
    if len(seg) == 3 and seg[0] == "orders" and seg[1]:
        token, action = seg[1], seg[2]
        if method != "POST":
            return not_allowed("POST")
        if action == "transactions":
            obj = _object(body) if body.strip() else {}
            _only(obj, {"amount"})
            amount = obj.get("amount")
            if amount is not None:
                amount = _decimal_or_text(amount, "amount")
            return Reply(201, sim.add_transaction(token, amount))
        if action == "status":
            obj = _object(body)
            _only(obj, {"code", "label"})
            if not isinstance(obj.get("code"), str):
                raise BadRequest("code (text) is required")
            sim.set_status(token, obj["code"], obj.get("label"))
            return Reply(200, {"ok": True})
        if action == "fields":
            obj = _object(body)
            sim.set_fields(token, obj)
            return Reply(200, {"ok": True})
        return Reply(404, {"message": "Not found"})
    if seg == ["faults"]:
        if method == "POST":
            sim.add_fault(Fault.from_json(_object(body)))
            return Reply(201, {"faults": len(sim.faults)})
        if method == "DELETE":
            sim.clear_faults()
            return Reply(204)
        return not_allowed("POST, DELETE")
    if seg == ["clock"]:
        if method != "POST":
            return not_allowed("POST")
        obj = _object(body)
        _only(obj, {"advance"})
        advance = obj.get("advance")
        if isinstance(advance, bool) or not isinstance(advance, (int, Decimal)):
            raise BadRequest("advance (seconds, a number) is required")
        sim.advance_clock(float(advance))
        return Reply(200, {"now": Decimal(repr(sim.now()))})
    if seg == ["requests"]:
        if method == "GET":
            entries = sim.requests
            for entry in entries:
                entry["t"] = Decimal(repr(entry["t"]))
            return Reply(200, entries)
        if method == "DELETE":
            sim.clear_requests()
            return Reply(204)
        return not_allowed("GET, DELETE")
    if seg == ["callbacks"]:
        return _callbacks(sim, method, body)
    if seg == ["customer", "step"]:
        if method != "POST":
            return not_allowed("POST")
        return Reply(200, sim.customer_step())
    return Reply(404, {"message": "Not found"})


def _callbacks(sim: Simulator, method: str, body: bytes) -> Reply:
    if method == "GET":
        entries = sim.callbacks.deliveries
        for entry in entries:
            entry["t"] = Decimal(repr(entry["t"]))
        return Reply(200, entries)
    if method == "DELETE":
        sim.callbacks.clear_log()
        return Reply(204)
    if method == "POST":
        obj = _object(body)
        _only(obj, {"url", "form"})
        url, form = obj.get("url"), obj.get("form", False)
        if (url is not None and not isinstance(url, str)) or not isinstance(form, bool):
            raise BadRequest("url is text or null, form true or false")
        sim.callbacks.configure(url, form=form)
        return Reply(200, {"url": url, "form": form})
    return not_allowed("GET, POST, DELETE")


def _object(body: bytes) -> dict[str, Any]:
    if not body.strip():
        raise BadRequest("a JSON object body is required")
    try:
        obj = jsontext.loads(body)
    except jsontext.JsonTextError as exc:
        raise BadRequest(f"the body is not JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise BadRequest("the body must be a JSON object")
    return obj


def _only(obj: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise BadRequest(f"unknown field(s): {', '.join(unknown)}")


def _decimal_or_text(value: Any, name: str) -> Decimal | str:
    if isinstance(value, bool) or not isinstance(value, (str, int, Decimal)):
        raise BadRequest(f"{name} must be decimal text or a number")
    if isinstance(value, int):
        return Decimal(value)
    return value
