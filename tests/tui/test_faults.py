"""Fault matrix: the real dashboard (Pilot) against the simulator over loopback HTTP.

For each fault a test asserts the one-line message on the status line, the data kept on screen
under the stale marker, the backoff (requests counted over a window, against the bound the
refresh policy allows) and the recovery once the fault is gone, with no key pressed. Requests
are counted in the simulator's request log, or, while no server answers (refused, stopped), in
the client's own log (one record per request, see core/runtime/logs.py).

Poll interval 0.2 s, rate interval 60 s (unless noted), 140x48, notifications on. "Bound" is the
most starts `RefreshPolicy.failed` allows in the window (steps 1, 2, 4 s... up to twice the
interval; each retry waits at least half its step, and at least the interval once the step has
reached it): an outage never costs more requests than a healthy poll (5 a second here).
Measured in one run (window 1 s unless noted):

| fault              | message (after "▲ retrying in 0:01 · stale | kept  | order/1 s    | back   |
|                    | since HH:MM:SS ·")                         |       | (bound)      | after  |
|--------------------|--------------------------------------------|-------|--------------|--------|
| refused from the   | cannot connect to http://127.0.0.1:P (in   | none  | 3 (7)        | 1.3 s  |
| start              | the order pane too: nothing loaded yet)    |       |              | (up)   |
| server stops mid-  | cannot connect to http://127.0.0.1:P       | STALE | 3 (7)        | 0.2 s  |
| session            |                                            |       |              |        |
| slow headers >     | http://127.0.0.1:P timed out (read timeout | STALE | 2 (7)        | 0.4 s  |
| timeout            | 0.3 s)                                     |       |              |        |
| slow drip body     | http://127.0.0.1:P did not answer within   | STALE | 1 (7)        | 0.1 s  |
|                    | 0.6 s                                      |       |              |        |
| reset mid-body     | the connection to http://127.0.0.1:P broke | STALE | 3 (7)        | 0.2 s  |
|                    | off mid-response                           |       |              |        |
| 429, Retry-After:  | the service is rate limiting the order     | STALE | 0: no order  | 1.0 s  |
| 2                  | lookup (HTTP 429: Too Many Requests);      |       | request      |        |
|                    | retry in 2 s                               |       |              |        |
| 500                | the service failed (HTTP 500: Internal     | STALE | 3 (7)        | 0.3 s  |
|                    | Server Error)                              |       |              |        |
| 502, HTML page     | the service failed (HTTP 502)              | STALE | 3 (7)        | 0.2 s  |
| 503                | the service failed (HTTP 503: Service      | STALE | 3 (7)        | 0.2 s  |
|                    | Unavailable)                               |       |              |        |
| 401 on the rate    | (live) rate refresh failing, retry in      | live  | rate 2/2 s   | 1.0 s  |
| call (rate         | 0:01: the service refused the bearer token |       | (4); order   |        |
| interval 1 s)      | (HTTP 401: Unauthorized): check it, and    |       | 10/2 s       |        |
|                    | that no proxy drops the bearer_token       |       |              |        |
|                    | header (underscores)                       |       |              |        |
|                    | (wraps to a second row, whole)             |       |              |        |
| 404 after it       | no order with token 'demo-btc-eur' (HTTP   | STALE | 5 (7)        | 0.2 s  |
| existed            | 404: Order not found)                      |       |              |        |
| redirect to        | the order lookup was redirected (HTTP 307) | STALE | 3 (7);       | 0.2 s  |
| another host       | to 127.0.0.1:Q, not followed: check the    |       | other host:  |        |
|                    | base URL                                   |       | 0            |        |
| gzip bomb (32 MiB) | the response is too large (over the 1 MiB  | STALE | 2 (7)        | 0.1 s  |
|                    | limit)                                     |       |              |        |
| body over the cap  | the response is too large (2,000,000       | STALE | 3 (7)        | 0.1 s  |
| (2 MB)             | bytes; the limit is 1 MiB)                 |       |              |        |
| wall clock +1 h,   | (live) updated HH:MM:SS in the new wall    | live  | 5 / 5 / 5    | n/a    |
| then -2 h          | time                                       |       |              |        |

Not in the table: the status line's countdowns run on the monotonic clock, so a wall-clock step
does not skew them (they once read "next rate in 1:00:59" after a step back of an hour; the test
at the end). Run with `-s` to print this run's figures.
"""

from __future__ import annotations

import base64
import functools
import gzip
import io
import logging
import re
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from textual.geometry import Region

from conftest import BEARER, make_client, make_settings, screen_text, wait_until
from orderdash.core.model import errors
from orderdash.core.polling.refresh import MIN_BACKOFF
from orderdash.simulator import DEMO_TOKENS, Fault, Simulator, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.status_line import StatusLine
from orderdash.tui.widgets.transactions import TransactionsTable

TOKEN = DEMO_TOKENS[0]
SIZE = (140, 48)
POLL = 0.2
WINDOW = 1.0
COMPANY = "Demo Shop"


# -- the table ----------------------------------------------------------------------------------


@dataclass
class Row:
    fault: str
    message: str = ""
    data_kept: str = ""
    backoff: str = ""
    recovered: str = ""


MATRIX: dict[str, Row] = {}


@pytest.fixture(scope="module", autouse=True)
def _print_matrix() -> Iterator[None]:
    yield
    if MATRIX:
        print("\n\nfault matrix (this run)")
        print(f"{'fault':30} | {'message':70} | {'data kept':14} | {'backoff':40} | recovered")
        for row in MATRIX.values():
            print(
                f"{row.fault:30} | {row.message[:70]:70} | {row.data_kept:14} | "
                f"{row.backoff:40} | {row.recovered}"
            )


# -- helpers ------------------------------------------------------------------------------------


async def retried_over(
    pilot,  # noqa: ANN001
    tries: Callable[[float, float], int],
    window: float,
    clock: Callable[[], float] = time.time,
) -> tuple[float, float]:
    """(start, end) of at least `window` s (by `clock`) in which the failing order was tried
    again (`tries(start, end)`): on a starved machine the window can end before a retry is
    seen, so it runs on until one is (within `wait_until`'s deadline: a retry that never comes
    still fails); the bound on tries is taken over (start, end)."""
    start = clock()
    await pilot.pause(window)
    await wait_until(pilot, lambda: tries(start, clock()) >= 1)
    return start, clock()


def max_starts(window: float, interval: float, *, persistent: bool = False) -> int:
    """The most request starts of one track in `window` s while every request fails.

    `RefreshPolicy.failed`: the n-th retry waits step * (0.5 .. 1) with step
    min(2 * interval, MIN_BACKOFF * 2**(n-1)), and at least the interval once the step has
    reached it; a persistent failure waits the interval. One more start is allowed for a
    request that straddles the window's opening.
    """
    elapsed, starts, failures = 0.0, 1, 0
    while True:
        failures += 1
        step = min(2 * interval, MIN_BACKOFF * 2 ** (failures - 1))
        shortest = max(0.5 * step, interval) if step >= interval else 0.5 * step
        elapsed += interval if persistent else shortest
        if elapsed > window:
            return starts + 1
        starts += 1


def status_row(app: OrderDashApp) -> str:
    """The status line as it is on screen (a long message wraps to a second row: joined).
    An outage's alarm toast stays 20 s over the screen's bottom right: the line as it is
    under the toasts."""
    line = app.dashboard.query_one(StatusLine)
    strips = line.render_lines(Region(0, 0, line.size.width, line.size.height))
    return " ".join(strip.text.rstrip() for strip in strips)


def is_stale(app: OrderDashApp) -> bool:
    return app.dashboard.query_one(OrderDetail).has_class("-stale")


def is_live(app: OrderDashApp) -> bool:
    row = status_row(app)
    return not is_stale(app) and "live" in row and "failing" not in row


def counts(sim: Simulator, start: float, end: float) -> dict[str, int]:
    found = {"order": 0, "rates": 0}
    for request in sim.requests:
        if start <= request["t"] <= end and request["endpoint"] in found:
            found[request["endpoint"]] += 1
    return found


class ClientLog(logging.Handler):
    """The client's one record per request (core/service/calls.py), when no server sees them."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def count(self, endpoint: str, start: float, end: float) -> int:
        return sum(
            1
            for r in self.records
            if start <= r.created <= end and r.getMessage().startswith(f"request {endpoint} ")
        )


@pytest.fixture
def client_log() -> Iterator[ClientLog]:
    logger = logging.getLogger("orderdash.core.service.client")
    handler = ClientLog()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


def dashboard(base_url: str, **settings: Any) -> OrderDashApp:
    values: dict[str, Any] = {"poll_interval": POLL, "refresh_interval": 60.0, **settings}
    return make_app(make_settings(base_url, **values), token=TOKEN)


async def loaded(pilot: Any, app: OrderDashApp, server: SimulatorServer) -> None:
    """The order on screen, live, with its first rate refresh done."""
    await wait_until(
        pilot,
        lambda: (
            app.state.order is not None
            and is_live(app)
            and any(r["endpoint"] == "rates" for r in server.sim.requests)
        ),
    )


def assert_data_kept(app: OrderDashApp) -> None:
    text = screen_text(app)
    assert "STALE since" in text, "the stale marker is on the order pane"
    assert COMPANY in text, "the last good order stays on screen"
    assert app.dashboard.query_one(TransactionsTable).row_count == 1, "its payments stay too"
    assert app.state.order is not None


async def recover(pilot: Any, app: OrderDashApp, within: float = 6.0) -> float:
    """Seconds until the dashboard is live again, with no key pressed."""
    started = time.monotonic()
    await wait_until(pilot, lambda: is_live(app), timeout=within)
    took = time.monotonic() - started
    await wait_until(pilot, lambda: "STALE" not in screen_text(app))  # on the next paint
    return took


# -- the generic faults -------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    make_fault: Callable[[], Fault]
    message: str
    settings: dict[str, Any] = field(default_factory=dict)


@functools.cache
def gzip_bomb_b64() -> str:
    """32 MiB of JSON string in about 32 KB of gzip."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6) as bomb:
        bomb.write(b'{"status": 1, "data": "')
        chunk = b"A" * (1 << 20)
        for _ in range(32):
            bomb.write(chunk)
        bomb.write(b'"}')
    return base64.b64encode(out.getvalue()).decode()


def gzip_bomb() -> Fault:
    return Fault(body_b64=gzip_bomb_b64(), headers={"Content-Encoding": "gzip"})


CASES = [
    # the body's message, when it has one, is part of the line (the service's error envelope)
    Case("500", lambda: Fault(status=500), "the service failed (HTTP 500: Internal Server Error)"),
    Case(
        "502 with an HTML page",
        lambda: Fault(
            status=502,
            body="<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>",
            headers={"Content-Type": "text/html"},
        ),
        "the service failed (HTTP 502)",
    ),
    Case("503", lambda: Fault(status=503), "the service failed (HTTP 503: Service Unavailable)"),
    Case(
        "slow headers > timeout",
        lambda: Fault(delay=3.0),
        "timed out",
        {"timeout": 0.6, "read_timeout": 0.3, "connect_timeout": 0.3},
    ),
    Case(
        "slow drip body",
        lambda: Fault(drip_delay=0.1),
        "did not answer within 0.6 s",
        {"timeout": 0.6, "read_timeout": 1.0},
    ),
    Case("reset mid-body", lambda: Fault(reset_after=40), "broke off mid-response"),
    Case(
        "404 after the order existed",
        lambda: Fault(status=404, body='{"status": 0, "data": null, "message": "Order not found"}'),
        f"no order with token '{TOKEN}' (HTTP 404: Order not found)",
    ),
    Case("gzip bomb", gzip_bomb, "the response is too large", {"max_body_mib": 1}),
    Case(
        "body over the cap",
        lambda: Fault(body=" " * 2_000_000),
        "the response is too large",
        {"max_body_mib": 1},
    ),
]


async def run_stale_case(
    server: SimulatorServer, name: str, fault: Fault, message: str, **settings: Any
) -> tuple[OrderDashApp, dict[str, int]]:
    """Load, inject, check message / data / backoff, clear, check the recovery."""
    sim = server.sim
    app = dashboard(server.base_url, **settings)
    row = MATRIX[name] = Row(name)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, app, server)
        sim.add_fault(fault)
        await wait_until(pilot, lambda: is_stale(app) and message in status_row(app))
        row.message = status_row(app).split("\u00b7", 2)[-1].strip()
        assert "retrying" in status_row(app) and "stale since" in status_row(app)
        assert_data_kept(app)
        row.data_kept = "yes, STALE"

        start, end = await retried_over(
            pilot, lambda start, end: counts(sim, start, end)["order"], WINDOW, sim.now
        )
        seen = counts(sim, start, end)
        order_bound = max_starts(end - start, POLL, persistent="404" in name)
        rates_bound = max_starts(end - start, 60.0, persistent="404" in name)
        row.backoff = (
            f"order {seen['order']} (<= {order_bound}), rates {seen['rates']} (<= {rates_bound})"
        )
        assert seen["order"] <= order_bound, row.backoff
        assert seen["rates"] <= rates_bound, row.backoff
        assert is_stale(app) and message in status_row(app), "the message stays while it lasts"
        assert app.is_running

        sim.clear_faults()
        took = await recover(pilot, app)
        row.recovered = f"yes, {took:.1f} s after clearing"
    return app, seen


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_fault_keeps_stale_data_backs_off_and_recovers(
    sim_server: SimulatorServer, case: Case
) -> None:
    _, seen = await run_stale_case(
        sim_server, case.name, case.make_fault(), case.message, **case.settings
    )
    assert seen["order"] >= 1, "it keeps trying while the fault lasts"


# -- the special ones ---------------------------------------------------------------------------


async def test_redirect_to_another_host_is_not_followed_and_the_token_stays(
    sim_server: SimulatorServer,
) -> None:
    with SimulatorServer(Simulator(seed=1), bearer_token=BEARER) as other:
        target = f"{other.base_url}/order/{TOKEN}/"
        await run_stale_case(
            sim_server,
            "redirect to another host",
            Fault(status=307, headers={"Location": target}),
            "was redirected (HTTP 307) to",
        )
        assert other.sim.requests == [], "nothing, so no bearer token, reached the other host"
    rates = [r for r in sim_server.sim.requests if r["endpoint"] == "rates"]
    assert rates and {r["bearer"] for r in rates} == {"ok"}, "the token went to its origin only"
    orders = [r for r in sim_server.sim.requests if r["endpoint"] == "order"]
    assert {r["bearer"] for r in orders} == {"missing"}


async def test_429_with_retry_after_holds_the_refused_budget(sim_server: SimulatorServer) -> None:
    sim = sim_server.sim
    name = "429 + Retry-After: 2"
    row = MATRIX[name] = Row(name)
    message = (
        "the service is rate limiting the order lookup (HTTP 429: Too Many Requests); retry in 2 s"
    )
    app = dashboard(sim_server.base_url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, app, sim_server)
        sim.add_fault(Fault(status=429, headers={"Retry-After": "2"}))
        await wait_until(pilot, lambda: is_stale(app) and message in status_row(app))
        row.message = status_row(app).split("\u00b7", 2)[-1].strip()
        assert "retrying" in status_row(app)
        assert_data_kept(app)
        row.data_kept = "yes, STALE"
        start = sim.now()
        await pilot.pause(WINDOW)
        seen = counts(sim, start, sim.now())
        row.backoff = f"{seen['order'] + seen['rates']} requests of any kind in {WINDOW} s (0)"
        # the order budget is held; the rate call (every 60 s) is not due in this window, and
        # would get its own 429 and hold its own budget (test_budgets holds them apart)
        assert seen == {"order": 0, "rates": 0}, "Retry-After holds the refused endpoint"
        sim.clear_faults()
        took = await recover(pilot, app)
        row.recovered = f"yes, {took:.1f} s after clearing (the hold ends)"
    # the first request after the 429 came no sooner than Retry-After allowed
    times = [r["t"] for r in sim.requests if r["endpoint"] in ("order", "rates")]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert max(gaps) >= 1.9


async def test_401_on_the_rate_call_keeps_the_order_live(sim_server: SimulatorServer) -> None:
    sim = sim_server.sim
    name = "401 on the rate call"
    row = MATRIX[name] = Row(name)
    interval = 1.0
    app = dashboard(sim_server.base_url, refresh_interval=interval)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, app, sim_server)
        # the order poll's pace without the fault, on this machine under its present load
        start = sim.now()
        await pilot.pause(2 * interval)
        pace = counts(sim, start, sim.now())["order"]
        sim.add_fault(
            Fault(
                endpoint="rates",
                status=401,
                body='{"success": false, "data": null, "message": "Unauthorized"}',
            )
        )
        message = "refused the bearer token (HTTP 401: Unauthorized)"
        await wait_until(pilot, lambda: message in status_row(app), timeout=interval + 3)
        row.message = status_row(app).split("\u00b7", 1)[-1].strip()
        assert "rate refresh failing" in status_row(app)
        # the advice is the useful part: on screen whole, not cut at the edge
        assert "no proxy drops the bearer_token header (underscores)" in status_row(app)
        assert not is_stale(app), "getOrder still works: the order is live, not stale"
        assert COMPANY in screen_text(app)
        row.data_kept = "yes, live"
        start = sim.now()
        await pilot.pause(2 * interval)
        seen = counts(sim, start, sim.now())
        bound = max_starts(2 * interval, interval, persistent=True)
        row.backoff = (
            f"rates {seen['rates']} in {2 * interval:g} s (<= {bound}); order {seen['order']}"
        )
        assert 1 <= seen["rates"] <= bound, row.backoff
        assert seen["order"] >= max(2, pace // 2), f"the order poll goes on ({pace} before)"
        sim.clear_faults()
        took = await recover(pilot, app, within=interval + 4)
        row.recovered = f"yes, {took:.1f} s after clearing (next rate try)"


async def test_server_stops_mid_session_then_restarts(
    sim_server: SimulatorServer, client_log: ClientLog
) -> None:
    name = "server stops mid-session"
    row = MATRIX[name] = Row(name)
    app = dashboard(sim_server.base_url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, app, sim_server)
        sim_server.stop()
        message = f"cannot connect to {sim_server.base_url}"
        await wait_until(pilot, lambda: is_stale(app) and message in status_row(app))
        row.message = status_row(app).split("\u00b7", 2)[-1].strip()
        assert_data_kept(app)
        row.data_kept = "yes, STALE"
        start, end = await retried_over(pilot, functools.partial(client_log.count, "order"), WINDOW)
        order = client_log.count("order", start, end)
        rates = client_log.count("rates", start, end)
        bound = max_starts(end - start, POLL)
        most_rates = max_starts(end - start, 60)
        row.backoff = f"order {order} (<= {bound}), rates {rates} (<= {most_rates})"
        assert 1 <= order <= bound and rates <= most_rates, row.backoff
        sim_server.start()
        took = await recover(pilot, app)
        row.recovered = f"yes, {took:.1f} s after the restart"


async def test_connection_refused_from_the_start(client_log: ClientLog) -> None:
    name = "connection refused (start)"
    row = MATRIX[name] = Row(name)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}"
    app = dashboard(base_url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        message = f"cannot connect to {base_url}"
        await wait_until(pilot, lambda: message in status_row(app))
        assert "retrying" in status_row(app)
        assert message in screen_text(app).split(status_row(app))[0], "and in the order pane"
        row.message = status_row(app).split("\u00b7", 1)[-1].strip()
        row.data_kept = "nothing yet (message in the order pane)"
        start, end = await retried_over(pilot, functools.partial(client_log.count, "order"), WINDOW)
        order = client_log.count("order", start, end)
        bound = max_starts(end - start, POLL)
        row.backoff = f"order {order} tries (<= {bound})"
        assert 1 <= order <= bound, row.backoff
        with SimulatorServer(Simulator(seed=7), bearer_token=BEARER, port=port) as server:
            started = time.monotonic()
            await wait_until(pilot, lambda: is_live(app) and app.state.order is not None)
            row.recovered = f"yes, {time.monotonic() - started:.1f} s after the server came up"
            assert COMPANY in screen_text(app)
            assert server.sim.requests


async def test_wall_clock_jumps_neither_stall_nor_storm(sim_server: SimulatorServer) -> None:
    sim = sim_server.sim
    name = "wall clock jumps +1 h, -2 h"
    row = MATRIX[name] = Row(name)
    offset = [0.0]

    def wall_clock() -> float:
        return time.time() + offset[0]

    app = make_app(
        make_settings(sim_server.base_url, poll_interval=POLL, refresh_interval=60.0),
        token=TOKEN,
        clock=wall_clock,
    )
    # a stall is measured against the pace before the first jump (the machine's load slows
    # every poll alike); a storm against the configured interval
    healthy_high = int(WINDOW / POLL) + 2
    paces = []
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot, app, sim_server)
        for jump in (0.0, 3600.0, -7200.0):
            offset[0] += jump
            start = sim.now()
            await pilot.pause(WINDOW)
            seen = counts(sim, start, sim.now())
            paces.append(seen["order"])
            healthy_low = max(2, paces[0] // 2)
            assert healthy_low <= seen["order"] <= healthy_high, (jump, seen, paces)
            assert seen["rates"] <= 1, "no rate storm: the rate interval is monotonic"
            await wait_until(pilot, lambda: is_live(app))
            shown = time.strftime("%H:%M", time.localtime(wall_clock()))
            await wait_until(pilot, lambda s=shown: f"updated {s}" in status_row(app))
            assert COMPANY in screen_text(app)
        row.message = status_row(app).strip()
        row.data_kept = "yes, live"
        row.backoff = f"order polls per {WINDOW:g} s before/after +1 h/after -2 h: " + "/".join(
            map(str, paces)
        )
        row.recovered = "n/a (no outage)"
        assert app.is_running


async def test_countdowns_survive_a_wall_clock_step_back(sim_server: SimulatorServer) -> None:
    offset = [0.0]
    app = make_app(
        make_settings(sim_server.base_url, poll_interval=POLL, refresh_interval=60.0),
        token=TOKEN,
        clock=lambda: time.time() + offset[0],
    )
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app, sim_server)
        offset[0] = -3600.0
        await pilot.pause(1.2)  # polls re-stamp "updated"; the line re-renders each second
        shown = re.search(r"next rate in ([\d:]+)", status_row(app))
        assert shown is not None, status_row(app)
        seconds = 0
        for part in shown.group(1).split(":"):
            seconds = seconds * 60 + int(part)
        assert seconds <= 61, status_row(app)


async def test_a_gzip_bomb_costs_about_the_cap_in_memory(sim_server: SimulatorServer) -> None:
    import tracemalloc

    sim_server.sim.add_fault(gzip_bomb())
    async with make_client(make_settings(sim_server.base_url, max_body_mib=1)) as client:
        tracemalloc.start()
        try:
            with pytest.raises(errors.ResponseTooLarge):
                await client.get_order(TOKEN)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, f"peak {peak:,} bytes for a 32 MiB bomb and a 1 MiB cap"
