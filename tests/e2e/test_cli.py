"""The one-shot CLI in real subprocesses against the simulator: output, exit codes, imports."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import BEARER, run_cli, run_python
from orderdash.core.model import jsontext
from orderdash.simulator import DEMO_TOKENS, Fault, Simulator, SimulatorServer

TOKEN = DEMO_TOKENS[0]


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "bearer"
    path.write_text(BEARER + "\n")
    path.chmod(0o600)
    return path


def assert_no_secret(result: subprocess.CompletedProcess[str]) -> None:
    assert BEARER not in result.stdout and BEARER not in result.stderr


def test_get_json_prints_the_data_object_with_exact_digits(sim_server: SimulatorServer) -> None:
    token = sim_server.sim.create_order(coin="eth", currency="USD", amount_fiat="12345.67")
    sim_server.sim.add_transaction(token, "0.123456789012345678")
    before = sim_server.sim.order_wire(token, with_qr=False)
    result = run_cli("get", token, "--json", "--base-url", sim_server.base_url)
    after = sim_server.sim.order_wire(token, with_qr=False)
    assert result.returncode == 0, result.stderr
    printed = jsontext.loads(result.stdout)
    assert printed["token"] == token
    # the rate, and so the amount, renews each simulator minute: the answer is one of the two
    sent = [wire["amount"] for wire in (before, after)]
    assert printed["amount"] in sent and isinstance(printed["amount"], Decimal)
    matching = sent[sent.index(printed["amount"])]
    assert format(matching, "f") in result.stdout  # the digits sent, as text, not re-rounded
    assert "0.123456789012345678" in result.stdout
    assert "createdAtMiliseconds" in printed and "qrCode" not in printed


def test_get_summary_is_readable(sim_server: SimulatorServer) -> None:
    result = run_cli("get", TOKEN, "--base-url", sim_server.base_url)
    assert result.returncode == 0, result.stderr
    assert "Demo Shop" in result.stdout
    assert "1 BTC = " in result.stdout and " EUR" in result.stdout
    assert "Transactions" in result.stdout


def test_rates_needs_and_uses_the_token_file(sim_server: SimulatorServer, token_file: Path) -> None:
    result = run_cli(
        "rates",
        TOKEN,
        "--json",
        "--base-url",
        sim_server.base_url,
        "--bearer-token-file",
        str(token_file),
    )
    assert result.returncode == 0, result.stderr
    assert jsontext.loads(result.stdout)["qrCode"].startswith("data:image/png;base64,")
    assert_no_secret(result)
    without = run_cli("rates", TOKEN, "--base-url", sim_server.base_url)
    assert without.returncode == 4
    assert "needs a bearer token" in without.stderr


def test_rates_token_from_the_environment(sim_server: SimulatorServer) -> None:
    result = run_cli(
        "rates", TOKEN, "--base-url", sim_server.base_url, env={"ORDERDASH_BEARER_TOKEN": BEARER}
    )
    assert result.returncode == 0, result.stderr
    assert_no_secret(result)


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        (["get", "no-such-order"], 3, "no order with token 'no-such-order'"),
        (["get", ".."], 2, "is not an order token"),
        (["get", TOKEN, "--timeout", "-1"], 2, "timeout"),
        (["get"], 2, "required: token"),
        (["get", TOKEN, "--bogus"], 2, "unrecognized arguments"),
    ],
)
def test_exit_codes_and_one_line_errors(
    sim_server: SimulatorServer, args: list[str], code: int, text: str
) -> None:
    result = run_cli(*args, "--base-url", sim_server.base_url)
    assert result.returncode == code
    assert text in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_wrong_token_is_exit_4(sim_server: SimulatorServer, tmp_path: Path) -> None:
    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-token")
    wrong.chmod(0o600)
    result = run_cli(
        "rates", TOKEN, "--base-url", sim_server.base_url, "--bearer-token-file", str(wrong)
    )
    assert result.returncode == 4
    assert "refused the bearer token" in result.stderr
    assert "not-the-token" not in result.stderr


@pytest.mark.parametrize(
    "fault",
    [
        Fault(status=503),
        Fault(body="{oops"),
        Fault(status=301, headers={"Location": "https://x.example/"}),
    ],
    ids=["503", "bad-json", "redirect"],
)
def test_service_failures_are_exit_5(sim_server: SimulatorServer, fault: Fault) -> None:
    sim_server.sim.add_fault(fault)
    result = run_cli("get", TOKEN, "--base-url", sim_server.base_url)
    assert result.returncode == 5
    assert result.stderr.startswith("orderdash: ") and result.stderr.count("\n") == 1


def test_cannot_connect_is_exit_5() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = run_cli("get", TOKEN, "--base-url", f"http://127.0.0.1:{port}")
    assert result.returncode == 5
    assert "cannot connect" in result.stderr


def test_insecure_http_to_a_remote_host_is_refused() -> None:
    result = run_cli("get", TOKEN, "--base-url", "http://pay.example")
    assert result.returncode == 2
    assert "unencrypted" in result.stderr


def test_get_does_not_import_the_ui_the_simulator_or_qrcode(sim_server: SimulatorServer) -> None:
    code = (
        "import sys\n"
        "from orderdash.cli import main\n"
        f"rc = main(['get', {TOKEN!r}, '--json', '--base-url', {sim_server.base_url!r}])\n"
        "roots = {m.split('.')[0] for m in sys.modules}\n"
        "heavy = sorted(roots & {'textual', 'rich', 'qrcode', 'starlette', 'uvicorn'})\n"
        "heavy += [m for m in sys.modules"
        " if m.startswith(('orderdash.simulator', 'orderdash.tui'))]\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert "HEAVY []" in result.stderr


def test_simulate_serves_the_spec_endpoints(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token_path = tmp_path / "sim-token"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "orderdash",
            "simulate",
            "--port",
            str(port),
            "--bearer-token-file",
            str(token_path),
            "--seed",  # the demo's fixed tokens (without: new ones each start)
            "7",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None and process.stdout is not None
        token_line = process.stderr.readline()
        assert str(token_path) in token_line
        assert f"http://127.0.0.1:{port}" in process.stdout.readline()
        assert oct(token_path.stat().st_mode & 0o777) == "0o600"
        secret = token_path.read_text().strip()
        assert secret not in token_line
        result = run_cli(
            "rates",
            TOKEN,
            "--json",
            "--base-url",
            f"http://127.0.0.1:{port}",
            "--bearer-token-file",
            str(token_path),
        )
        assert result.returncode == 0, result.stderr
        assert jsontext.loads(result.stdout)["token"] == TOKEN
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_demo_orders_are_listed_by_the_simulator() -> None:
    assert Simulator(seed=7).tokens()[: len(DEMO_TOKENS)] == list(DEMO_TOKENS)


@pytest.mark.parametrize(
    ("module", "where"), [("options", "build_parser"), ("order", "_run_one_shot")]
)
def test_ctrl_c_at_any_point_is_exit_130_without_a_traceback(
    module: str, where: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    from orderdash import cli

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module(f"orderdash.cli.{module}"), where, interrupted)
    assert cli.main(["get", TOKEN]) == cli.EXIT_INTERRUPTED
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out


def _answer_with(sim: Simulator, token: str, path: str, number_text: str) -> str:
    """The getOrder answer of `token` with `number_text` put verbatim at data.`path`."""
    data = sim.order_wire(token, with_qr=False)
    data[path] = "@@number@@"
    body = jsontext.dumps({"status": 1, "data": data})
    return body.replace('"@@number@@"', number_text)


@pytest.mark.parametrize(
    ("path", "number_text"),
    [
        ("dueDate", "1e999999999999999999"),  # was MemoryError, exit 1
        ("dueDate", "1e999999999"),  # was 19 s, 3.1 GB and a 1.1 GB number printed
        ("zzz", "1e99999999"),  # an unknown field: was 100 MB printed
        ("dueDate", "-0e-99999999"),
        ("zzz", "9" * 5000),  # more digits than Python converts at all
    ],
    ids=["exponent-1e18", "exponent-1e9", "extra-field", "negative-zero", "5000-digits"],
)
def test_get_json_on_a_hostile_number_prints_its_cut_marked_literal(
    sim_server: SimulatorServer, path: str, number_text: str
) -> None:
    body = _answer_with(sim_server.sim, TOKEN, path, number_text)
    sim_server.sim.add_fault(Fault(endpoint="order", token=TOKEN, body=body))
    result = run_cli("get", TOKEN, "--json", "--base-url", sim_server.base_url)
    assert result.returncode == 0, result.stderr[-500:]
    assert len(result.stdout) < 2 * len(body)  # proportional to the answer, never expanded
    printed = jsontext.loads(result.stdout)
    shown = printed[path]
    assert isinstance(shown, str) and shown.endswith(jsontext.OUT_OF_RANGE_MARK)
    assert shown.startswith(number_text[: jsontext.OUT_OF_RANGE_SHOWN - 1])
    summary = run_cli("get", TOKEN, "--base-url", sim_server.base_url)
    assert summary.returncode == 0, summary.stderr[-500:]


def test_get_warns_when_the_answer_is_for_another_token(sim_server: SimulatorServer) -> None:
    other = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
    body = jsontext.dumps({"status": 1, "data": sim_server.sim.order_wire(other, with_qr=False)})
    sim_server.sim.add_fault(Fault(endpoint="order", token=TOKEN, body=body))
    result = run_cli("get", TOKEN, "--base-url", sim_server.base_url)
    assert result.returncode == 0, result.stderr
    assert f"answered for order token {other!r}, not {TOKEN!r} as asked" in result.stderr


def test_duplicate_money_member_is_an_invalid_answer(sim_server: SimulatorServer) -> None:
    body = _answer_with(sim_server.sim, TOKEN, "amount", '0.00000109, "amount": 99.5')
    sim_server.sim.add_fault(Fault(endpoint="order", token=TOKEN, body=body))
    result = run_cli("get", TOKEN, "--base-url", sim_server.base_url)
    assert result.returncode == 5
    assert result.stderr.strip().splitlines() == [
        "orderdash: the service sent invalid JSON: the member 'amount' appears twice in one object"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--channel", "../etc"), "a channel name is 1 to 40 letters, digits"),
        (("--language", "klingon"), "language must be auto or one of"),
    ],
)
def test_display_refuses_a_bad_channel_or_language(args: tuple[str, ...], message: str) -> None:
    result = run_cli("display", *args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert message in result.stderr


def test_display_web_on_a_busy_port_is_one_line() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("display", "--web", "--port", str(port))
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .startswith(f"orderdash: cannot serve on 127.0.0.1:{port}: ")
    )
    assert "Traceback" not in result.stderr


def test_a_command_builds_only_its_own_parser(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """`orderdash get` parses its line with the get parser alone (each parser costs ~0.6 ms
    of the command's start); the top-level help, with every command, is built for -h only."""
    import argparse

    from orderdash import cli

    built: list[str] = []
    add_parser = argparse._SubParsersAction.add_parser

    def recording(self: argparse._SubParsersAction, name: str, **kwargs: object) -> object:
        built.append(name)
        return add_parser(self, name, **kwargs)

    monkeypatch.setattr(argparse._SubParsersAction, "add_parser", recording)
    monkeypatch.setenv("ORDERDASH_CONFIG", os.devnull)
    assert cli.main(["get", TOKEN, "--json", "--base-url", sim_server.base_url]) == 0
    assert TOKEN in capsys.readouterr().out
    assert built == ["get"]
    built.clear()
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert built == list(cli.COMMANDS)


@pytest.mark.parametrize(
    "command",
    ["tui", "watch", "pos", "demo", "display", "get", "rates", "orders", "charge", "simulate"],
)
def test_a_command_alone_has_the_arguments_and_help_of_the_whole_line(
    command: str, capsys: pytest.CaptureFixture
) -> None:
    from orderdash.cli import COMMANDS, build_parser

    assert command in COMMANDS
    helps = []
    for parser in (build_parser(), build_parser(command)):
        with pytest.raises(SystemExit):
            parser.parse_args([command, "--help"])
        helps.append(capsys.readouterr().out)
    assert helps[0] == helps[1]
    assert f"usage: orderdash {command} " in helps[0]
