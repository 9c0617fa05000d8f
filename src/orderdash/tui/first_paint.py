"""The start-up's first paint: one paint, with the order that opens on it.

The order the start opens is asked for before any screen composes (`prefetch`); the App's
painting is held (`App.batch_update`) until that order's first read is on the dashboard, or for
`FIRST_PAINT_WAIT`; then, once, what waits for the first paint goes: the renders skipped under
the hold, the collector (`core/runtime/startup.py`), the requests held back, a log-in and
whatever the App starts after it (the ledger's writing, the account's history). The settings'
warnings are told once the App is mounted.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Protocol

from textual.screen import Screen

from orderdash.core.runtime import startup
from orderdash.core.watching.watchlist_file import first_token, parse_tokens
from orderdash.tui.compat.held_render import HeldRenderScreen
from orderdash.tui.parts import Parts
from orderdash.tui.screens.dashboard import DashboardScreen
from orderdash.tui.ui import Tells

#: At start-up the screen paints nothing until the order it opens is on it, or for this long.
FIRST_PAINT_WAIT = 0.5


class Painting(Tells, Protocol):
    """Textual's App as the start-up holds its painting and ends the hold, and tells what the
    settings warn of."""

    def batch_update(self) -> contextlib.AbstractContextManager[None]: ...

    def set_timer(self, delay: float, callback: Callable[[], object]) -> object: ...

    @property
    def screen_stack(self) -> Sequence[Screen[object]]: ...

    def call_after_refresh(self, callback: Callable[..., object], *args: object) -> bool: ...


class FirstPaint:
    def __init__(
        self,
        painting: Painting,
        parts: Parts,
        tokens: Sequence[str],
        *,
        dashboard: Callable[[], DashboardScreen],
        point_of_sale: Callable[[], None] | None,
        standalone: bool,
        after: Sequence[Callable[[], None]],
    ) -> None:
        """`tokens` are the orders given on the command line (the first opens); `point_of_sale`
        opens it there (None: not asked for), `standalone` even without an order; `after`
        run in turn once the first paint is up."""
        self._painting, self._session, self._client = painting, parts.session, parts.client
        self._tokens = list(tokens)
        self._dashboard, self._point_of_sale = dashboard, point_of_sale
        self._standalone = standalone
        self._after = list(after)
        #: Warnings shown once the screen is up (the terminal's earlier output is hidden).
        self._warnings = list(parts.notices)
        # a log-in waits for the first paint: it must not make the start-up slower
        self._client.login_after = asyncio.Event()
        #: The order the start-up opens (asked for before any screen composes).
        self.first: str | None = None
        #: The hold on painting until its first read is on the dashboard.
        self._hold = contextlib.ExitStack()
        self.painted = False

    async def prefetch(self) -> None:
        """The first event in the running loop, before any screen composes: the order that
        opens is asked for now, and its answer arrives while the dashboard is being built (the
        watcher's first read of it takes this answer: `OrderWatcher.prefetch`)."""
        self.first = first_token(self._tokens)
        if self.first is not None:
            watcher = self._session.watcher
            watcher.prefetch(self.first)
            watcher.hold()  # the rest is sent after the first paint
            await asyncio.sleep(0)  # the request starts (connects) before the screen composes

    @property
    def held(self) -> bool:
        """Painting waits for an order's first read (`hold`)."""
        return self.first is not None

    def hold(self) -> None:
        """The App is mounting: with an order to open, one first paint, with the order (the
        empty dashboard painted first and then again with the order cost a whole layout and
        render in between, ~50 ms)."""
        if self.first is not None:
            self._hold.enter_context(self._painting.batch_update())
            self._painting.set_timer(FIRST_PAINT_WAIT, self.paint)

    def mounted(self) -> None:
        """The App is mounted: with no order's first read to wait for, the first paint now; the
        settings' warnings, on the screen now up."""
        if not self.held:
            self.paint()
        for text in self._warnings:
            self._painting.notify(
                text, title="Settings", severity="warning", timeout=20, markup=False
            )

    def list_known(self, saved: list[str]) -> None:
        """The saved list is known: it and the given tokens are watched, the first given opens
        (on the point of sale if asked). The watcher has not run yet, so its first read of that
        order is the focused one."""
        given = parse_tokens("\n".join(self._tokens), known=saved)
        self._session.watch(saved, save=False)
        self._session.watch(given.tokens, save=True)
        first = next(iter(given.tokens + given.duplicates), None)
        self._dashboard().start(first, [reason for _, reason in given.invalid])
        if first is None or first not in self._session.state.entries:
            self.paint()  # no first read to wait for
        if self._point_of_sale is not None and (first is not None or self._standalone):
            # (standalone: the point of sale even without an order, never the dashboard)
            self._point_of_sale()

    def read(self, token: str) -> None:
        """The dashboard handled a read's report (the order, or why not, is on it): the first
        read of the order that opens ends the hold on painting."""
        if token == self.first:
            self.paint()

    def paint(self) -> None:
        """The hold on painting ends (if there was one): what waits for the first paint
        follows it, once."""
        self._hold.close()
        if not self.painted:
            self.painted = True
            for screen in self._painting.screen_stack:
                if isinstance(screen, HeldRenderScreen):
                    screen.end_of_hold()  # the renders skipped under the hold, now
            # the first paint is the end of the start-up (core/runtime/startup.py)
            self._painting.call_after_refresh(startup.resume)
            self._painting.call_after_refresh(self._painted)

    def _painted(self) -> None:
        """Up: the requests held back go, a log-in may go now, and the App's `after`."""
        self._session.watcher.release()
        if self._client.login_after is not None:
            self._client.login_after.set()
        for after in self._after:
            after()

    def close(self) -> None:
        """Quitting: no hold left behind (quit before the first read came)."""
        self._hold.close()
