"""Case 2, one-shot CLI: `orderdash get TOKEN --json` (fresh process, simulator already running
in the bench process) against its floor, `python -c "import asyncio, httpx; from pydantic import
BaseModel"`; interleaved, median of the repetitions. Beside it, for the record, the floor with
one use: the same imports, one getOrder sent by an httpx client that loads no certificates,
and its answer validated by a one-field pydantic model (what any client of the service pays
before it does anything of its own). Also checks that the command loads neither textual, the
simulator nor qrcode; and that `orderdash --help` and `--version` take well under the floor and
load neither httpx nor pydantic (nor textual)."""

from __future__ import annotations

import json
import sys

from common import Options, Row, log, median, orderdash_command, run_child, seconds, simulator

#: `get --json` against the floor measured in the same run.
TARGET = 1.10
#: `--help` and `--version` need neither httpx nor pydantic: well under the floor.
HELP_TARGET = 0.5
#: Top-level modules `--help` and `--version` must not load.
HELP_FORBIDDEN = ("httpx", "httpcore", "pydantic", "pydantic_core", "textual", "rich")
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


def loaded_modules(*argv: str) -> list[str]:
    """The modules `orderdash ARGV` has loaded when it is done (same code path as main)."""
    code = (
        "import sys, json, contextlib, io\n"
        "from orderdash.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        code = main({list(argv)!r})\n"
        "    except SystemExit as exit:\n"
        "        code = exit.code\n"
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
        # httpx's command-line tool (click, rich, pygments: ~47 ms) kept out of both, as
        # orderdash keeps it out (`core/service/transport.py`): a floor that loads it flatters
        # the command
        no_httpx_cli = "import sys; sys.modules['httpx._main'] = None; "
        baseline = [sys.executable, "-c", no_httpx_cli + "import httpx, pydantic"]
        # what the command cannot do without: `import pydantic` alone loads none of its model
        # machinery (it is lazy), and an async client needs asyncio
        floor = [
            sys.executable,
            "-c",
            no_httpx_cli + "import asyncio, httpx; from pydantic import BaseModel",
        ]
        # the floor with one use: one request, one model validated (no orderdash code)
        order_url = f"{server.base_url}/order/{token}/"
        one_use = [
            sys.executable,
            "-c",
            no_httpx_cli + "import asyncio, httpx\n"
            "from pydantic import BaseModel\n"
            "class Order(BaseModel):\n    token: str\n"
            "class Answer(BaseModel):\n    data: Order\n"
            # no certificates loaded: the command's own client loads none for an http:// URL
            "with httpx.Client(verify=False) as client:\n"
            f"    answer = client.get({order_url!r})\n"
            "print(Answer.model_validate_json(answer.content).data.token)\n",
        ]
        help_command = orderdash_command() + ["--help"]
        version_command = orderdash_command() + ["--version"]

        def once(argv: list[str]) -> float:
            child = run_child(argv, timeout=60)
            if child.exit_code != 0:
                raise RuntimeError(f"{argv[:2]} failed ({child.exit_code}): {child.stderr[-1000:]}")
            if argv is command and json.loads(child.stdout).get("token") != token:
                raise RuntimeError("orderdash get printed something other than the order")
            if argv is one_use and child.stdout.strip() != token:
                raise RuntimeError("the floor with one use read something other than the order")
            return child.wall

        pairs = (
            ("baseline", baseline),
            ("floor", floor),
            ("one use", one_use),
            ("cli", command),
            ("help", help_command),
            ("version", version_command),
        )
        for _, argv in pairs:  # warm-up, not counted
            once(argv)
        times: dict[str, list[float]] = {name: [] for name, _ in pairs}
        for rep in range(options.reps):
            for name, argv in pairs if rep % 2 == 0 else pairs[::-1]:
                times[name].append(once(argv))
        log(options, f"cli: {times}")
        modules = loaded_modules("get", token, "--json", "--base-url", server.base_url)
        help_loads = {
            name: sorted({m.split(".")[0] for m in loaded_modules(flag)} & set(HELP_FORBIDDEN))
            for name, flag in (("help", "--help"), ("version", "--version"))
        }

    leaked = sorted(
        {m for m in modules for bad in FORBIDDEN if m == bad or m.startswith(bad + ".")}
    )
    cli, base, least = median(times["cli"]), median(times["baseline"]), median(times["floor"])
    used = median(times["one use"])
    ratio = cli / least
    note = f"median of {options.reps}, spawn to exit; "
    note += f"loads {', '.join(leaked[:6])}" if leaked else "loads no textual/simulator/qrcode"
    if "rich" in {m.split(".")[0] for m in modules}:
        note += " (but loads rich)"
    note += f"; the target allows {seconds(least * TARGET)}"
    rows = [
        Row(
            "cli",
            f"get --json {seconds(cli)}",
            f"floor {seconds(least)}",
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
            "top-level import is lazy and loads no model machinery; an async client needs "
            "asyncio); beside it `import httpx, pydantic`",
        ),
    ]
    rows.append(
        Row(
            "cli",
            f"floor + one use {seconds(used)}",
            f"floor {seconds(least)}",
            used / least,
            note="the floor, one getOrder sent by an httpx client that loads no certificates, "
            "its answer validated by a one-field pydantic model: what the command cannot do "
            "without; `get --json` is "
            f"{cli / used:.3f}x it",
        )
    )
    for name in ("help", "version"):
        took = median(times[name])
        loads = help_loads[name]
        rows.append(
            Row(
                "cli",
                f"--{name} {seconds(took)}",
                f"floor {seconds(least)}",
                took / least,
                f"ratio <= {HELP_TARGET}, no httpx/pydantic",
                took / least <= HELP_TARGET and not loads,
                note=f"`orderdash --{name}`, median of {options.reps}, spawn to exit; "
                + (f"loads {', '.join(loads)}" if loads else "loads no httpx/pydantic/textual"),
            )
        )
    return rows
