"""The client against the simulator over real HTTP on loopback: every error class, for real."""

from __future__ import annotations

import base64
import gzip
import socket
import time
from decimal import Decimal
from typing import Any

import pytest
from pydantic import SecretStr

from conftest import BEARER, make_client, make_settings
from orderdash.core.model import errors
from orderdash.core.service.answers import Answers
from orderdash.core.service.client import OrderClient, Timeouts
from orderdash.simulator import DEMO_TOKENS, Fault, Simulator, SimulatorServer

TOKEN = DEMO_TOKENS[0]


async def test_get_order_and_rates_round_trip(client: OrderClient, sim: Simulator) -> None:
    fetched = await client.get_order(TOKEN)
    assert fetched.order.token == TOKEN
    assert fetched.order.qr_code is None
    rated = await client.refresh_rate(TOKEN)
    assert rated.order.qr_code and rated.order.qr_code.startswith("data:image/png;base64,")
    requests = [r for r in sim.requests if r["endpoint"] != "control"]
    assert [(r["endpoint"], r["bearer"]) for r in requests] == [
        ("order", "missing"),
        ("rates", "ok"),
    ]


async def test_eighteen_decimal_amounts_arrive_exactly(client: OrderClient, sim: Simulator) -> None:
    token = sim.create_order(coin="eth", currency="USD", amount_fiat="12345.67")
    before = sim.order_wire(token, with_qr=False)["amount"]
    fetched = await client.get_order(token)
    after = sim.order_wire(token, with_qr=False)["amount"]  # a rate period may end meanwhile
    assert fetched.order.amount in (before, after)
    assert isinstance(before, Decimal)
    assert len(fetched.order.amount.as_tuple().digits) > 17
    sim.add_transaction(token, "0.000000000000000001")
    fetched = await client.get_order(token)
    assert fetched.order.transactions[-1].amount.base == Decimal("0.000000000000000001")


async def test_path_prefix_and_encoded_token() -> None:
    sim = Simulator(seed=3)
    sim.create_order(token="a/b c")
    with SimulatorServer(sim, bearer_token=BEARER, prefix="/pay/api") as server:
        assert server.base_url.endswith("/pay/api")
        async with make_client(make_settings(server.base_url)) as client:
            assert (await client.get_order("a/b c")).order.token == "a/b c"
            assert (await client.refresh_rate("a/b c")).order.token == "a/b c"


async def test_not_found(client: OrderClient) -> None:
    with pytest.raises(errors.NotFound, match="no-such-order"):
        await client.get_order("no-such-order")


async def test_wrong_bearer_token_is_refused_and_never_echoed(sim_server: SimulatorServer) -> None:
    wrong = "wrong-token-value-123"
    async with make_client(make_settings(sim_server.base_url, bearer=wrong)) as client:
        with pytest.raises(errors.AuthRefused) as caught:
            await client.refresh_rate(TOKEN)
    assert wrong not in str(caught.value) and wrong not in repr(caught.value)
    assert sim_server.sim.requests[-1]["bearer"] == "wrong"


@pytest.mark.parametrize(
    ("fault", "error", "text"),
    [
        (Fault(status=429, headers={"Retry-After": "9"}), errors.RateLimited, "retry in 9 s"),
        (Fault(status=500), errors.ServiceError, "HTTP 500"),
        (
            Fault(
                status=502,
                body="<html><h1>Bad Gateway</h1></html>",
                headers={"Content-Type": "text/html"},
            ),
            errors.ServiceError,
            "HTTP 502",
        ),
        (Fault(status=503, headers={"Retry-After": "2"}), errors.ServiceError, "HTTP 503"),
        (
            Fault(status=302, headers={"Location": "https://elsewhere.example/order/x/"}),
            errors.UnexpectedRedirect,
            "elsewhere.example",
        ),
        (Fault(body='{"status": 1, "data": {"id": "x"'), errors.InvalidResponse, "invalid JSON"),
        (
            Fault(body="<html>maintenance</html>", headers={"Content-Type": "text/html"}),
            errors.InvalidResponse,
            "HTML page",
        ),
        (Fault(body=""), errors.InvalidResponse, "empty response"),
        (
            Fault(body='{"status": 1, "data": {"token": 5}}'),
            errors.InvalidResponse,
            "does not match the API",
        ),
        (Fault(reset_after=40), errors.NetworkError, "broke off"),
    ],
    ids=[
        "429",
        "500",
        "502-html",
        "503",
        "redirect",
        "truncated-json",
        "html-200",
        "empty",
        "wrong-shape",
        "reset",
    ],
)
async def test_each_fault_is_its_typed_error(
    client: OrderClient, sim: Simulator, fault: Fault, error: type[Exception], text: str
) -> None:
    sim.add_fault(fault)
    with pytest.raises(error) as caught:
        await client.get_order(TOKEN)
    assert text in str(caught.value)
    assert "\n" not in str(caught.value)
    sim.clear_faults()
    assert (await client.get_order(TOKEN)).order.token == TOKEN  # recovers at once


async def test_failure_envelope_carries_the_server_message(
    client: OrderClient, sim: Simulator
) -> None:
    sim.add_fault(
        Fault(
            endpoint="rates", body='{"success": false, "data": null, "message": "Order is closed"}'
        )
    )
    with pytest.raises(errors.FailureReported, match="Order is closed"):
        await client.refresh_rate(TOKEN)


async def test_slow_headers_hit_the_deadline(
    sim_server: SimulatorServer, quick_timeouts: Timeouts
) -> None:
    sim_server.sim.add_fault(Fault(delay=3.0, times=1))
    settings = make_settings(sim_server.base_url)
    async with OrderClient(settings.base_url, timeouts=quick_timeouts) as client:
        with pytest.raises(errors.Timeout):
            await client.get_order(TOKEN)


async def test_slow_drip_body_is_cut_by_the_overall_deadline(sim_server: SimulatorServer) -> None:
    # each chunk arrives well within the read timeout, so only the overall deadline can stop it
    sim_server.sim.add_fault(Fault(drip_delay=0.2, times=1))
    timeouts = Timeouts(connect=1.0, read=1.0, deadline=1.0)
    async with OrderClient(sim_server.base_url, timeouts=timeouts) as client:
        with pytest.raises(errors.Timeout, match="within 1 s"):
            await client.get_order(TOKEN)


async def test_gzip_bomb_costs_at_most_the_cap(sim_server: SimulatorServer) -> None:
    bomb = gzip.compress(b'{"status": 1, "data": "' + b"A" * 20_000_000 + b'"}')
    sim_server.sim.add_fault(
        Fault(body_b64=base64.b64encode(bomb).decode(), headers={"Content-Encoding": "gzip"})
    )
    async with OrderClient(sim_server.base_url, max_body_bytes=1_000_000) as client:
        with pytest.raises(errors.ResponseTooLarge):
            await client.get_order(TOKEN)


async def test_body_over_the_cap(sim_server: SimulatorServer) -> None:
    sim_server.sim.add_fault(Fault(body=" " * 2_000_000))
    async with OrderClient(sim_server.base_url, max_body_bytes=1_000_000) as client:
        with pytest.raises(errors.ResponseTooLarge, match="limit is"):
            await client.get_order(TOKEN)


async def test_connection_refused_is_cannot_connect() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with OrderClient(f"http://127.0.0.1:{port}", bearer_token=SecretStr(BEARER)) as client:
        with pytest.raises(errors.CannotConnect, match=f"127.0.0.1:{port}"):
            await client.refresh_rate(TOKEN)


async def test_server_stopped_mid_session_then_restarted(
    sim_server: SimulatorServer, client: OrderClient
) -> None:
    assert (await client.get_order(TOKEN)).order.token == TOKEN
    sim_server.stop()
    with pytest.raises(errors.NetworkError):
        await client.get_order(TOKEN)
    sim_server.start()
    assert (await client.get_order(TOKEN)).order.token == TOKEN


def many_transactions(count: int) -> list[dict[str, Any]]:
    D = Decimal  # noqa: N806 - sent as JSON numbers with these digits
    return [
        {
            "id": 1000 + n,
            "hash": f"{n:064x}",
            "hashUrl": None,
            "amount": {"base": D("0.00001000"), "underPaid": 0, "overPaid": 0, "total": D("1E-5")},
            "amountFiat": {"base": D("0.97"), "underPaid": 0, "overPaid": 0, "total": D("0.97")},
            "createdAt": "2026-11-21 10:00:00",
            "createdAtMiliseconds": 1795255200000 + n,
        }
        for n in range(count)
    ]


async def test_a_big_order_is_parsed_off_the_event_loop_and_keeps_its_transactions(
    client: OrderClient, sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big order (10,000 transactions is ~4 MB, half a second of parsing) polled every few
    seconds: the parsing must not freeze the screen, and the transactions that did not change
    come back as the same objects (every answer differs: `expirationTime` counts down)."""
    import threading

    parsed_on: list[str] = []
    interpret = Answers.interpret

    def recording(self: Answers, *args: object, **kwargs: object) -> object:
        parsed_on.append(threading.current_thread().name)
        return interpret(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Answers, "interpret", recording)
    await client.get_order(TOKEN)
    assert parsed_on == [threading.main_thread().name], "a small answer: parsed in place"

    wire = many_transactions(1500)
    sim.set_fields(TOKEN, {"transactions": wire})
    first = await client.get_order(TOKEN)
    assert parsed_on[1] != threading.main_thread().name
    again = await client.get_order(TOKEN)
    assert len(again.order.transactions) == 1500
    pairs = zip(again.order.transactions, first.order.transactions, strict=True)
    assert all(a is b for a, b in pairs)

    # one changed in place (the same value in other digits), one new: those two are read again
    D = Decimal  # noqa: N806
    changed = [dict(tx) for tx in wire]
    changed[7] = {**wire[7], "amount": {**wire[7]["amount"], "base": D("0.000010000")}}
    changed.append(many_transactions(1501)[-1])
    sim.set_fields(TOKEN, {"transactions": changed})
    third = await client.get_order(TOKEN)
    txs = third.order.transactions
    assert len(txs) == 1501 and format(txs[7].amount.base, "f") == "0.000010000"
    assert txs[7] is not again.order.transactions[7] and txs[1500].id == 2500
    assert all(txs[i] is again.order.transactions[i] for i in range(1500) if i != 7)

    # an invalid transaction among reused ones: the error names its place in the whole answer
    broken = [dict(tx) for tx in changed]
    broken[1200] = {**changed[1200], "hash": 5}
    sim.set_fields(TOKEN, {"transactions": broken})
    with pytest.raises(errors.InvalidResponse, match=r"data\.transactions\.1200\.hash"):
        await client.get_order(TOKEN)


@pytest.mark.parametrize(
    ("fault", "error", "text"),
    [
        (None, None, ""),
        (Fault(status=500), errors.ServiceError, "HTTP 500"),
        (
            Fault(status=302, headers={"Location": "https://elsewhere.example/order/x/"}),
            errors.UnexpectedRedirect,
            "elsewhere.example",
        ),
        (Fault(reset_after=40), errors.NetworkError, "broke off"),
        (Fault(body=" " * 2_000_000), errors.ResponseTooLarge, "limit is"),
        (Fault(drip_delay=0.2, times=1), errors.Timeout, "within 1 s"),
    ],
    ids=["ok", "500", "redirect", "reset", "over-cap", "slow-drip"],
)
def test_get_order_now_answers_and_fails_as_get_order(
    sim_server: SimulatorServer, fault: Fault | None, error: type[Exception] | None, text: str
) -> None:
    """The blocking getOrder of `orderdash get` (no event loop) sends the same request and
    reads the answer with the same checks: each outcome is the async call's."""
    import asyncio

    timeouts = Timeouts(connect=1.0, read=1.0, deadline=1.0)

    def outcome(blocking: bool) -> tuple[Any, str]:
        if fault is not None:
            sim_server.sim.add_fault(fault)
        client = OrderClient(sim_server.base_url, timeouts=timeouts, max_body_bytes=1_000_000)

        async def asynchronous() -> Any:
            async with client:
                return await client.get_order(TOKEN)

        try:
            fetched = client.get_order_now(TOKEN) if blocking else asyncio.run(asynchronous())
        except errors.OrderdashError as exc:
            return type(exc), str(exc)
        finally:
            sim_server.sim.clear_faults()
        # (the answer's countdown, expirationTime, moves between the two reads)
        return {k: v for k, v in fetched.raw.items() if k != "expirationTime"}, fetched.order.token

    blocking, asynchronous = outcome(True), outcome(False)
    assert blocking == asynchronous
    if error is None:
        assert blocking[1] == TOKEN
    else:
        assert blocking[0] is error and text in blocking[1]
    requests = [r for r in sim_server.sim.requests if r["endpoint"] == "order"]
    assert len(requests) == 2 and requests[0]["bearer"] == requests[1]["bearer"] == "missing"


def test_get_order_now_to_a_closed_port_is_cannot_connect() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(errors.CannotConnect, match=f"127.0.0.1:{port}"):
        OrderClient(f"http://127.0.0.1:{port}").get_order_now(TOKEN)


async def test_the_first_read_in_a_thread_answers_and_fails_as_get_order(
    sim_server: SimulatorServer,
) -> None:
    """A dashboard's first read (`get_order_first`, the blocking client in a thread of its
    own) gives the order or the error `get_order` gives, several at once too."""
    import asyncio

    client = OrderClient(sim_server.base_url)
    try:
        first, again, missing = await asyncio.gather(
            client.get_order_first(TOKEN),
            client.get_order_first(TOKEN),
            client.get_order_first("no-such-order"),
            return_exceptions=True,
        )
        assert not isinstance(first, BaseException) and first.order.token == TOKEN
        assert not isinstance(again, BaseException) and again.order.token == TOKEN
        assert isinstance(missing, errors.NotFound)
        # the request runs beside the event loop, which keeps turning meanwhile
        sim_server.sim.add_fault(Fault(endpoint="order", delay=0.4, times=1))
        ticks = 0

        async def ticking() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.create_task(ticking())
        slow = await client.get_order_first(TOKEN)
        ticker.cancel()
        assert slow.order.token == TOKEN
        assert ticks >= 10
    finally:
        sim_server.sim.clear_faults()
        await client.aclose()


def order_reads(server: SimulatorServer, token: str) -> int:
    return sum(1 for r in server.sim.requests if r["endpoint"] == "order" and r["token"] == token)


def test_a_first_read_begun_before_any_event_loop_is_the_one_awaited(
    sim_server: SimulatorServer,
) -> None:
    """`begin_first_read` sends at once, in its thread (`orderdash tui` calls it before it
    imports Textual); `get_order_first` of that token, in a loop made later, takes its answer
    (still on its way, or already in), and a read of another token is sent on its own."""
    import asyncio

    client = OrderClient(sim_server.base_url)
    sim_server.sim.add_fault(Fault(endpoint="order", token=TOKEN, delay=0.3, times=1))
    client.begin_first_read(TOKEN)
    client.begin_first_read(DEMO_TOKENS[1])  # one at a time: the first one is kept
    other = DEMO_TOKENS[1]

    async def dashboard() -> tuple[Any, Any]:
        try:
            return await client.get_order_first(TOKEN), await client.get_order_first(other)
        finally:
            await client.aclose()

    first, second = asyncio.run(dashboard())
    assert first.order.token == TOKEN and second.order.token == other
    assert order_reads(sim_server, TOKEN) == 1 and order_reads(sim_server, other) == 1

    # the dashboard opened another order first: the begun read is dropped, not kept for later
    switched = OrderClient(sim_server.base_url)
    switched.begin_first_read(other)

    async def another_first() -> None:
        try:
            await switched.get_order_first(TOKEN)
            await switched.get_order_first(other)  # asked anew, not the dropped answer
        finally:
            await switched.aclose()

    asyncio.run(another_first())
    for _ in range(200):  # the dropped read's thread may still be on its way
        if order_reads(sim_server, other) >= 3:
            break
        time.sleep(0.01)
    assert order_reads(sim_server, TOKEN) == 2 and order_reads(sim_server, other) == 3

    done = OrderClient(sim_server.base_url)
    done.begin_first_read("no-such-order")
    for _ in range(200):  # answered before anyone awaits it
        if order_reads(sim_server, "no-such-order"):
            break
        time.sleep(0.01)
    time.sleep(0.05)
    with pytest.raises(errors.NotFound):
        asyncio.run(done.get_order_first("no-such-order"))
    assert order_reads(sim_server, "no-such-order") == 1


def test_a_plain_http_client_makes_no_tls_context(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """httpx's transports make a TLS context as they are made (~1.1 MiB); a client whose URLs
    are all plain http never opens TLS, and makes none. An https one still does."""
    import asyncio
    import ssl

    import httpx
    import httpx._transports.default as transports

    from orderdash.core.service import plain_http

    made: list[object] = []
    create = transports.create_ssl_context

    def recording(*args: Any, **kwargs: Any) -> Any:
        made.append(kwargs.get("verify", args[0] if args else None))
        return create(*args, **kwargs)

    monkeypatch.setattr(transports, "create_ssl_context", recording)
    client = OrderClient(sim_server.base_url, bearer_token=SecretStr(BEARER))
    assert client.get_order_now(TOKEN).order.token == TOKEN

    async def asynchronous() -> None:
        async with client:
            assert (await client.get_order(TOKEN)).order.token == TOKEN
            assert (await client.refresh_rate(TOKEN)).order.token == TOKEN

    asyncio.run(asynchronous())
    assert made == []
    secure = OrderClient("https://pay.example", create_url=None)
    secure._wire.http  # noqa: B018 - made, not used: no request leaves
    assert len(made) == 1
    mixed = OrderClient(sim_server.base_url, create_url="https://pay.example")
    mixed._wire.http  # noqa: B018 - Generate Order is sent over TLS: the context is made
    assert len(made) == 2
    # and verified, though getOrder's own address is plain http on this machine
    for asynchronous in (False, True):
        verify = mixed._wire.options(asynchronous=asynchronous)["verify"]
        assert isinstance(verify, ssl.SSLContext) and verify.verify_mode == ssl.CERT_REQUIRED
        assert verify.check_hostname
    # the transports' pool is httpx's own default one, less the TLS context
    limits = httpx._config.DEFAULT_LIMITS
    assert (plain_http.LIMITS.max_connections, plain_http.LIMITS.max_keepalive_connections) == (
        limits.max_connections,
        limits.max_keepalive_connections,
    )
    # ... but for its idle connections, dropped before a server's usual 5 s keep-alive ends
    # (uvicorn's default, the simulator's): a request on a connection of exactly that age meets
    # the server's close and fails without an answer, a false outage alarm
    import uvicorn

    assert plain_http.LIMITS.keepalive_expiry < uvicorn.Config(app=None).timeout_keep_alive
    # every client's pool has it, over TLS too
    pools = [secure._wire.http._transport._pool, mixed._wire.http._transport._pool]
    assert [pool._keepalive_expiry for pool in pools] == [plain_http.LIMITS.keepalive_expiry] * 2


def test_get_order_now_makes_no_async_client(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`orderdash get` asks once through the blocking client: the async one (its transport and
    connection pool, ~1 ms) is never made; an async request makes it, once."""
    import asyncio

    import httpx

    made: list[httpx.AsyncClient] = []
    init = httpx.AsyncClient.__init__

    def recording(self: httpx.AsyncClient, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(httpx.AsyncClient, "__init__", recording)
    client = OrderClient(sim_server.base_url)
    assert client.get_order_now(TOKEN).order.token == TOKEN
    assert made == []

    async def twice() -> None:
        async with client:
            for _ in range(2):
                assert (await client.get_order(TOKEN)).order.token == TOKEN

    asyncio.run(twice())
    assert len(made) == 1 and made[0].is_closed


def test_the_blocking_and_the_async_client_share_one_tls_setup() -> None:
    """An https service: the CA bundle is loaded once for the client's blocking requests (a
    dashboard's first read, `get`) and its async ones; a loopback http one loads none."""
    import ssl

    import httpx

    remote = OrderClient("https://pay.example.com/api")
    blocking = remote._wire.options(asynchronous=False)
    asynchronous = remote._wire.options(asynchronous=True)
    assert isinstance(blocking["verify"], ssl.SSLContext)
    assert blocking["verify"] is asynchronous["verify"]
    assert blocking["verify"].verify_mode == ssl.CERT_REQUIRED
    assert blocking["verify"].check_hostname
    assert isinstance(remote._wire.http, httpx.AsyncClient)
    assert OrderClient("http://127.0.0.1:8765")._wire.options(asynchronous=False)["verify"] is False
