"""This instance's watch-list changes on their way to the shared file.

One worker at a time merges them into the file (`WatchListFile.apply`), in the order they were
made; meanwhile what the file holds is taken in except these changes (`keep_local`). Plain and
thread-safe: the UI queues, a worker thread takes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable


class PendingChanges:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._added: dict[str, None] = {}
        self._removed: set[str] = set()
        self._flushing = False

    @property
    def flushing(self) -> bool:
        with self._lock:
            return self._flushing

    def queue(self, added: Iterable[str] = (), removed: Iterable[str] = ()) -> bool:
        """Queue a change; True when no worker is merging (the caller starts one)."""
        with self._lock:
            for token in added:
                self._removed.discard(token)
                self._added[token] = None
            for token in removed:
                self._added.pop(token, None)
                self._removed.add(token)
            start = not self._flushing
            self._flushing = True
            return start

    def take(self) -> tuple[list[str], set[str]] | None:
        """The changes queued so far (emptied), or None when there are none: the worker ends."""
        with self._lock:
            if not self._added and not self._removed:
                self._flushing = False
                return None
            return self._drain_locked()

    def drain(self) -> tuple[list[str], set[str]]:
        """Everything still queued (at exit, written by the caller)."""
        with self._lock:
            return self._drain_locked()

    def _drain_locked(self) -> tuple[list[str], set[str]]:
        added, removed = list(self._added), set(self._removed)
        self._added.clear()
        self._removed.clear()
        return added, removed

    def keep_local(self, in_file: list[str], watched: Iterable[str]) -> tuple[list[str], list[str]]:
        """What the file holds, against what is watched here: (gone, new) tokens, leaving out
        this instance's own changes still on their way."""
        with self._lock:
            added, removed = set(self._added), set(self._removed)
        in_file_set = set(in_file)
        watched = list(watched)
        watched_set = set(watched)  # once: this runs on the UI's loop, for up to MAX_TOKENS
        gone = [t for t in watched if t not in in_file_set and t not in added]
        new = [t for t in in_file if t not in removed and t not in watched_set]
        return gone, new
