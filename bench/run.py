"""orderdash benchmarks: `python bench/run.py [--case NAME]... [--reps N] [--idle-seconds S]`.

Every figure is shown beside a baseline measured in the same run on the same machine, and the
targets are ratios or bounds on those figures (see bench/README.md).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Options, Row, machine  # noqa: E402

#: name -> (module, what it measures); run in this order.
CASES: dict[str, tuple[str, str]] = {
    "startup": ("case_startup", "orderdash tui TOKEN to the first paint of the order"),
    "cli": ("case_cli", "orderdash get TOKEN --json, wall time"),
    "latency": ("case_latency", "a new transaction until its row is painted"),
    "paid": ("case_paid", "a payment until the POS screen shows it, default settings"),
    "big": ("case_big", "an order with 10,000 transactions"),
    "qr": ("case_qr", "the QR widget for a 100-character URI"),
    "idle": ("case_idle", "CPU and repaints with one order open"),
    "watchlist": ("case_watchlist", "500 orders in the watch list"),
    "close": ("case_close", "the close of day of 1,000 orders"),
    "responsive": ("case_responsive", "the event loop while a hostile server QR image is read"),
    "many": ("case_many", "the event loop while a table takes thousands of rows"),
    "push": ("case_push", "the service's callbacks through the receiver to every till"),
}


def case_runner(name: str) -> Callable[[Options], list[Row]]:
    module_name, _ = CASES[name]
    return importlib.import_module(module_name).run


def render(rows: list[Row]) -> str:
    header = ("case", "figure", "baseline", "ratio", "target", "result")
    lines = [
        (
            row.case,
            row.figure,
            row.baseline,
            "\u2014" if row.ratio is None else f"{row.ratio:.3f}",
            row.target,
            row.result,
        )
        for row in rows
    ]
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *lines, strict=True)]

    def fmt(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    out = [fmt(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt(line) for line in lines]
    notes = [f"- {row.case}: {row.figure}: {row.note}" for row in rows if row.note]
    if notes:
        out += ["", "Notes:", *notes]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/run.py", description=__doc__)
    parser.add_argument(
        "--case",
        action="append",
        choices=list(CASES),
        metavar="NAME",
        help=f"run only this case (repeatable): {', '.join(CASES)}",
    )
    parser.add_argument("--reps", type=int, default=7, help="repetitions per measurement (7)")
    parser.add_argument(
        "--idle-seconds", type=float, default=60.0, help="length of the idle window (60)"
    )
    parser.add_argument(
        "--latency-runs", type=int, default=30, help="transactions timed by the latency case (30)"
    )
    parser.add_argument("--seed", type=int, default=7, help="simulator and jitter seed (7)")
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="progress on stderr")
    args = parser.parse_args(argv)
    if args.reps < 1 or args.idle_seconds <= 0 or args.latency_runs < 2:
        parser.error("--reps >= 1, --idle-seconds > 0 and --latency-runs >= 2")
    # the dashboards measured keep a ledger, as in use: a throw-away one, never the
    # developer's own books (the child processes inherit it)
    import os
    import tempfile

    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="orderdash-bench-")
    options = Options(
        reps=args.reps,
        idle_seconds=args.idle_seconds,
        latency_runs=args.latency_runs,
        seed=args.seed,
        verbose=args.verbose,
    )

    facts = machine()
    print("orderdash bench")
    for key, value in facts.items():
        print(f"  {key:<9} {value}")
    print(
        f"  options   reps={options.reps} idle_seconds={options.idle_seconds:g} "
        f"latency_runs={options.latency_runs}"
    )
    print(flush=True)

    rows: list[Row] = []
    started = time.monotonic()
    for name in args.case or list(CASES):
        case_started = time.monotonic()
        print(f"running {name}: {CASES[name][1]} ...", file=sys.stderr, flush=True)
        try:
            rows.extend(case_runner(name)(options))
        except Exception as error:  # noqa: BLE001 - one broken case must not hide the others
            traceback.print_exc()
            message = " ".join(str(error).split())[:120]
            rows.append(Row(name, f"error: {type(error).__name__}: {message}", passed=False))
        print(f"  {name} took {time.monotonic() - case_started:.1f} s", file=sys.stderr)
    print(render(rows))
    print(f"\ntotal {time.monotonic() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "machine": facts,
                    "rows": [
                        {
                            "case": r.case,
                            "figure": r.figure,
                            "baseline": r.baseline,
                            "ratio": r.ratio,
                            "target": r.target,
                            "result": r.result,
                            "note": r.note,
                            "data": r.data,
                        }
                        for r in rows
                    ],
                },
                indent=2,
                default=str,
            ),
            encoding="utf-8",
        )
    return 1 if any(row.result == "FAIL" for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
