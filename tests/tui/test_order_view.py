"""The order pane is a Textual widget like any other: its own names never hide Textual's."""

from __future__ import annotations

from textual.widgets import LoadingIndicator

from conftest import make_settings, wait_until
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.widgets.order_view import OrderView

SIZE = (140, 48)


async def test_the_order_pane_takes_textuals_loading_indicator(sim_server: SimulatorServer) -> None:
    # `loading` is Textual's reactive on every widget: set, the widget is covered by the
    # loading indicator until it is unset
    app = make_app(make_settings(sim_server.base_url), token=DEMO_TOKENS[0])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        view = app.dashboard.query_one(OrderView)
        middle = view.region.center

        def covered() -> bool:
            widget, _ = app.screen.get_widget_at(*middle)
            return isinstance(widget, LoadingIndicator)

        assert not covered()
        view.loading = True
        await wait_until(pilot, covered)
        view.loading = False
        await wait_until(pilot, lambda: not covered())
