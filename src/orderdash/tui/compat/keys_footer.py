"""Textual 8.2.8: the footer of keys, rebuilt only when the keys it shows change, and showing
only the keys that fit its width, the most needed first. It overrides `Footer.compose` and
`Footer.bindings_changed` and sets the Footer's private `_bindings_ready`, which is why it
lives here. No upstream issue: Textual's Footer lays every key out in one row and cuts the
row at the screen's edge, so at 120 columns the dashboard's Help and Quit were off-screen.

Tests: tests/test_perf_repaints.py::test_the_footer_is_rebuilt_only_when_its_keys_change,
tests/test_keys_visible.py::test_the_footer_shows_help_and_quit_at_every_width,
tests/test_startup_order.py::test_footer_keys_are_styled_once (its keys are built with the
footer's style from the start).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: One key as the footer shows it: the binding, whether it is enabled, its tooltip.
Shown = tuple[Binding, bool, str]


def key_width(key_display: str, description: str) -> int:
    """Cells one FooterKey takes: " key " then "description " (Footer's default padding)."""
    return cell_len(key_display) + 2 + (cell_len(description) + 1 if description else 0)


def fitting(keys: Sequence[tuple[Shown, int]], width: int, first: Sequence[str]) -> list[Shown]:
    """The keys that fit in `width` cells, chosen in the order of `first` (by action), then in
    their own order; shown in their own order."""
    rank = {action: n for n, action in enumerate(first)}
    order = sorted(range(len(keys)), key=lambda i: (rank.get(keys[i][0][0].action, len(rank)), i))
    chosen: set[int] = set()
    used = 0
    for i in order:
        if used + keys[i][1] <= width:
            chosen.add(i)
            used += keys[i][1]
    return [keys[i][0] for i in sorted(chosen)]


class KeysFooter(Footer):
    """Textual's Footer, which rebuilds its ~20 key widgets whenever the screen's bindings are
    refreshed, that is on every focus change: five times before the dashboard's first paint
    with an order (~30 ms of start-up, measured with bench/run.py --case startup), each time
    showing the same keys. This one rebuilds when what it would show differs.

    It shows what fits: the actions in `first` are chosen first (help and quit, so a new
    operator always finds `?`), then the others in the screen's order; the rest stay on `?`
    and in the command palette."""

    _shown: tuple[object, ...] | None = None

    def __init__(self, *, first: Iterable[str] = ("help", "quit"), **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.first = tuple(first)

    def _palette_width(self) -> int:
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            return 0
        found = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if found is None:
            return 0
        binding = found.binding
        # docked right, with a one-cell border on its left and one of padding on its right
        return key_width(self.app.get_key_display(binding), binding.description) + 2

    def _fitting(self) -> list[Shown]:
        seen: set[str] = set()
        keys: list[tuple[Shown, int]] = []
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            width = key_width(self.app.get_key_display(binding), binding.description)
            keys.append(((binding, enabled, tooltip), width))
        room = (self.size.width or self.app.size.width) - self._palette_width()
        return fitting(keys, room, self.first)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        for binding, enabled, tooltip in self._fitting():
            key = FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            )
            # A FooterKey starts compact and `data_bind` then makes it not compact: the
            # "-compact" class added as it mounts and removed right after, two restyles of
            # every key (~25 ms of the dashboard's start). Built with the footer's value, the
            # binding changes nothing.
            key.set_reactive(FooterKey.compact, self.compact)
            key.set_class(self.compact, "-compact", update=False)
            yield key.data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, _ = found
                yield FooterKey(
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    classes="-command-palette",
                    disabled=not enabled,
                    tooltip=binding.tooltip or binding.description,
                )

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    def on_resize(self, event: Resize) -> None:
        if self._bindings_ready:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached:
            return
        shown = tuple(
            (binding.key, binding.action, binding.description, enabled, tooltip)
            for (binding, enabled, tooltip) in self._fitting()
        )
        if shown != self._shown:
            self._shown = shown
            await self.recompose()
