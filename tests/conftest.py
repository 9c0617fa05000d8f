"""Shared fixtures: the simulator on a real loopback port, settings and clients pointed at it."""

from __future__ import annotations

import fnmatch
import os
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from pydantic import SecretStr

from orderdash.core.service.client import OrderClient, Timeouts
from orderdash.core.settings.model import Settings
from orderdash.simulator import Simulator, SimulatorServer


def pytest_configure(config: pytest.Config) -> None:
    # A shell starts a background job (`pytest &`) with SIGINT ignored, and a Python child that
    # inherits an ignored SIGINT never raises KeyboardInterrupt: the tests that stop a command
    # with Ctrl-C would wait for it forever. The children of a process that handles SIGINT start
    # with the default disposition.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if os.environ.get("PYTEST_XDIST_WORKER") is None:  # once a run, before the workers start
        compile_the_package()
        compile_the_tests(config)


def compile_the_package() -> None:
    """The package's bytecode, written once: with PYTHONDONTWRITEBYTECODE set (as in many
    containers) no process writes it, and each of the run's hundreds of `orderdash` children and
    each worker compiled every module it imports from source again (tests/e2e, 6 workers on 2
    cores: 89.5 and 89.7 s of CPU with it, 95.9 and 100.5 s without; 2-4 s of its minute)."""
    import compileall

    import orderdash

    compileall.compile_dir(os.path.dirname(orderdash.__file__), quiet=1)


def compile_the_tests(config: pytest.Config) -> None:
    """The test modules as pytest rewrites them for its assertions, written once, where pytest
    itself reads them back (__pycache__, its own file name): with PYTHONDONTWRITEBYTECODE set
    no process writes them, and each worker parsed, rewrote and compiled every test module it
    collects again (all of tests/: about 4 s of CPU a worker, six workers). The helpers are
    pytest's own (what its import hook calls); another pytest without them writes nothing and
    each worker rewrites for itself, as before."""
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
        )

        state = config.stash[assertstate_key]
    except (ImportError, KeyError):  # another pytest, or --assert=plain: nothing is rewritten
        return
    patterns = ["conftest.py", *config.getini("python_files")]
    files: set[Path] = set()
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0])
        for file in path.rglob("*.py") if path.is_dir() else [path]:
            if file.is_file() and any(fnmatch.fnmatch(file.name, p) for p in patterns):
                files.add(file)
    for file in sorted(files):
        pyc = get_cache_dir(file) / (file.name[:-3] + PYC_TAIL)
        try:
            if _read_pyc(file, pyc) is not None:
                continue  # written by an earlier run, and its source unchanged since
            pyc.parent.mkdir(exist_ok=True)
            source_stat, code = _rewrite_test(file, config)
        except (OSError, SyntaxError, ValueError):
            continue  # the worker that collects it says what is wrong
        _write_pyc(state, code, source_stat, pyc)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The longest tests first (stable: the rest keep their order): the others fill in around
    # them, where collected last (tests/unit comes last) one of them ended the run alone.
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


@pytest.fixture(autouse=True)
def runtime_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Each test its own user runtime directory: a dashboard publishing the customer display
    writes there, never into the developer's (nor another test's)."""
    directory = tmp_path_factory.mktemp("runtime")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(directory))
    # and its own data directory: the ledger (ledger.sqlite3) of a dashboard or a charge under
    # test is never the developer's
    monkeypatch.setenv("XDG_DATA_HOME", str(directory / "data"))
    return directory


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """One real PostgreSQL server per test process (pg_server.py), started on first use;
    skipped, with the reason, where its programs or psycopg are absent."""
    from support.pg_server import PgServer, why_not

    reason = why_not()
    if reason is not None:
        pytest.skip(reason)
    server = PgServer()
    try:
        server.start()
        yield server
    finally:
        server.stop()


#: The simulator's credential in tests; every test that captures output greps for it.
BEARER = "test-bearer-Xy7-never-shown"


@pytest.fixture
def sim_server() -> Iterator[SimulatorServer]:
    """A fresh simulator (seeded, demo orders) served over HTTP on a free loopback port."""
    with serving(SimulatorServer(Simulator(seed=7), bearer_token=BEARER, port=0)) as server:
        yield server


@contextmanager
def serving(server: SimulatorServer) -> Iterator[SimulatorServer]:
    """`server` started, and stopped without waiting for it when the block ends."""
    server.start()
    try:
        yield server
    finally:
        stop_in_background(server)


def stop_in_background(server: SimulatorServer) -> None:
    """Stop `server` without waiting for it. uvicorn sees the stop at its next tick (0.1 s) and
    then gives open connections 0.1 s: 0.2 s after every test that has a simulator, spent
    waiting for nothing the test checks. Each server listens on a port of its own (the next
    test's server is given another), so nothing that comes after reaches this one."""
    threading.Thread(target=server.stop, name="stop-simulator", daemon=True).start()


@pytest.fixture
def sim(sim_server: SimulatorServer) -> Simulator:
    return sim_server.sim


def make_settings(base_url: str, *, bearer: str | None = BEARER, **overrides: object) -> Settings:
    # tests never touch the user's own watch list
    values: dict[str, object] = {"base_url": base_url, "bell": False, "persist_watchlist": False}
    # the dashboard tests poll every 0.2 s and refresh the rate every second where they test
    # it: the hourly budgets' even pace (about 158 and 16 a minute) would stretch that; the
    # budget tests (test_scheduler, test_budgets, test_budget_view) set their own
    values["budget_per_hour"] = 1_000_000
    values["rate_budget_per_hour"] = 1_000_000
    if bearer is not None:
        values["bearer_token"] = SecretStr(bearer)
    values.update(overrides)
    return Settings.model_validate(values)


def make_client(settings: Settings) -> OrderClient:
    return OrderClient.from_settings(settings)


@pytest.fixture
def settings(sim_server: SimulatorServer) -> Settings:
    return make_settings(sim_server.base_url)


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[OrderClient]:
    async with make_client(settings) as order_client:
        yield order_client


@pytest.fixture
def quick_timeouts() -> Timeouts:
    return Timeouts(connect=1.0, read=1.0, deadline=1.5)


def screen_text(app) -> str:  # noqa: ANN001 - any running App
    """The composited screen as plain text, the way a person sees it (toasts included)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def wait_until(pilot, predicate, *, timeout: float = 5.0, step: float = 0.05) -> None:  # noqa: ANN001, ASYNC109 - a polling loop, not an I/O call
    """Let the app run until `predicate()` holds; fail with the screen when it never does."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(
                f"condition not met within {timeout} s; screen:\n{screen_text(pilot.app)}"
            )
        await pilot.pause(step)


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`orderdash ARGS` in a fresh interpreter that sees none of the user's settings."""
    return _run_fresh(["-m", "orderdash", *args], env or {}, ("ORDERDASH_",))


def run_python(
    code: str, *, drop: tuple[str, ...] = ("ORDERDASH_",)
) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter that sees none of the user's settings (nor the variables
    starting with `drop`); what it loads is its own, not this test process's."""
    return _run_fresh(["-c", code], {}, drop)


def _run_fresh(
    argv: list[str], env: dict[str, str], drop: tuple[str, ...]
) -> subprocess.CompletedProcess[str]:
    clean_env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    clean_env["ORDERDASH_CONFIG"] = os.devnull
    return subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean_env, **env},
    )
