"""Faults: misbehaviours of the simulated API endpoints and of the callbacks the simulator
sends (`Fault`, parsed from the control endpoint's JSON) and the list of those in force
(`FaultList`)."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from orderdash.simulator.values import is_int, non_negative_float

#: The endpoints a Fault can name: the API endpoints the simulator serves, or any of them, or
#: the callbacks it sends ("any" never takes in the callbacks).
FAULT_ENDPOINTS = ("order", "rates", "login", "history", "ui_order", "create", "any", "callback")
#: What a fault does to a callback (`Fault.callback`): not sent, sent twice, sent `delay`
#: seconds late, sent after the next callback, sent with a forged status and amounts, or
#: preceded by a callback for a token no order has.
CALLBACK_FAULTS = ("lost", "duplicate", "delayed", "out_of_order", "forged", "unknown_token")
#: The most made-up orders a history fault adds to one page (`Fault.extra_items`): 50,000 make
#: a page of ~7.9 MB, under a client's usual 8 MiB cap.
MAX_EXTRA_ITEMS = 60_000


@dataclass
class Fault:
    """A misbehaviour of the API endpoints (getOrder, rates); the first matching fault wins.

    `drip_chunk` (bytes per chunk when dripping) is a simulator extension. Two apply to the
    history only: `endless_pages` (every page names a next one: paging never ends) and
    `extra_items` (each page carries this many made-up orders after its real ones, at most
    MAX_EXTRA_ITEMS: a huge page; their status code is `extra_status`).

    With `endpoint` "callback" it bends the callbacks instead, as `callback` says (one of
    CALLBACK_FAULTS; "delayed" by `delay` seconds); `token` and `times` count as for requests.
    """

    endpoint: str = "any"  # "order" | "rates" | "login" | "history" | "any" | "callback"
    token: str | None = None  # only for this order token
    times: int | None = None  # how many requests it applies to; None = until cleared
    delay: float = 0.0  # seconds before the response headers
    status: int | None = None  # replace the status code
    headers: dict[str, str] = field(default_factory=dict)  # extra/replacement headers
    body: str | None = None  # replace the body with this text
    body_b64: str | None = None  # or with these raw bytes (base64)
    drip_delay: float = 0.0  # send the body in small chunks with this pause between them
    reset_after: int | None = None  # send this many body bytes, then abort the connection
    drip_chunk: int = 64
    # Generate Order only (the order is made with the token sent): its answer names this
    # token instead, or carries this payment_url
    answer_token: str | None = None
    answer_payment_url: str | None = None
    # the order history only: nextPage never null; made-up orders added to a page
    endless_pages: bool = False
    extra_items: int = 0
    extra_status: str = "IN_PROGRESS"
    # the callbacks only (endpoint "callback"): what happens to a callback
    callback: str | None = None

    def __post_init__(self) -> None:
        if self.endpoint not in FAULT_ENDPOINTS:
            raise ValueError(
                "endpoint must be 'order', 'rates', 'login', 'history', 'ui_order', 'create', "
                "'any' or 'callback'"
            )
        if (self.endpoint == "callback") != (self.callback is not None):
            raise ValueError("a callback fault has endpoint 'callback' and a 'callback' kind")
        if self.callback is not None and self.callback not in CALLBACK_FAULTS:
            raise ValueError(f"callback must be one of {', '.join(CALLBACK_FAULTS)}")
        if self.token is not None and not isinstance(self.token, str):
            raise ValueError("token must be a string or null")
        if self.times is not None and (not is_int(self.times) or self.times < 1):
            raise ValueError("times must be a positive integer or null")
        self.delay = non_negative_float(self.delay, "delay")
        self.drip_delay = non_negative_float(self.drip_delay, "drip_delay")
        if self.status is not None and (not is_int(self.status) or not 200 <= self.status <= 599):
            raise ValueError("status must be an integer from 200 to 599")
        if not isinstance(self.headers, Mapping):
            raise ValueError("headers must be an object of strings")
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            if not isinstance(name, str) or not isinstance(value, str):
                raise ValueError("header names and values must be strings")
            if not name or any(c in name for c in " \t\r\n:") or any(c in value for c in "\r\n"):
                raise ValueError(f"bad header {name!r}")
            try:
                name.encode("ascii")
                value.encode("latin-1")
            except UnicodeEncodeError as exc:
                raise ValueError(f"header {name!r} is not latin-1 text") from exc
            headers[name] = value
        self.headers = headers
        if self.body is not None and self.body_b64 is not None:
            raise ValueError("give body or body_b64, not both")
        if self.body is not None and not isinstance(self.body, str):
            raise ValueError("body must be text")
        if self.body_b64 is not None:
            try:
                base64.b64decode(self.body_b64, validate=True)
            except (binascii.Error, TypeError, ValueError) as exc:
                raise ValueError("body_b64 is not base64") from exc
        if self.reset_after is not None and (not is_int(self.reset_after) or self.reset_after < 0):
            raise ValueError("reset_after must be a non-negative integer or null")
        if not is_int(self.drip_chunk) or self.drip_chunk < 1:
            raise ValueError("drip_chunk must be a positive integer")
        for name in ("answer_token", "answer_payment_url"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or self.endpoint != "create"):
                raise ValueError(f"{name} is text, for the 'create' endpoint only")
        if not isinstance(self.endless_pages, bool):
            raise ValueError("endless_pages must be true or false")
        if not is_int(self.extra_items) or not 0 <= self.extra_items <= MAX_EXTRA_ITEMS:
            raise ValueError(f"extra_items must be an integer from 0 to {MAX_EXTRA_ITEMS}")
        if not isinstance(self.extra_status, str) or not 0 < len(self.extra_status) <= 40:
            raise ValueError("extra_status must be a status code of 1 to 40 characters")
        if self.callback == "delayed" and self.delay <= 0:
            raise ValueError("a delayed callback needs a delay in seconds")

    def body_bytes(self) -> bytes | None:
        """The replacement body, or None to keep (or derive) the normal one."""
        if self.body_b64 is not None:
            return base64.b64decode(self.body_b64)
        if self.body is not None:
            return self.body.encode("utf-8")
        return None

    @classmethod
    def from_json(cls, obj: Any) -> Fault:
        """Build from a parsed JSON object (snake_case or camelCase keys); ValueError if bad."""
        if not isinstance(obj, dict):
            raise ValueError("a fault is a JSON object")
        aliases = {
            "bodyB64": "body_b64",
            "dripDelay": "drip_delay",
            "resetAfter": "reset_after",
            "dripChunk": "drip_chunk",
            "answerToken": "answer_token",
            "answerPaymentUrl": "answer_payment_url",
            "endlessPages": "endless_pages",
            "extraItems": "extra_items",
            "extraStatus": "extra_status",
        }
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in obj.items():
            name = aliases.get(key, key)
            if name not in names:
                raise ValueError(f"unknown fault field {key!r}")
            kwargs[name] = value
        for name in ("delay", "drip_delay"):
            if isinstance(kwargs.get(name), Decimal):
                kwargs[name] = float(kwargs[name])
        if kwargs.get("headers") is None:
            kwargs.pop("headers", None)
        return cls(**kwargs)


class FaultList:
    """The faults in force, oldest first, each with the requests it still applies to. It takes
    the simulator's lock, so that one lock guards all of the simulator's state."""

    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self._entries: list[list[Any]] = []  # [Fault, remaining or None]

    def add(self, fault: Fault) -> None:
        if not isinstance(fault, Fault):
            raise ValueError("add_fault takes a Fault")
        stored = dataclasses.replace(fault, headers=dict(fault.headers))
        with self._lock:
            self._entries.append([stored, stored.times])

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def copies(self) -> list[Fault]:
        with self._lock:
            return [dataclasses.replace(f, headers=dict(f.headers)) for f, _ in self._entries]

    def take(self, endpoint: str, token: str | None) -> Fault | None:
        """The first fault matching one API request (or callback: `endpoint` "callback"),
        counting it against `times`."""
        with self._lock:
            for index, entry in enumerate(self._entries):
                fault, remaining = entry
                wildcard = fault.endpoint == "any" and endpoint != "callback"
                if fault.endpoint != endpoint and not wildcard:
                    continue
                if fault.token is not None and fault.token != token:
                    continue
                if remaining is not None:
                    remaining -= 1
                    if remaining <= 0:
                        del self._entries[index]
                    else:
                        entry[1] = remaining
                return dataclasses.replace(fault, headers=dict(fault.headers))
            return None
