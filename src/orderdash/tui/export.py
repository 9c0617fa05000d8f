"""`e`: the watch list's rows as shown (after its filters, in its order) to a CSV file.

The columns are the orders export's (`core/books/export.py`, docs/books.md "Exports"), its
cells spreadsheet-safe; times in the store's time zone (`timezone`). The file goes to the
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
from typing import TYPE_CHECKING, Any

from orderdash.core.books.export import ORDER_COLUMNS, order_row, write_csv
from orderdash.core.books.orders import BadOrder, read_order, text
from orderdash.core.model.errors import OrderdashError
from orderdash.core.safetext import clean, shorten_middle

if TYPE_CHECKING:
    from textual.app import App

    from orderdash.core.settings.model import Settings
    from orderdash.core.watching.state import DashboardState

log = logging.getLogger(__name__)

#: Names tried before giving up (name.csv, name-2.csv, ...).
MAX_SUFFIX = 1000


#: How much of the file's path the notice shows: a longer one keeps both ends around a "…".
PATH_SHOWN = 60


def export_directory() -> Path:
    """The user's download directory when there is one, else orderdash's data directory
    (made when first needed)."""
    from platformdirs import user_data_path

    try:
        from platformdirs import user_downloads_path

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


def list_rows(shown: Sequence[tuple[str, Any]], zone: tzinfo) -> tuple[list[dict[str, Any]], int]:
    """One row per (token, getOrder data) in the given order; an order not read yet (or not
    readable) keeps its row with the token alone. Returns the rows and how many are such."""
    rows: list[dict[str, Any]] = []
    bare = 0

    def local(ms: int) -> datetime:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone(zone)

    for token, raw in shown:
        try:
            rows.append(order_row(read_order(raw), local))
        except BadOrder:
            bare += 1
            row: dict[str, Any] = dict.fromkeys(ORDER_COLUMNS, "")
            row.update(token=text(token))
            rows.append(row)
    return rows, bare


def write_new(directory: Path, stem: str, lines: Sequence[str]) -> Path:
    """Write `lines` to `directory/stem.csv`, or the first free `stem-N.csv`: never over a
    file that exists (opened with "x", so a file made meanwhile is not overwritten either)."""
    for n in range(1, MAX_SUFFIX + 1):
        path = directory / (f"{stem}.csv" if n == 1 else f"{stem}-{n}.csv")
        try:
            with path.open("x", encoding="utf-8", newline="") as file:
                file.writelines(lines)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"{directory / stem}.csv and {MAX_SUFFIX - 1} more exist already")


def export_file(
    shown: Sequence[tuple[str, Any]], zone: tzinfo, directory: Path, now: datetime
) -> tuple[Path, int, int]:
    """The rows written (blocking: run in a thread): the path, the rows, the bare rows."""
    rows, bare = list_rows(shown, zone)
    lines = list(write_csv(rows, ORDER_COLUMNS))
    stem = f"orderdash-list-{now.astimezone(zone):%Y%m%d-%H%M%S}"
    return write_new(directory, stem, lines), len(rows), bare


def export_shown(
    app: App[None],
    state: DashboardState,
    settings: Settings,
    directory: Callable[[], Path] | None = None,
) -> None:
    """The list on `app`'s screen (the dashboard's), as shown, to a new CSV file."""
    from orderdash.core.books.period import zone_named
    from orderdash.tui.widgets.watch_list import WatchListPane

    panes = app.screen.query(WatchListPane)
    if not panes:
        app.notify("No watch list on this screen.", title="Export", markup=False)
        return
    pane = panes.first()
    try:
        zone = zone_named(settings.timezone)
    except OrderdashError as error:
        app.notify(error.message, title="Export", severity="error", markup=False)
        return
    shown = []
    for token in pane.shown_tokens():
        entry = state.entries.get(token)
        shown.append((token, entry.fetched.raw if entry and entry.fetched else None))
    now = datetime.fromtimestamp(state.clock(), UTC)
    try:
        where = (directory or export_directory)()
    except OSError as error:
        reason = error.strerror or str(error)
        app.notify(f"Not exported: {clean(reason)}", title="Export", severity="error", markup=False)
        return
    app.run_worker(_export(app, shown, zone, where, now), group="export", exit_on_error=False)


async def _export(
    app: App[None],
    shown: Sequence[tuple[str, Any]],
    zone: tzinfo,
    directory: Path,
    now: datetime,
) -> None:
    try:
        path, count, bare = await asyncio.to_thread(export_file, shown, zone, directory, now)
    except OSError as error:
        log.warning("export failed: %s", error)
        reason = error.strerror or str(error)
        app.notify(
            f"Not exported: {clean(reason)} ({clean(str(directory))})",
            title="Export",
            severity="error",
            markup=False,
        )
        return
    unread = f"; {bare} not read yet: token only" if bare else ""
    rows = "row" if count == 1 else "rows"
    app.notify(
        f"Exported {count} {rows} to {shown_path(path)}{unread}", title="Export", markup=False
    )
