"""The client against an in-process transport: each error class, headers, redirects, caps."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from orderdash.core.model import errors
from orderdash.core.service.client import OrderClient, Timeouts, parse_retry_after

SECRET = "s3cr3t-bearer-VALUE-42"
EXAMPLE = (Path(__file__).parents[1] / "fixtures" / "get_order_example.json").read_text()


def rates_body() -> str:
    data = EXAMPLE.split('"data":', 1)[1].rsplit("}", 1)[0]
    return '{"success": true, "message": null, "data": ' + data + "}"


Handler = Callable[[httpx.Request], httpx.Response]


def client_for(handler: Handler, *, token: str | None = SECRET, **kwargs) -> OrderClient:
    return OrderClient(
        "https://pay.example/pay/api/",
        bearer_token=SecretStr(token) if token else None,
        transport=httpx.MockTransport(handler),
        **kwargs,
    )


def answer(status: int = 200, body: str | bytes = EXAMPLE, **headers: str) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=body, headers=headers)

    return handler


async def test_get_order_joins_under_the_prefix_and_sends_no_bearer_token() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text=EXAMPLE)

    async with client_for(handler) as client:
        fetched = await client.get_order("a/b c")
    request = seen[0]
    assert request.url.raw_path == b"/pay/api/order/a%2Fb%20c/"
    assert "bearer_token" not in request.headers
    assert request.headers["accept-encoding"] == "identity"
    assert fetched.order.amount == Decimal("0.00000109")
    assert fetched.raw["amount"] == Decimal("0.00000109")


async def test_rate_call_sends_the_bearer_header_only_there() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        rates = request.url.path.endswith("/rates")
        return httpx.Response(200, text=rates_body() if rates else EXAMPLE)

    async with client_for(handler) as client:
        await client.refresh_rate("ordertoken")
        await client.get_order("ordertoken")
    rate_request, order_request = seen
    assert rate_request.url.raw_path == b"/pay/api/orders/api/ordertoken/rates"
    assert rate_request.headers["bearer_token"] == SECRET
    assert "bearer_token" not in order_request.headers


async def test_rate_call_without_a_token_is_not_attempted() -> None:
    calls: list[httpx.Request] = []
    async with client_for(lambda r: calls.append(r) or httpx.Response(200), token=None) as client:
        with pytest.raises(errors.AuthRequired, match="bearer token"):
            await client.refresh_rate("ordertoken")
    assert calls == []


def test_client_repr_hides_the_token() -> None:
    client = client_for(answer())
    assert SECRET not in repr(client)
    assert SECRET not in repr(client._auth.bearer_token)
    assert "bearer_token=set" in repr(client)


@pytest.mark.parametrize(
    ("status", "headers", "body", "error", "text"),
    [
        (404, {}, '{"status": 0}', errors.NotFound, "no order with token 'ordertoken'"),
        (401, {}, "{}", errors.AuthRefused, "refused the bearer token (HTTP 401)"),
        (403, {}, "{}", errors.AuthRefused, "HTTP 403"),
        (429, {"Retry-After": "7"}, "{}", errors.RateLimited, "retry in 7 s"),
        (500, {}, "oops", errors.ServiceError, "the service failed (HTTP 500)"),
        (503, {"Retry-After": "30"}, "", errors.ServiceError, "HTTP 503"),
        (400, {}, "{}", errors.ServiceError, "rejected the rate refresh (HTTP 400)"),
        (
            302,
            {"Location": "https://evil.example/x"},
            "",
            errors.UnexpectedRedirect,
            "evil.example",
        ),
        (200, {}, "", errors.InvalidResponse, "empty response"),
        (200, {}, "{not json", errors.InvalidResponse, "invalid JSON"),
        (
            200,
            {"Content-Type": "text/html"},
            "<html>bad gateway</html>",
            errors.InvalidResponse,
            "HTML page",
        ),
        (200, {}, "[1, 2]", errors.InvalidResponse, "not an object"),
        (
            200,
            {},
            '{"success": true, "data": {"id": 1}}',
            errors.InvalidResponse,
            "does not match the API",
        ),
        (
            200,
            {},
            '{"success": false, "data": null, "message": "Order closed"}',
            errors.FailureReported,
            "Order closed",
        ),
        (
            200,
            {},
            '{"success": true, "data": null, "message": null}',
            errors.InvalidResponse,
            "sent no order",
        ),
        (200, {}, '{"success": true, "data": {"amount": NaN}}', errors.InvalidResponse, "NaN"),
    ],
)
async def test_each_failure_is_its_typed_error_with_one_line(
    status: int, headers: dict[str, str], body: str, error: type[Exception], text: str
) -> None:
    async with client_for(answer(status, body, **headers)) as client:
        with pytest.raises(error) as caught:
            await client.refresh_rate("ordertoken")
    message = str(caught.value)
    assert text in message
    assert "\n" not in message and SECRET not in message


async def test_retry_after_is_carried_on_the_error() -> None:
    async with client_for(answer(429, "{}", **{"Retry-After": "12"})) as client:
        with pytest.raises(errors.RateLimited) as caught:
            await client.get_order("t")
    assert caught.value.retry_after == 12.0


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after("5") == 5.0
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("999999") == 3600.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


async def test_error_text_never_contains_the_token_even_when_the_server_echoes_it() -> None:
    body = json.dumps({"success": False, "data": None, "message": f"bad token {SECRET}"})
    async with client_for(answer(200, body)) as client:
        with pytest.raises(errors.FailureReported) as caught:
            await client.refresh_rate("ordertoken")
    assert SECRET not in str(caught.value) and SECRET not in repr(caught.value)
    assert "[redacted]" in str(caught.value)


async def test_hostile_server_message_is_made_printable() -> None:
    body = json.dumps(
        {"success": False, "data": None, "message": "x\x1b]52;c;aGk=\x07\x9b2J\u202e"}
    )
    async with client_for(answer(200, body)) as client:
        with pytest.raises(errors.FailureReported) as caught:
            await client.refresh_rate("ordertoken")
    assert str(caught.value).isprintable()


async def test_declared_oversize_body_is_refused_before_reading() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"x" * 2000, headers={"Content-Length": "2000"})

    async with client_for(handler, max_body_bytes=1000) as client:
        with pytest.raises(errors.ResponseTooLarge, match="2,000 bytes"):
            await client.get_order("t")


async def test_streamed_oversize_body_is_cut_off() -> None:
    async def chunks():
        for _ in range(3):
            yield b"x" * 600

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=chunks())

    async with client_for(handler, max_body_bytes=1000) as client:
        with pytest.raises(errors.ResponseTooLarge):
            await client.get_order("t")


def streamed(body: bytes, **headers: str) -> Handler:
    """A response whose body arrives as a stream, as from a real connection."""

    async def chunks():
        yield body

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=chunks(), headers=headers)

    return handler


async def test_gzip_body_is_inflated_by_the_client_within_the_cap() -> None:
    small = gzip.compress(EXAMPLE.encode())
    bomb = gzip.compress(b" " * 5_000_000)
    assert len(bomb) < 100_000
    async with client_for(streamed(small, **{"Content-Encoding": "gzip"})) as client:
        assert (await client.get_order("t")).order.id == 1893
    bomb_client = client_for(streamed(bomb, **{"Content-Encoding": "gzip"}), max_body_bytes=100_000)
    async with bomb_client as client:
        with pytest.raises(errors.ResponseTooLarge):
            await client.get_order("t")
    async with client_for(streamed(b"garbage", **{"Content-Encoding": "gzip"})) as client:
        with pytest.raises(errors.InvalidResponse, match="corrupt compressed"):
            await client.get_order("t")
    async with client_for(streamed(b"x", **{"Content-Encoding": "br"})) as client:
        with pytest.raises(errors.InvalidResponse, match="unsupported content encoding"):
            await client.get_order("t")


async def test_connect_failure_is_cannot_connect() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    async with client_for(handler) as client:
        with pytest.raises(errors.CannotConnect, match="cannot connect to https://pay.example"):
            await client.get_order("t")


async def test_overall_deadline_cuts_a_slow_call() -> None:
    import asyncio

    async def slow_stream():
        yield b"{"
        await asyncio.sleep(5)
        yield b"}"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=slow_stream())

    timeouts = Timeouts(connect=1, read=10, deadline=0.2)
    async with client_for(handler, timeouts=timeouts) as client:
        with pytest.raises(errors.Timeout, match="within 0.2 s"):
            await client.get_order("t")


async def test_invalid_token_is_refused_before_any_request() -> None:
    calls: list[httpx.Request] = []
    async with client_for(lambda r: calls.append(r) or httpx.Response(200)) as client:
        with pytest.raises(errors.InvalidToken):
            await client.get_order("..")
    assert calls == []
