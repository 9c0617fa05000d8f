"""Case 1, start-up: `orderdash tui TOKEN` to the first paint that shows the order, against a
bare Textual app (Header, Static, Footer) to its first paint; both in fresh interpreters, both
through the same counting driver, interleaved, median of the repetitions. Also the peak RSS of
each child (wait4), and a floor: the bare app after importing httpx and pydantic's BaseModel."""

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

START_UP_TARGET = 1.25
RSS_TARGET = 1.4


def run_app_child(spec: dict[str, Any], timeout: float = 180.0) -> tuple[dict[str, Any], Any]:
    """Run bench/child_app.py with `spec`; its JSON result and the Child record."""
    handle, out_path = tempfile.mkstemp(prefix="orderdash-bench-", suffix=".json")
    os.close(handle)
    try:
        spec = {"width": SIZE[0], "height": SIZE[1], **spec}
        argv = [sys.executable, str(BENCH_DIR / "child_app.py"), json.dumps(spec), out_path]
        child = run_child(argv, timeout=timeout)
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
        samples: dict[str, list[tuple[float, int]]] = {"bare": [], "floor": [], "orderdash": []}
        stages: list[dict[str, float]] = []

        def once(mode: str) -> tuple[float, int]:
            data, child = run_app_child({**spec, "mode": mode})
            if mode == "orderdash":
                stages.append({k: v - child.started for k, v in data.items() if k.endswith("_at")})
            return data["paint_at"] - child.started, child.max_rss_kib

        # warm-up: byte-code caches and the page cache, not counted
        modes = ("bare", "floor", "orderdash")
        for mode in modes:
            once(mode)
        stages.clear()
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
    time_ratio = app_time / bare_time
    rss_ratio = app_rss / bare_rss
    reps = f"median of {options.reps}"

    def stage(name: str) -> float:
        return median([run[name] for run in stages if name in run])

    breakdown = (
        f"interpreter up {seconds(stage('main_at'))}, app built (imports) "
        f"{seconds(stage('built_at'))}, first getOrder sent {seconds(stage('fetch_started_at'))}, "
        f"answered {seconds(stage('fetched_at'))}, painted {seconds(stage('paint_at'))}"
    )
    return [
        Row(
            "startup",
            f"first paint {seconds(app_time)}",
            f"bare app {seconds(bare_time)}",
            time_ratio,
            f"ratio <= {START_UP_TARGET}",
            time_ratio <= START_UP_TARGET,
            note=f"spawn to the first paint showing the order, {reps}; orderdash from spawn: "
            + breakdown,
            data={"app": samples["orderdash"], "bare": samples["bare"]},
        ),
        Row(
            "startup",
            f"floor {seconds(floor_time)}",
            f"bare app {seconds(bare_time)}",
            floor_time / bare_time,
            note="floor: the bare app after `import httpx` and `from pydantic import BaseModel`, "
            f"the two libraries orderdash needs before its first request, {reps}; the time "
            f"target allows {seconds(bare_time * START_UP_TARGET)}",
            data={"floor": samples["floor"]},
        ),
        Row(
            "startup",
            f"peak RSS {mib(app_rss)}",
            f"bare app {mib(bare_rss)}",
            rss_ratio,
            f"ratio <= {RSS_TARGET}",
            rss_ratio <= RSS_TARGET,
            note=f"whole child (wait4 ru_maxrss), {reps}",
        ),
        Row(
            "startup",
            f"floor RSS {mib(floor_rss)}",
            f"bare app {mib(bare_rss)}",
            floor_rss / bare_rss,
            note="the bare app with httpx and pydantic's BaseModel imported, as above",
        ),
    ]
