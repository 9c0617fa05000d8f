"""Many objects made at once (core/runtime/bulk.py): the collector paused for the block, and
nothing kept out of later collections afterwards (a cycle that was alive as a huge page was
read is still collected once dropped)."""

from __future__ import annotations

import gc
import weakref

from orderdash.core.runtime.bulk import bulk_objects


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


def test_the_collector_is_paused_in_the_block_and_on_after_it() -> None:
    assert gc.isenabled()
    with bulk_objects():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_cycle_alive_during_the_block_is_collected_once_dropped() -> None:
    node = Node()
    gone = weakref.ref(node)
    with bulk_objects():
        items = [{"token": str(n)} for n in range(10_000)]
    assert gc.get_freeze_count() == 0  # nothing stays out of the collections
    del node, items
    gc.collect()
    assert gone() is None
