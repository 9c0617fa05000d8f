"""Driving the real app for measurements: a driver that renders like a terminal but writes
nowhere, a log of every paint, and probes around the dashboard's handling of a fetched order.

Everything here patches instances or classes of the process it runs in; no project file is
changed. Imported only by cases that run the app (it imports textual).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from terminal import SIZE
from textual._compositor import LayoutUpdate
from textual.app import App
from textual.drivers.headless_driver import HeadlessDriver


class CountingDriver(HeadlessDriver):
    """A terminal driver without a terminal: Textual builds every escape sequence as for a real
    one (it skips that for headless drivers), and this counts the bytes instead of writing them.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bytes_written = 0
        self.writes = 0

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        self.bytes_written += len(data.encode("utf-8", "replace"))
        self.writes += 1

    def flush(self) -> None:
        pass


@dataclass
class Paint:
    wall: float  # time.monotonic() at the end of the paint
    cpu: float  # time.thread_time() at the end of the paint
    cells: int  # screen cells the update covered
    full: bool  # a full-screen update


@dataclass
class PaintLog:
    """Every paint (non-empty compositor update) of an app, with the cells it covered."""

    app: App[Any]
    paints: list[Paint] = field(default_factory=list)
    _listeners: list[Callable[[Paint], None]] = field(default_factory=list)

    def install(self) -> PaintLog:
        original = self.app._display

        def display(screen: Any, renderable: Any) -> None:
            batched = bool(self.app._batch_count)
            original(screen, renderable)
            if renderable is None or batched:
                return
            if isinstance(renderable, LayoutUpdate):
                cells, full = renderable.region.area, True
            else:
                spans = getattr(renderable, "spans", ())
                cells, full = sum(x2 - x1 for _, x1, x2 in spans), False
            paint = Paint(time.monotonic(), time.thread_time(), cells, full)
            self.paints.append(paint)
            for listener in list(self._listeners):
                listener(paint)

        self.app._display = display  # type: ignore[method-assign]
        return self

    def watch(self, condition: Callable[[], bool] = lambda: True) -> asyncio.Future[Paint]:
        """A future for the first paint from now after which `condition()` holds.

        Register it before causing the change, so a quick paint cannot be missed."""
        found: asyncio.Future[Paint] = asyncio.get_running_loop().create_future()

        def listener(paint: Paint) -> None:
            if found.done():
                return
            if condition():
                found.set_result(paint)
                self._listeners.remove(listener)

        self._listeners.append(listener)
        found.add_done_callback(
            lambda _: listener in self._listeners and self._listeners.remove(listener)
        )
        return found

    async def next_paint(
        self, condition: Callable[[], bool] = lambda: True, within: float = 30.0
    ) -> Paint | None:
        """The first paint from now after which `condition()` holds; None if none `within` s."""
        found = self.watch(condition)
        try:
            return await asyncio.wait_for(found, within)
        except TimeoutError:
            return None

    @property
    def driver(self) -> CountingDriver:
        driver = self.app._driver
        assert isinstance(driver, CountingDriver)
        return driver


async def run_app(
    app: App[Any],
    body: Callable[[App[Any], PaintLog], Any],
    *,
    size: tuple[int, int] = SIZE,
) -> Any:
    """Run `app` in this event loop with the counting driver; `await body(app, paints)` once it is
    ready, then exit. Nothing may print while it runs (Textual captures stdout)."""
    paints = PaintLog(app).install()
    app.driver_class = CountingDriver
    result: list[Any] = []

    async def pilot(_: Any) -> None:
        try:
            result.append(await body(app, paints))
        finally:
            app.exit()

    await app.run_async(size=size, mouse=False, auto_pilot=pilot)
    return result[0] if result else None


async def wait_for(condition: Callable[[], bool], within: float = 30.0, step: float = 0.01) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(step)


def screen_text(app: App[Any]) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


# -- probes around the dashboard's handling of an order ----------------------------------------

#: The DataTable calls that change what the table holds or shows.
TABLE_OPERATIONS = (
    "add_row",
    "add_rows",
    "add_column",
    "update_cell",
    "update_cell_at",
    "remove_row",
    "clear",
    "sort",
    "move_cursor",
)


@dataclass
class Handling:
    """One OrderFetched message as the dashboard handled it."""

    new_ids: tuple[int, ...]
    started: float  # time.monotonic()
    table_render_before: float  # DashboardProbe.table_render when the handling started
    started_cpu: float  # thread_time
    handler: float = 0.0  # wall seconds in the dashboard's handler
    handler_cpu: float = 0.0
    pane_show: float = 0.0  # UI-thread CPU seconds in TransactionsPane.show
    table_sync: float = 0.0  # UI-thread CPU seconds in TransactionsTable.sync
    table_ops: Counter[str] = field(default_factory=Counter)


@contextlib.contextmanager
def patched(owner: Any, name: str, replacement: Any) -> Iterator[None]:
    original = owner.__dict__.get(name, None)
    setattr(owner, name, replacement)
    try:
        yield
    finally:
        if original is None:
            delattr(owner, name)
        else:
            setattr(owner, name, original)


class DashboardProbe:
    """Times the dashboard's handling of each fetched order and counts the table operations."""

    def __init__(self) -> None:
        self.handlings: list[Handling] = []
        self.outside_ops: Counter[str] = Counter()  # table operations outside any handling
        #: UI-thread CPU seconds the table has spent rendering lines and in its idle work
        #: (measuring new rows), ever: take the difference over a window.
        self.table_render = 0.0
        self._active: Handling | None = None
        self._depth = 0
        self._handled = asyncio.Event()

    @contextlib.contextmanager
    def installed(self) -> Iterator[DashboardProbe]:
        from orderdash.tui.messages import OrderFetched
        from orderdash.tui.screens.dashboard import DashboardScreen
        from orderdash.tui.widgets.transactions import TransactionsPane, TransactionsTable

        probe = self
        on_message = DashboardScreen._on_message

        async def timed_on_message(screen: Any, message: Any) -> None:
            if not isinstance(message, OrderFetched):
                await on_message(screen, message)
                return
            handling = Handling(
                new_transaction_ids(message),
                time.monotonic(),
                probe.table_render,
                time.thread_time(),
            )
            probe._active = handling
            try:
                await on_message(screen, message)
            finally:
                handling.handler = time.monotonic() - handling.started
                handling.handler_cpu = time.thread_time() - handling.started_cpu
                probe._active = None
                probe.handlings.append(handling)
                probe._handled.set()

        # UI-thread CPU time (thread_time), not wall time: the figures must not grow when other
        # processes share the cores; these calls never wait, so on an idle machine both agree
        def timed(function: Callable[..., Any], attribute: str) -> Callable[..., Any]:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                started = time.thread_time()
                try:
                    return function(*args, **kwargs)
                finally:
                    if probe._active is not None:
                        elapsed = time.thread_time() - started
                        setattr(
                            probe._active, attribute, getattr(probe._active, attribute) + elapsed
                        )

            return wrapper

        def counted(function: Callable[..., Any], name: str) -> Callable[..., Any]:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                if probe._depth == 0:
                    target = probe._active.table_ops if probe._active else probe.outside_ops
                    target[name] += 1
                probe._depth += 1
                try:
                    return function(*args, **kwargs)
                finally:
                    probe._depth -= 1

            return wrapper

        def accumulated(function: Callable[..., Any]) -> Callable[..., Any]:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                started = time.thread_time()
                try:
                    return function(*args, **kwargs)
                finally:
                    probe.table_render += time.thread_time() - started

            return wrapper

        with contextlib.ExitStack() as stack:
            stack.enter_context(patched(DashboardScreen, "_on_message", timed_on_message))
            stack.enter_context(
                patched(
                    TransactionsTable,
                    "render_lines",
                    accumulated(TransactionsTable.render_lines),
                )
            )
            # what DataTable does on idle after rows or cells change (not _on_idle itself: Textual
            # calls the handler of every class in the MRO)
            for name in ("_update_dimensions", "_update_column_widths"):
                stack.enter_context(
                    patched(TransactionsTable, name, accumulated(getattr(TransactionsTable, name)))
                )
            stack.enter_context(
                patched(TransactionsPane, "show", timed(TransactionsPane.show, "pane_show"))
            )
            stack.enter_context(
                patched(TransactionsTable, "sync", timed(TransactionsTable.sync, "table_sync"))
            )
            for name in TABLE_OPERATIONS:
                stack.enter_context(
                    patched(
                        TransactionsTable, name, counted(getattr(TransactionsTable, name), name)
                    )
                )
            yield self

    async def handling(self, index: int, within: float = 60.0) -> Handling:
        """The `index`-th OrderFetched the dashboard handled, waiting for it if need be.

        Take `len(probe.handlings)` before asking for a refresh and pass it here."""
        deadline = time.monotonic() + within
        while len(self.handlings) <= index:
            self._handled.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the dashboard handled no order in time")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._handled.wait(), remaining)
        return self.handlings[index]


def refresh_now(dashboard: Any) -> None:
    """Ask the dashboard's watcher for the order on screen now (one watcher per order, or one
    watcher for the whole watch list that takes the token)."""
    import inspect

    # the session's (it owns the watching), else the dashboard's own in older trees
    session = getattr(dashboard, "session", None)
    watcher = session.watcher if session is not None else dashboard.watcher
    if inspect.signature(watcher.refresh_now).parameters:
        watcher.refresh_now(dashboard.state.token)
    else:
        watcher.refresh_now()


def new_transaction_ids(message: Any) -> tuple[int, ...]:
    """The new ids an OrderFetched carries (directly, or in its `change` in newer versions)."""
    ids = getattr(message, "new_transaction_ids", None)
    if ids is None:
        ids = getattr(getattr(message, "change", None), "new_transaction_ids", ())
    return tuple(ids)


def table_settled(table: Any) -> bool:
    """The DataTable has measured its new rows and cells (its idle work is done)."""
    return not (table._require_update_dimensions or table._updated_cells or table._new_rows)
