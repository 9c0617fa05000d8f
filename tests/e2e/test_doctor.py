"""`orderdash doctor` against the simulator over loopback: a healthy shop passes, and each
fault is named (a wrong access token, a skewed clock, a proxy that drops the bearer_token
header, a host that does not answer, a ledger that cannot open), never with a secret."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import make_settings, serving
from orderdash.cli import main
from orderdash.core.ledger.sqlite import SqliteEngine
from orderdash.core.ledger.store import SqlBook
from orderdash.simulator import Simulator, SimulatorServer
from support.header_proxy import header_proxy
from support.receiver_run import RunningReceiver

ACCESS = "access-Zq4-doctor-never-shown"
DB_PASSWORD = "pw-Hk2-doctor-never-shown"


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=7, with_demo_orders=False)
    with serving(SimulatorServer(sim, access_token=ACCESS, port=0)) as s:
        yield s


@pytest.fixture
def shop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A till with the access token (in a file) and a ledger of its own; nothing else set."""
    for name in os.environ:
        if name.startswith("ORDERDASH_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ORDERDASH_CONFIG", os.devnull)
    monkeypatch.setenv("ORDERDASH_LEDGER", str(tmp_path / "ledger.sqlite3"))
    token = tmp_path / "access-token"
    token.write_text(ACCESS)
    token.chmod(0o600)
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN_FILE", str(token))
    return tmp_path


def doctor(
    capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, dict[str, dict[str, str]], str]:
    """Run `doctor --json` and `doctor`: the exit code, each check by name, and the text."""
    code = main(["doctor", "--json", *args])
    report = json.loads(capsys.readouterr().out)
    assert main(["doctor", *args]) == code
    captured = capsys.readouterr()
    text = captured.out + captured.err
    for secret in (ACCESS, DB_PASSWORD):
        assert secret not in text and secret not in json.dumps(report)
    assert report["ok"] is (code == 0)
    return code, {check["name"]: check for check in report["checks"]}, text


def test_a_healthy_shop_passes_every_check(server, shop, capsys) -> None:
    code, checks, text = doctor(capsys, "--base-url", server.base_url)
    assert code == 0
    assert {name: check["status"] for name, check in checks.items()} == {
        "order API host": "ok",
        "clock": "ok",
        "access token": "ok",
        "bearer_token header": "ok",
        "ledger": "ok",
        "callback URL": "ok",
        "budgets": "ok",
    }
    assert "expires at" in checks["access token"]["message"]  # the bearer's JWT says when
    lines = text.splitlines()
    assert lines[0].startswith(("✓ order API host", "+ order API host"))
    assert "IP address to allow: 127.0.0.1" in text


def test_a_wrong_access_token_is_named(server, shop, capsys) -> None:
    (shop / "access-token").write_text("not-the-token")
    code, checks, _ = doctor(capsys, "--base-url", server.base_url)
    assert code == 1
    assert checks["access token"]["status"] == "fail"
    assert "refused the access token" in checks["access token"]["message"]


def test_a_skewed_clock_is_named_with_its_size(server, shop, capsys) -> None:
    with header_proxy(server.base_url, date_skew=-120) as proxied:
        code, checks, _ = doctor(capsys, "--base-url", proxied)
    assert code == 1
    assert checks["clock"]["status"] == "fail"
    assert "120 s ahead of the service's Date" in checks["clock"]["message"]
    with header_proxy(server.base_url, date_skew=10) as proxied:
        code, checks, _ = doctor(capsys, "--base-url", proxied)
    assert code == 0 and checks["clock"]["status"] == "warn"
    assert "10 s behind" in checks["clock"]["message"]


def test_a_proxy_that_drops_underscore_headers_is_named(server, shop, capsys) -> None:
    with header_proxy(server.base_url, drop_underscores=True) as proxied:
        code, checks, _ = doctor(capsys, "--base-url", proxied)
    assert code == 1
    assert checks["order API host"]["status"] == "ok"  # getOrder needs no header: it works
    assert checks["access token"]["status"] == "ok"
    header = checks["bearer_token header"]
    assert header["status"] == "fail"
    assert "drops header names with underscores" in header["message"]


def test_a_host_that_does_not_answer_is_named(shop, capsys) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    code, checks, _ = doctor(capsys, "--base-url", f"http://127.0.0.1:{port}")
    assert code == 1
    assert checks["order API host"]["status"] == "fail"
    assert f"cannot connect to http://127.0.0.1:{port}" in checks["order API host"]["message"]
    assert checks["access token"]["status"] == "warn"  # not tried: nothing to log in to


@contextlib.contextmanager
def redirecting() -> Iterator[str]:
    """A host that answers every request with a redirect to another (as a plain http:// URL
    of an https:// service does): the client follows none."""

    class Moved(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(301)
            self.send_header("Location", "https://elsewhere.example/")
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_HEAD = do_GET

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Moved) as moved:
        threading.Thread(target=moved.serve_forever, daemon=True).start()
        try:
            yield f"http://127.0.0.1:{moved.server_address[1]}"
        finally:
            moved.shutdown()


def test_a_host_that_redirects_fails(server, shop, capsys, monkeypatch) -> None:
    with redirecting() as moved:
        code, checks, _ = doctor(capsys, "--base-url", moved)
        assert code == 1 and checks["order API host"]["status"] == "fail"
        assert (
            "redirects (HTTP 301) to https://elsewhere.example"
            in checks["order API host"]["message"]
        )
        monkeypatch.setenv("ORDERDASH_CALLBACK_URL", f"{moved}/callback")
        code, checks, _ = doctor(capsys, "--base-url", server.base_url)
    assert code == 1 and checks["callback URL"]["status"] == "fail"


def test_a_create_host_that_does_not_answer_is_named(server, shop, capsys, monkeypatch) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    monkeypatch.setenv("ORDERDASH_CREATE_URL", f"http://127.0.0.1:{port}")
    code, checks, _ = doctor(capsys, "--base-url", server.base_url)
    assert code == 1
    assert checks["order API host"]["status"] == "ok"
    assert checks["create host"]["status"] == "fail"
    assert f"cannot connect to http://127.0.0.1:{port}" in checks["create host"]["message"]


def test_a_ledger_that_cannot_open_is_named(server, shop, capsys, monkeypatch) -> None:
    monkeypatch.setenv("ORDERDASH_LEDGER", str(shop))  # a directory, not a file
    code, checks, _ = doctor(capsys, "--base-url", server.base_url)
    assert code == 1 and checks["ledger"]["status"] == "fail"
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    url = f"postgresql://till:{DB_PASSWORD}@127.0.0.1:{port}/shop"
    monkeypatch.setenv("ORDERDASH_LEDGER_URL", url)
    code, checks, _ = doctor(capsys, "--base-url", server.base_url)  # no password shown
    assert code == 1 and checks["ledger"]["status"] == "fail"


def test_the_callback_url_is_checked_and_printed_to_paste(
    server, shop, capsys, monkeypatch
) -> None:
    book = SqlBook(SqliteEngine(shop / "receiver.sqlite3"))
    try:
        with RunningReceiver(make_settings(server.base_url), book) as receiver:
            monkeypatch.setenv("ORDERDASH_CALLBACK_URL", receiver.url)
            code, checks, text = doctor(capsys, "--base-url", server.base_url)
    finally:
        book.close_connection()
    assert code == 0 and checks["callback URL"]["status"] == "ok"
    assert f"callback URL: {receiver.url}" in text
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    monkeypatch.setenv("ORDERDASH_CALLBACK_URL", f"http://127.0.0.1:{port}/callback")
    code, checks, _ = doctor(capsys, "--base-url", server.base_url)
    assert code == 1 and checks["callback URL"]["status"] == "fail"
    assert f"cannot connect to http://127.0.0.1:{port}" in checks["callback URL"]["message"]


def test_a_callback_url_where_nothing_receives_fails(server, shop, capsys, monkeypatch) -> None:
    # the simulator answers, but nothing at its /callback takes a POST: a mistyped path
    monkeypatch.setenv("ORDERDASH_CALLBACK_URL", f"{server.base_url}/callback")
    code, checks, _ = doctor(capsys, "--base-url", server.base_url)
    assert code == 1 and checks["callback URL"]["status"] == "fail"
    assert "HTTP 404" in checks["callback URL"]["message"]


def test_a_postgresql_ledger_opens_and_its_password_is_never_shown(
    server, shop, capsys, monkeypatch, pg_server
) -> None:
    url = pg_server.schema_url().replace(
        "postgresql://orderdash@", f"postgresql://orderdash:{DB_PASSWORD}@"
    )
    monkeypatch.setenv("ORDERDASH_LEDGER_URL", url)
    code, checks, _ = doctor(capsys, "--base-url", server.base_url)  # no password shown
    assert code == 0 and checks["ledger"]["status"] == "ok"
    assert checks["ledger"]["message"].startswith("postgres")
