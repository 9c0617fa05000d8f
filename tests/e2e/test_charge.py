"""`orderdash charge`: one order per charge through Generate Order, then its coin; against the
simulator over loopback."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import ROUND_CEILING, Decimal

import pytest
from pydantic import SecretStr

from conftest import make_settings, run_cli, serving
from orderdash.core.model import jsontext
from orderdash.core.model.errors import ChargeOutcomeUnknown, UsageError
from orderdash.core.service.client import OrderClient
from orderdash.core.usecases.charge import charge, parse_amount
from orderdash.simulator import Fault, Simulator, SimulatorServer

ACCESS = "access-Cc3-charge"
ENV = {"ORDERDASH_ACCESS_TOKEN": ACCESS, "ORDERDASH_CUSTOMER_ID": "4711"}


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with serving(
        SimulatorServer(Simulator(seed=7), access_token=ACCESS, create_prefix="/listener")
    ) as s:
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


async def test_a_charge_refused_thrice_by_the_service_is_not_retried_forever(server) -> None:
    """Three 5xx: the order may exist (the simulator made it), so the outcome is unknown and
    names the token sent; no fourth try."""
    server.sim.add_fault(Fault(endpoint="create", status=503))
    before = set(server.sim.tokens())
    settings = make_settings(
        server.base_url,
        bearer=None,
        access_token=SecretStr(ACCESS),
        create_url=server.root_url + "/listener",
    )
    async with OrderClient.from_settings(settings) as client:
        with pytest.raises(ChargeOutcomeUnknown) as raised:
            await charge(client, Decimal(5), customer_id="4711", pause=0)
    assert len([r for r in server.sim.requests if r["endpoint"] == "create"]) == 3
    assert set(server.sim.tokens()) - before == {raised.value.token}
    assert raised.value.exit_code == 5


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
    import orderdash.core.usecases.charge as charge_module
    from orderdash import cli
    from orderdash.core.model.results import Fetched
    from orderdash.core.model.wire import OrderEnvelope

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


# -- the till's currency, typed amounts, a charge always nameable, an answer believed so far --


def charge_cli(server: SimulatorServer, *args: str, env: dict[str, str] | None = None):  # noqa: ANN201
    where = ("--base-url", server.base_url, "--create-url", server.root_url + "/listener")
    return run_cli("charge", *where, *args, env={**ENV, **(env or {})})


def test_an_order_in_another_currency_than_the_tills_stops_the_charge(server) -> None:
    """The till says CHF, the account makes EUR orders: the order is named, its checkout link
    and coin withheld (nothing reaches the customer), one line names both currencies."""
    before = set(server.sim.tokens())
    result = charge_cli(server, "12.50", "--coin", "btc", env={"ORDERDASH_CURRENCY": "chf"})
    assert result.returncode == 6, result.stderr
    (token,) = set(server.sim.tokens()) - before
    (line,) = result.stderr.splitlines()
    assert "'EUR'" in line and "CHF" in line and token in line
    assert result.stdout.splitlines() == [f"order {token}"]  # no checkout link, no address
    assert server.sim.order_wire(token, with_qr=False)["coinBaseName"] is None
    assert not [
        r for r in server.sim.requests if r["method"] == "POST" and r["endpoint"] == "ui_order"
    ]

    plain = charge_cli(server, "12.50", "--json", env={"ORDERDASH_CURRENCY": "CHF"})
    assert plain.returncode == 6
    answer = jsontext.loads(plain.stdout)
    assert answer["payment_url"] is None and "CHF" in answer["stopped"]


def test_an_order_in_the_tills_currency_is_made_and_says_it(server) -> None:
    result = charge_cli(server, "12.50", "--json", "--currency", "EUR")
    assert result.returncode == 0, result.stderr
    answer = jsontext.loads(result.stdout)
    assert answer["currency"] == "EUR" and answer["payment_url"].endswith(answer["token"])


def test_a_currency_that_is_no_iso_4217_code_is_refused_before_anything_is_sent(server) -> None:
    for code in ("EUE", "EURO", "\uff25\uff35\uff32"):
        result = charge_cli(server, "5", env={"ORDERDASH_CURRENCY": code})
        assert result.returncode == 2 and "ISO 4217" in result.stderr
    assert server.sim.requests == []


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("12_50", "not digits"),
        ("\u0661\u0662", "not digits"),
        ("\uff11\uff12", "not digits"),
        ("12,50", "use a point: 12.50"),
    ],
)
def test_an_amount_typed_another_way_is_refused_with_the_reason(server, typed, reason) -> None:
    result = charge_cli(server, "--", typed)
    assert result.returncode == 2 and reason in result.stderr
    assert server.sim.requests == []


def test_a_yen_amount_takes_no_decimals(server) -> None:
    result = charge_cli(server, "1200.5", env={"ORDERDASH_CURRENCY": "JPY"})
    assert result.returncode == 2 and "JPY amounts take no decimals" in result.stderr
    assert server.sim.requests == []


@pytest.mark.parametrize("fault", [{"reset_after": 0}, {"status": 503}])
def test_a_charge_whose_outcome_is_unknown_names_its_token_and_the_check(server, fault) -> None:
    """Every try loses its answer (or gets a 5xx) after the order is made: exit 5, and the
    token sent is on stderr with the one command that checks it, which finds the order."""
    server.sim.add_fault(Fault(endpoint="create", **fault))
    before = set(server.sim.tokens())
    result = charge_cli(server, "7.25")
    as_json = charge_cli(server, "7.30", "--json")
    assert result.returncode == as_json.returncode == 5
    first, second = sorted(set(server.sim.tokens()) - before, key=lambda t: t in result.stderr)
    assert second in result.stderr and "may exist" in result.stderr
    check = next(line for line in result.stderr.splitlines() if "orderdash get" in line)
    command = check[check.index("orderdash get") :].split()
    assert command[:2] == ["orderdash", "get"] and command[-1] == second
    server.sim.clear_faults()
    looked = run_cli(*command[1:], env=ENV)
    assert looked.returncode == 0 and "7.25" in looked.stdout
    answer = jsontext.loads(as_json.stdout)
    assert answer["token"] == first and answer["outcome"] == "unknown"
    assert answer["reason"].startswith("no answer in 3 tries")
    assert answer["check"].endswith(first)


def test_a_coin_not_offered_reports_the_made_order_instead_of_orphaning_it(server) -> None:
    before = set(server.sim.tokens())
    result = charge_cli(server, "5", "--coin", "xmr")
    assert result.returncode == 6
    (token,) = set(server.sim.tokens()) - before
    assert "does not offer the coin 'xmr'" in result.stderr and token in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"order {token}" and lines[1].startswith("checkout: https://")
    assert lines[1].endswith(token)


def test_a_coin_that_is_no_coin_code_is_refused_before_the_order_is_made(server) -> None:
    result = charge_cli(server, "5", "--coin", "x m r")
    assert result.returncode == 2 and "not a coin code" in result.stderr
    assert server.sim.requests == []


def test_an_answer_naming_another_token_is_a_wrong_answer(server) -> None:
    other = server.sim.create_order(token="ordertoken", coin="btc")
    server.sim.add_fault(Fault(endpoint="create", answer_token=other))
    before = set(server.sim.tokens())
    result = charge_cli(server, "5", "--coin", "btc")
    assert result.returncode == 5
    (sent,) = set(server.sim.tokens()) - before  # made with the token sent
    assert "ordertoken" in result.stderr and sent in result.stderr
    assert "wrong answer" in result.stderr and "orderdash get" in result.stderr
    assert "order ordertoken" not in result.stdout
    # nothing was done to the other order, nor a coin chosen on any
    assert [r["endpoint"] for r in server.sim.requests] == ["create"]


@pytest.mark.parametrize(
    "link",
    [
        "javascript:alert(document.cookie)//https://pay.example/",
        "file:///etc/passwd",
        "data:text/html,<script>alert(1)</script>",
        "http://pay.example/invoice?token=x",
    ],
)
def test_a_checkout_link_that_is_not_https_is_not_printed(server, link: str) -> None:
    server.sim.add_fault(Fault(endpoint="create", answer_payment_url=link, times=2))
    text = charge_cli(server, "5")
    as_json = charge_cli(server, "5", "--json")
    assert text.returncode == as_json.returncode == 0
    assert "checkout" not in text.stdout and link not in text.stdout + as_json.stdout
    assert "not https: not shown" in text.stderr
    assert jsontext.loads(as_json.stdout)["payment_url"] is None


def test_a_checkout_link_over_http_to_the_service_on_loopback_is_kept(server) -> None:
    link = server.base_url + "/checkout/abc"
    server.sim.add_fault(Fault(endpoint="create", answer_payment_url=link))
    result = charge_cli(server, "5")
    assert result.returncode == 0 and f"checkout: {link}" in result.stdout


def test_a_create_that_never_reached_the_service_is_not_made_and_says_so() -> None:
    """No connection on any try: nothing was sent, so the outcome is known (not made): exit 5
    with the reason, and no 'may exist'."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    result = run_cli("charge", "--base-url", closed, "5", env=ENV)
    assert result.returncode == 5
    assert "cannot connect" in result.stderr and "may exist" not in result.stderr
