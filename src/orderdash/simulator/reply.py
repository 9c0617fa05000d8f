"""An answer of the simulator's ASGI app (`Reply`) and its sending, plainly or as a `Fault`
bends it; the request body's reading, bounded."""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import Any

from starlette.types import Receive, Send

from orderdash.core.model import jsontext
from orderdash.simulator.faults import Fault

MAX_CONTROL_BODY = 1_000_000


class SimulatedReset(ConnectionAbortedError):
    """Raised inside a response body to make the server drop the connection (a Fault)."""


class BadRequest(ValueError):
    pass


def json_bytes(obj: Any) -> bytes:
    return jsontext.dumps(obj).encode("ascii")


class Reply:
    __slots__ = ("status", "body", "headers")

    def __init__(self, status: int, obj: Any = None, *, raw: bytes | None = None) -> None:
        self.status = status
        self.body = raw if raw is not None else (b"" if status == 204 else json_bytes(obj))
        self.headers: dict[str, tuple[str, str]] = {}
        if status != 204:
            self.headers["content-type"] = ("content-type", "application/json")

    def set_header(self, name: str, value: str) -> None:
        self.headers[name.lower()] = (name.lower(), value)


def not_allowed(allow: str) -> Reply:
    reply = Reply(405, {"message": "Method not allowed"})
    reply.set_header("Allow", allow)
    return reply


async def read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_CONTROL_BODY:
            raise BadRequest("the body is too large")
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def send_reply(send: Send, reply: Reply) -> None:
    """Send the answer as it is."""
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in reply.headers.values()]
    if reply.status != 204:
        headers.append((b"content-length", str(len(reply.body)).encode("ascii")))
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    await send({"type": "http.response.body", "body": reply.body, "more_body": False})


async def send_faulty(send: Send, reply: Reply, fault: Fault) -> None:
    """Send the answer as the fault bends it: status, headers, body, dripping, a reset."""
    status = fault.status if fault.status is not None else reply.status
    body = fault.body_bytes()
    if body is None:
        if fault.status is not None:
            try:
                phrase = HTTPStatus(fault.status).phrase
            except ValueError:
                phrase = "Simulated fault"
            body = json_bytes({"message": phrase})
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
