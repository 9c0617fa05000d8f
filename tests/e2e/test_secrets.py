"""The bearer token never shows: reprs, error messages, the screen with its notifications,
screenshots, crash output, argv, help and README, JSON lines, the log file; it travels only on
the rate request to the configured origin. Every captured output is grepped for it."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from conftest import BEARER, make_client, make_settings, screen_text, wait_until
from orderdash.cli import build_parser
from orderdash.core.model import errors
from orderdash.core.settings.sources import load_settings
from orderdash.simulator import DEMO_TOKENS, Fault, Simulator, SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.transactions import TransactionsTable

TOKEN = DEMO_TOKENS[0]
ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b(\[[0-9;?<>=$ ]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|.)")
ECHO_RATES = f'{{"success": false, "data": null, "message": "bad token {BEARER} refused"}}'
EVIL_LOCATION = f"https://{BEARER}@evil.example/order/x/"


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    env.update(
        {
            "ORDERDASH_CONFIG": os.devnull,
            "ORDERDASH_PERSIST_WATCHLIST": "false",
            "HOME": str(tmp_path),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
        }
    )
    env.update(extra)
    return env


def token_file(tmp_path: Path, mode: int = 0o600) -> Path:
    path = tmp_path / "bearer"
    path.write_text(BEARER + "\n")
    path.chmod(mode)
    return path


def no_token(*outputs: str) -> None:
    for output in outputs:
        assert BEARER not in output


# -- in-process ---------------------------------------------------------------------------------


async def test_reprs_of_settings_client_and_errors_hide_it(sim_server: SimulatorServer) -> None:
    settings = make_settings(sim_server.base_url)
    client = make_client(settings)
    try:
        shown = [
            repr(settings),
            str(settings),
            settings.model_dump_json(),
            repr(settings.model_dump()),
            repr(settings.bearer_token),
            repr(client),
            str(client.__dict__),
        ]
        with pytest.raises(errors.AuthRefused) as refused:
            async with make_client(make_settings(sim_server.base_url, bearer="wrong")) as other:
                await other.refresh_rate(TOKEN)
        shown += [repr(refused.value), str(refused.value), repr(refused.value.args)]
    finally:
        await client.aclose()
    no_token(*shown)
    assert "**********" in repr(settings)
    assert "bearer_token=set" in repr(client)


async def test_an_echoed_token_is_redacted_from_every_error(sim_server: SimulatorServer) -> None:
    sim = sim_server.sim
    sim.add_fault(Fault(endpoint="rates", body=ECHO_RATES, times=1))
    sim.add_fault(Fault(endpoint="order", status=302, headers={"Location": EVIL_LOCATION}))
    caught: list[errors.OrderdashError] = []
    async with make_client(make_settings(sim_server.base_url)) as client:
        with pytest.raises(errors.FailureReported) as failure:
            await client.refresh_rate(TOKEN)
        caught.append(failure.value)
        with pytest.raises(errors.UnexpectedRedirect) as redirect:
            await client.get_order(TOKEN)
        caught.append(redirect.value)
    for error in caught:
        no_token(str(error), repr(error), repr(error.args), error.message)
        assert "[redacted]" in error.message


async def test_the_server_message_field_is_redacted_too(sim_server: SimulatorServer) -> None:
    sim_server.sim.add_fault(Fault(endpoint="rates", body=ECHO_RATES, times=1))
    async with make_client(make_settings(sim_server.base_url)) as client:
        with pytest.raises(errors.FailureReported) as failure:
            await client.refresh_rate(TOKEN)
    assert BEARER not in (failure.value.server_message or "")


async def test_a_cut_echo_leaves_no_prefix_of_the_token(sim_server: SimulatorServer) -> None:
    body = json.dumps({"success": False, "data": None, "message": "x" * 100 + " " + BEARER})
    sim_server.sim.add_fault(Fault(endpoint="rates", body=body, times=1))
    async with make_client(make_settings(sim_server.base_url)) as client:
        with pytest.raises(errors.FailureReported) as failure:
            await client.refresh_rate(TOKEN)
    assert BEARER[:12] not in failure.value.message


def test_plain_http_to_a_remote_host_is_refused_unless_allowed() -> None:
    for url in ("http://pay.example", "http://10.1.2.3:8080/api", "http://[2001:db8::1]/"):
        with pytest.raises(ValidationError, match="unencrypted"):
            make_settings(url)
        assert make_settings(url, allow_insecure_http=True).base_url == url
    for url in ("https://pay.example/api", "http://127.0.0.1:8765", "http://localhost:1"):
        assert make_settings(url).base_url == url
    assert make_settings("http://[::1]:8765").base_url == "http://[::1]:8765"
    env = {"ORDERDASH_CONFIG": os.devnull, "ORDERDASH_BASE_URL": "http://pay.example"}
    with pytest.raises(errors.ConfigError, match="unencrypted"):
        load_settings({}, env)
    env["ORDERDASH_ALLOW_INSECURE_HTTP"] = "true"
    assert load_settings({}, env)[0].allow_insecure_http


def test_help_and_readme_never_offer_the_token_as_an_argument() -> None:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    texts = [parser.format_help()] + [sub.format_help() for sub in subparsers.values()]
    options = {opt for sub in subparsers.values() for a in sub._actions for opt in a.option_strings}
    files = {"--bearer-token-file", "--access-token-file"}
    assert files <= options
    assert not {opt for opt in options if "token" in opt and opt not in files}
    for text in texts:
        assert not re.search(r"--(?:bearer|access)-token(?!-file)", text)
    result = subprocess.run(
        [sys.executable, "-m", "orderdash", "--help"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0 and "--bearer-token " not in result.stdout
    readme = (ROOT / "README.md").read_text()
    commands = [line for line in readme.splitlines() if "orderdash " in line]
    assert commands
    for line in commands:
        assert not re.search(
            r"--(?:bearer|access)-token(?!-file)|(?:BEARER|ACCESS)_TOKEN=\S", line
        ), line


async def test_screen_notifications_and_screenshots_never_show_it(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    settings = make_settings(sim_server.base_url, poll_interval=0.2, refresh_interval=60.0)
    app = make_app(settings, token=TOKEN)
    seen: list[str] = []
    async with app.run_test(size=(140, 48), notifications=True) as pilot:
        detail = app.dashboard.query_one(OrderDetail)
        await wait_until(pilot, lambda: app.state.order is not None)
        seen += [screen_text(app), app.export_screenshot()]
        # the server echoes the token in a failure of the rate call
        sim.add_fault(Fault(endpoint="rates", body=ECHO_RATES))
        await pilot.press("r")  # a notification, and the rate call
        await wait_until(pilot, lambda: "bad token [redacted]" in screen_text(app))
        seen += [screen_text(app), app.export_screenshot()]
        # and in a redirect of getOrder
        sim.add_fault(Fault(endpoint="order", status=302, headers={"Location": EVIL_LOCATION}))
        await wait_until(pilot, lambda: detail.has_class("-stale"))
        await wait_until(pilot, lambda: "[redacted]@evil.example" in screen_text(app))
        seen += [screen_text(app), app.export_screenshot()]
        sim.clear_faults()
        await wait_until(pilot, lambda: not detail.has_class("-stale"))
        sim.add_transaction(TOKEN, "0.00001")  # a payment: notification and an alert
        await wait_until(pilot, lambda: "Payment received" in screen_text(app))
        await wait_until(pilot, lambda: app.dashboard.query_one(TransactionsTable).row_count == 2)
        await pilot.press("question_mark")
        seen += [screen_text(app), app.export_screenshot()]
        await pilot.press("escape", "l")  # the alerts log
        await pilot.pause()
        seen += [screen_text(app), app.export_screenshot()]
        seen += [repr(app.state.freshness), repr(app.state.alerts)]
        seen += [repr(n) for n in app._notifications]
    no_token(*seen)
    requests = sim.requests
    orders = [r for r in requests if r["endpoint"] == "order"]
    rates = [r for r in requests if r["endpoint"] == "rates"]
    assert orders and {r["bearer"] for r in orders} == {"missing"}, "never on getOrder"
    assert len(rates) >= 2 and {r["bearer"] for r in rates} == {"ok"}, "on the rate call"


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_never_across_a_redirect_to_another_host(
    sim_server: SimulatorServer, status: int
) -> None:
    with SimulatorServer(Simulator(seed=1), bearer_token=BEARER) as other:
        sim_server.sim.add_fault(
            Fault(
                endpoint="rates",
                status=status,
                headers={"Location": f"{other.base_url}/orders/api/{TOKEN}/rates"},
            )
        )
        async with make_client(make_settings(sim_server.base_url)) as client:
            with pytest.raises(errors.UnexpectedRedirect):
                await client.refresh_rate(TOKEN)
            await client.get_order(TOKEN)
        assert other.sim.requests == []
    assert [r["bearer"] for r in sim_server.sim.requests] == ["ok", "missing"]


# -- subprocesses -------------------------------------------------------------------------------


def run_in_pty(
    argv: list[str], env: dict[str, str], *, timeout: float, size: tuple[int, int] = (140, 48)
) -> tuple[int, bytes, str]:
    """Run `argv` on a pseudo-terminal; (exit code, everything it wrote, its /proc cmdline)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    process = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    output = bytearray()
    cmdline = ""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the child side is closed
                    break
                if not data:
                    break
                output += data
                if not cmdline:
                    try:
                        raw = Path(f"/proc/{process.pid}/cmdline").read_bytes()
                        cmdline = raw.replace(b"\0", b" ").decode()
                    except OSError:
                        pass
        else:
            process.kill()
    finally:
        os.close(master)
        code = process.wait(timeout=10)
    return code, bytes(output), cmdline


CRASH_SCRIPT = """
import os, sys
from orderdash.tui.widgets import order_detail

calls = [0]
original = order_detail.OrderDetail.show

def show(self, *args, **kwargs):
    calls[0] += 1
    settings, client = self.app.settings, self.app.client
    token_file = os.environ["ORDERDASH_BEARER_TOKEN_FILE"]
    if calls[0] >= 3:
        raise RuntimeError("forced crash in the dashboard")
    return original(self, *args, **kwargs)

order_detail.OrderDetail.show = show
from orderdash.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_crash_output_argv_and_log_of_the_tui_never_show_it(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    log = tmp_path / "tui.log"
    env = clean_env(
        tmp_path,
        ORDERDASH_BEARER_TOKEN_FILE=str(token_file(tmp_path)),
        ORDERDASH_POLL_INTERVAL="0.2",
        ORDERDASH_LOG_FILE=str(log),
        TERM="xterm-256color",
    )
    argv = [sys.executable, "-c", CRASH_SCRIPT, "tui", TOKEN, "--base-url", sim_server.base_url]
    code, output, cmdline = run_in_pty(argv, env, timeout=30)
    text = ANSI.sub("", output.decode("utf-8", "replace"))
    assert "forced crash in the dashboard" in text, text[-3000:]
    assert "locals" in text, "Textual printed the traceback with its locals"
    assert "SecretStr('**********')" in text or "bearer_token=set" in text
    assert code == 1, "a crash is not a success"
    assert cmdline and TOKEN in cmdline
    no_token(output.decode("utf-8", "replace"), text, cmdline)
    logged = log.read_text()
    assert "request rates" in logged and "dashboard started" in logged
    no_token(logged)
    requests = [r for r in sim_server.sim.requests if r["endpoint"] != "control"]
    assert {r["bearer"] for r in requests if r["endpoint"] == "rates"} == {"ok"}
    assert {r["bearer"] for r in requests if r["endpoint"] == "order"} == {"missing"}


def test_json_lines_never_carry_it(sim_server: SimulatorServer, tmp_path: Path) -> None:
    sim = sim_server.sim
    sim.add_fault(Fault(endpoint="order", status=302, headers={"Location": EVIL_LOCATION}))
    sim.add_fault(Fault(endpoint="rates", body=ECHO_RATES))
    out, err = tmp_path / "out.jsonl", tmp_path / "err.txt"
    env = clean_env(tmp_path, ORDERDASH_BEARER_TOKEN_FILE=str(token_file(tmp_path)))
    argv = [sys.executable, "-m", "orderdash", "watch", "--jsonl", TOKEN, "--poll-interval", "0.2"]
    argv += ["--base-url", sim_server.base_url]
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(argv, stdout=stdout, stderr=stderr, env=env)
        try:
            deadline = time.monotonic() + 20
            while '"error"' not in out.read_text() and time.monotonic() < deadline:
                time.sleep(0.05)
            sim.clear_faults()
            while '"recovered"' not in out.read_text() and time.monotonic() < deadline:
                time.sleep(0.05)
            sim.add_fault(Fault(endpoint="rates", body=ECHO_RATES))
            sim.add_transaction(TOKEN, "0.00001")  # a transaction line, then a rate call
            while '"transaction"' not in out.read_text() and time.monotonic() < deadline:
                time.sleep(0.05)
            while not any(r["endpoint"] == "rates" for r in sim.requests):
                assert time.monotonic() < deadline
                time.sleep(0.05)
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()  # fail without leaving it running
                process.wait()
                raise
    lines = out.read_text().splitlines()
    events = [json.loads(line)["event"] for line in lines]
    assert events[:4] == ["error", "recovered", "state", "transaction"], lines
    assert "[redacted]@evil.example" in lines[0]
    no_token(out.read_text(), err.read_text())
    rates = [r for r in sim.requests if r["endpoint"] == "rates"]
    assert rates and {r["bearer"] for r in rates} == {"ok"}


def test_a_token_file_readable_by_others_is_warned_about(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    path = token_file(tmp_path, mode=0o644)
    argv = [sys.executable, "-m", "orderdash", "rates", TOKEN, "--json"]
    argv += ["--base-url", sim_server.base_url, "--bearer-token-file", str(path)]
    result = subprocess.run(
        argv, capture_output=True, text=True, timeout=60, env=clean_env(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    assert f"the bearer token file {path} is readable by others: chmod 600 it" in result.stderr
    no_token(result.stdout, result.stderr)
    path.chmod(0o600)
    quiet = subprocess.run(
        argv, capture_output=True, text=True, timeout=60, env=clean_env(tmp_path)
    )
    assert quiet.returncode == 0 and quiet.stderr == ""


async def test_the_token_file_warning_is_shown_on_the_dashboard_too(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    """The CLI prints it before the dashboard takes the terminal over, which hides it: the
    dashboard shows it again."""
    path = token_file(tmp_path, mode=0o644)
    settings, warnings = load_settings(
        {
            "base_url": sim_server.base_url,
            "bearer_token_file": str(path),
            "persist_watchlist": False,
        },
        {"ORDERDASH_CONFIG": os.devnull},
    )
    assert len(warnings) == 1
    app = make_app(settings, token=TOKEN, notices=warnings)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await wait_until(pilot, lambda: "readable by others: chmod 600" in screen_text(app))
        no_token(screen_text(app))


def test_a_token_that_cannot_be_a_header_is_a_config_error(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    argv = [sys.executable, "-m", "orderdash", "rates", TOKEN, "--base-url", sim_server.base_url]
    env = clean_env(tmp_path, ORDERDASH_BEARER_TOKEN="t\u00f6ken-" + BEARER)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    assert "Traceback" not in result.stderr
    assert result.returncode == 2 and result.stderr.count("\n") == 1


# -- the access token ---------------------------------------------------------------------------

ACCESS = "access-Kk8-never-shown-anywhere"


class Recorder:
    """Wraps the simulator's ASGI app: every request's method, path, query, headers and body,
    and the bodies of the log-in answers (the bearers issued)."""

    def __init__(self, app) -> None:  # noqa: ANN001 - any ASGI app
        self.app = app
        self.requests: list[dict[str, object]] = []
        self.issued: list[bytes] = []

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []

        async def recording_receive():  # noqa: ANN202
            message = await receive()
            chunks.append(message.get("body", b""))
            return message

        entry: dict[str, object] = {
            "method": scope["method"],
            "path": scope.get("raw_path", b""),
            "query": scope.get("query_string", b""),
            "headers": list(scope.get("headers", [])),
        }
        self.requests.append(entry)
        login = scope["path"].endswith("/orders/api/login")

        async def recording_send(message):  # noqa: ANN001, ANN202
            if login and message["type"] == "http.response.body":
                self.issued.append(message.get("body", b""))
            await send(message)

        await self.app(scope, recording_receive, recording_send)
        entry["body"] = b"".join(chunks)


def test_the_access_token_travels_only_in_the_log_in_body(tmp_path: Path) -> None:
    sim = Simulator(seed=7)
    server = SimulatorServer(sim, bearer_token=BEARER, access_token=ACCESS, bearer_lifetime=60)
    recorder = Recorder(server.app)
    server.app = recorder
    access_file = tmp_path / "access"
    access_file.write_text(ACCESS + "\n")
    access_file.chmod(0o600)
    log_file = tmp_path / "orderdash.log"
    env = clean_env(tmp_path, ORDERDASH_ACCESS_TOKEN_FILE=str(access_file))
    outputs: list[str] = []
    with server:
        common = ["--base-url", server.base_url, "--log", str(log_file)]
        for args in (
            ["orders", "--json"],
            ["orders"],
            ["rates", TOKEN, "--json"],
            ["rates", TOKEN],
        ):
            result = subprocess.run(
                [sys.executable, "-m", "orderdash", *args, *common],
                capture_output=True,
                text=True,
                timeout=60,
                env=env,
            )
            assert result.returncode == 0, result.stderr
            outputs += [result.stdout, result.stderr]
        wrong = dict(env, ORDERDASH_ACCESS_TOKEN="x" + ACCESS)
        del wrong["ORDERDASH_ACCESS_TOKEN_FILE"]
        refused = subprocess.run(
            [sys.executable, "-m", "orderdash", "orders", *common],
            capture_output=True,
            text=True,
            timeout=60,
            env=wrong,
        )
        assert refused.returncode == 4
        outputs += [refused.stdout, refused.stderr]
        request_log = json.dumps(sim.requests, default=str)
    outputs += [log_file.read_text(), request_log]
    secret = ACCESS.encode()
    logins = [r for r in recorder.requests if r["method"] == "POST"]
    assert len(logins) == 5  # one per run: the bearer is kept in memory, never on disk
    for request in recorder.requests:
        assert secret not in request["path"] and secret not in request["query"]
        for name, value in request["headers"]:
            assert secret not in name and secret not in value
        if request in logins:
            assert json.loads(request["body"])["token"] in (ACCESS, "x" + ACCESS)
            assert request["path"].endswith(b"/orders/api/login")
        else:
            assert secret not in request["body"]
    answers = [json.loads(body) for body in recorder.issued if body]
    bearers = [answer["data"] for answer in answers if answer["success"]]
    assert len(bearers) == 4
    assert "request login" in outputs[-2] and "request history" in outputs[-2]
    for output in outputs:
        assert ACCESS not in output
        for bearer in bearers:
            assert bearer not in output
