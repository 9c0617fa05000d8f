"""The service's own published examples (tests/fixtures/examples, from docs/service-api.md):
each parses and displays, errors show the envelope's message, the documented states map to
their styles and phases, and no example gets an absurd expiry."""

from __future__ import annotations

import json
import uuid
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from conftest import BEARER, run_cli
from orderdash.core.domain.expiry import Confidence, expiry_for
from orderdash.core.domain.payment import Phase, payment_state
from orderdash.core.domain.status import Tone, tone_of
from orderdash.core.domain.summary import order_summary
from orderdash.core.model import errors, jsontext
from orderdash.core.service.client import OrderClient
from orderdash.simulator.server import SimulatorServer
from orderdash.simulator.state import DOCUMENTED_STATES

EXAMPLES = Path(__file__).parents[1] / "fixtures" / "examples"
#: Today, as far as these tests go: years after every example was created.
NOW = 1_795_255_200.0  # 2026-11-21
#: The moment the rate example's `expirationTime` was counted from (expiresAt - expirationTime).
RATES_ANSWERED = 1_617_786_951.0  # 2021-04-07 09:15:51 UTC


def example(name: str) -> str:
    return (EXAMPLES / name).read_text()


def client_serving(status: int, body: str, *, clock: float = NOW) -> OrderClient:
    return OrderClient(
        "https://pay.example/api",
        bearer_token=SecretStr("example-bearer"),
        transport=httpx.MockTransport(lambda request: httpx.Response(status, text=body)),
        clock=lambda: clock,
    )


async def test_the_get_order_example_parses_and_shows_without_a_2026_expiry() -> None:
    async with client_serving(200, example("get_order.json")) as client:
        fetched = await client.get_order("ordertoken")
    order = fetched.order
    assert order.amount == Decimal("0.00000109") and order.exchange_rate == Decimal("9205.6")
    assert order.transactions[0].amount.under_paid == Decimal("-0.00004368")
    lines = "\n".join(order_summary(order, fetched.received_at))
    assert "Company" in lines and "IN_PROGRESS" in lines and "0.00000109 BTC" in lines
    expiry_line = next(line for line in lines.splitlines() if line.startswith("Expiry"))
    assert "expiry unknown" in expiry_line
    assert "expirationTime 3600000, expiresAt 17991482" in expiry_line
    assert "2026" not in expiry_line
    # the transaction's figures contradict each other: no amount is asked for
    assert payment_state(order, fetched.received_at).phase is Phase.UNCLEAR


async def test_the_rate_example_parses_and_its_expiry_agrees_when_read_in_its_time() -> None:
    async with client_serving(200, example("rates.json"), clock=RATES_ANSWERED) as client:
        fetched = await client.refresh_rate("lasha2ssasa")
    order = fetched.order
    assert order.exchange_rate == Decimal("51052.068") and order.amount == Decimal("0.00009794")
    expiry = expiry_for(order, fetched.received_at)
    # arrival + expirationTime = 09:15:51 + 2815.607 s = expiresAt 1617789766607 exactly
    assert expiry.confidence is Confidence.CONFIRMED
    assert expiry.countdown(RATES_ANSWERED) == "expires in 46:55"
    assert payment_state(order, fetched.received_at).phase is Phase.AWAITING
    lines = "\n".join(order_summary(order, fetched.received_at))
    assert "2021-04-07 10:02:46 UTC" in lines


async def test_the_choose_crypto_answer_agrees_with_its_own_expires_at() -> None:
    async with client_serving(200, example("choose_crypto.json"), clock=RATES_ANSWERED) as client:
        fetched = await client.get_order("lasha2ssasa")
    assert fetched.order.qr_code == ""
    expiry = expiry_for(fetched.order, fetched.received_at)
    assert expiry.confidence is Confidence.CONFIRMED
    assert expiry.countdown(RATES_ANSWERED) == "expires in 1:00:00"


@pytest.mark.parametrize("name", ["get_order.json", "rates.json", "choose_crypto.json"])
def test_read_years_later_no_example_promises_a_deadline(name: str) -> None:
    from orderdash.core.model.wire import Order

    order = Order.model_validate(jsontext.loads(example(name))["data"])
    expiry = expiry_for(order, NOW)
    assert expiry.deadline is None and expiry.countdown(NOW) == ""
    assert expiry.summary.startswith("expiry unknown  (expirationTime ")


def test_a_deadline_before_the_creation_is_not_believed() -> None:
    from orderdash.core.model.wire import Order

    data = jsontext.loads(example("choose_crypto.json"))["data"]
    # created a day after the answer arrived: the clock here or there is wrong
    data["createdAtMiliseconds"] = int((NOW + 86400) * 1000)
    data["expiresAt"] = 17991482
    assert expiry_for(Order.model_validate(data), NOW).deadline is None
    data["createdAtMiliseconds"] = int((NOW - 60) * 1000)
    assert expiry_for(Order.model_validate(data), NOW).confidence is Confidence.ASSUMED


def _error_body(key: str, message: object) -> str:
    return json.dumps({"status": "error", key: 404, "message": message})


@pytest.mark.parametrize("http_status", [404, 200])
@pytest.mark.parametrize("key", ["status_code ", "status_code"])
async def test_the_error_example_is_not_found_with_its_message(http_status: int, key: str) -> None:
    body = (
        example("error.json")
        if key == "status_code "
        else _error_body(key, {"customer_id": "Invalid customer_id"})
    )
    async with client_serving(http_status, body) as client:
        with pytest.raises(errors.NotFound) as caught:
            await client.get_order("ordertoken")
    assert caught.value.message == (
        "no order with token 'ordertoken' (HTTP 404: customer_id: Invalid customer_id)"
    )


@pytest.mark.parametrize(
    ("status", "message", "error", "line"),
    [
        (
            422,
            "Unsupported coin",
            errors.ServiceError,
            "rejected the order lookup (HTTP 422: Unsupported coin)",
        ),
        (
            500,
            {"server": ["down", "try later"]},
            errors.ServiceError,
            "failed (HTTP 500: server: down, try later)",
        ),
        (401, "Bad credentials [/]", errors.AuthRefused, "(HTTP 401: Bad credentials [/])"),
        (
            200,
            "Too many requests: limit 10000 per hour",
            errors.RateLimited,
            "rate limiting the order lookup",
        ),
    ],
)
async def test_the_envelope_message_is_in_the_one_line_error(
    status: int, message: object, error: type[errors.OrderdashError], line: str
) -> None:
    body = json.dumps(
        {"status": "error", "status_code ": status if status != 200 else 429, "message": message}
    )
    async with client_serving(status, body) as client:
        with pytest.raises(error) as caught:
            await client.get_order("ordertoken")
    assert line in caught.value.message
    assert "\n" not in caught.value.message


async def test_a_rate_refusal_naming_a_limit_is_rate_limiting() -> None:
    body = '{"success": false, "data": null, "message": "API app rate limit exceeded"}'
    async with client_serving(200, body) as client:
        with pytest.raises(errors.RateLimited, match="rate limit exceeded"):
            await client.refresh_rate("t")
    body = '{"success": false, "data": null, "message": {"order": "Order is closed"}}'
    async with client_serving(200, body) as client:
        with pytest.raises(errors.FailureReported, match="order: Order is closed"):
            await client.refresh_rate("t")


STATES = [
    # code, label, tone, phase
    ("IN_PROGRESS", "In-progress", Tone.OPEN, Phase.AWAITING),
    ("PAID", "Paid / Unconfirmed", Tone.PROGRESS, Phase.CONFIRMING),
    ("PAID_UNCONFIRMED", "Paid / Unconfirmed", Tone.PROGRESS, Phase.CONFIRMING),
    ("CONFIRMED", "Confirmed", Tone.GOOD, Phase.CONFIRMED),
    ("UNDERPAID", "Underpaid", Tone.WARN, Phase.UNDERPAID),
    ("OVERPAID", "Overpaid", Tone.WARN, Phase.OVERPAID),
    ("EXPIRED", "Expired", Tone.BAD, Phase.EXPIRED),
    ("CANCELED", "Canceled", Tone.BAD, Phase.CANCELED),
    ("CANCELLED", "Cancelled", Tone.BAD, Phase.CANCELED),
]


def _order_in(code: str, label: str):
    from orderdash.core.model.wire import Order

    data = jsontext.loads(example("choose_crypto.json"))["data"]
    data["status"] = {"code": code, "label": label}
    return Order.model_validate(data)


@pytest.mark.parametrize(("code", "label", "tone", "phase"), STATES)
def test_documented_states_map_to_their_style_and_phase(
    code: str, label: str, tone: Tone, phase: Phase
) -> None:
    assert tone_of(code, label) is tone
    assert payment_state(_order_in(code, label), NOW).phase is phase
    # an unknown code with the documented label: matched by the label, loosely
    assert tone_of("X_42", label) is tone
    assert payment_state(_order_in("X_42", label), NOW).phase is phase


@pytest.mark.parametrize(
    "spelling", ["paid/unconfirmed", "Paid - Unconfirmed", "PAID_UNCONFIRMED", "paid unconfirmed"]
)
def test_labels_are_matched_loosely(spelling: str) -> None:
    assert tone_of(spelling) is Tone.PROGRESS
    assert payment_state(_order_in(spelling, spelling), NOW).phase is Phase.CONFIRMING


def test_unknown_codes_stay_neutral() -> None:
    assert tone_of("ON_HOLD", "On hold") is Tone.UNKNOWN
    assert payment_state(_order_in("ON_HOLD", "On hold"), NOW).phase is Phase.UNKNOWN


@pytest.mark.parametrize(("code", "label"), DOCUMENTED_STATES)
async def test_the_simulator_serves_each_documented_state(
    sim_server: SimulatorServer, code: str, label: str
) -> None:
    token = sim_server.sim.create_order(token=f"state-{uuid.uuid4().hex[:12]}")
    sim_server.sim.set_status(token, code, label)
    async with OrderClient(sim_server.base_url) as client:
        fetched = await client.get_order(token)
    assert (fetched.order.status.code, fetched.order.status.label) == (code, label)
    expected = next(phase for c, _, _, phase in STATES if c == code)
    assert payment_state(fetched.order, fetched.received_at).phase is expected


def _served_example(sim_server: SimulatorServer, name: str) -> str:
    """The simulator serving one published example's data under a new token."""
    data = jsontext.loads(example(name))["data"]
    token = f"example-{uuid.uuid4().hex[:12]}"
    sim_server.sim.create_order(token=token)
    sim_server.sim.set_fields(token, {k: v for k, v in data.items() if k != "token"})
    return token


@pytest.mark.parametrize("name", ["get_order.json", "choose_crypto.json"])
def test_orderdash_get_shows_each_example_without_an_absurd_expiry(
    sim_server: SimulatorServer, name: str
) -> None:
    token = _served_example(sim_server, name)
    result = run_cli("get", token, "--base-url", sim_server.base_url)
    assert result.returncode == 0, result.stderr
    expiry = next(line for line in result.stdout.splitlines() if line.startswith("Expiry"))
    assert expiry.split()[1:3] == ["expiry", "unknown"], expiry
    assert "UTC" not in expiry


def test_orderdash_rates_shows_the_rate_example(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    token_file = tmp_path / "bearer"
    token_file.write_text(BEARER + "\n")
    token_file.chmod(0o600)
    token = _served_example(sim_server, "rates.json")
    result = run_cli(
        "rates", token, "--base-url", sim_server.base_url, "--bearer-token-file", str(token_file)
    )
    assert result.returncode == 0, result.stderr
    assert "1 BTC = 51052.068 USD" in result.stdout or "51,052.068" in result.stdout
    expiry = next(line for line in result.stdout.splitlines() if line.startswith("Expiry"))
    assert "expiry unknown" in expiry and "2815607" in expiry
