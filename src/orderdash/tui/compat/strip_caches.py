"""Textual 8.2.8 makes seven caches (`FIFOCache`, each with its own dict) for every `Strip` it
creates, one strip per line of every widget at every render and more as the compositor cuts
them: ~680 strips at the dashboard's first paint, ~4,800 caches, of which ~390 were ever used
(counted at the first paint of the bench's start-up child). Here a strip makes each cache the
first time it uses it, as Textual's own `Content` does with its divide cache: the same strips,
~0.6 MiB less at the first paint and seven allocations fewer per strip.

Test: tests/tui/test_compat.py::test_strips_make_their_caches_when_first_used.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip

#: Each cache of a Textual 8.2.8 strip and its size, as `Strip.__init__` makes them.
CACHE_SIZES = {
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}


def _init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None) -> None:
    """`Strip.__init__` of Textual 8.2.8 without its caches."""
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def _make_cache(self: Strip, name: str) -> FIFOCache[object, object]:
    """An unset cache slot of a strip (Python calls this only when the slot is empty): made
    now and kept in the slot."""
    size = CACHE_SIZES.get(name)
    if size is None:
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
    cache: FIFOCache[object, object] = FIFOCache(size)
    setattr(self, name, cache)
    return cache


#: Textual's own `Strip.__init__` (the test compares the caches it makes with CACHE_SIZES).
_TEXTUAL_INIT = Strip.__init__


#: What `install` sets on Textual's `Strip`: its constructor, and a `__getattr__` it does not
#: declare (set by name: the class is changed in place, which no type describes).
_PATCHES = (("__init__", _init), ("__getattr__", _make_cache))


def install() -> None:
    if Strip.__init__ is _init:
        return
    for name, function in _PATCHES:
        setattr(Strip, name, function)
