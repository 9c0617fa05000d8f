"""Textual 8.2.8: `StylesCache.get_inner_outer` is an `lru_cache(1024)` on an instance method,
so it keeps the StylesCache (and its rendered lines) of up to 1024 removed widgets alive. Every
toast is two widgets: the soak (tests/perf/test_soak.py, a customer paying twice a second) grew by
~15 MB until 1024 were held. No upstream issue known to us; found by the soak.

Its result depends on the two colours alone: cached here by colour, holding no widget.
Test: tests/tui/test_compat.py::test_toasts_leave_no_styles_cache_behind.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from textual._styles_cache import StylesCache

if TYPE_CHECKING:
    from textual.color import Color
    from textual.style import Style

_ORIGINAL_INNER_OUTER: Callable[[object, Color, Color], tuple[Style, Style]] | None
_ORIGINAL_INNER_OUTER = getattr(StylesCache.get_inner_outer, "__wrapped__", None)


@lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    original = _ORIGINAL_INNER_OUTER
    assert original is not None  # install() puts this function in place only when it is
    # the original never reads its first argument (the instance)
    return original(None, base_background, background)


def _get_inner_outer(
    self: StylesCache, base_background: Color, background: Color
) -> tuple[Style, Style]:
    return _inner_outer(base_background, background)


def install() -> None:
    if _ORIGINAL_INNER_OUTER is not None and hasattr(StylesCache.get_inner_outer, "cache_info"):
        # the mend: a plain function where Textual has its lru_cache wrapper
        StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign, assignment]
