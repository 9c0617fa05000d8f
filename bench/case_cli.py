"""Case 2, one-shot CLI: `orderdash get TOKEN --json` (fresh process, simulator already running
in the bench process) against `python -c "import httpx, pydantic"`; interleaved, median of the
repetitions. Also checks that the command loads neither textual, the simulator nor qrcode."""

from __future__ import annotations

import json
import sys

from common import Options, Row, log, median, orderdash_command, run_child, seconds, simulator

TARGET = 1.3
#: Top-level modules `orderdash get` must not load (and orderdash's own UI and simulator).
FORBIDDEN = (
    "textual",
    "qrcode",
    "PIL",
    "uvicorn",
    "starlette",
    "orderdash.simulator",
    "orderdash.tui",
)


def loaded_modules(base_url: str, token: str) -> list[str]:
    """The modules `orderdash get --json` has loaded when it is done (same code path as main)."""
    code = (
        "import sys, json, contextlib, io\n"
        "from orderdash.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['get', {token!r}, '--json', '--base-url', {base_url!r}])\n"
        "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}))\n"
    )
    child = run_child([sys.executable, "-c", code], timeout=60)
    if child.exit_code != 0:
        raise RuntimeError(f"import check failed: {child.stderr[-1000:]}")
    return json.loads(child.stdout)["modules"]


def run(options: Options) -> list[Row]:
    from orderdash.simulator import DEMO_TOKENS

    token = DEMO_TOKENS[0]
    with simulator(options.seed) as server:
        command = orderdash_command() + ["get", token, "--json", "--base-url", server.base_url]
        baseline = [sys.executable, "-c", "import httpx, pydantic"]
        # what the command cannot do without: `import pydantic` alone loads none of its model
        # machinery (it is lazy), and an async client needs asyncio
        floor = [sys.executable, "-c", "import asyncio, httpx; from pydantic import BaseModel"]

        def once(argv: list[str]) -> float:
            child = run_child(argv, timeout=60)
            if child.exit_code != 0:
                raise RuntimeError(f"{argv[:2]} failed ({child.exit_code}): {child.stderr[-1000:]}")
            if argv is command and json.loads(child.stdout).get("token") != token:
                raise RuntimeError("orderdash get printed something other than the order")
            return child.wall

        once(baseline)  # warm-up, not counted
        once(floor)
        once(command)
        times: dict[str, list[float]] = {"cli": [], "baseline": [], "floor": []}
        for rep in range(options.reps):
            pairs = (("baseline", baseline), ("floor", floor), ("cli", command))
            for name, argv in pairs if rep % 2 == 0 else pairs[::-1]:
                times[name].append(once(argv))
        log(options, f"cli: {times}")
        modules = loaded_modules(server.base_url, token)

    leaked = sorted(
        {m for m in modules for bad in FORBIDDEN if m == bad or m.startswith(bad + ".")}
    )
    cli, base, least = median(times["cli"]), median(times["baseline"]), median(times["floor"])
    ratio = cli / base
    note = f"median of {options.reps}, spawn to exit; "
    note += f"loads {', '.join(leaked[:6])}" if leaked else "loads no textual/simulator/qrcode"
    if "rich" in {m.split(".")[0] for m in modules}:
        note += " (but loads rich)"
    return [
        Row(
            "cli",
            f"get --json {seconds(cli)}",
            f"import httpx, pydantic {seconds(base)}",
            ratio,
            f"ratio <= {TARGET}, no UI imports",
            ratio <= TARGET and not leaked,
            note=note,
            data=times,
        ),
        Row(
            "cli",
            f"floor {seconds(least)}",
            f"import httpx, pydantic {seconds(base)}",
            least / base,
            note="floor: `import asyncio, httpx; from pydantic import BaseModel` (pydantic's "
            "top-level import is lazy and loads no model machinery); the target allows "
            f"{seconds(base * TARGET)}",
        ),
    ]
