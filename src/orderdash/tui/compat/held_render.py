"""Textual 8.2.8: a screen that renders nothing while painting is held (`App.batch_update`).

While a batch is open, Textual still lays the screen out and renders it in full (the
compositor's `render_update`, every widget's lines), and only then does `App._display` drop the
result. At start-up the dashboard holds painting until its first order is on it
(tui/first_paint.py), and under that hold it was rendered twice and thrown away (~35 ms of the
start-up, measured with bench/run.py --case startup). This overrides the private
`Screen._compositor_refresh`, which is why it lives here. It also overrides the private
`Screen._on_screen_resume` (its first resume restyles nothing, see there). No upstream issue.

The layout still runs under the hold (widgets get their sizes and Resize events, so what fits
its width is settled before the first paint); only the render waits. What was skipped is
rendered once the hold ends: the screen is marked for a repaint, and the compositor keeps the
regions it has not rendered, so that repaint is a full one.

Tests: tests/perf/test_startup_order.py::test_nothing_is_rendered_while_painting_is_held,
::test_the_first_paint_shows_the_order (painted as the hold ends) and
::test_the_dashboard_is_styled_once_as_it_mounts.
"""

from __future__ import annotations

from textual import events
from textual.screen import Screen


class HeldRenderScreen(Screen[None]):
    """A Screen that skips the render of its compositor while the app holds painting, and is
    not restyled whole at its first resume."""

    #: Renders skipped under a hold (for the test; nothing reads it otherwise).
    renders_skipped = 0
    _resumed = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # `push_screen` asks a new screen to restyle itself and all its widgets when it
        # resumes, which is right after they mounted, each styled as it mounted: the same
        # styles again (36 widgets, ~10 ms of the dashboard's start). Later resumes restyle
        # (a theme may have changed while the screen was covered).
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False
        super()._on_screen_resume(event)

    def _compositor_refresh(self) -> None:
        if self.app._batch_count and not self.app.is_inline:
            # The render would be dropped (App._display paints nothing while a batch is
            # open). The dirty widgets and the compositor's dirty regions are kept; the
            # repaint flag makes the screen render them when it next idles without a hold.
            self.renders_skipped += 1
            self._repaint_required = True
            return
        super()._compositor_refresh()

    def end_of_hold(self) -> None:
        """The hold is over: lay out and render what was skipped, now. Textual ends a batch
        with an idle check of the app only, not of this screen, and a refresh waits for the
        screen's next update tick (up to 1/60 s, and behind whatever messages are queued:
        ~18 ms at the dashboard's start, measured with bench/run.py --case startup)."""
        if self.renders_skipped and self.is_current and not self.app._batch_count:
            self._repaint_required = True
            self._on_timer_update()
