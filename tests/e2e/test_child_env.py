"""Secrets stay in this process: every child it starts (the clipboard tool, the browser through
`o` and through Textual's `App.open_url`, each web display process) sees none of the
variables that hold the access token or the bearer or name their files. Fake tools on PATH
dump the environment they were given, as the red team's did. And a log-in's bearer is a JWT
of sane size, or it is refused.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
import urllib.request
from pathlib import Path

import pytest
from pydantic import SecretStr

from conftest import BEARER, make_settings, wait_until
from orderdash.core.model.errors import InvalidResponse
from orderdash.core.service.client import OrderClient
from orderdash.simulator import DEMO_TOKENS, Fault, Simulator, SimulatorServer
from orderdash.tui import desktop
from orderdash.tui.factory import make_app

SECRETS = {
    "ORDERDASH_ACCESS_TOKEN": "AcCeSsToKeN-zz9876QQ",
    "ORDERDASH_BEARER_TOKEN": "SeCrEtToKeN-abc123XYZ",
    "ORDERDASH_ACCESS_TOKEN_FILE": "/nonexistent/acc-file-path",
    "ORDERDASH_BEARER_TOKEN_FILE": "/nonexistent/bearer-file-path",
    # the shared ledger's URL holds the database's password
    "ORDERDASH_LEDGER_URL": "postgresql://shop:LeDgErPw-77x@books.example/shop",
}
ACCESS = "access-Mm4-account-never-shown"


def read(path: Path) -> str:
    return path.read_bytes().replace(b"\0", b"\n").decode()


def leaked(environment: str) -> list[str]:
    """The secret names or values found in a dumped environment."""
    return [text for pair in SECRETS.items() for text in pair if text in environment]


@pytest.fixture
def fake_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`xclip` and a browser that write the environment they were given to a file; the
    secrets' variables set in this process."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    dump = tmp_path / "dumped-env"
    for name in ("xclip", "fake-browser"):
        tool = bin_dir / name
        tool.write_text(f'#!/bin/sh\nenv > "{dump}.{name}"\ncat > /dev/null\nexit 0\n')
        tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("BROWSER", str(bin_dir / "fake-browser"))
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    return dump


def test_the_secret_variables_are_the_configs_own() -> None:
    from orderdash.core.settings.sources import SECRET_VARIABLES, child_environment

    # the notification rules' URLs hold the services' keys: a config file setting, never
    # given to a child even if set in the environment
    notify = {"ORDERDASH_NOTIFY": '[{"urls": ["tgram://NoTiFyKeY-55/1"]}]'}
    assert SECRET_VARIABLES == set(SECRETS) | set(notify)
    given = json.dumps(child_environment({**SECRETS, **notify, "HOME": "/h"}))
    assert not leaked(given) and "NoTiFyKeY" not in given and '"/h"' in given


def test_the_clipboard_tool_sees_no_secret(fake_tools: Path) -> None:
    tool = desktop.clipboard_tool()
    assert tool is not None and tool[0].endswith("xclip")
    assert desktop.copy_with(tool, "order-token")
    dumped = Path(f"{fake_tools}.xclip").read_text()
    assert "DISPLAY=:0" in dumped  # the tool got an environment, only without the secrets
    assert leaked(dumped) == []


def test_the_browser_sees_no_secret(fake_tools: Path) -> None:
    assert desktop.open_in_browser("https://explorer.example/tx/1")
    dumped = Path(f"{fake_tools}.fake-browser").read_text()
    assert "DISPLAY=:0" in dumped
    assert leaked(dumped) == []


async def test_textuals_open_url_reaches_the_browser_without_secrets(
    fake_tools: Path, sim_server: SimulatorServer
) -> None:
    app = make_app(make_settings(sim_server.base_url), tokens=[DEMO_TOKENS[0]])
    dump = Path(f"{fake_tools}.fake-browser")
    async with app.run_test(size=(120, 40)) as pilot:
        app.open_url("https://explorer.example/tx/2")
        await wait_until(pilot, dump.exists, timeout=20)
        await pilot.pause(0.3)  # the file written whole
    assert leaked(read(dump)) == []


def _environments_of_children(parent: int) -> list[str]:
    """The environments of every process descending from `parent` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], list(children.get(parent, []))
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            found.append(Path(f"/proc/{pid}/environ").read_bytes().replace(b"\0", b"\n").decode())
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
async def test_a_web_display_process_sees_no_secret(
    runtime_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import aiohttp

    from support.browser import Display, free_port

    for name, value in SECRETS.items():
        if name.endswith("_FILE"):  # (the server reads the files it is given)
            path = tmp_path / name
            path.write_text(SECRETS[name.removesuffix("_FILE")] + "\n")
            path.chmod(0o600)
            value = str(path)
        monkeypatch.setenv(name, value)
    display = Display("127.0.0.1", free_port(), runtime_dir)
    try:
        assert leaked(read(Path(f"/proc/{display.process.pid}/environ"))), "given to it"
        url = f"ws://127.0.0.1:{display.port}/ws?width=80&height=24&key={display.key}"
        async with aiohttp.ClientSession() as session, session.ws_connect(url) as websocket:
            environments: list[str] = []
            deadline = time.monotonic() + 20
            while not environments and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
                environments = [e for e in _environments_of_children(display.process.pid) if e]
            assert environments, "no display process started"
            await websocket.close()
        for environment in environments:
            assert "TEXTUAL_DRIVER" in environment  # a display process's environment
            assert leaked(environment) == []
    finally:
        display.stop()


@pytest.fixture
def account_server() -> SimulatorServer:
    with SimulatorServer(
        Simulator(seed=7), bearer_token=BEARER, access_token=ACCESS, bearer_lifetime=60
    ) as server:
        yield server


def account_client(server: SimulatorServer) -> OrderClient:
    settings = make_settings(server.base_url, bearer=None, access_token=SecretStr(ACCESS))
    return OrderClient.from_settings(settings)


@pytest.mark.parametrize(
    ("bearer", "said"),
    [
        ("eyJhbGciOiJIUzI1NiJ9." + "A" * 7_340_000 + ".sig", "too long"),
        ("eyJhbGciOiJIUzI1NiJ9." + "A" * 4100 + ".sig", "too long"),
        ("SeCrEtToKeN-abc123XYZ", "not a JWT"),
        ("a.b", "not a JWT"),
        ("a.b.c.d", "not a JWT"),
        ("a+b.c/d.e=", "not a JWT"),
    ],
    ids=["7MB", "over-4KiB", "word", "two-parts", "four-parts", "not-base64url"],
)
async def test_a_log_in_bearer_too_long_or_not_a_jwt_is_refused(
    account_server: SimulatorServer, bearer: str, said: str
) -> None:
    body = json.dumps({"success": True, "data": bearer, "message": None})
    account_server.sim.add_fault(Fault(endpoint="login", body=body))
    token = account_server.sim.tokens()[0]
    async with account_client(account_server) as client:
        with pytest.raises(InvalidResponse, match=said) as refused:
            await client.refresh_rate(token)
    message = str(refused.value)
    assert "\n" not in message and bearer[:30] not in message
    sent = [r for r in account_server.sim.requests if r["endpoint"] != "login"]
    assert sent == [], "the bearer was never sent"


async def test_the_simulators_bearer_is_a_jwt_and_accepted(
    account_server: SimulatorServer,
) -> None:
    token = account_server.sim.tokens()[0]
    async with account_client(account_server) as client:
        fetched = await client.refresh_rate(token)
    assert fetched.order.token == token
    issued = issued_bearer(account_server.base_url)
    assert issued.count(".") == 2 and len(issued) < 4096


def issued_bearer(base_url: str) -> str:
    """The bearer the simulator's log-in issues, as it issues it."""
    request = urllib.request.Request(
        f"{base_url}/orders/api/login",
        data=json.dumps({"token": ACCESS}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())["data"]
