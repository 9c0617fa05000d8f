"""`e`: the watch list's rows as shown (after its filters, in its order) to a CSV file.

The rows and the file are the export use case's (`core/usecases/export.py`: the orders
export's columns, docs/books.md "Exports", its cells spreadsheet-safe); times in the store's
time zone (`timezone`). The file goes to the
user's download directory (else orderdash's data directory, never the current one: that may
be a project's checkout) under a new name: an existing file is never
overwritten (a suffix -2, -3... is added). The rows are made and written in a thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from platformdirs import user_data_path, user_downloads_path

from orderdash.core.model.errors import OrderdashError
from orderdash.core.safetext import clean, shorten_middle
from orderdash.core.usecases.export import export_list
from orderdash.core.usecases.reads import zone_named
from orderdash.tui.widgets.watch_list import WatchListPane

if TYPE_CHECKING:
    from textual.screen import Screen

    from orderdash.core.jsontypes import JSONValue
    from orderdash.core.settings.model import Settings
    from orderdash.core.watching.state import DashboardState
    from orderdash.tui.ui import Notify, RunWorker

log = logging.getLogger(__name__)

#: How much of the file's path the notice shows: a longer one keeps both ends around a "…".
PATH_SHOWN = 60


def export_directory() -> Path:
    """The user's download directory when there is one, else orderdash's data directory
    (made when first needed)."""
    try:
        downloads = user_downloads_path()
    except Exception:  # platformdirs guesses from the environment; any failure: the data dir
        downloads = None
    if downloads is not None and downloads.is_dir():
        return downloads
    data = user_data_path("orderdash")
    data.mkdir(parents=True, exist_ok=True)
    return data


def shown_path(path: Path) -> str:
    """`path` in at most `PATH_SHOWN` characters: the file's name whole, its directory cut in
    the middle ("…") when the whole does not fit."""
    whole = clean(str(path))
    if len(whole) <= PATH_SHOWN:
        return whole
    name = clean(path.name)
    room = max(PATH_SHOWN - len(name) - 1, 3)
    return f"{shorten_middle(clean(str(path.parent)), room)}/{name}"


def export_shown(
    screen: Screen[object],
    state: DashboardState,
    settings: Settings,
    notify: Notify,
    run_worker: RunWorker,
    directory: Callable[[], Path] | None = None,
) -> None:
    """The list on `screen` (the dashboard), as shown, to a new CSV file; what came of it told
    through `notify`, the file written in a worker (`run_worker`)."""
    panes = screen.query(WatchListPane)
    if not panes:
        notify("No watch list on this screen.", title="Export", markup=False)
        return
    pane = panes.first()
    try:
        zone = zone_named(settings.timezone)
    except OrderdashError as error:
        notify(error.message, title="Export", severity="error", markup=False)
        return
    shown: list[tuple[str, JSONValue]] = []
    for token in pane.shown_tokens():
        entry = state.entries.get(token)
        shown.append((token, entry.fetched.raw if entry and entry.fetched else None))
    now = datetime.fromtimestamp(state.clock(), UTC)
    try:
        where = (directory or export_directory)()
    except OSError as error:
        reason = error.strerror or str(error)
        notify(f"Not exported: {clean(reason)}", title="Export", severity="error", markup=False)
        return
    run_worker(_export(notify, shown, zone, where, now), group="export", exit_on_error=False)


async def _export(
    notify: Notify,
    shown: Sequence[tuple[str, JSONValue]],
    zone: tzinfo,
    directory: Path,
    now: datetime,
) -> None:
    try:
        path, count, bare = await asyncio.to_thread(export_list, shown, zone, directory, now)
    except OSError as error:
        log.warning("export failed: %s", error)
        reason = error.strerror or str(error)
        notify(
            f"Not exported: {clean(reason)} ({clean(str(directory))})",
            title="Export",
            severity="error",
            markup=False,
        )
        return
    unread = f"; {bare} not read yet: token only" if bare else ""
    rows = "row" if count == 1 else "rows"
    notify(f"Exported {count} {rows} to {shown_path(path)}{unread}", title="Export", markup=False)
