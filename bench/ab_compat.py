"""What one speed patch of `orderdash.tui.compat`, or one other start-up mechanism, buys at
start-up: an interleaved A/B of the start-up case's dashboard child with it and without it (a
patch's `install` made a no-op in the child, or for `held_render` Textual's own screen methods;
both arms import its module at the same point), beside the floor with one use (the child's
`used` mode). The other mechanisms (bench/child_app.py `MECHANISMS`): `gc_pause` (the
collector paused until the first paint), `first_read_thread` (the first getOrder in a thread of
its own before Textual is imported; without it, through the async client once the loop runs),
`first_paint_hold` (nothing painted until the order is on the dashboard).

    python bench/ab_compat.py strip_caches --rounds 12     # from the repository root
    python bench/ab_compat.py first_read_thread --rounds 16 --service-delay 0.1
    python bench/ab_compat.py --against /tmp/before/src --rounds 16

`--against SRC`: a change to the tree instead of a patch: the "without" arm runs the tree whose
`src` directory is SRC (e.g. `git archive HEAD~1 src | tar -x -C /tmp/before`), put first on
its PYTHONPATH.

`--service-delay S`: the simulator answers getOrder after S seconds, as a service far away
would (the floor with one use waits for it too). Each round runs the three children in turn,
the order reversed every other round; one warm-up of each first (byte-code caches). It prints, per
kind, the median and the range of the first paint (spawn to the paint showing the order) and of
the peak RSS (wait4), and what the patch buys: the difference of the medians, as a share of the
first paint with the patch, and in MiB of peak RSS.
"""

from __future__ import annotations

import argparse
import os
import sys

from case_startup import run_app_child
from common import child_env, median, simulator, token_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "patch", nargs="*", help="module names under orderdash.tui.compat, or mechanisms (above)"
    )
    parser.add_argument(
        "--against", metavar="SRC", help="the 'without' arm runs the tree whose src is SRC"
    )
    parser.add_argument(
        "--each",
        action="store_true",
        help="one 'without' arm per patch named (each taken away alone), all interleaved",
    )
    parser.add_argument(
        "--collect",
        action="store_true",
        help="also time one full collection at the first paint (thread CPU)",
    )
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--service-delay",
        type=float,
        default=0.0,
        help="seconds the simulator waits before answering getOrder (a service far away)",
    )
    options = parser.parse_args()
    if not options.patch and not options.against:
        parser.error("name a patch or mechanism, or --against SRC")
    from orderdash.simulator import DEMO_TOKENS
    from orderdash.simulator.faults import Fault

    app = {"mode": "orderdash", "patches": options.patch, "time_collect": options.collect}
    kinds: dict[str, dict[str, object]] = {"with": app}
    if options.each:
        for patch in options.patch:
            kinds[f"-{patch}"] = {**app, "without": [patch]}
    else:
        kinds["without"] = {**app, "without": [] if options.against else options.patch}
    kinds["used"] = {"mode": "used"}
    samples: dict[str, list[tuple[float, float, float, float]]] = {kind: [] for kind in kinds}
    with simulator() as server, token_file() as path:
        if options.service_delay > 0:
            server.sim.add_fault(Fault(endpoint="order", delay=options.service_delay))
        spec = {"base_url": server.base_url, "token": DEMO_TOKENS[0], "token_file": str(path)}

        before = None
        if options.against:
            before = {**child_env(), "PYTHONPATH": os.path.abspath(options.against)}

        def once(kind: str) -> tuple[float, float, float, float]:
            env = before if kind == "without" else None
            data, child = run_app_child({**spec, **kinds[kind]}, env=env)
            return (
                data["paint_at"] - child.started,
                child.max_rss_kib / 1024,
                data["cpu_at_paint"],
                data.get("collect_cpu", 0.0),
            )

        for kind in kinds:
            once(kind)
        order = list(kinds)
        for round_ in range(options.rounds):
            for kind in order if round_ % 2 == 0 else order[::-1]:
                samples[kind].append(once(kind))
            print(
                f"round {round_ + 1}: "
                + ", ".join(
                    f"{k} {samples[k][-1][0] * 1000:.0f} ms {samples[k][-1][1]:.2f} MiB"
                    for k in kinds
                ),
                file=sys.stderr,
            )

    def stats(kind: str, index: int) -> tuple[float, float, float]:
        values = [sample[index] for sample in samples[kind]]
        return median(values), min(values), max(values)

    delay = (
        f", getOrder answered after {options.service_delay:g} s" if options.service_delay else ""
    )
    what = f"the tree in {options.against}" if options.against else ", ".join(options.patch)
    print(f"without: {what}; {options.rounds} interleaved rounds{delay}")
    for kind in kinds:
        t, t0, t1 = stats(kind, 0)
        r, r0, r1 = stats(kind, 1)
        c, c0, c1 = stats(kind, 2)
        line = (
            f"{kind:20} first paint {t * 1000:6.1f} ms ({t0 * 1000:.0f}-{t1 * 1000:.0f})  "
            f"CPU to it {c * 1000:6.1f} ms ({c0 * 1000:.0f}-{c1 * 1000:.0f})  "
            f"peak RSS {r:6.2f} MiB ({r0:.2f}-{r1:.2f})"
        )
        if options.collect and kind != "used":
            g, g0, g1 = stats(kind, 3)
            line += f"  full collection {g * 1000:.1f} ms ({g0 * 1000:.1f}-{g1 * 1000:.1f})"
        print(line)
    used = {index: stats("used", index)[0] for index in (0, 1, 2)}
    for kind in kinds:
        if kind in ("with", "used"):
            continue
        print(f"taken away: {kind.lstrip('-')}")
        for index, name in ((0, "first paint"), (2, "CPU to the first paint")):
            with_, without = stats("with", index)[0], stats(kind, index)[0]
            paired = sorted(
                b[index] - a[index] for a, b in zip(samples["with"], samples[kind], strict=True)
            )
            print(
                f"  buys {(without - with_) * 1000:.1f} ms = {(without - with_) / with_:.1%} of "
                f"{name} (paired per round: median {median(paired) * 1000:.1f} ms, "
                f"{paired[0] * 1000:.0f} to {paired[-1] * 1000:.0f}); over floor + one use: "
                f"with {with_ / used[index]:.3f}x, without {without / used[index]:.3f}x"
            )
        with_r, without_r = stats("with", 1)[0], stats(kind, 1)[0]
        paired_r = sorted(b[1] - a[1] for a, b in zip(samples["with"], samples[kind], strict=True))
        print(
            f"  buys {without_r - with_r:.2f} MiB of peak RSS (paired: median "
            f"{median(paired_r):.2f}, {paired_r[0]:.2f} to {paired_r[-1]:.2f}); over floor + one "
            f"use: with {with_r / used[1]:.3f}x, without {without_r / used[1]:.3f}x"
        )


if __name__ == "__main__":
    main()
