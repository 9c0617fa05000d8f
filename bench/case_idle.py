"""Case 6, idle: the dashboard on one order with the default schedule (getOrder every 10 s, the
rate every 60 s), in a fresh interpreter, after it has settled: CPU over the window (getrusage of
the child) and what it repaints, counted at Textual's compositor (cells of every update) and at
the driver (bytes), against a full-screen repaint of the same screen.
"""

from __future__ import annotations

from common import Options, Row, simulator, token_file

CPU_TARGET = 1.0  # percent of one core
#: The countdowns may repaint their own lines each second, not the screen.
REPAINT_TARGET = 0.10


def run(options: Options) -> list[Row]:
    from case_startup import run_app_child

    from orderdash.simulator import DEMO_TOKENS

    with simulator(options.seed) as server, token_file() as path:
        spec = {
            "mode": "idle",
            "base_url": server.base_url,
            "token": DEMO_TOKENS[0],
            "token_file": str(path),
            "idle_seconds": options.idle_seconds,
            "settle": 2.0,
        }
        data, _ = run_app_child(spec, timeout=options.idle_seconds + 120)
        polls = sum(1 for r in server.sim.requests if r["endpoint"] == "order")
    window = data["window"]
    cpu_percent = 100 * data["cpu"] / window
    cells_per_second = data["cells"] / window
    screen = data["screen_cells"]
    bytes_per_second = data["bytes"] / window
    full_bytes = data["full_repaint_bytes"]
    share = cells_per_second / screen
    return [
        Row(
            "idle",
            f"CPU {cpu_percent:.2f} % of a core",
            target=f"< {CPU_TARGET:g} %",
            passed=cpu_percent < CPU_TARGET,
            note=f"{window:.0f} s window, {data['paints']} paints, {polls} getOrder requests in "
            f"all (poll every 10 s); child CPU {data['cpu'] * 1000:.0f} ms",
            data=data,
        ),
        Row(
            "idle",
            f"repaint {cells_per_second:.0f} cells/s",
            f"full screen {screen} cells",
            share,
            f"ratio <= {REPAINT_TARGET:g}, no full repaint",
            share <= REPAINT_TARGET and data["full_updates"] == 0,
            note=f"largest update {data['max_cells']} cells, {data['full_updates']} full-screen "
            f"updates; driver {bytes_per_second:.0f} B/s against {full_bytes} B for one "
            f"full-screen repaint ({bytes_per_second / full_bytes:.3f} of it per second)",
        ),
    ]
