"""`orderdash charge`: one order per charge through Generate Order, then its coin; against the
simulator over loopback."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import ROUND_CEILING, Decimal

import pytest
from pydantic import SecretStr

from conftest import make_settings, run_cli
from orderdash.core.service import jsontext
from orderdash.core.service.charge import charge, parse_amount
from orderdash.core.service.client import OrderClient
from orderdash.core.service.errors import ServiceError, UsageError
from orderdash.simulator import Fault, Simulator, SimulatorServer

ACCESS = "access-Cc3-charge"
ENV = {"ORDERDASH_ACCESS_TOKEN": ACCESS, "ORDERDASH_CUSTOMER_ID": "4711"}


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with SimulatorServer(Simulator(seed=7), access_token=ACCESS, create_prefix="/listener") as s:
        yield s


def test_charge_with_a_coin_prints_token_url_address_and_the_wallet_request(server) -> None:
    before = set(server.sim.tokens())
    result = run_cli(
        "charge",
        "5",
        "--coin",
        "btc",
        "--json",
        "--base-url",
        server.base_url,
        "--create-url",
        server.root_url + "/listener",
        env=ENV,
    )
    assert result.returncode == 0, result.stderr
    answer = jsontext.loads(result.stdout)
    made = set(server.sim.tokens()) - before
    assert made == {answer["token"]}
    order = server.sim.order_wire(answer["token"], with_qr=False)
    assert order["coinBaseName"] == "btc" and order["amountFiat"] == "5.00"
    assert answer["address"] == order["address"]
    assert answer["amount"] == format(order["amount"], "f")
    assert answer["payment_url"].endswith(answer["token"])
    due = Decimal(answer["amount"]).quantize(Decimal("1e-8"), rounding=ROUND_CEILING)
    assert answer["uri"] == f"bitcoin:{order['address']}?amount={format(due, 'f')}"
    assert ACCESS not in result.stdout + result.stderr


def test_charge_without_a_coin_prints_only_the_token_and_the_checkout_url(server) -> None:
    common = ("--base-url", server.base_url, "--create-url", server.root_url + "/listener")
    before = set(server.sim.tokens())
    text = run_cli("charge", "4.20", *common, env=ENV)
    as_json = run_cli("charge", "4.20", "--json", *common, env=ENV)
    assert text.returncode == as_json.returncode == 0, text.stderr + as_json.stderr
    answer = jsontext.loads(as_json.stdout)
    assert set(answer) == {"token", "payment_url"}
    (token,) = set(server.sim.tokens()) - before - {answer["token"]}
    order = server.sim.order_wire(token, with_qr=False)
    lines = text.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == f"order {token}"
    assert lines[1].startswith("checkout: http") and lines[1].endswith(token)
    assert order["coinBaseName"] is None and text.stderr == ""
    # nothing but the two creates: no coin asked for, none chosen
    assert [r["endpoint"] for r in server.sim.requests] == ["create", "create"]


async def test_a_create_whose_answer_is_lost_makes_exactly_one_order(server) -> None:
    sim = server.sim
    # the order is made, then the connection drops before the answer
    sim.add_fault(Fault(endpoint="create", reset_after=0, times=1))
    settings = make_settings(
        server.base_url,
        bearer=None,
        access_token=SecretStr(ACCESS),
        create_url=server.root_url + "/listener",
    )
    before = set(sim.tokens())
    async with OrderClient.from_settings(settings) as client:
        made = await charge(
            client, Decimal("7.25"), customer_id="4711", new_token=lambda: "charge-1", pause=0
        )
    assert made.token == "charge-1"
    assert set(sim.tokens()) - before == {"charge-1"}
    creates = [r for r in sim.requests if r["endpoint"] == "create"]
    assert len(creates) == 2  # the lost one and its retry, with the same token
    assert sim.order_wire("charge-1", with_qr=False)["amountFiat"] == "7.25"


def test_a_422_shows_the_services_message(server) -> None:
    env = dict(ENV, ORDERDASH_CUSTOMER_ID="1")
    result = run_cli(
        "charge",
        "5",
        "--base-url",
        server.base_url,
        "--create-url",
        server.root_url + "/listener",
        env=env,
    )
    assert result.returncode == 5
    assert len(result.stderr.splitlines()) == 1
    assert "customer_id: Invalid customer_id" in result.stderr


async def test_a_charge_refused_twice_by_the_service_is_not_retried_forever(server) -> None:
    server.sim.add_fault(Fault(endpoint="create", status=503))
    settings = make_settings(
        server.base_url,
        bearer=None,
        access_token=SecretStr(ACCESS),
        create_url=server.root_url + "/listener",
    )
    async with OrderClient.from_settings(settings) as client:
        with pytest.raises(ServiceError):
            await charge(client, Decimal(5), customer_id="4711", pause=0)
    assert len([r for r in server.sim.requests if r["endpoint"] == "create"]) == 3


@pytest.mark.parametrize("text", ["0", "-1", "1e3", "5.001", "abc", "NaN", "1000000000000"])
def test_amounts_that_are_refused(text: str) -> None:
    with pytest.raises(UsageError):
        parse_amount(text)


def test_amounts_that_are_taken() -> None:
    assert parse_amount(" 12.50 ") == Decimal("12.50")
    assert str(parse_amount("5")) == "5"


def test_charge_text_says_to_send_the_amount_rounded_up_to_the_coins_unit(
    server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An order asking more digits than a satoshi: the 'send' line is what a wallet can send,
    rounded up (never the exact figure a person would round, perhaps down), and says both."""
    import orderdash.core.service.charge as charge_module
    from orderdash import cli
    from orderdash.core.service.client import Fetched
    from orderdash.core.service.models import OrderEnvelope

    token = server.sim.create_order(amount_fiat="5.00", coin="btc")
    wire = server.sim.order_wire(token, with_qr=False)
    wire["amount"] = Decimal("0.000051371234")
    order = OrderEnvelope.model_validate({"status": 200, "data": wire}).data

    async def made(*_args: object, **_kwargs: object) -> charge_module.Charge:
        return charge_module.Charge(token, None, Fetched(order, wire, 0.0, 0.0))

    monkeypatch.setattr(charge_module, "charge", made)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    assert cli.main(["charge", "5", "--coin", "btc", "--base-url", server.base_url]) == 0
    out = capsys.readouterr().out
    assert f"send 0.00005138 BTC to {wire['address']}" in out
    assert "the service asks 0.000051371234" in out
    assert "?amount=0.00005138" in out
