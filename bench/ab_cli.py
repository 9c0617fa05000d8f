"""What one start-up mechanism buys `orderdash get TOKEN --json`: an interleaved A/B of the
command run through `cli.main` in a fresh `python -c`, with it and with it taken away (one
"without" arm per mechanism named), beside the `cli` case's floor (`import asyncio, httpx;
from pydantic import BaseModel`, httpx's command-line tool kept out).

    python bench/ab_cli.py freeze_at_exit pydantic_hook plain_http --rounds 20

Mechanisms: `freeze_at_exit` (objects frozen at exit: CPython's exit collection skips them),
`gc_pause` (no cyclic collection while `main` runs), `pydantic_hook` (pydantic's plugin finder
answered by an import hook instead of imported), `plain_http` (transports without a TLS
context). Each round runs every arm, the
order reversed every other round; one warm-up of each first. It prints, per arm, the median and
range of spawn to exit, of the child's CPU and of its peak RSS (wait4), and what the mechanism
buys: the difference of the medians, and the median of the per-round differences.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from common import child_env, median, simulator

#: What each arm's child runs before `main` to take a mechanism away.
TAKE_AWAY = {
    "freeze_at_exit": "from orderdash.core.runtime import startup\n"
    "startup.freeze_at_exit = lambda: None\n",
    "gc_pause": "from orderdash.core.runtime import startup\nstartup.pause = lambda: False\n",
    "pydantic_hook": "import os\nfrom orderdash.core.runtime import startup\n"
    "os.environ.setdefault(*startup.PYDANTIC_NO_PLUGINS)\n"
    "startup.no_pydantic_plugins = lambda: None\n",
    "plain_http": "import orderdash.core.service.transport as t\n"
    "from orderdash.core.service import plain_http as p\nhttpx = t.httpx\n"
    "p.PlainHTTPTransport = lambda: httpx.HTTPTransport(verify=False, limits=p.LIMITS)\n"
    "p.PlainAsyncHTTPTransport = lambda: httpx.AsyncHTTPTransport(verify=False, limits=p.LIMITS)\n",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mechanism", nargs="+", choices=sorted(TAKE_AWAY))
    parser.add_argument("--rounds", type=int, default=20)
    options = parser.parse_args()
    from orderdash.simulator import DEMO_TOKENS

    no_httpx_cli = "import sys; sys.modules['httpx._main'] = None\n"
    with simulator() as server:
        argv = ["get", DEMO_TOKENS[0], "--json", "--base-url", server.base_url]
        run_main = f"import sys\nfrom orderdash.cli import main\nsys.exit(main({argv!r}))\n"
        arms = {"with": run_main}
        for name in options.mechanism:
            arms[f"-{name}"] = TAKE_AWAY[name] + run_main
        arms["floor"] = no_httpx_cli + "import asyncio, httpx; from pydantic import BaseModel\n"
        samples: dict[str, list[tuple[float, float, float]]] = {arm: [] for arm in arms}

        def once(arm: str) -> tuple[float, float, float]:
            started = time.monotonic()
            process = subprocess.Popen(
                [sys.executable, "-c", arms[arm]],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
                env=child_env(),
            )
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.monotonic() - started
            if os.waitstatus_to_exitcode(status) != 0:
                assert process.stderr is not None
                raise RuntimeError(f"{arm} failed: {process.stderr.read()[-800:]!r}")
            assert process.stderr is not None
            process.stderr.close()
            return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024

        for arm in arms:
            once(arm)
        order = list(arms)
        for round_ in range(options.rounds):
            for arm in order if round_ % 2 == 0 else order[::-1]:
                samples[arm].append(once(arm))
            print(f"round {round_ + 1}", file=sys.stderr)

    print(f"`get --json` through cli.main; {options.rounds} interleaved rounds")
    for arm, values in samples.items():
        parts = []
        for index, unit, scale in ((0, "ms", 1000), (1, "ms CPU", 1000), (2, "MiB", 1)):
            column = [value[index] * scale for value in values]
            parts.append(f"{median(column):.1f} {unit} ({min(column):.0f}-{max(column):.0f})")
        print(f"{arm:16} " + "  ".join(parts))
    floor = median([value[0] for value in samples["floor"]])
    with_ = median([value[0] for value in samples["with"]])
    print(f"with: {with_ / floor:.3f}x the floor")
    for arm in arms:
        if arm in ("with", "floor"):
            continue
        for index, name, scale, unit in ((0, "time", 1000, "ms"), (1, "CPU", 1000, "ms")):
            a = median([value[index] for value in samples["with"]])
            b = median([value[index] for value in samples[arm]])
            paired = sorted(
                (y[index] - x[index]) * scale
                for x, y in zip(samples["with"], samples[arm], strict=True)
            )
            print(
                f"{arm}: buys {(b - a) * scale:.1f} {unit} = {(b - a) / a:.1%} of {name} "
                f"(paired median {median(paired):.1f}, {paired[0]:.0f} to {paired[-1]:.0f})"
                + (f"; without: {b / floor:.3f}x the floor" if index == 0 else "")
            )
        a = median([value[2] for value in samples["with"]])
        b = median([value[2] for value in samples[arm]])
        print(f"{arm}: buys {b - a:.2f} MiB of peak RSS")


if __name__ == "__main__":
    main()
