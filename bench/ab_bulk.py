"""What `core/runtime/bulk.py` buys the event loop: the `many` case's history measure (the
dashboard in account mode taking in one history page of 50,000 open orders, the worst lag of a
coroutine waking every 5 ms) with `let_go` and `bulk_objects`, and with each taken away (`let_go`
a no-op: the list is freed where its last reference goes; `bulk_objects` a no-op: the collector
runs as usual), interleaved, the order reversed every other round.

    python bench/ab_bulk.py --rounds 4      # from the repository root; ~20 s a round
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Iterator
from typing import Any

from case_many import history_lag
from common import median

#: The modules that import each of bulk.py's functions by name.
USERS = {
    "let_go": ("orderdash.tui.account", "orderdash.core.polling.account"),
    "bulk_objects": (
        "orderdash.tui.account",
        "orderdash.tui.steps",
        "orderdash.core.service.account_answers",
    ),
}


@contextlib.contextmanager
def _nothing() -> Iterator[None]:
    yield


@contextlib.contextmanager
def taken_away(name: str | None) -> Iterator[None]:
    import importlib

    if name is None:
        yield
        return
    stand_in: Any = (lambda objects: None) if name == "let_go" else _nothing
    saved = []
    for module_name in USERS[name]:
        module = importlib.import_module(module_name)
        if hasattr(module, name):
            saved.append((module, getattr(module, name)))
            setattr(module, name, stand_in)
    if name == "bulk_objects":  # account_answers imports it inside its function
        from orderdash.core.runtime import bulk

        saved.append((bulk, bulk.bulk_objects))
        bulk.bulk_objects = stand_in
    try:
        yield
    finally:
        for module, original in saved:
            setattr(module, name, original)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--extra", type=int, default=50_000)
    options = parser.parse_args()
    arms: dict[str, str | None] = {
        "with": None,
        "-let_go": "let_go",
        "-bulk_objects": "bulk_objects",
    }
    lags: dict[str, list[float]] = {arm: [] for arm in arms}
    order = list(arms)
    for round_ in range(options.rounds):
        for arm in order if round_ % 2 == 0 else order[::-1]:
            with taken_away(arms[arm]):
                lags[arm].append(asyncio.run(history_lag(options.extra)))
        print(f"round {round_ + 1}: {lags}", file=sys.stderr)
    print(f"history page of {options.extra:,} orders; {options.rounds} interleaved rounds")
    for arm, values in lags.items():
        print(
            f"{arm:14} worst lag {median(values) * 1000:.0f} ms "
            f"({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"
        )


if __name__ == "__main__":
    main()
