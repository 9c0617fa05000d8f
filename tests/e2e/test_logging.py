"""The optional log file: request outcomes and timings, secrets redacted, rotation, mode 0600,
never the terminal."""

from __future__ import annotations

import logging
import os
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from conftest import BEARER, make_client, make_settings, run_cli
from orderdash.core.model import errors
from orderdash.core.model.jsontext import dumps as jsontext_dumps
from orderdash.core.runtime.logs import (
    REDACTED,
    LogSetup,
    RedactSecrets,
    configure_logging,
    secret_forms,
)
from orderdash.core.settings.sources import load_settings
from orderdash.simulator import DEMO_TOKENS, Fault, SimulatorServer

TOKEN = DEMO_TOKENS[0]
LINE = re.compile(
    r"^\S+ \S+ (?P<level>[A-Z]+) orderdash\.core\.service\.client: request "
    r"(?P<endpoint>order|rates) "
    r"token='(?P<token>[^']*)' status=(?P<status>\d+|-)(?: error=(?P<error>\w+))? "
    r"elapsed_ms=(?P<ms>\d+)(?:: (?P<message>.*))?$"
)


@pytest.fixture
def log_path(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "logs" / "orderdash.log"
    path.parent.mkdir()
    setup = configure_logging(path, secrets=[SecretStr(BEARER)])
    yield path
    setup.close()


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def read(path: Path) -> str:
    return path.read_text()


def request_lines(path: Path) -> list[re.Match[str]]:
    lines = read(path).splitlines()
    return [m for m in map(LINE.match, lines) if m is not None]


async def test_each_request_is_one_line_with_its_outcome_and_time(
    sim_server: SimulatorServer, log_path: Path
) -> None:
    sim = sim_server.sim
    async with make_client(make_settings(sim_server.base_url)) as client:
        await client.get_order(TOKEN)
        await client.refresh_rate(TOKEN)
        sim.add_fault(Fault(status=503, times=1))
        with pytest.raises(errors.ServiceError):
            await client.get_order(TOKEN)
        with pytest.raises(errors.NotFound):
            await client.get_order("no-such-order")
    async with make_client(make_settings(sim_server.base_url, bearer="wrong-token")) as client:
        with pytest.raises(errors.AuthRefused):
            await client.refresh_rate(TOKEN)
    sim_server.stop()
    async with make_client(make_settings(sim_server.base_url)) as client:
        with pytest.raises(errors.CannotConnect):
            await client.get_order(TOKEN)
    logged = [
        (m["endpoint"], m["token"], m["status"], m["error"], m["level"])
        for m in request_lines(log_path)
    ]
    assert logged == [
        ("order", TOKEN, "200", None, "INFO"),
        ("rates", TOKEN, "200", None, "INFO"),
        ("order", TOKEN, "503", "ServiceError", "WARNING"),
        ("order", "no-such-order", "404", "NotFound", "WARNING"),
        ("rates", TOKEN, "401", "AuthRefused", "WARNING"),
        ("order", TOKEN, "-", "CannotConnect", "WARNING"),
    ]
    for match in request_lines(log_path):
        assert int(match["ms"]) < 10_000
        if match["error"]:
            assert match["message"], "the one-line message follows the error class"
    assert "wrong-token" not in read(log_path)


async def test_timeouts_are_logged_with_their_class(
    sim_server: SimulatorServer, log_path: Path
) -> None:
    sim_server.sim.add_fault(Fault(delay=2.0, times=1))
    settings = make_settings(sim_server.base_url, timeout=0.4, read_timeout=0.2)
    async with make_client(settings) as client:
        with pytest.raises(errors.Timeout):
            await client.get_order(TOKEN)
    (match,) = request_lines(log_path)
    assert match["error"] == "Timeout" and match["status"] == "-"
    assert 150 <= int(match["ms"]) < 2000


async def test_the_token_never_reaches_the_file_even_when_the_server_echoes_it(
    sim_server: SimulatorServer, log_path: Path
) -> None:
    sim = sim_server.sim
    echo = f'{{"success": false, "data": null, "message": "token {BEARER} is not valid"}}'
    sim.add_fault(Fault(endpoint="rates", body=echo, times=1))
    sim.add_fault(
        Fault(
            endpoint="order",
            status=302,
            headers={"Location": f"https://{BEARER}@evil.example/x"},
            times=1,
        )
    )
    async with make_client(make_settings(sim_server.base_url)) as client:
        with pytest.raises(errors.FailureReported):
            await client.refresh_rate(TOKEN)
        with pytest.raises(errors.UnexpectedRedirect):
            await client.get_order(TOKEN)
    # and whatever any code logs, in the message, its arguments or an exception's text
    log = logging.getLogger("orderdash.somewhere")
    log.warning("the token is %s", BEARER)
    log.warning(f"in the message itself: {BEARER}")
    try:
        raise RuntimeError(f"an exception that carries {BEARER}")
    except RuntimeError:
        log.exception("failed")
    logging.getLogger("asyncio").error("a library logging it: %r", {"bearer_token": BEARER})
    text = read(log_path)
    assert BEARER not in text
    assert text.count(REDACTED) >= 6
    assert "RuntimeError: an exception that carries [redacted]" in text
    assert "Traceback" in text, "the traceback is kept, redacted"
    assert "FailureReported" in text and "UnexpectedRedirect" in text


def test_the_filter_redacts_every_form_and_every_part() -> None:
    redactor = RedactSecrets([SecretStr('s3cr/t"x'), None, ""])
    record = logging.LogRecord(
        "orderdash", logging.ERROR, __file__, 1, "a %s b %r", ('s3cr/t"x', 's3cr/t"x'), None
    )
    try:
        raise ValueError("boom s3cr%2Ft%22x")
    except ValueError:
        record.exc_info = sys.exc_info()
    record.stack_info = 'Stack: "s3cr/t\\"x"'
    assert redactor.filter(record)
    formatted = logging.Formatter().format(record)
    for form in secret_forms('s3cr/t"x'):
        assert form not in formatted
    assert formatted.count(REDACTED) >= 4
    assert "a [redacted] b '[redacted]'" in formatted


def test_the_file_is_private_and_rotates_at_a_bounded_size(tmp_path: Path) -> None:
    path = tmp_path / "rot.log"
    path.write_text("older lines\n")
    path.chmod(0o644)  # an existing file is narrowed too
    old_umask = os.umask(0)  # even with a permissive umask
    try:
        setup = configure_logging(path, [BEARER], max_bytes=4000, backup_count=3)
        try:
            assert mode_of(path) == 0o600
            log = logging.getLogger("orderdash.core.service.client")
            for n in range(400):
                log.info("line %d with the token %s and some padding %s", n, BEARER, "x" * 40)
        finally:
            setup.close()
    finally:
        os.umask(old_umask)
    files = sorted(tmp_path.glob("rot.log*"))
    assert [f.name for f in files] == ["rot.log", "rot.log.1", "rot.log.2", "rot.log.3"]
    for file in files:
        assert mode_of(file) == 0o600, file
        assert file.stat().st_size <= 4000
        assert BEARER not in file.read_text()
    assert "line 399" in path.read_text()


def test_nothing_is_logged_to_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    for target in (None, tmp_path / "file.log"):
        setup: LogSetup = configure_logging(target, [BEARER])
        try:
            logging.getLogger("orderdash.core.polling.watcher").error("a handler failed %s", BEARER)
            logging.getLogger("uvicorn.error").warning("a library warning")
            try:
                raise KeyError("x")
            except KeyError:
                logging.getLogger("asyncio").exception("Task exception was never retrieved")
        finally:
            setup.close()
        out, err = capfd.readouterr()
        assert out == "" and err == "", (target, out, err)
    assert "a handler failed [redacted]" in (tmp_path / "file.log").read_text()


def test_log_file_setting_from_the_environment_and_the_cli(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('log_file = "~/from-file.log"\n')
    env = {"ORDERDASH_CONFIG": str(config)}
    assert load_settings({}, env)[0].log_file == "~/from-file.log"
    env["ORDERDASH_LOG_FILE"] = str(tmp_path / "env.log")
    assert load_settings({}, env)[0].log_file == str(tmp_path / "env.log")
    assert load_settings({"log_file": "cli.log"}, env)[0].log_file == "cli.log"
    assert load_settings({}, {"ORDERDASH_CONFIG": os.devnull})[0].log_file is None


def test_cli_log_option_writes_requests_and_keeps_stderr_to_one_line(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    token_file = tmp_path / "bearer"
    token_file.write_text(BEARER + "\n")
    token_file.chmod(0o600)
    log = tmp_path / "cli.log"
    ok = run_cli("get", TOKEN, "--base-url", sim_server.base_url, "--log", str(log))
    assert ok.returncode == 0, ok.stderr
    assert ok.stderr == ""
    assert mode_of(log) == 0o600
    echo = f'{{"success": false, "data": null, "message": "bad token {BEARER}"}}'
    sim_server.sim.add_fault(Fault(endpoint="rates", body=echo, times=1))
    failed = run_cli(
        "rates",
        TOKEN,
        "--base-url",
        sim_server.base_url,
        "--bearer-token-file",
        str(token_file),
        env={"ORDERDASH_LOG_FILE": str(log)},
    )
    assert failed.returncode == 5
    assert failed.stderr.count("\n") == 1, "the error line only, no log record"
    assert "bad token [redacted]" in failed.stderr
    text = log.read_text()
    assert BEARER not in text + failed.stderr + failed.stdout + ok.stdout
    outcomes = [(m["endpoint"], m["status"], m["error"]) for m in request_lines(log)]
    assert outcomes == [("order", "200", None), ("rates", "200", "FailureReported")]


def test_cli_refuses_a_log_file_it_cannot_open(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir" / "x.log"
    result = run_cli("get", TOKEN, "--log", str(missing))
    assert result.returncode == 2
    assert result.stderr.startswith("orderdash: cannot open the log file")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-file", "dangling"])
def test_a_symlink_at_the_log_path_is_refused_never_followed(
    tmp_path: Path, dangling: bool
) -> None:
    target = tmp_path / "precious"
    if not dangling:
        target.write_text("not a log\n")
        target.chmod(0o644)
    link = tmp_path / "orderdash.log"
    link.symlink_to(target)
    result = run_cli("get", TOKEN, "--log", str(link), "--base-url", "http://127.0.0.1:9")
    assert result.returncode == 2
    assert result.stderr.startswith("orderdash: cannot open the log file")
    assert "symbolic link" in result.stderr and result.stderr.count("\n") == 1
    if dangling:
        assert not target.exists(), "the link's target was created"
    else:
        assert target.read_text() == "not a log\n" and mode_of(target) == 0o644


def test_a_file_of_another_owner_keeps_its_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "shared.log"
    path.write_text("")
    path.chmod(0o640)
    # as if the file belonged to someone else: we may write to it, never re-mode it
    real_uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real_uid + 1)
    setup = configure_logging(path, [BEARER])
    try:
        logging.getLogger("orderdash.core.service.client").info("a line")
    finally:
        setup.close()
    assert mode_of(path) == 0o640
    assert "a line" in path.read_text()


@pytest.mark.parametrize("invisible", ["\u00ad", "\u200b", "\u2060", "\ufeff", "\u200b\u00ad"])
async def test_the_token_with_invisible_characters_inside_is_redacted(
    sim_server: SimulatorServer, log_path: Path, invisible: str
) -> None:
    cut = len(BEARER) // 2
    echoed = BEARER[:cut] + invisible + BEARER[cut:]
    body = jsontext_dumps({"success": False, "data": None, "message": f"token {echoed} refused"})
    sim_server.sim.add_fault(Fault(endpoint="rates", body=body, times=1))
    async with make_client(make_settings(sim_server.base_url)) as client:
        with pytest.raises(errors.FailureReported) as caught:
            await client.refresh_rate(TOKEN)
    shown = caught.value.message
    logging.getLogger("orderdash.somewhere").warning("echoed: %s", echoed)
    text = read(log_path)
    for place in (shown, str(caught.value.server_message), text):
        visible = "".join(ch for ch in place if ch.isprintable() and ch != "\ufffd")
        assert BEARER not in visible, place
    assert "[redacted]" in shown
    assert text.count(REDACTED) >= 2
