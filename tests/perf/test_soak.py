"""Soak: the dashboard against the simulator for minutes, with a customer paying all the time.

The simulator runs in its own process (`orderdash simulate`), so what tracemalloc sees here is
the dashboard alone. The scene is a till: the order on screen is paid a little every
`PAY_EVERY` seconds (each payment: a new row, an alert with its toast, an extra rate call, a new
QR for the amount still due); every `ROTATE_EVERY` payments the next customer's order opens and
the previous one is removed from the watch list, so the data on screen keeps its size. Three
more orders sit on the watch list and are read in the background.

Sampled once a second: traced memory (after a full collection), live asyncio tasks (less those
that end by themselves: toasts, one-shot timers) and the ESTABLISHED client connections to the
simulator's port (/proc/net/tcp, no psutil). After a warm-up all three must stay flat.
`ORDERDASH_SOAK_SECONDS` sets the length of the marked test (default 300 s, `pytest -m soak`);
a short variant runs in the default run. `ORDERDASH_SOAK_VERBOSE=1` prints every sample.

Two leaks of Textual 8.2.8 would otherwise dominate the figures; the app mends them
(`orderdash.tui.compat`, installed by `make_app`) and tests/tui/test_compat.py checks the leaks
are gone on the real app:
- `StylesCache.get_inner_outer` is an `lru_cache(1024)` on an instance method: it keeps the
  StylesCache (and its rendered lines) of up to 1024 widgets long removed. Every toast is two
  widgets: about +130 kB a second in this scene until 1024 are held (~15 MB).
- `ToastRack.show` removes a stale Toast but not its ToastHolder: an empty widget (and its task)
  is left for every toast whose notification expires before its own timer fires.
(Without the mends, 120 s of this scene grew 18.4 -> 31.5 MB.)
The undo stack of removed orders (`DashboardState.removed`) keeps the last `MAX_UNDO` (100);
the soak removes one every few seconds and would read it filling up as growth, so it empties
it after each.
"""

from __future__ import annotations

import asyncio
import gc
import os
import socket
import subprocess
import sys
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any

import httpx
import pytest
from textual.timer import Timer
from textual.widgets._toast import Toast, ToastHolder
from textual.worker import WorkerState

from conftest import BEARER, make_settings, wait_until
from orderdash.core.model import jsontext
from orderdash.tui.factory import make_app

SIZE = (140, 48)
PAY_EVERY = 0.5
ROTATE_EVERY = 8
POLL = 0.2
REFRESH = 2.0
#: Well above what the focused poll needs (300 a minute at 0.2 s): a spent budget would pause
#: the polling (and so hide a leak) until the window frees.
BUDGET = 2000
#: Background orders on the watch list besides the one on screen.
BACKGROUND = 3
SHORT_SECONDS = 8.0
CONCURRENCY = 6
#: The books' worker groups whose workers end by themselves (`tui/books.py`): the ledger's
#: start-up lookup, the lookups of resolutions, the attention's classification.
ONE_SHOT_WORKER_GROUPS = frozenset({"ledger", "ledger-resolutions", "attention"})
#: How much longer than asked a soak may run on a slow machine (see `soak`).
STRETCH = 4
#: Payments a soak must have made to say anything (checked in `check`).
MIN_PAYMENTS = 3


# -- measuring ----------------------------------------------------------------------------------


@dataclass
class Sample:
    t: float
    memory: int
    #: Live asyncio tasks, less those that end by themselves: the toasts' (a toast lives 8 s),
    #: one-shot timers' (`set_timer`: the toasts', the 30 s "new" mark of a payment), the
    #: requests in flight and the books' one-shot workers running.
    tasks: int
    connections: int
    one_shot_timers: int = 0
    in_flight: int = 0
    one_shot_workers: int = 0
    toasts: int = 0
    #: Empty ToastHolders (the Textual leak above; 0 with the workaround).
    orphans: int = 0


@dataclass
class Figures:
    #: The length asked for; `elapsed` is how long it really ran (longer on a slow machine).
    seconds: float
    elapsed: float = 0.0
    payments: int = 0
    rotations: int = 0
    requests: int = 0
    samples: list[Sample] = field(default_factory=list)
    warm: Sample | None = None
    end: Sample | None = None
    top: list[str] = field(default_factory=list)

    @property
    def growth(self) -> int:
        assert self.warm is not None and self.end is not None
        return self.end.memory - self.warm.memory

    def trend(self, name: str) -> float:
        """Mean of the last samples less the mean of the first ones after the warm-up (ten of
        each, fewer in a short run): growth that lasts, not a moment's peak."""
        assert self.warm is not None
        after = [getattr(s, name) for s in self.samples if s.t >= self.warm.t]
        n = max(min(10, len(after) // 2), 1)
        return mean(after[-n:]) - mean(after[:n])

    @property
    def plateau_growth(self) -> float:
        return self.trend("memory")

    def summary(self) -> str:
        assert self.warm is not None, f"no warm-up sample in {self.elapsed:.0f} s"
        assert self.end is not None
        most = max(s.connections for s in self.samples[1:])
        return (
            f"{self.elapsed:.0f} s, {self.payments} payments, {self.rotations} orders rotated, "
            f"{self.requests} API requests; memory after warm-up ({self.warm.t:.0f} s) "
            f"{self.warm.memory / 1e6:.2f} MB -> end {self.end.memory / 1e6:.2f} MB "
            f"({self.growth / 1e3:+.0f} kB; plateau {self.plateau_growth / 1e3:+.0f} kB); "
            f"tasks {self.warm.tasks} -> {self.end.tasks} (trend {self.trend('tasks'):+.1f}; "
            f"besides: one-shot timers {self.end.one_shot_timers}, toasts {self.end.toasts}, "
            f"requests in flight {self.end.in_flight}, one-shot workers "
            f"{self.end.one_shot_workers}); connections "
            f"{self.warm.connections} -> {self.end.connections} (max {most}); "
            f"empty toast holders {self.end.orphans}"
        )


def established_to(port: int) -> int:
    """Client-side TCP connections to `port` in ESTABLISHED state (/proc/net/tcp, tcp6)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            remote, state = parts[2], parts[3]
            if state == "01" and int(remote.rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


def task_kinds() -> dict[str, int]:
    """Live tasks by coroutine and owner ('MessagePump._process_messages:Toast'), one-shot
    timers as 'Timer:set_timer'."""
    kinds: dict[str, int] = {}
    for task in asyncio.all_tasks():
        coro = task.get_coro()
        name = getattr(coro, "__qualname__", type(coro).__name__)
        frame = getattr(coro, "cr_frame", None)
        owner = frame.f_locals.get("self") if frame is not None else None
        if isinstance(owner, Timer):
            name = "Timer:" + ("set_timer" if owner.name.startswith("set_timer#") else "interval")
        elif owner is not None:
            name += ":" + type(owner).__name__
        kinds[name] = kinds.get(name, 0) + 1
    return kinds


def clear_memo_caches() -> int:
    """Empty every `functools.lru_cache` of orderdash, rich and textual (module functions and
    methods): they are bounded but fill slowly (rich's Segment._split_cells holds 16,384
    entries, a few MB), which would read as growth for minutes. What stays is what is held."""
    cleared = 0
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(("orderdash", "rich", "textual")):
            continue
        for value in list(vars(module).values()):
            owners = [value, *vars(value).values()] if isinstance(value, type) else [value]
            for owner in owners:
                if callable(getattr(owner, "cache_clear", None)) and hasattr(owner, "cache_info"):
                    owner.cache_clear()
                    cleared += 1
    return cleared


def measure(app: Any, port: int, t: float) -> Sample:
    clear_memo_caches()
    gc.collect()
    memory, _ = tracemalloc.get_traced_memory()
    kinds = task_kinds()
    toast_tasks = sum(n for kind, n in kinds.items() if kind.endswith((":Toast", ":ToastHolder")))
    one_shot = kinds.get("Timer:set_timer", 0)
    in_flight = kinds.get("OrderWatcher._request:OrderWatcher", 0)
    # the books' workers that end by themselves (a classification of what changed, a lookup of
    # resolutions): on a loaded machine one may still run at a sample, which is no leak
    one_shot_workers = sum(
        1
        for worker in app.workers
        if worker.group in ONE_SHOT_WORKER_GROUPS and worker.state is WorkerState.RUNNING
    )
    return Sample(
        t=t,
        memory=memory,
        tasks=sum(kinds.values()) - toast_tasks - one_shot - in_flight - one_shot_workers,
        connections=established_to(port),
        one_shot_timers=one_shot,
        in_flight=in_flight,
        one_shot_workers=one_shot_workers,
        toasts=len(app.screen.query(Toast)),
        orphans=sum(1 for holder in app.screen.query(ToastHolder) if not holder.children),
    )


# -- the simulator in its own process -----------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_simulator(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    token_file = tmp_path / "sim-token"
    token_file.write_text(BEARER + "\n")
    token_file.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
    argv = [sys.executable, "-m", "orderdash", "simulate", "--port", str(port)]
    argv += ["--bearer-token-file", str(token_file), "--customer-interval", "0"]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, port
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("the simulator did not start") from None
            time.sleep(0.05)


class Control:
    """The simulator's /_sim/ controls, one short connection per call (none stays open)."""

    def __init__(self, root: str) -> None:
        self._http = httpx.AsyncClient(
            base_url=root,
            limits=httpx.Limits(max_keepalive_connections=0),
            headers={"Connection": "close"},
            timeout=10,
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _post(self, path: str, body: dict[str, Any]) -> Any:
        response = await self._http.post(path, content=jsontext.dumps(body))
        response.raise_for_status()
        return jsontext.loads(response.content)

    async def new_order(self) -> str:
        body = {"coin": "btc", "currency": "EUR", "amountFiat": "90000.00"}
        return (await self._post("/_sim/orders", body))["token"]

    async def pay(self, token: str) -> None:
        await self._post(f"/_sim/orders/{token}/transactions", {"amount": "0.00001"})

    async def api_requests(self) -> int:
        entries = jsontext.loads((await self._http.get("/_sim/requests")).content)
        return sum(1 for e in entries if e["endpoint"] in ("order", "rates"))


# -- the soak -----------------------------------------------------------------------------------


async def soak(seconds: float, tmp_path: Path) -> Figures:
    process, port = start_simulator(tmp_path)
    root = f"http://127.0.0.1:{port}"
    control = Control(root)
    figures = Figures(seconds)
    # bounded caches fill first (64 QR codes at a payment each, rich's 4096 cell lengths...),
    # and the first change of customer is part of it: its first-time costs (~4 MB) would
    # otherwise count as growth when a loaded machine makes it come after the warm-up time
    warmup = min(max(3.0, seconds * 0.4), 60.0)
    latest_warmup = seconds * 0.75
    # A slow machine gets through fewer turns of the loop below in the same time (one turn: a
    # payment's round trip to the simulator, a sample, a frame): the run then goes on past
    # `seconds`, up to STRETCH times as long, until what the checks compare has really been
    # seen: the warm-up sample, at least as long after it as a run on time watches (the time
    # from the latest warm-up to the end), and the few payments a soak is not a soak without.
    # The checks stay those of a run on time (the polls are counted against `seconds`).
    watched_after_warmup = seconds - latest_warmup
    verbose = bool(os.environ.get("ORDERDASH_SOAK_VERBOSE"))
    try:
        focused = await control.new_order()
        background = [await control.new_order() for _ in range(BACKGROUND)]
        settings = make_settings(
            root,
            poll_interval=POLL,
            refresh_interval=REFRESH,
            budget_per_minute=BUDGET,
            concurrency=CONCURRENCY,
        )
        app = make_app(settings, token=focused, tokens=background)
        tracemalloc.start()
        try:
            async with app.run_test(size=SIZE, notifications=True) as pilot:
                screen = app.dashboard
                await wait_until(pilot, lambda: app.state.order is not None, timeout=10)
                loop = asyncio.get_running_loop()
                started = loop.time()
                next_pay = next_sample = started
                snapshot = None
                paid_here = 0

                def over(now: float) -> bool:
                    elapsed = now - started
                    warm = figures.warm
                    seen = (
                        warm is not None
                        and elapsed >= warm.t + watched_after_warmup
                        and figures.payments >= MIN_PAYMENTS
                    )
                    return elapsed >= seconds * STRETCH or (elapsed >= seconds and seen)

                while not over(now := loop.time()):
                    if now >= next_pay:
                        next_pay += PAY_EVERY
                        await control.pay(focused)
                        figures.payments += 1
                        paid_here += 1
                        if paid_here >= ROTATE_EVERY:
                            # the next customer: open a new order, drop the previous one
                            new = await control.new_order()
                            screen.load(new)
                            app.session.unwatch(focused)  # what `d` does on its row
                            assert focused not in app.state.entries
                            app.state.removed.clear()  # the undo stack fills up to 100: see above
                            focused, paid_here = new, 0
                            figures.rotations += 1
                    if now >= next_sample:
                        next_sample += 1.0
                        sample = measure(app, port, now - started)
                        figures.samples.append(sample)
                        if verbose:
                            print(sample)
                        warmed = figures.rotations >= 1 or sample.t >= latest_warmup
                        if figures.warm is None and sample.t >= warmup and warmed:
                            figures.warm = sample
                            snapshot = tracemalloc.take_snapshot()
                    await pilot.pause(0.02)
                assert app.is_running
                figures.elapsed = loop.time() - started
                figures.end = measure(app, port, figures.elapsed)
                figures.samples.append(figures.end)
                if snapshot is not None:
                    diff = tracemalloc.take_snapshot().compare_to(snapshot, "lineno")
                    figures.top = [str(stat) for stat in diff[:6]]
        finally:
            tracemalloc.stop()
        figures.requests = await control.api_requests()
    finally:
        await control.aclose()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    return figures


def check(figures: Figures, *, memory_limit: int) -> None:
    print("\nsoak:", figures.summary())
    for line in figures.top:
        print("  ", line)
    warm, end = figures.warm, figures.end
    assert warm is not None and end is not None
    report = figures.summary() + "\n" + "\n".join(figures.top)
    # the load generator itself must have kept paying (at least a few payments in the window);
    # its rate depends on the CPU left to it, the product assertions below do not
    assert figures.payments >= MIN_PAYMENTS, "the customer kept paying"
    assert figures.requests >= figures.seconds / POLL * 0.5, "the dashboard kept polling"
    assert figures.growth <= memory_limit, report
    after = [s for s in figures.samples if s.t >= warm.t]
    assert figures.trend("tasks") <= 2, report
    assert max(s.tasks for s in after) <= warm.tasks + 8, report
    assert max(s.in_flight for s in after) <= CONCURRENCY, report
    # one of each at a time, and a lookup of resolutions per batch of orders newly needing a
    # human: a handful at most, or they pile up
    assert max(s.one_shot_workers for s in after) <= 2 * len(ONE_SHOT_WORKER_GROUPS), report
    # what ends by itself is bounded by what the last 30 s can have started
    assert end.one_shot_timers <= 30 / PAY_EVERY + end.toasts + 10, report
    # a holder is empty for a moment while it mounts or goes: a few, never a pile
    assert max(s.orphans for s in after) <= 2, report
    # one keep-alive pool: never more connections than requests allowed in flight
    assert max(s.connections for s in figures.samples) <= CONCURRENCY, report
    assert end.connections <= max(warm.connections, 1) + 2, report


@pytest.mark.heavy
async def test_soak_short(tmp_path: Path) -> None:
    check(await soak(SHORT_SECONDS, tmp_path), memory_limit=3_000_000)


@pytest.mark.soak
async def test_soak(tmp_path: Path) -> None:
    seconds = float(os.environ.get("ORDERDASH_SOAK_SECONDS", "300"))
    figures = await soak(seconds, tmp_path)
    check(figures, memory_limit=3_000_000)
    if len(figures.samples) >= 40:
        assert figures.plateau_growth <= 1_500_000, figures.summary()
