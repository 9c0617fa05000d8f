"""Work on the event loop too large for one turn of it, done in bounded steps.

A table of thousands of rows (the watch list with the account's open orders, the attention
view) cannot be filled in one call without holding the screen: every row is made, added and
measured. `Steps` runs such work as a generator that yields after each bounded step: the first
step at once (a small table is whole before the caller returns), each next one after the loop
has turned, so that keys, timers and paints come in between. `StepCount` is what a step counts
its work against; `KeptRow` keeps a table's cursor on its row meanwhile.

A step makes many objects that stay (rows, cells), and thousands of rows set off full
collections of the cyclic collector one after another, each a walk over every object the
dashboard holds (~0.1-0.15 s at 5,000 watched orders on 2 busy cores), in whichever step
happened to allocate: each step after the first (a run too large for one) runs with the
collector paused, its objects moved into the oldest generation without a walk as it ends
(`core/runtime/bulk.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Container, Iterator
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from orderdash.core.runtime.bulk import bulk_objects

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.widgets import DataTable


class StepCount:
    """Units of work (rows made, added, updated) counted against one step's bound."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self._done = 0

    def full(self, units: int = 1) -> bool:
        """`units` more done: True when the step has done its share (the count starts again)."""
        self._done += units
        if self._done < self.bound:
            return False
        self._done = 0
        return True


class Steps:
    """Runs `work()`, a generator yielding after each bounded step, on `owner`'s event loop:
    the first step when asked, the next ones each after a turn of the loop (in a worker of
    `group`, ended with `owner`). Asked again while a run is under way, `work()` runs once more
    after it: a run is never restarted midway (one that kept being restarted by a stream of
    changes would never end)."""

    def __init__(self, owner: DOMNode, work: Callable[[], Iterator[None]], *, group: str) -> None:
        self._owner = owner
        self._work = work
        self._group = group
        self._run: Iterator[None] | None = None
        self._again = False
        #: A worker is taking the run's next steps.
        self._turning = False

    @property
    def under_way(self) -> bool:
        """A run has begun and not ended (or another is asked for after it)."""
        return self._run is not None

    def ask(self) -> None:
        """Run `work()` (after the run under way, if one is)."""
        if self._run is not None:
            self._again = True
            return
        self._run = self._work()
        self._step()
        if self._run is not None and not self._turning:
            self._turning = True
            self._owner.run_worker(self._turns(), group=self._group)

    def _step(self, *, bulk: bool = False) -> None:
        assert self._run is not None
        try:
            with bulk_objects() if bulk else nullcontext():
                next(self._run)
        except StopIteration:
            self._run = None
            if self._again:
                self._again = False
                self._run = self._work()

    async def _turns(self) -> None:
        try:
            while self._run is not None:
                await asyncio.sleep(0)  # one turn of the loop: what waits runs first
                self._step(bulk=True)
        finally:
            self._turning = False
            self._run = None  # (cancelled: the owner is gone, and its run with it)


def under_cursor(table: DataTable[Any]) -> str | None:
    """The key of the row under `table`'s cursor (None when there is none)."""
    if not 0 <= table.cursor_row < table.row_count:
        return None
    row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
    return None if row_key.value is None else str(row_key.value)


class KeptRow:
    """The row a table's cursor stays on while steps change the rows (emptying the table,
    removals and a sort move the cursor by index, not by row): taken as each step begins (the
    person may have moved meanwhile), put back as it ends."""

    def __init__(self, key: str | None = None) -> None:
        self.key = key

    def take(self, table: DataTable[Any], coming: Container[str]) -> None:
        """The row under the cursor, unless the kept one is still to come (the table was
        emptied and is filled again)."""
        if self.key is None or self.key in table.rows or self.key not in coming:
            self.key = under_cursor(table) or self.key

    def put(self, table: DataTable[Any], *, scroll: bool = True) -> None:
        key = self.key
        if key is not None and key in table.rows:
            index = table.get_row_index(key)
            if table.cursor_row != index:
                table.move_cursor(row=index, scroll=scroll)
