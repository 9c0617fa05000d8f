"""Two memory leaks and a stale-render bug of Textual 8.2, mended in place.

Each payment shows a toast (two widgets). Found by the soak test (tests/test_soak.py: 120 s of a
customer paying twice a second grew 18.4 -> 31.5 MB without these, +0.9 MB in 300 s with them):

- `StylesCache.get_inner_outer` is an `lru_cache(1024)` on an instance method, so it keeps the
  StylesCache (and its rendered lines) of up to 1024 removed widgets alive. Its result depends on
  the two colours alone: cached here by colour, holding no widget.
- `ToastRack.show` removes a stale `Toast` but leaves its `ToastHolder` (an empty widget) behind
  for every toast whose notification expired before its own timer fired.

A DataTable measures column widths on idle, after the cells changed. A frame drawn in between
caches the row's lines under the table's update count, and the later widening does not change
that count: the row keeps showing the longer value cut at the old width ("ACME [/]" for
"ACME [/] Corp") until some other change (Textual issue #3533; seen in CI on the watch list).
The measuring steps are wrapped here to count as an update when they change a width.

`install()` applies them once (`make_app` calls it). The dependency is pinned to 8.2.x; the
tests at the end of tests/test_soak.py check both leaks on the real app and
tests/test_textual_fixes.py the column widths, so an upgrade that changes any of these code
paths shows there.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import TYPE_CHECKING, Any

from textual._styles_cache import StylesCache
from textual.css.query import NoMatches
from textual.widgets import DataTable
from textual.widgets._toast import Toast, ToastHolder, ToastRack

if TYPE_CHECKING:
    from rich.style import Style
    from textual.color import Color
    from textual.notifications import Notifications

_installed = False


_ORIGINAL_INNER_OUTER = getattr(StylesCache.get_inner_outer, "__wrapped__", None)


@lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    # the original never reads its first argument (the instance)
    return _ORIGINAL_INNER_OUTER(None, base_background, background)


def _get_inner_outer(
    self: StylesCache, base_background: Color, background: Color
) -> tuple[Style, Style]:
    return _inner_outer(base_background, background)


def _show(self: ToastRack, notifications: Notifications) -> None:
    """`ToastRack.show` of Textual 8.2, removing a stale toast together with its holder."""
    self.display = bool(notifications)
    for toast in self.query(Toast):
        if toast._notification not in notifications:
            holder = toast.parent
            (holder if isinstance(holder, ToastHolder) else toast).remove()
    new = []
    for notification in notifications:
        try:
            self.get_child_by_id(self._toast_id(notification))
        except NoMatches:
            if not notification.has_expired:
                new.append(notification)
    if new:
        self.mount_all(ToastHolder(Toast(n), id=self._toast_id(n)) for n in new)
        self.call_later(self.scroll_end, animate=False, force=True)


def _column_widths(table: DataTable) -> list[int]:
    return [column.content_width for column in table.columns.values()] + [
        table._label_column.content_width
    ]


def _counting_width_changes(measure: Callable[..., None]) -> Callable[..., None]:
    @wraps(measure)
    def measure_and_invalidate(self: DataTable, *args: Any) -> None:
        before = _column_widths(self)
        measure(self, *args)
        if _column_widths(self) != before:
            # every row and line cache of DataTable is keyed by this count
            self._update_count += 1
            self.refresh()

    return measure_and_invalidate


def install() -> None:
    """Apply the mends (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    if _ORIGINAL_INNER_OUTER is not None and hasattr(StylesCache.get_inner_outer, "cache_info"):
        StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign]
    ToastRack.show = _show  # type: ignore[method-assign]
    for name in ("_update_column_widths", "_update_dimensions"):
        setattr(DataTable, name, _counting_width_changes(getattr(DataTable, name)))
