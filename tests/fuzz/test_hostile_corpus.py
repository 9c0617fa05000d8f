"""The hostile-payload corpus (tests/fuzz/hostile/cases.json) against the client and the running
app.

Each case is served by the simulator over loopback HTTP, to the client directly (a typed error
or a model with exact values) and to the app driven by Pilot: the dashboard (every case, each
after a good answer), the point-of-sale screen and the watch list (the string-field cases). After
every step the app must still run and no control character may be on screen.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widget import Widget

from conftest import BEARER, make_client, make_settings, screen_text, wait_until
from orderdash.core.model import errors, jsontext
from orderdash.core.model.results import Fetched
from orderdash.core.polling.refresh import Kind
from orderdash.core.service.client import OrderClient
from orderdash.simulator import Fault, Simulator, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.status_line import StatusLine, status_text
from orderdash.tui.widgets.transactions import TransactionsTable
from orderdash.tui.widgets.watch_list import WatchTable

pytestmark = pytest.mark.heavy

CORPUS = Path(__file__).parent / "hostile" / "cases.json"
SIZE = (140, 48)
#: Wide enough for every column of the watch list and the transactions table (narrower screens
#: drop some: test_columns.py).
WIDE_SIZE = (200, 48)
GOOD_COMPANY = "Good Shop"
#: Fast polls, and a budget that never holds a read back.
APP_SETTINGS = {"poll_interval": 0.2, "refresh_interval": 60.0, "budget_per_minute": 10000}


def _expand(value: Any) -> Any:
    """`{"$repeat": s, "times": n}` -> s * n, anywhere in a manifest value."""
    if isinstance(value, dict):
        if set(value) == {"$repeat", "times"}:
            return value["$repeat"] * value["times"]
        return {key: _expand(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_expand(item) for item in value]
    return value


def load_cases() -> list[dict[str, Any]]:
    # jsontext: numbers in the manifest stay Decimal with every digit, and are served that way
    manifest = jsontext.loads(CORPUS.read_bytes())
    return [_expand(case) for case in manifest["cases"]]


CASES = load_cases()
BY_NAME = {case["name"]: case for case in CASES}
SHOWN = [case for case in CASES if case["expect"]["outcome"] == "shown"]


def test_the_corpus_is_well_formed() -> None:
    assert len(CASES) >= 40 and len(BY_NAME) == len(CASES), "names are unique"
    for case in CASES:
        expect = case["expect"]
        assert expect["outcome"] in ("shown", "error"), case["name"]
        if expect["outcome"] == "shown":
            assert expect.get("screen"), f"{case['name']}: say what must be on screen"
        else:
            assert issubclass(getattr(errors, expect["error_type"]), errors.OrderdashError)
            assert expect["message"], case["name"]


# -- serving a case ---------------------------------------------------------------------------


def new_order(sim: Simulator, token: str) -> str:
    """An open bitcoin order with one partial payment: the good data every case starts from."""
    sim.create_order(company_name=GOOD_COMPANY, coin="btc", currency="EUR", token=token)
    sim.add_transaction(token, "0.00001")
    return token


def _walk(container: Any, path: str) -> tuple[Any, Any]:
    """(parent, key) of a dotted path; list indices are numbers."""
    *parents, last = path.split(".")
    for part in parents:
        container = container[int(part)] if isinstance(container, list) else container[part]
    return container, int(last) if isinstance(container, list) else last


def _merge(target: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = value
    return target


def _deep_list(depth: int) -> Any:
    value: Any = None
    for _ in range(depth):
        value = [value]
    return value


def _transactions_body(count: int) -> str:
    tx = (
        '{{"id": {i}, "hash": "h{i}", "hashUrl": null, '
        '"amount": {{"base": 0.00000001, "total": {i}e-8, "underPaid": 0, "overPaid": 0}}, '
        '"amountFiat": {{"base": "0.01", "total": "0.01", "underPaid": "0", "overPaid": "0"}}, '
        '"createdAt": "2020-07-14 08:29", "createdAtMiliseconds": {ms}}}'
    )
    rows = ",".join(tx.format(i=i, ms=1594715393000 + i) for i in range(1, count + 1))
    return (
        '{"status": 1, "data": {"companyName": "Many", "id": 1, "customerId": 1, "token": "t", '
        '"coin": "Bitcoin", "coinBaseName": "btc", "exchangeRate": 9205.6, "amountFiat": "100", '
        '"amount": 0.00000109, "dueDate": null, '
        '"currency": {"id": 2, "currency": "US Dollar", "abbreviation": "USD"}, '
        '"createdAt": "2020-07-14 10:01", "createdAtMiliseconds": 1594718753000, "type": "Order", '
        '"expiresAt": 17991482, "expirationTime": 3600000, "email": null, "address": "3Ax", '
        '"status": {"code": "IN_PROGRESS", "label": "IN_PROGRESS"}, '
        f'"urls": {{}}, "transactions": [{rows}]}}}}'
    )


def _generated(name: str, sim: Simulator, token: str) -> tuple[dict[str, Any], str | None]:
    """(fields, fault body) of a generated case."""
    if name == "deep-nesting":
        return {}, '{"status": 1, "data": ' + "[" * 10_000 + "]" * 10_000 + "}"
    if name == "transactions-100k":
        return {}, _transactions_body(100_000)
    if name == "deep-due-date":
        return {"dueDate": _deep_list(40)}, None
    if name == "deep-extra-field":
        # parses at the top of a stack, and used to crash `orderdash get --json` (RecursionError)
        return {"extra": _deep_list(100)}, None
    if name == "duplicate-transactions":
        first = sim.order_wire(token, with_qr=False)["transactions"][0]
        return {"transactions": [first, dict(first, hash="f" * 64)]}, None
    raise AssertionError(f"no generator {name!r}")


def serve(sim: Simulator, token: str, case: dict[str, Any]) -> Callable[[], None]:
    """Make the simulator answer `case` for `token`; returns what puts the good answer back."""
    spec = case["serve"]
    original = sim.order_wire(token, with_qr=True)
    fields: dict[str, Any] = copy.deepcopy(spec.get("fields", {}))
    body: str | None = spec.get("body")
    if "generate" in spec:
        generated, body = _generated(spec["generate"], sim, token)
        fields.update(generated)
    if "tx" in spec:
        fields["transactions"] = [_merge(copy.deepcopy(original["transactions"][0]), spec["tx"])]
    removed: list[str] = []
    for path in spec.get("remove", []):
        head, _, rest = path.partition(".")
        if not rest:
            removed.append(head)
            continue
        value = copy.deepcopy(fields.get(head, original[head]))
        parent, key = _walk(value, rest)
        del parent[key]
        fields[head] = value
    touched = set(fields) | set(removed)
    if touched:
        sim.set_fields(token, fields, remove=removed)
    headers = spec.get("headers", {})
    if "raw" in spec:
        for endpoint in ("order", "rates"):
            raw = _raw_answer(sim, token, endpoint, spec["raw"])
            sim.add_fault(Fault(endpoint=endpoint, token=token, body=raw, headers=headers))
    elif body is not None or "body_b64" in spec or "status" in spec or headers:
        sim.add_fault(
            Fault(
                endpoint=spec.get("endpoint", "any"),
                token=token,
                body=body,
                body_b64=spec.get("body_b64"),
                status=spec.get("status"),
                headers=headers,
            )
        )

    def undo() -> None:
        sim.clear_faults()
        if touched:
            sim.set_fields(
                token,
                {key: original[key] for key in touched if key in original},
                remove=[key for key in touched if key not in original],
            )

    return undo


def _raw_answer(sim: Simulator, token: str, endpoint: str, raw: dict[str, str]) -> str:
    """The normal answer of `endpoint` with number tokens put in verbatim (NaN, 1E+3, ...)."""
    data = sim.order_wire(token, with_qr=endpoint == "rates")
    envelope: dict[str, Any] = (
        {"status": 1, "data": data}
        if endpoint == "order"
        else {"success": True, "data": data, "message": None}
    )
    marks = {}
    for index, (path, text) in enumerate(raw.items()):
        parent, key = _walk(data, path)
        parent[key] = f"@@raw{index}@@"
        marks[json.dumps(f"@@raw{index}@@")] = text
    body = jsontext.dumps(envelope)
    for mark, text in marks.items():
        body = body.replace(mark, text)
    return body


# -- checks -------------------------------------------------------------------------------------


def value_text(value: object) -> str:
    return format(value, "f") if isinstance(value, Decimal) else str(value)


def attribute(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[int(part)] if part.isdigit() else getattr(obj, part)
    return obj


def check_model(fetched: Fetched, case: dict[str, Any]) -> None:
    for path, expected in case["expect"].get("model", {}).items():
        actual = value_text(attribute(fetched.order, path))
        assert actual == expected, f"{case['name']}: {path} is {actual[:80]!r}"


def unprintable(text: str) -> list[str]:
    """Characters a terminal could act on: C0, DEL, C1, bidi controls, surrogates..."""
    return sorted({repr(ch) for ch in text if ch != "\n" and not ch.isprintable()})


def widget_lines(app: App, widget: Widget, strips: list[Any] | None = None) -> str:
    """What `widget` shows on screen (its content region), line by line."""
    strips = app.screen._compositor.render_strips() if strips is None else strips
    region = widget.content_region
    return "\n".join(
        "".join(segment.text for segment in strips[y].crop(region.x, region.right))
        for y in range(region.y, min(region.bottom, len(strips)))
    )


def region_texts(app: App) -> Iterator[str]:
    """The text of every leaf widget on screen, its wrapped lines joined back together both
    ways (a word wrap joins with a space, a fold of a long word without one)."""
    strips = app.screen._compositor.render_strips()
    for widget in app.screen.query("Static, DataTable, Digits"):
        region = widget.content_region
        if not widget.display or region.width <= 0 or region.height <= 0:
            continue
        lines = [line.strip() for line in widget_lines(app, widget, strips).split("\n")]
        yield " ".join(lines)
        yield "".join(lines)


def shows(app: App, text: str) -> bool:
    return text in screen_text(app) or any(text in joined for joined in region_texts(app))


def assert_clean(app: App, name: str) -> None:
    assert app.is_running, f"{name}: the app stopped"
    text = screen_text(app)
    bad = unprintable(text)
    assert not bad, f"{name}: {bad} reached the screen"


def widget_of(app: OrderDashApp, kind: type[Widget]) -> Widget:
    return app.dashboard.query_one(kind)


async def until(pilot: Any, predicate: Callable[[], bool], name: str) -> None:
    """`wait_until`, saying which case failed."""
    try:
        await wait_until(pilot, predicate)
    except AssertionError as error:
        raise AssertionError(f"case {name}: {error}") from None


def status_line_text(app: OrderDashApp) -> str:
    """The whole status line, as it would show on a screen wide enough."""
    line = app.dashboard.query_one(StatusLine)
    return status_text(line.freshness, time.monotonic()).plain


def is_stale(app: OrderDashApp) -> bool:
    return widget_of(app, OrderDetail).has_class("-stale")


# -- the client -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_server() -> Iterator[SimulatorServer]:
    """One simulator for every client case (each case has an order of its own)."""
    with SimulatorServer(Simulator(seed=7), bearer_token=BEARER, port=0) as server:
        yield server


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
async def test_client(case: dict[str, Any], corpus_server: SimulatorServer) -> None:
    sim = corpus_server.sim
    token = new_order(sim, f"client-{case['name']}")
    undo = serve(sim, token, case)
    try:
        async with make_client(make_settings(corpus_server.base_url)) as client:
            await _check_client(client, token, case)
    finally:
        undo()


async def _check_client(client: OrderClient, token: str, case: dict[str, Any]) -> None:
    expect = case["expect"]
    endpoint = case["serve"].get("endpoint", "any")
    calls = {"order": client.get_order, "rates": client.refresh_rate}
    for name, call in calls.items():
        if endpoint not in ("any", name):
            continue
        if expect["outcome"] == "shown":
            check_model(await call(token), case)
            continue
        with pytest.raises(errors.OrderdashError) as caught:
            await call(token)
        error = caught.value
        assert isinstance(error, getattr(errors, expect["error_type"])), repr(error)
        assert isinstance(error, errors.InvalidResponse | errors.ServiceError), repr(error)
        assert expect["message"] in str(error), f"{case['name']}: {error}"
        assert not unprintable(str(error)) and len(str(error)) <= 300


async def test_client_reads_100k_transactions_within_a_raised_cap(
    sim_server: SimulatorServer,
) -> None:
    """The same 100k-transaction answer the default cap refuses, read whole with a raised cap."""
    sim = sim_server.sim
    token = new_order(sim, "hostile-many")
    sim.add_fault(Fault(endpoint="order", token=token, body=_transactions_body(100_000)))
    settings = make_settings(sim_server.base_url, max_body_mib=64)
    async with make_client(settings) as client:
        fetched = await client.get_order(token)
    transactions = fetched.order.transactions
    assert len(transactions) == 100_000
    assert value_text(transactions[-1].amount.total) == "0.00100000"
    assert transactions[-1].hash == "h100000"


# -- the app ----------------------------------------------------------------------------------


def dashboard_app(server: SimulatorServer, **kwargs: Any) -> OrderDashApp:
    return make_app(make_settings(server.base_url, **APP_SETTINGS), **kwargs)


async def show_case(pilot: Any, app: OrderDashApp, case: dict[str, Any]) -> None:
    """Wait for the effect of `case` (served already) on the dashboard, and check it."""
    expect = case["expect"]
    name = case["name"]
    if expect["outcome"] == "shown":
        texts = expect["screen"]
        await until(
            pilot, lambda: not is_stale(app) and all(shows(app, text) for text in texts), name
        )
        table = widget_of(app, TransactionsTable)
        for column, expected in expect.get("table", {}).items():
            row_key = table.coordinate_to_cell_key((0, 0)).row_key
            assert _cell_text(table.get_cell(row_key, column)) == expected, (name, column)
        assert_clean(app, name)
        return
    message = expect["message"]
    if case["serve"].get("endpoint") == "rates":
        # a failing rate refresh leaves the order live and says why on the status line
        await until(pilot, lambda: message in status_line_text(app), name)
        assert not is_stale(app), name
        error = app.state.freshness.errors[Kind.RATES]
    else:
        await until(pilot, lambda: is_stale(app) and message in status_line_text(app), name)
        # the last good data stays, marked stale
        assert "STALE since" in screen_text(app), name
        assert GOOD_COMPANY in screen_text(app), name
        assert widget_of(app, TransactionsTable).row_count == 1, name
        error = app.state.freshness.errors[Kind.ORDER]
    assert_clean(app, name)
    # toasts come and go over the status line; without them the message is on screen (the
    # status line is one row: a long message is cut at the screen's edge)
    app.clear_notifications()
    await pilot.pause()
    assert error[:40] in screen_text(app), name


async def back_to_good(pilot: Any, app: OrderDashApp, name: str) -> None:
    await wait_until(
        pilot,
        lambda: (
            not is_stale(app)
            and app.state.order is not None
            and app.state.order.company_name == GOOD_COMPANY
            and "rate refresh failing" not in screen_text(app)
        ),
        timeout=8,
    )
    assert_clean(app, f"{name} (after)")


#: The dashboard's cases in this many parts, one app each: a part takes a few seconds, so the
#: test workers share them rather than one worker going through all 79 at the end of a run.
DASHBOARD_PARTS = 4


@pytest.mark.parametrize(
    "part",
    range(DASHBOARD_PARTS),
    ids=[f"part{i + 1}of{DASHBOARD_PARTS}" for i in range(DASHBOARD_PARTS)],
)
async def test_dashboard_serves_every_case_after_a_good_answer(
    sim_server: SimulatorServer, part: int
) -> None:
    """Every case of the corpus, in one of the parts (each case in exactly one)."""
    sim = sim_server.sim
    token = new_order(sim, "hostile-dashboard")
    app = dashboard_app(sim_server, token=token)
    # wide enough for every column of the transactions table with 30-digit amounts (a
    # narrower pane drops the columns that cannot show theirs whole: test_columns.py)
    async with app.run_test(size=(300, 48), notifications=True) as pilot:
        for case in CASES[part::DASHBOARD_PARTS]:
            if case["expect"]["outcome"] == "error":
                # a good answer first: the bad one must leave it on screen, marked stale
                await back_to_good(pilot, app, case["name"])
            undo = serve(sim, token, case)
            try:
                app.watcher.refresh_now(token)
                await show_case(pilot, app, case)
            finally:
                undo()
            app.watcher.refresh_now(token)
        await back_to_good(pilot, app, "the end")


POS_CASES = [case for case in SHOWN if "pos" in case["expect"]]
WATCH_CASES = [case for case in CASES if "watch" in case["expect"]]


def pos_shows(app: OrderDashApp, text: str) -> bool:
    return isinstance(app.screen, PosScreen) and shows(app, text)


async def test_point_of_sale_shows_the_string_cases_literally(
    sim_server: SimulatorServer,
) -> None:
    assert len(POS_CASES) >= 10
    sim = sim_server.sim
    token = new_order(sim, "hostile-pos")
    app = dashboard_app(sim_server, token=token, open_pos=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: pos_shows(app, GOOD_COMPANY))
        for case in POS_CASES:
            undo = serve(sim, token, case)
            try:
                app.watcher.refresh_now(token)
                texts = case["expect"]["pos"]
                await until(pilot, lambda t=texts: all(pos_shows(app, x) for x in t), case["name"])
                assert_clean(app, case["name"])
            finally:
                undo()
            app.watcher.refresh_now(token)
            await wait_until(
                pilot,
                lambda: (
                    app.state.order is not None
                    and app.state.order.company_name == GOOD_COMPANY
                    and pos_shows(app, GOOD_COMPANY)
                ),
            )
        await pilot.press("escape")
        assert app.screen is app.dashboard and app.is_running


async def test_watch_list_shows_the_string_cases_literally(sim_server: SimulatorServer) -> None:
    assert len(WATCH_CASES) >= 10
    sim = sim_server.sim
    focused, watched, third = (new_order(sim, f"hostile-watch-{n}") for n in range(3))
    app = dashboard_app(sim_server, tokens=[focused, watched, third])
    async with app.run_test(size=WIDE_SIZE, notifications=True) as pilot:
        table = app.dashboard.query_one(WatchTable)

        def row_text() -> str:
            if watched not in table.rows:
                return ""
            return " ".join(_cell_text(cell) for cell in table.get_row(watched))

        def healthy() -> bool:
            entry = app.state.entries[watched]
            return entry.order is not None and not entry.failing and GOOD_COMPANY in row_text()

        await wait_until(pilot, healthy)
        for case in WATCH_CASES:
            undo = serve(sim, token=watched, case=case)
            try:
                app.watcher.refresh_now(watched)
                texts = case["expect"]["watch"]
                await until(
                    pilot,
                    lambda t=texts: all(x in row_text() and shows(app, x) for x in t),
                    case["name"],
                )
                if case["expect"]["outcome"] == "error":
                    assert GOOD_COMPANY in row_text(), "the last good data stays"
                assert_clean(app, case["name"])
            finally:
                undo()
            app.watcher.refresh_now(watched)
            await wait_until(pilot, healthy)
        assert app.state.order is not None and app.state.order.token == focused


def _cell_text(cell: object) -> str:
    return getattr(cell, "plain", str(cell))


async def test_watch_list_row_of_a_failing_order_says_stale(sim_server: SimulatorServer) -> None:
    sim = sim_server.sim
    focused, watched = new_order(sim, "stale-0"), new_order(sim, "stale-1")
    app = dashboard_app(sim_server, tokens=[focused, watched])
    async with app.run_test(size=WIDE_SIZE, notifications=True) as pilot:
        table = app.dashboard.query_one(WatchTable)
        await wait_until(pilot, lambda: app.state.entries[watched].order is not None)
        for name in ("html-error-page-with-200", "invalid-utf8", "nesting-10000-levels"):
            undo = serve(sim, watched, BY_NAME[name])
            app.watcher.refresh_now(watched)
            await wait_until(
                pilot,
                lambda: _cell_text(table.get_cell(watched, "health")) == "stale",
            )
            assert _cell_text(table.get_cell(watched, "company")) == GOOD_COMPANY
            assert_clean(app, name)
            undo()
            app.watcher.refresh_now(watched)
            await wait_until(pilot, lambda: _cell_text(table.get_cell(watched, "health")) == "ok")


# -- regressions found with the corpus ---------------------------------------------------------


async def test_copying_an_address_or_hash_with_a_lone_surrogate_keeps_the_app_running(
    sim_server: SimulatorServer,
) -> None:
    """A lone surrogate (valid JSON `\\ud800`) cannot be encoded for the clipboard."""
    sim = sim_server.sim
    token = new_order(sim, "hostile-copy")
    tx = sim.order_wire(token, with_qr=False)["transactions"][0]
    sim.set_fields(
        token,
        {"address": "1Addr\ud800Z", "transactions": [dict(tx, hash="ab\udfffcd")]},
    )
    app = dashboard_app(sim_server, token=token)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: widget_of(app, TransactionsTable).row_count == 1)
        await pilot.press("c")
        await pilot.pause()
        assert app.is_running
        await wait_until(pilot, lambda: "cannot be copied" in screen_text(app))
        app.action_copy_hash()
        await pilot.pause()
        assert app.is_running
        assert_clean(app, "copy")


async def test_copy_refuses_an_address_with_control_characters(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    token = new_order(sim, "hostile-copy-esc")
    sim.set_fields(token, {"address": "1Addr\x1b]52;c;aGk=\x07"})
    app = dashboard_app(sim_server, token=token)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        app.copy_to_clipboard("before")
        await pilot.press("c")
        await wait_until(pilot, lambda: "cannot be copied" in screen_text(app))
        assert app.clipboard == "before"
        assert_clean(app, "copy")


async def test_a_longer_amount_of_a_known_transaction_is_not_cut(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    token = new_order(sim, "hostile-widen")
    app = dashboard_app(sim_server, token=token)
    async with app.run_test(size=SIZE) as pilot:
        table = widget_of(app, TransactionsTable)
        await wait_until(pilot, lambda: table.row_count == 1)
        # the same transaction (same id) comes back with more digits
        serve(sim, token, {"serve": {"tx": {"amount": {"base": Decimal("0.000012345678901")}}}})
        app.watcher.refresh_now(token)
        await wait_until(
            pilot,
            lambda: (
                _cell_text(
                    table.get_cell(table.coordinate_to_cell_key((0, 0)).row_key, "coin_base")
                )
                == "0.000012345678901"
            ),
        )
        await pilot.pause()
        assert "0.000012345678901" in widget_lines(app, table), "shown cut: a wrong amount"


def test_get_json_refuses_deep_nesting_with_one_line(sim_server: SimulatorServer) -> None:
    """900 levels parsed in the CLI's shallow stack, then `jsontext.dumps` ran out of stack and
    `orderdash get --json` died with a RecursionError traceback."""
    sim = sim_server.sim
    token = new_order(sim, "hostile-cli")
    body = jsontext.dumps({"status": 1, "data": sim.order_wire(token, with_qr=False)})
    body = body[:-2] + ', "deep": ' + "[" * 900 + "]" * 900 + "}}"
    sim.add_fault(Fault(endpoint="order", token=token, body=body))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    result = subprocess.run(
        [sys.executable, "-m", "orderdash", "get", token, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "ORDERDASH_CONFIG": os.devnull, "ORDERDASH_BASE_URL": sim_server.base_url},
    )
    assert result.returncode == 5, result.stderr
    assert result.stderr.strip() == (
        "orderdash: the service sent invalid JSON: the JSON is nested too deeply"
    )


async def test_a_structured_due_date_is_shown_as_json(sim_server: SimulatorServer) -> None:
    sim = sim_server.sim
    token = new_order(sim, "hostile-due")
    sim.set_fields(token, {"dueDate": {"at": Decimal("1.50"), "tz": None}})
    app = dashboard_app(sim_server, token=token)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.pause()
        assert_clean(app, "due date")
        assert '{"at": 1.50, "tz": null}' in screen_text(app)
