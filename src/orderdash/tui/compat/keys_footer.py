"""Textual 8.2.8: the footer of keys, rebuilt only when the keys it shows change, and its keys
built with the footer's style from the start. Performance, not a bug: no upstream issue. It
overrides `Footer.bindings_changed` and sets the Footer's private `_bindings_ready`, which is why
it lives here.

Tests: tests/test_perf_repaints.py::test_the_footer_is_rebuilt_only_when_its_keys_change,
tests/test_startup_order.py::test_footer_keys_are_styled_once.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeysFooter(Footer):
    """Textual's Footer, which rebuilds its ~20 key widgets whenever the screen's bindings are
    refreshed, that is on every focus change: five times before the dashboard's first paint
    with an order (~30 ms of start-up, measured with bench/run.py --case startup), each time
    showing the same keys. This one rebuilds when what it would show differs."""

    _shown: tuple[object, ...] | None = None

    def compose(self) -> ComposeResult:
        # A FooterKey starts compact and the footer's `data_bind` then makes it not compact:
        # the "-compact" class is added as it mounts and removed right after, two restyles of
        # every key (~20 keys: ~25 ms of the dashboard's start). Built with the footer's value,
        # the binding changes nothing. (`_reactive_connect` is where `data_bind` keeps the
        # binding; the command palette's key is not bound, and stays compact.)
        for widget in super().compose():
            bound = getattr(widget, "_reactive_connect", None) or {}
            if isinstance(widget, FooterKey) and "compact" in bound:
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached:
            return
        shown = tuple(
            (binding.key, binding.action, binding.description, enabled, tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        )
        if shown != self._shown:
            self._shown = shown
            await self.recompose()
