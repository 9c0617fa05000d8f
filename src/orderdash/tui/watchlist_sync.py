"""The watch list file and the app's state kept in step, off the event loop.

Reading and merging the file cost what the file holds, so both run in worker threads: the list
is read at start and whenever another dashboard changed the file (a stat a second), and this
instance's additions and removals are merged into it in order (`PendingChanges`), never
overwriting another instance's. The workers hand their `WatchListRead` / `WatchListSaved` back
here through the app's message queue (`call_later`, in order with its other messages). What the
file's changes mean for what is watched is the session's (`core/watching/session.py`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from orderdash.core.watching.pending import PendingChanges
from orderdash.core.watching.watchlist_file import MAX_TOKENS
from orderdash.tui.messages import WatchListRead, WatchListSaved
from orderdash.tui.ui import Tells, Works

if TYPE_CHECKING:
    from orderdash.core.watching.session import WatchSession

#: Seconds quitting waits, at most, for a merge of the watch list a worker is writing.
EXIT_WAIT = 1.0


class FileUi(Tells, Works, Protocol):
    """Runs the file's reads and merges in threads, hands their outcome back, tells of trouble."""


class WatchListSync:
    def __init__(
        self,
        ui: FileUi,
        session: WatchSession,
        *,
        started: Callable[[list[str]], None],
    ) -> None:
        """`ui` runs the workers and shows the notices; `started(saved)` once the list is read
        at start; the `session` takes in another instance's changes (`adopt(gone, new)`)."""
        self._ui = ui
        self._state = state = session.state
        self._store = state.store
        self._started = started
        self._adopt = session.adopt
        self._pending = PendingChanges()
        self._busy = False
        #: What the operator was told of the file's trouble and not since cleared: each is said
        #: once, not at every read or save while the trouble lasts.
        self._told: set[str] = set()

    def start(self, *, mounted: bool) -> None:
        """The list at start: a saved list is read in a worker while the dashboard mounts
        (`mounted` False; its answer is handled once the App's `on_mount` is done); with no file
        the list is known at once, once the dashboard is up (`mounted`)."""
        if self._store is None:
            if mounted:
                self._started([])
        elif not mounted:
            self._read(initial=True)

    def tick(self) -> None:
        """Once a second: another dashboard on the same list wrote the file?"""
        if self._store is not None and not self._busy and self._store.changed():
            self._read(initial=False)

    def room(self, count: int) -> int:
        """How many of `count` new orders fit under the cap (the user is told of the rest)."""
        room = max(MAX_TOKENS - len(self._state.entries), 0)
        if count > room:
            self.tell_full(count - room)
        return min(count, room)

    def tell_full(self, count: int) -> None:
        self._ui.notify(
            f"The watch list holds at most {MAX_TOKENS} orders: {count} not added "
            "(remove some with d first)",
            title="Watch list full",
            severity="warning",
            markup=False,
        )

    def save(self, added: Iterable[str] = (), removed: Iterable[str] = ()) -> None:
        """Queue this instance's change for the file; one worker merges the queue in order."""
        if self._store is None:
            return
        self._busy = True
        if self._pending.queue(added, removed):
            self._ui.run_worker(
                self._flush, group="watchlist-save", thread=True, exit_on_error=False
            )

    def flush_at_exit(self) -> None:
        """Quitting must not lose a change still queued (the store waits for a merge in
        progress, then takes this one), and leaves once a merge a worker took before is on
        disk too: what the operator saw kept is in the file when the program has ended."""
        added, removed = self._pending.drain()
        if self._store is not None and (added or removed):
            with contextlib.suppress(OSError):
                self._store.apply(added, removed)
        # bounded: one merge of at most MAX_TOKENS tokens; a worker cancelled before it ran
        # leaves the flag up, and its changes were drained and written just above
        give_up_at = time.monotonic() + EXIT_WAIT
        while self._pending.flushing and time.monotonic() < give_up_at:
            time.sleep(0.005)

    def _read(self, *, initial: bool) -> None:
        self._busy = True
        store = self._store
        assert store is not None

        def read() -> None:
            try:
                tokens, warning = store.load() if initial else store.reload()
            except OSError as error:
                tokens, warning = [], f"cannot read the watch list {store.path}: {error}"
            self._ui.call_later(self.read_done, WatchListRead(tokens, warning, initial))

        self._ui.run_worker(read, group="watchlist-read", thread=True, exit_on_error=False)

    def _flush(self) -> None:
        """Merge the queued changes into the file until none is left (one such worker at a
        time, so the changes reach the file in the order they were made)."""
        assert self._store is not None
        while (changes := self._pending.take()) is not None:
            try:
                saved = self._store.apply(*changes)
            except OSError as error:
                self._ui.call_later(self.save_done, WatchListSaved([], [], None, error=str(error)))
                continue
            saved_message = WatchListSaved(saved.tokens, saved.refused, saved.warning)
            self._ui.call_later(self.save_done, saved_message)

    def _tell(self, trouble: str, text: str, **options: Any) -> None:
        if trouble not in self._told:
            self._told.add(trouble)
            self._ui.notify(text, markup=False, **options)

    def read_done(self, message: WatchListRead) -> None:
        self._busy = False
        if message.warning:
            self._tell(message.warning, message.warning, title="Watch list", severity="warning")
        if message.initial:
            self._started(message.tokens)
        elif message.warning is None:
            self._told.clear()
            self._adopt(*self._pending.keep_local(message.tokens, self._state.kept()))
        # else: what was read is not the whole list (unreadable, set aside, or this instance
        # cannot save its own changes): the list on screen stays as it is

    def save_done(self, message: WatchListSaved) -> None:
        self._busy = self._pending.flushing
        if message.error is not None:
            store = self._store
            if store is not None and message.error == store.lock_problem:
                # said at start (or by the save before): one notice while it lasts
                self._tell(message.error, message.error, title="Watch list", severity="error")
            else:
                text = f"The watch list could not be saved: {message.error}"
                self._tell(message.error, text, severity="error")
            return
        self._told.clear()
        if message.warning:
            self._tell(message.warning, message.warning, title="Watch list", severity="warning")
        if message.refused:
            self.tell_full(len(message.refused))
        self._adopt(*self._pending.keep_local(message.tokens, self._state.kept()))
