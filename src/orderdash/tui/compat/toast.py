"""Textual 8.2.8: (1) `ToastRack.show` removes a stale `Toast` but leaves its `ToastHolder` (an
empty widget, and its task) behind for every toast whose notification expired before its own timer
fired. No upstream issue known to us; found by the soak (tests/perf/test_soak.py). (2) Toasts
cleared while a modal screen is up stay drawn on the screens under it (`hide_below`).

Tests: tests/tui/test_compat.py::test_dismissed_toasts_leave_no_empty_holder;
tests/tui/test_toasts.py (no toast seen through a dialog).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.css.query import NoMatches
from textual.widgets._toast import Toast, ToastHolder, ToastRack

if TYPE_CHECKING:
    from textual.notifications import Notifications
    from textual.screen import Screen


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


def install() -> None:
    ToastRack.show = _show  # type: ignore[method-assign]


def hide_below(screens: Sequence[Screen[object]]) -> None:
    """Textual 8.2.8 refreshes only the current screen's toasts: cleared while a modal screen
    is up, they stay drawn on the screens under it, seen through it. Hidden there until each
    screen is current again (its `ToastRack.show` then shows what is left)."""
    for screen in screens:
        for rack in screen.query(ToastRack):
            rack.display = False
