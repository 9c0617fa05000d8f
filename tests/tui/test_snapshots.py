"""Snapshots of the screens people look at, from the same frozen scenes as screenshots/.

Regenerate after a deliberate UI change: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest

from support.scenes import scene, scene_app


@pytest.mark.parametrize(
    "name",
    [
        "order-with-payments",
        "stale",
        "narrow-80x24",
        "watch-list",
        "watch-list-120x40",
        "watch-list-80x24",
        "account",
        "close-day-120x40",
        "close-day-80x24",
        "close-day-glance-80x24",
        "attention-120x40",
        "attention-80x24",
        "pos-scan-to-pay",
        "pos-partly-paid",
        "pos-paid",
        "pos-paid-within-tolerance",
        "pos-rounded-up",
        "pos-choose-coin",
        "pos-not-found",
    ],
)
def test_scene_snapshot(snap_compare, name: str) -> None:  # noqa: ANN001 - pytest-textual-snapshot fixture
    chosen = scene(name)
    with scene_app(chosen) as app:
        assert snap_compare(app, terminal_size=chosen.size, run_before=chosen.taken)
