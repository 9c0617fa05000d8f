"""The watch list's lock path made unusable by someone else: a directory there keeps the list on
screen whole (what the file holds, and an order just added) with one notice, not one a second;
a dangling symlink there never creates its target. The store directly, and the dashboard
against the simulator."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import make_settings, wait_until
from orderdash.core.watching.watchlist_file import WatchListFile
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.widgets.watch_list import WatchTable

SIZE = (200, 50)
BASE, ADDED = DEMO_TOKENS[0], DEMO_TOKENS[1]


def saved_list(path: Path, tokens: list[str]) -> None:
    path.write_text(json.dumps({"version": 1, "tokens": tokens}))


def shown(app: OrderDashApp) -> list[str]:
    table = app.dashboard.query_one(WatchTable)
    return [table.coordinate_to_cell_key((row, 0)).row_key.value for row in range(table.row_count)]


def test_a_lock_directory_still_lets_the_list_be_read_and_refuses_saves(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    saved_list(path, [BASE])
    store = WatchListFile(path)
    store.lock_path.mkdir()
    tokens, warning = store.load()
    assert tokens == [BASE]
    assert warning is not None and "lock file" in warning and "not saved" in warning
    with pytest.raises(OSError, match="lock file"):
        store.apply(added=[ADDED])
    assert json.loads(path.read_text())["tokens"] == [BASE], "the file is left as it was"
    assert not store.changed(), "nothing to read again each second"


@pytest.mark.parametrize("how", ["load", "save"])
def test_a_dangling_symlink_at_the_lock_path_creates_nothing(tmp_path: Path, how: str) -> None:
    path = tmp_path / "w.json"
    saved_list(path, [BASE])
    target = tmp_path / "created-by-lock"
    store = WatchListFile(path)
    store.lock_path.symlink_to(target)
    if how == "load":
        assert store.load()[0] == [BASE]
    else:
        with pytest.raises(OSError):
            store.apply(added=[ADDED])
    assert not os.path.lexists(target)


async def test_a_lock_directory_keeps_the_list_on_screen_whole_with_one_notice(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    path = tmp_path / "w.json"
    saved_list(path, [BASE])
    (tmp_path / ".w.json.lock").mkdir()
    settings = make_settings(
        sim_server.base_url,
        poll_interval=0.3,
        refresh_interval=60.0,
        persist_watchlist=True,
        watchlist_file=str(path),
    )
    app = make_app(settings)
    told: list[str] = []
    notify = app.notify

    def recorded(message: str, **options: object) -> None:
        told.append(message)
        notify(message, **options)  # type: ignore[arg-type]

    app.notify = recorded  # type: ignore[method-assign]
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: BASE in app.state.entries)
        app.session.add_from_text(ADDED)
        await wait_until(pilot, lambda: sorted(shown(app)) == sorted([BASE, ADDED]))
        # another dashboard writes the file meanwhile: still nothing taken off this screen
        saved_list(path, [BASE, DEMO_TOKENS[2]])
        await pilot.pause(3.5)
        assert {BASE, ADDED} <= set(shown(app))
        assert len([m for m in told if "lock file" in m]) == 1, told
        assert not [m for m in told if "cannot read" in m or "not be saved" in m], told
    assert json.loads(path.read_text())["tokens"] == [BASE, DEMO_TOKENS[2]]
