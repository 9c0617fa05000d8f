"""Property-based fuzzing of the order path: JSON text, models, client, and the app's rendering.

Generated orders are valid per docs/service-api.md but carry hostile strings (markup, escape
sequences, bidi controls, lone surrogates) and extreme decimals; mutations of them drop, replace
and retype fields or put garbage into the body. The invariants:

- `jsontext.loads` + the models give a model or `JsonTextError` / `ValidationError`, and every
  model the display code can be handed is formatted without an exception;
- the client gives a `Fetched` or an `OrderdashError`, never any other exception;
- the running app renders any valid order (dashboard, transactions, point of sale, watch list,
  alerts) without an exception, keeps running, and shows no control character.

Profiles: `HYPOTHESIS_PROFILE=ci` (default, bounded for CI) or `long`. The number of examples
run is printed at the end of the module.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr, ValidationError

from conftest import make_settings, screen_text
from orderdash.core.domain.expiry import expiry_for
from orderdash.core.domain.payment import payment_state
from orderdash.core.domain.summary import order_summary
from orderdash.core.domain.text import (
    amount_text,
    epoch_ms_text,
    json_value_text,
    rate_text,
    server_time_text,
)
from orderdash.core.model import jsontext
from orderdash.core.model.errors import OrderdashError
from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import Order, OrderEnvelope, RatesEnvelope
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.watcher import Change
from orderdash.core.qr.payload import QRContent, qr_payload
from orderdash.core.service.client import OrderClient
from orderdash.simulator import Simulator, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.messages import OrderFetched
from orderdash.tui.screens.pos import PosScreen

pytestmark = pytest.mark.heavy

settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,
)
settings.register_profile(
    "long",
    max_examples=800,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
PROFILE_NAME = os.environ.get("HYPOTHESIS_PROFILE", "ci")
PROFILE = settings.get_profile(PROFILE_NAME)


def scaled(factor: float) -> settings:
    """The selected profile with `factor` times its examples (the app is slower per example)."""
    return settings(PROFILE, max_examples=max(1, int(PROFILE.max_examples * factor)))


#: Examples run, per test: reported at the end of the module.
RUNS: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _report_examples(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    total = sum(RUNS.values())
    parts = ", ".join(f"{name} {count}" for name, count in sorted(RUNS.items()))
    line = f"hypothesis profile {PROFILE_NAME!r}: {total} examples ran ({parts})"
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if reporter is None or capture is None:  # pragma: no cover - plugins disabled
        print(line)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        reporter.write_line(line)


# -- strategies --------------------------------------------------------------------------------

HOSTILE_SNIPPETS = (
    "[/]",
    "[/",
    "[@click=app.quit]Pay[/]",
    "[link='https://evil.example']x[/]",
    "[b]",
    "\\",
    "\x1b[2J",
    "\x1b]52;c;aGk=\x07",
    "\x1b]8;;https://evil.example\x1b\\",
    "\x9b",
    "\x85",
    "\x00",
    "\x7f",
    "\n",
    "\r",
    "\t",
    "\u202e",
    "\u2066",
    "\u200f",
    "\u2028",
    "\ufeff",
    "\ud800",
    "\udfff",
    "\u0301",
    "\U0001f4b0",
    "\u4e2d\u6587",
    "\ufffd",
)

hostile_text = st.lists(
    st.one_of(st.text(max_size=12), st.sampled_from(HOSTILE_SNIPPETS)), max_size=6
).map("".join)
long_text = st.builds(
    lambda s, n: s * n, st.sampled_from(["W", "[/]", "\x1b", "ab"]), st.integers(1, 3000)
)
any_text = st.one_of(hostile_text, hostile_text, long_text)


def _decimal(sign: int, digits: list[int], exponent: int) -> Decimal:
    return Decimal((sign, tuple(digits), exponent))


#: Finite decimals within the models' range (10^±40, 80 digits), up to 40 significant digits.
money = st.one_of(
    st.builds(
        _decimal,
        st.integers(0, 1),
        st.lists(st.integers(0, 9), min_size=1, max_size=40),
        st.integers(-45, 20),
    ).filter(lambda d: abs(d.adjusted()) <= 40),
    st.sampled_from(
        [Decimal(text) for text in ("0", "-0", "0.00", "1E+3", "1e-7", "-0.5", "1E+40", "1E-40")]
    ),
)
int64 = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from([0, -1, 2**63 - 1, -(2**63), 10**12, 10**14, 1594718753000]),
)
epoch_ms = st.one_of(st.integers(10**12, 10**13), int64)
server_time = st.one_of(
    st.just("2020-07-14 10:01"),
    st.datetimes().map(lambda d: d.strftime("%Y-%m-%d %H:%M")),
    any_text,
)
fiat_text = st.one_of(money.map(lambda d: format(d, "f")), money.map(str))
status_code = st.one_of(
    st.sampled_from(
        ["IN_PROGRESS", "PAID", "OVERPAID", "UNDERPAID", "EXPIRED", "CANCELED", "new", "Paid"]
    ),
    any_text,
)


def amounts(numbers: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"base": numbers, "total": numbers, "underPaid": numbers, "overPaid": numbers}
    )


transaction = st.fixed_dictionaries(
    {
        "id": int64,
        "hash": any_text,
        "hashUrl": st.one_of(st.none(), any_text, st.just("https://explorer.example/tx/1")),
        "amount": amounts(money),
        "amountFiat": amounts(fiat_text),
        "createdAt": server_time,
        "createdAtMiliseconds": epoch_ms,
    }
)
coin_fields = st.one_of(
    st.fixed_dictionaries(
        {
            "coin": any_text,
            "coinBaseName": st.one_of(
                st.sampled_from(["btc", "ltc", "bch", "doge", "eth"]), any_text
            ),
            "exchangeRate": money,
            "amount": money,
        }
    ),
    st.just({"coin": None, "coinBaseName": None, "exchangeRate": None, "amount": None}),
)
address = st.one_of(
    st.just("bc1q7tzdwfry03u2lr7usv9vz2furcg7u256w3llqx"),
    st.just("3AxYawtkGxsnTfy6KxswzAFNDiGRuw1dH3"),
    any_text,
)


@st.composite
def orders(draw: st.DrawFn) -> dict[str, Any]:
    """The `data` object of an answer, valid per the spec, hostile in content."""
    data = {
        "companyName": draw(any_text),
        "id": draw(int64),
        "customerId": draw(int64),
        "token": draw(any_text),
        **draw(coin_fields),
        "amountFiat": draw(fiat_text),
        "dueDate": draw(st.one_of(st.none(), any_text, money, int64, huge_numbers)),
        "currency": {
            "id": draw(int64),
            "currency": draw(any_text),
            "abbreviation": draw(st.one_of(st.sampled_from(["EUR", "USD"]), any_text)),
        },
        "createdAt": draw(server_time),
        "createdAtMiliseconds": draw(epoch_ms),
        "type": draw(st.one_of(st.just("Order"), any_text)),
        "expiresAt": draw(st.one_of(st.none(), epoch_ms)),
        "expirationTime": draw(st.one_of(st.none(), st.integers(0, 10**9), int64)),
        "email": draw(st.one_of(st.none(), any_text)),
        "address": draw(st.one_of(st.none(), address)),
        "status": {"code": draw(status_code), "label": draw(any_text)},
        "urls": {
            "cancelUrl": draw(st.one_of(st.none(), any_text)),
            "successUrl": draw(st.one_of(st.none(), any_text)),
            "callbackUrl": draw(st.one_of(st.none(), any_text)),
        },
        "transactions": draw(st.lists(transaction, max_size=6)),
    }
    if draw(st.booleans()):
        data["qrCode"] = draw(st.one_of(st.none(), any_text, st.just("data:image/png;base64,AAAA")))
    if draw(st.booleans()):  # a field the spec does not know
        name = draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in {*data, "qrCode"}))
        data[name] = draw(json_values)
    return data


#: Number literals beyond jsontext's bounds (huge exponents, thousands of digits): they are put
#: into the body text verbatim (`with_huge_numbers`), since no Decimal of ours may be that big.
huge_number_text = st.one_of(
    st.builds(
        lambda mantissa, exponent: f"{mantissa}e{exponent}",
        st.sampled_from(["1", "-0", "9.99", "0.1", "-7"]),
        st.one_of(
            st.integers(101, 10**20),
            st.integers(-(10**20), -101),
            st.sampled_from([999999999, 999999999999999999, -999999999999999999, 10**30]),
        ),
    ),
    st.integers(101, 5000).map(lambda n: "9" * n),
    st.integers(101, 300).map(lambda n: "0." + "1" * n),
)


@dataclass(frozen=True)
class HugeNumber:
    """Stands for a number literal in a generated document until the body is written."""

    text: str


def with_huge_numbers(document: Any) -> bytes:
    """`document` as JSON text, each HugeNumber written as its literal."""
    literals: list[str] = []

    def mark(value: Any) -> Any:
        if isinstance(value, HugeNumber):
            literals.append(value.text)
            return f"@@huge{len(literals) - 1}@@"
        if isinstance(value, dict):
            return {key: mark(item) for key, item in value.items()}
        if isinstance(value, list):
            return [mark(item) for item in value]
        return value

    body = jsontext.dumps(mark(document))
    for index, text in enumerate(literals):
        body = body.replace(f'"@@huge{index}@@"', text)
    return body.encode("ascii")


huge_numbers = huge_number_text.map(HugeNumber)

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), int64, money, hostile_text, huge_numbers),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)

#: A value of the wrong kind for almost any field.
wrong_values = st.one_of(
    json_values,
    huge_numbers,
    st.sampled_from([True, False, None, "", "NaN", [], {}, 10**400]),
)


def envelope(data: Any, rates: bool) -> dict[str, Any]:
    if rates:
        return {"success": True, "data": data, "message": None}
    return {"status": 1, "data": data}


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value (dict keys and list indices)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


@st.composite
def mutated_bodies(draw: st.DrawFn) -> tuple[bytes, bool]:
    """(body, is it a rate answer): a valid answer with fields dropped, replaced, retyped, or
    with garbage put into its text."""
    rates = draw(st.booleans())
    document: Any = envelope(draw(orders()), rates)
    for _ in range(draw(st.integers(1, 4))):
        targets = paths(document)
        path = draw(st.sampled_from(targets))
        action = draw(st.sampled_from(["drop", "replace", "retype", "wrap"]))
        if not path:
            document = draw(wrong_values)
            continue
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        key = path[-1]
        if action == "drop":
            del parent[key]
        elif action == "replace":
            parent[key] = draw(wrong_values)
        elif action == "retype":
            value = parent[key]
            parent[key] = (
                str(value) if not isinstance(value, str) else draw(st.one_of(money, int64))
            )
        else:
            parent[key] = [parent[key]]
        if not isinstance(document, dict | list):
            break
    body = with_huge_numbers(document)
    garbage = draw(st.sampled_from(["none", "insert", "truncate", "replace", "bytes"]))
    if garbage != "none" and body:
        at = draw(st.integers(0, len(body)))
        junk = draw(
            st.one_of(
                st.binary(max_size=8),
                st.sampled_from([b"\xff", b"\xc3", b"NaN", b"1e999999", b"[", b"}", b"\x00"]),
            )
        )
        if garbage == "insert":
            body = body[:at] + junk + body[at:]
        elif garbage == "truncate":
            body = body[:at]
        elif garbage == "replace":
            body = body[:at] + junk + body[at + len(junk) :]
        else:
            body = junk
    return body, rates


# -- invariants --------------------------------------------------------------------------------


def unprintable(text: str) -> list[str]:
    return sorted({repr(ch) for ch in text if ch != "\n" and not ch.isprintable()})


def exercise_display(order: Order) -> None:
    """Everything the core formats for the screen: must not raise, must be printable."""
    now = time.time()
    state = payment_state(order, now)
    texts = [state.headline, state.summary, rate_text(order), server_time_text(order.created_at)]
    texts += order_summary(order, now)
    texts.append(epoch_ms_text(order.created_at_ms))
    expiry = expiry_for(order, now)
    texts += [expiry.describe(now), expiry.summary, expiry.countdown(now)]
    texts.append(json_value_text(order.due_date))
    # what `get --json` prints of the fields we do not type: bounded, whatever the numbers
    extra = jsontext.dumps(order.model_extra or {})
    assert len(extra) <= 4 * len(repr(order.model_extra)) + 2
    for mode in QRContent:
        payload = qr_payload(order, state, mode, order.qr_code)
        texts += [payload.caption, payload.note, payload.text or ""]
    for text in texts:
        assert not unprintable(text), (text[:80], unprintable(text))


def digits(value: Decimal | None) -> str:
    """Positional digits; the sign of an integral zero is not kept (JSON `-0` is the integer 0)."""
    if value is None:
        return "\u2014"
    text = format(value, "f")
    return text.lstrip("-") if value == 0 and "." not in text else text


def as_sent(text: str | None) -> str | None:
    """What a string means once written as JSON text: two lone surrogates side by side (a
    generated string can hold them) are written as one escaped pair, which reads back as one
    astral character."""
    return None if text is None else json.loads(json.dumps(text))


def check_exact(order: Order, data: dict[str, Any]) -> None:
    """The model holds exactly what was sent: every digit, every character."""
    assert order.company_name == as_sent(data["companyName"])
    assert order.status.code == as_sent(data["status"]["code"])
    assert order.address == as_sent(data["address"])
    assert digits(order.amount) == digits(data["amount"])
    assert amount_text(order.exchange_rate).lstrip("-") == digits(data["exchangeRate"]).lstrip("-")
    assert format(order.amount_fiat, "f") == format(Decimal(data["amountFiat"].strip()), "f")
    for tx, sent in zip(order.transactions, data["transactions"], strict=True):
        assert tx.hash == as_sent(sent["hash"])
        for name, wire in (("base", "base"), ("under_paid", "underPaid"), ("total", "total")):
            assert digits(getattr(tx.amount, name)) == digits(sent["amount"][wire])
            fiat = format(getattr(tx.amount_fiat, name), "f")
            assert fiat == format(Decimal(sent["amountFiat"][wire].strip()), "f")


@scaled(2)
@given(data=orders(), rates=st.booleans())
def test_valid_orders_parse_exactly_and_format(data: dict[str, Any], rates: bool) -> None:
    RUNS["valid orders"] += 1
    body = with_huge_numbers(envelope(data, rates))
    document = jsontext.loads(body)
    model = RatesEnvelope if rates else OrderEnvelope
    order = model.model_validate(document).data
    assert order is not None
    check_exact(order, data)
    exercise_display(order)


@scaled(3)
@given(case=mutated_bodies())
def test_mutated_answers_give_a_model_or_a_typed_error(case: tuple[bytes, bool]) -> None:
    RUNS["mutations"] += 1
    body, rates = case
    try:
        document = jsontext.loads(body)
    except jsontext.JsonTextError:
        return
    model = RatesEnvelope if rates else OrderEnvelope
    try:
        parsed = model.model_validate(document)
    except ValidationError:
        return
    if parsed.data is not None:
        exercise_display(parsed.data)


@scaled(2)
@given(
    case=mutated_bodies(),
    status=st.sampled_from([200, 200, 200, 201, 204, 299, 302, 401, 404, 418, 429, 500, 503]),
    headers=st.dictionaries(
        st.sampled_from(["content-type", "content-encoding", "retry-after", "location"]),
        st.sampled_from(
            [
                "text/html",
                "application/json",
                "gzip",
                "deflate",
                "br",
                "identity",
                "5",
                "Wed, 21 Oct 2015 07:28:00 GMT",
                "nan",
                "-1",
                "https://evil.example/x",
                "\x1b[2J",
            ]
        ),
        max_size=3,
    ),
    compress=st.booleans(),
)
async def test_the_client_gives_fetched_or_a_typed_error(
    case: tuple[bytes, bool], status: int, headers: dict[str, str], compress: bool
) -> None:
    RUNS["client"] += 1
    body, rates = case
    if compress and headers.get("content-encoding") == "gzip":
        body = gzip.compress(body)

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers=headers, content=body)

    client = OrderClient(
        "http://127.0.0.1:1",
        bearer_token=SecretStr("fuzz-bearer"),
        max_body_bytes=1 << 20,
        transport=httpx.MockTransport(answer),
    )
    async with client:
        call = client.refresh_rate if rates else client.get_order
        try:
            fetched = await call("fuzz-token")
        except OrderdashError as error:
            assert not unprintable(str(error)) and "fuzz-bearer" not in str(error)
            return
    assert isinstance(fetched, Fetched)
    exercise_display(fetched.order)


# -- the app -------------------------------------------------------------------------------------

TOKEN = "fuzz-order"
OTHER = "fuzz-other"


async def _app_for_examples(open_pos: bool) -> Any:
    """One app for every example: orders go through the dashboard's own handler of a watcher
    report, as if just fetched. The simulator only gives the watcher someone to talk to (it
    knows neither token, and polls are an hour apart)."""
    with SimulatorServer(Simulator(seed=7), bearer_token="fuzz-bearer", port=0) as server:
        settings_ = make_settings(server.base_url, poll_interval=3600.0, refresh_interval=3600.0)
        app = make_app(settings_, tokens=[TOKEN, OTHER], open_pos=open_pos)
        async with app.run_test(size=(140, 48), notifications=True) as pilot:
            await pilot.pause()
            yield app, pilot


@pytest.fixture
async def dashboard_app() -> Any:
    async for running in _app_for_examples(open_pos=False):
        yield running


@pytest.fixture
async def pos_app() -> Any:
    async for running in _app_for_examples(open_pos=True):
        yield running


def fetched_of(data: dict[str, Any]) -> Fetched:
    document = jsontext.loads(with_huge_numbers(envelope(data, rates=False)))
    order = OrderEnvelope.model_validate(document).data
    return Fetched(order=order, raw=document["data"], received_at=time.time(), elapsed=0.01)


async def push_answers(
    app: OrderDashApp, pilot: Any, first: dict[str, Any], second: dict[str, Any], kind: Kind
) -> None:
    """`first` as the order on screen, then `second` as its next read and as the other watched
    order's read: new transactions and a status change raise alerts (toasts with server text)."""
    dashboard = app.dashboard
    app.clear_notifications()  # toasts of earlier examples would pile up (8 s each)
    ids = tuple(tx["id"] for tx in second["transactions"])
    changed = Change(ids, (first["status"]["code"], second["status"]["code"]))
    for token, data, change in (
        (TOKEN, first, Change()),
        (OTHER, second, changed),
        (TOKEN, second, changed),
    ):
        # the handler itself, not a posted message: an exception lands here, with its example
        dashboard._order_fetched(OrderFetched(token, kind, fetched_of(data), change))
    await pilot.pause()  # one refresh for the three: a screen costs ~0.1 s to lay out


@scaled(0.4)
@given(first=orders(), second=orders(), kind=st.sampled_from(list(Kind)), cursor=st.integers(0, 3))
async def test_the_dashboard_renders_any_valid_order(
    dashboard_app: tuple[OrderDashApp, Any],
    first: dict[str, Any],
    second: dict[str, Any],
    kind: Kind,
    cursor: int,
) -> None:
    RUNS["app: dashboard"] += 1
    app, pilot = dashboard_app
    await push_answers(app, pilot, first, second, kind)
    for _ in range(cursor):  # the detail line of each transaction
        await pilot.press("down")
    check_screen(app)


@scaled(0.4)
@given(first=orders(), second=orders(), kind=st.sampled_from(list(Kind)))
async def test_the_point_of_sale_renders_any_valid_order(
    pos_app: tuple[OrderDashApp, Any], first: dict[str, Any], second: dict[str, Any], kind: Kind
) -> None:
    RUNS["app: point of sale"] += 1
    app, pilot = pos_app
    await push_answers(app, pilot, first, second, kind)
    await pilot.pause()
    assert isinstance(app.screen, PosScreen)
    check_screen(app)


def check_screen(app: OrderDashApp) -> None:
    assert app.is_running, "the app stopped"
    assert app.return_code is None
    bad = unprintable(screen_text(app))
    assert not bad, f"{bad} reached the screen"


def test_the_profiles_are_bounded() -> None:
    assert settings.get_profile("ci").max_examples < settings.get_profile("long").max_examples
    inner = test_the_dashboard_renders_any_valid_order.hypothesis.inner_test  # type: ignore[attr-defined]
    assert asyncio.iscoroutinefunction(inner), "pytest-asyncio runs each example in the app's loop"
