"""Shared pieces of the benchmark: result rows, statistics, machine facts, subprocess timing,
the simulator and settings for the app under test.

Only the standard library and the project's own dependencies are used here; textual is imported
lazily by the cases that drive the app, so the one-shot CLI case does not pay for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from terminal import SIZE as SIZE  # the cases take it from here

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
#: The simulator's credential during the bench (a throwaway, never a real secret).
BEARER = "bench-bearer-token"


@dataclass
class Row:
    """One line of the results table."""

    case: str
    figure: str
    baseline: str = "\u2014"
    ratio: float | None = None
    target: str = "\u2014"
    #: True pass, False fail, None for an informational line or a case that did not run.
    passed: bool | None = None
    note: str = ""
    #: "n/a" for a case that does not apply; "info" lines have no target.
    status: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def result(self) -> str:
        if self.status is not None:
            return self.status
        if self.passed is None:
            return "info"
        return "pass" if self.passed else "FAIL"


@dataclass
class Options:
    reps: int = 7
    idle_seconds: float = 60.0
    latency_runs: int = 30
    seed: int = 7
    verbose: bool = False


# -- statistics --------------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def seconds(value: float) -> str:
    if value < 0.001:
        return f"{value * 1e6:.0f} \u00b5s"
    if value < 1:
        return f"{value * 1000:.1f} ms"
    return f"{value:.3f} s"


def mib(kib: float) -> str:
    return f"{kib / 1024:.1f} MiB"


def log(options: Options, message: str) -> None:
    if options.verbose:
        print(f"  [{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- the machine -------------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict[str, str]:
    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    cores = os.cpu_count() or 0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    return {
        "cores": f"{cores} (usable {usable})",
        "cpu": cpu_model(),
        "python": f"{platform.python_version()} ({platform.python_implementation()})",
        "textual": version("textual"),
        "httpx": version("httpx"),
        "pydantic": version("pydantic"),
        "platform": platform.platform(terse=True),
    }


# -- fresh interpreters ------------------------------------------------------------------------


@dataclass(frozen=True)
class Child:
    started: float  # time.monotonic() just before the process was spawned
    wall: float  # spawn to exit, seconds
    max_rss_kib: int  # peak resident set of this child alone (wait4), KiB on Linux
    exit_code: int
    stdout: str
    stderr: str


_HOME: tempfile.TemporaryDirectory[str] | None = None


def scratch_home() -> Path:
    """A throwaway directory for the XDG dirs of everything the bench starts, so no child reads
    the user's config or writes the user's watch list (removed when the bench exits)."""
    global _HOME
    if _HOME is None:
        _HOME = tempfile.TemporaryDirectory(prefix="orderdash-bench-home-")
    return Path(_HOME.name)


def child_env() -> dict[str, str]:
    """The environment for the app and CLI under test: no ORDERDASH_* settings, no devtools,
    byte code cached as usual (after the warm-up run no child compiles the sources again), XDG
    dirs in a scratch directory."""
    dropped = {"TEXTUAL", "PYTHONDONTWRITEBYTECODE"}
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_") and k not in dropped
    }
    home = scratch_home()
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[name] = str(home / name.lower())
    return env


def run_child(
    argv: Sequence[str], *, timeout: float = 120.0, env: dict[str, str] | None = None
) -> Child:
    """Run `argv` in a fresh process; wall time spawn-to-exit and its own peak RSS (wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = subprocess.Popen(
            list(argv), stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env or child_env()
        )
        killer = threading.Timer(timeout, process.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            killer.cancel()
        wall = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Child(
            started=started,
            wall=wall,
            max_rss_kib=int(usage.ru_maxrss),
            exit_code=process.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )


def orderdash_command() -> list[str]:
    """The installed `orderdash` script beside this interpreter, else `python -m orderdash`."""
    script = Path(sys.executable).with_name("orderdash")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "orderdash"]


# -- the simulator -----------------------------------------------------------------------------


@contextlib.contextmanager
def simulator(seed: int = 7) -> Iterator[Any]:
    """The project's simulator (demo orders, no simulated customer) on a free loopback port."""
    from orderdash.simulator import Simulator, SimulatorServer

    with SimulatorServer(Simulator(seed=seed), bearer_token=BEARER, port=0) as server:
        yield server


@contextlib.contextmanager
def token_file() -> Iterator[Path]:
    """The bearer token in a mode-600 file, as a user would keep it."""
    with tempfile.TemporaryDirectory(prefix="orderdash-bench-") as directory:
        path = Path(directory) / "token"
        path.write_text(BEARER + "\n", encoding="utf-8")
        path.chmod(0o600)
        yield path


def settings_for(base_url: str, *, bearer: bool = True, **overrides: Any) -> Any:
    from pydantic import SecretStr

    from orderdash.core.settings.model import Settings

    values: dict[str, Any] = {"base_url": base_url, "bell": False}
    if "persist_watchlist" in Settings.model_fields:  # never write the user's watch list
        values["persist_watchlist"] = False
    if bearer:
        values["bearer_token"] = SecretStr(BEARER)
    values.update(overrides)
    return Settings.model_validate(values)


#: How often the lag meter asks to wake (seconds).
LAG_TICK = 0.005


async def worst_lag_during(work: Callable[[], Awaitable[None]], *, freeze: bool = False) -> float:
    """The worst lag of the event loop while `work()` runs: a coroutine asks to wake every
    `LAG_TICK` and records how late it wakes. A full collection first; with `freeze`, what is
    alive then is kept out of the collector's walks while `work()` runs."""
    worst = 0.0
    running = True

    async def ticker() -> None:
        nonlocal worst
        while running:
            asked = time.monotonic()
            await asyncio.sleep(LAG_TICK)
            worst = max(worst, time.monotonic() - asked - LAG_TICK)

    gc.collect()
    if freeze:
        gc.freeze()
    task = asyncio.create_task(ticker())
    try:
        await work()
    finally:
        running = False
        await task
        if freeze:
            gc.unfreeze()
    return worst
