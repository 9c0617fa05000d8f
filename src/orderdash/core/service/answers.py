"""What an answer of the service means: its HTTP status or its envelope's as this project's
typed error, its body as JSON and as the API's models, every message from it redacted of the
client's secrets before it is shown. No request is sent here (transport.py does that)."""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

from pydantic import ValidationError

from orderdash.core.model import jsontext
from orderdash.core.model.errors import (
    AuthRefused,
    FailureReported,
    InvalidResponse,
    NotFound,
    OrderdashError,
    RateLimited,
    ServiceError,
    UnexpectedRedirect,
)
from orderdash.core.model.wire import Order, OrderEnvelope, RatesEnvelope
from orderdash.core.safetext import clean, without_secret

if TYPE_CHECKING:
    import httpx

    from orderdash.core.service.reuse import TransactionReuse

#: Answers at least this large are parsed and validated in a worker thread: a 10,000-transaction
#: order (~4 MB) takes about half a second, which on the event loop would freeze the screen.
LARGE_BODY_BYTES = 256 * 1024
#: A longer wait than this from Retry-After is treated as this: a dashboard must come back.
MAX_RETRY_AFTER = 3600.0

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


def is_error_envelope(document: dict[str, Any], *, rates: bool) -> bool:
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


class Answers:
    """Reads the answers of one client: `origin` names the service in messages, `secrets`
    gives the client's secrets of the moment (redacted from anything an answer echoes)."""

    def __init__(self, origin: str, secrets: Callable[[], list[str]]) -> None:
        self.origin = origin
        self._secrets = secrets

    def redacted(self, error: OrderdashError) -> OrderdashError:
        for secret in self._secrets():
            error = error.redacted(secret)
        return error

    def without_secret(self, text: str | None) -> str | None:
        if text:
            for secret in self._secrets():
                text = without_secret(text, secret)
        return text

    def interpret(
        self,
        status: int,
        headers: httpx.Headers,
        body: bytes,
        token: str,
        *,
        rates: bool,
        reuse: TransactionReuse | None = None,
    ) -> tuple[Order, dict[str, Any]]:
        """getOrder's answer (`rates`: the rate refresh's, the coins' and choosing a coin's)."""
        if len(body) < LARGE_BODY_BYTES:
            return self._interpret(status, headers, body, token, rates=rates, reuse=reuse)
        from orderdash.core.runtime.bulk import bulk_objects

        # a worker thread's (calls.py): see bulk.py for why the collector pauses. An order of
        # 100,000 transactions: 6.3 s of CPU with it on, 3.1 s paused
        with bulk_objects():
            return self._interpret(status, headers, body, token, rates=rates, reuse=reuse)

    def _interpret(
        self,
        status: int,
        headers: httpx.Headers,
        body: bytes,
        token: str,
        *,
        rates: bool,
        reuse: TransactionReuse | None,
    ) -> tuple[Order, dict[str, Any]]:
        what = "rate refresh" if rates else "order lookup"
        if not 200 <= status < 300:
            self.refuse(status, headers, self.error_detail(body), token, what, rates=rates)
        document = self.parse_json(body, headers)
        if is_error_envelope(document, rates=rates):
            # an error envelope with HTTP 200: its own status_code says what failed
            code = envelope_status_code(document)
            detail = self.error_detail(body, document)
            if code is not None and not 200 <= code < 300:
                self.refuse(code, headers, detail, token, what, rates=rates)
            raise FailureReported(
                f"the service reported a failure: {detail or 'no message given'}", detail
            )
        if reuse is not None:
            return reuse.interpret(document, lambda doc: self._validate(doc, what, rates=rates))
        return self._validate(document, what, rates=rates)

    def error_detail(self, body: bytes, document: Any = None) -> str | None:
        """The envelope's message of an error answer, safe to show, or None."""
        if document is None:
            if not body.strip() or len(body) > 64 * 1024:
                return None
            try:
                document = jsontext.loads(body)
            except jsontext.JsonTextError:
                return None
        # redact before cutting: a token cut in two would escape the redaction
        message = self.without_secret(envelope_message(document))
        return clean(message, limit=120) if message else None

    def refuse(
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
            target = self.without_secret(target) or "another address"
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

    def refuse_account(
        self, status: int, headers: httpx.Headers, body: bytes, what: str
    ) -> NoReturn:
        """`refuse` for the account's endpoints, where a 404 names no order."""
        detail = self.error_detail(body)
        if status == 404:
            # no order is named here: the endpoint itself is missing at this address
            said = f": {detail}" if detail else ""
            raise ServiceError(
                f"the service has no {what} at {self.origin} (HTTP 404{said}): check the base URL",
                status,
                None,
            )
        self.refuse(status, headers, detail, "", what, rates=True)

    def _validate(
        self, document: dict[str, Any], what: str, *, rates: bool
    ) -> tuple[Order, dict[str, Any]]:
        try:
            if rates:
                rates_envelope = RatesEnvelope.model_validate(document)
                if not rates_envelope.success:
                    # redact before cutting: a token cut in two would escape the redaction
                    echoed = self.without_secret(envelope_message(document))
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
                f"the {what} answer does not match the API: {first_error(exc)}"
            ) from None
        return order, document["data"]

    @staticmethod
    def parse_json(body: bytes, headers: httpx.Headers) -> Any:
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


def first_error(exc: ValidationError) -> str:
    """The first of pydantic's complaints as one short line, in JSON's words."""
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
