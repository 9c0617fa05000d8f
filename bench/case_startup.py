"""Case 1, start-up: `orderdash tui TOKEN` to the first paint that shows the order, and
`orderdash display` to the first paint of its welcome screen, against a floor: a bare Textual app
(Header, Static, Footer) after importing httpx and pydantic's BaseModel (what orderdash cannot
start without), to its first paint. All in fresh interpreters, through the same counting driver,
interleaved, median of the repetitions; also the peak RSS of each child (wait4). The bare app
without those imports is shown beside the floor, as information, and so is the floor with the
two libraries used once at their cheapest (one getOrder fetched and validated by a small model):
what any client of the service pays before it can show an order, which the floor leaves out."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

from common import (
    BENCH_DIR,
    SIZE,
    Options,
    Row,
    log,
    median,
    mib,
    run_child,
    seconds,
    simulator,
    token_file,
)

#: Targets: the dashboard against the floor with one use, the display against the floor, each
#: measured in the same run.
START_UP_TARGET = 1.30
RSS_TARGET = 1.12
DISPLAY_TARGET = 1.25


def run_app_child(
    spec: dict[str, Any], timeout: float = 180.0, env: dict[str, str] | None = None
) -> tuple[dict[str, Any], Any]:
    """Run bench/child_app.py with `spec` (in `env`, else the bench's children's); its JSON
    result and the Child record."""
    handle, out_path = tempfile.mkstemp(prefix="orderdash-bench-", suffix=".json")
    os.close(handle)
    try:
        spec = {"width": SIZE[0], "height": SIZE[1], **spec}
        argv = [sys.executable, str(BENCH_DIR / "child_app.py"), json.dumps(spec), out_path]
        child = run_child(argv, timeout=timeout, env=env)
        if child.exit_code != 0:
            lines = [line for line in child.stderr.splitlines() if line.strip()]
            last = lines[-1].strip() if lines else "no output"
            raise RuntimeError(f"{spec['mode']} child failed ({child.exit_code}): {last}")
        with open(out_path, encoding="utf-8") as result:
            return json.load(result), child
    finally:
        os.unlink(out_path)


def run(options: Options) -> list[Row]:
    from orderdash.simulator import DEMO_TOKENS

    with simulator(options.seed) as server, token_file() as path:
        spec = {"base_url": server.base_url, "token": DEMO_TOKENS[0], "token_file": str(path)}
        samples: dict[str, list[tuple[float, int]]] = {
            "bare": [],
            "floor": [],
            "orderdash": [],
            "display": [],
            "used": [],
        }
        stages: list[dict[str, float]] = []
        #: CPU (getrusage) once the app is built and at its first paint, per mode
        cpu: dict[str, list[tuple[float, float]]] = {"orderdash": [], "used": []}

        def once(mode: str) -> tuple[float, int]:
            data, child = run_app_child({**spec, "mode": mode})
            if mode == "orderdash":
                stages.append({k: v - child.started for k, v in data.items() if k.endswith("_at")})
            if mode in cpu and "cpu_at_built" in data:
                cpu[mode].append((data["cpu_at_built"], data["cpu_at_paint"]))
            return data["paint_at"] - child.started, child.max_rss_kib

        # warm-up: byte-code caches, the parsed-CSS cache and the page cache, not counted
        modes = ("bare", "floor", "orderdash", "display", "used")
        for mode in modes:
            once(mode)
        stages.clear()
        for samples_of_mode in cpu.values():
            samples_of_mode.clear()
        for rep in range(options.reps):
            # alternate the order so that a drift of the machine hits all alike
            for mode in modes if rep % 2 == 0 else modes[::-1]:
                samples[mode].append(once(mode))
            log(
                options, f"start-up rep {rep + 1}: {samples['orderdash'][-1]} {samples['bare'][-1]}"
            )

    app_time = median([t for t, _ in samples["orderdash"]])
    bare_time = median([t for t, _ in samples["bare"]])
    app_rss = median([r for _, r in samples["orderdash"]])
    bare_rss = median([r for _, r in samples["bare"]])
    floor_time = median([t for t, _ in samples["floor"]])
    floor_rss = median([r for _, r in samples["floor"]])
    display_time = median([t for t, _ in samples["display"]])
    display_rss = median([r for _, r in samples["display"]])
    used_time = median([t for t, _ in samples["used"]])
    used_rss = median([r for _, r in samples["used"]])
    time_ratio = app_time / used_time
    rss_ratio = app_rss / used_rss
    display_ratio = display_time / floor_time
    reps = f"median of {options.reps}"
    floor_name = f"floor {seconds(floor_time)}"
    used_name = f"floor + one use {seconds(used_time)}"

    def stage(name: str) -> float:
        return median([run[name] for run in stages if name in run])

    breakdown = (
        f"interpreter up {seconds(stage('main_at'))}, app built (imports) "
        f"{seconds(stage('built_at'))}, first getOrder sent {seconds(stage('fetch_started_at'))}, "
        f"answered {seconds(stage('fetched_at'))}, painted {seconds(stage('paint_at'))}"
    )
    if all(cpu.values()):
        breakdown += "; CPU (getrusage) when built and at the first paint: " + ", ".join(
            f"{name} {seconds(median([b for b, _ in runs]))} and "
            f"{seconds(median([p for _, p in runs]))}"
            for name, runs in (("orderdash", cpu["orderdash"]), ("floor + one use", cpu["used"]))
        )
    return [
        Row(
            "startup",
            f"first paint {seconds(app_time)}",
            used_name,
            time_ratio,
            f"ratio <= {START_UP_TARGET}",
            time_ratio <= START_UP_TARGET,
            note=f"spawn to the first paint showing the order, {reps}; orderdash from spawn: "
            + breakdown
            + f"; the target allows {seconds(used_time * START_UP_TARGET)}",
            data={"app": samples["orderdash"], "floor": samples["floor"]},
        ),
        Row(
            "startup",
            floor_name,
            f"bare app {seconds(bare_time)}",
            floor_time / bare_time,
            note="floor: the bare app (Header, Static, Footer) after `import httpx` and "
            "`from pydantic import BaseModel`, the two libraries orderdash needs before its "
            f"first request, to its first paint, {reps}; the bare app: the same without them",
            data={"bare": samples["bare"]},
        ),
        Row(
            "startup",
            f"peak RSS {mib(app_rss)}",
            f"floor + one use {mib(used_rss)}",
            rss_ratio,
            f"ratio <= {RSS_TARGET}",
            rss_ratio <= RSS_TARGET,
            note=f"whole child (wait4 ru_maxrss), {reps}; the target allows "
            f"{mib(used_rss * RSS_TARGET)}; against the floor {app_rss / floor_rss:.3f}",
        ),
        Row(
            "startup",
            f"floor RSS {mib(floor_rss)}",
            f"bare app {mib(bare_rss)}",
            floor_rss / bare_rss,
            note="the bare app with httpx and pydantic's BaseModel imported, as above",
        ),
        Row(
            "startup",
            f"display first paint {seconds(display_time)}",
            floor_name,
            display_ratio,
            f"ratio <= {DISPLAY_TARGET}",
            display_ratio <= DISPLAY_TARGET,
            note=f"`orderdash display --title T` (the customer display), spawn to the first "
            f"paint of its welcome screen with the shop's name, {reps}; peak RSS "
            f"{mib(display_rss)} ({display_rss / floor_rss:.3f} of the floor's)",
            data={"display": samples["display"]},
        ),
        Row(
            "startup",
            f"floor + one use {seconds(used_time)}",
            floor_name,
            used_time / floor_time,
            note="the floor with httpx and pydantic used once, at their cheapest: one getOrder "
            "fetched (a client loading no certificates: the URL is plain http) and validated by a "
            f"small model (the order's five fields, its transactions' three), its company name "
            f"painted, {reps}; peak RSS {mib(used_rss)} "
            f"({used_rss / floor_rss:.3f} of the floor's). What the floor leaves out of the two "
            "libraries orderdash cannot start without",
            data={"used": samples["used"]},
        ),
        Row(
            "startup",
            f"first paint {seconds(app_time)}",
            floor_name,
            app_time / floor_time,
            note="orderdash over the floor (the libraries imported, not used), as information; "
            f"peak RSS {mib(app_rss)} over {mib(floor_rss)}, {app_rss / floor_rss:.3f}",
        ),
    ]
