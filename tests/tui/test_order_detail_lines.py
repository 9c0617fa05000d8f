"""The order pane draws its parts itself, line by line: the same cells as Rich's grid it
replaced, at every width, in one widget that scrolls."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult

from orderdash.core.domain.expiry import expiry_for
from orderdash.core.domain.payment import payment_state
from orderdash.tui.text import literal
from orderdash.tui.widgets.order_detail import OrderDetail, _grid, grid_lines
from support.example_order import NOW, example_order

ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"


def row_sets() -> list[list[tuple[str, Text]]]:
    order = example_order()
    payment = payment_state(order, NOW)
    expiry = expiry_for(order, NOW)
    return [
        OrderDetail._money_rows(order, 1, payment, "the address"),
        OrderDetail._identity_rows(order, raw=True),  # labels wider than the 9 columns' minimum
        OrderDetail._times_rows(order, expiry, NOW + 100, raw=False),
        [
            ("\u26a0 Was", literal("another order: 40.00 GBP PAID", "bold red")),
            ("Amount", Text("-0.000104370000000000001 BTC  =  12,345,678.90 EUR", "bold")),
            ("Address", literal(ADDRESS * 5, "bold")),  # one word longer than any pane
            ("Name", literal("\u5546\u5e97 \u00e9t\u00e9 " * 12)),  # double-width characters
            ("", Text("")),
            ("Multi", Text("first line\nsecond, a longer line", "italic")),
        ],
    ]


def cells(lines: list[list[Segment]]) -> list[list[tuple[str, object]]]:
    """Each line as (character, style) per cell, without the trailing blanks (only their
    background shows, which the widget lays under every line)."""
    out = []
    for line in lines:
        row = [(char, segment.style or Style()) for segment in line for char in segment.text]
        while row and row[-1][0] == " ":
            row.pop()
        out.append(row)
    return out


@pytest.mark.parametrize("rows", row_sets(), ids=["money", "identity-raw", "times", "hostile"])
def test_the_lines_are_riches_grid_at_every_width(rows: list[tuple[str, Text]]) -> None:
    console = Console(width=300, color_system="truecolor", force_terminal=True)
    for width in [*range(12, 80, 3), *range(80, 201)]:
        expected = console.render_lines(_grid(rows), console.options.update_width(width))
        assert cells(grid_lines(console, rows, width)) == cells(expected), width


def test_no_figure_is_cut_without_a_sign() -> None:
    """A value longer than its room folds onto the next lines: every character is shown."""
    console = Console(width=300)
    amount = "-0.000104370000000000001"
    rows = [("Amount", Text(f"{amount} BTC")), ("Address", Text(ADDRESS))]
    for width in range(20, 60):
        lines = grid_lines(console, rows, width)
        # each line: the label's cell, then the value's segments
        squeezed = "".join(segment.text for line in lines for segment in line[1:]).replace(" ", "")
        assert amount in squeezed and ADDRESS in squeezed, width


class DetailApp(App[None]):
    def compose(self) -> ComposeResult:
        yield OrderDetail()


async def test_the_pane_is_one_widget_that_scrolls_when_taller_than_its_room() -> None:
    app = DetailApp()
    async with app.run_test(size=(70, 14)) as pilot:
        detail = app.query_one(OrderDetail)
        order = example_order()
        detail.show(order, NOW, None, payment_state(order, NOW), "the address")
        await pilot.pause()
        assert list(detail.children) == [], "the parts are drawn, not mounted"
        assert detail.max_scroll_y > 0
        shown = "".join(segment.text for y in range(12) for segment in detail.render_line(y))
        assert "Callback" not in shown
        detail.scroll_end(animate=False)
        await pilot.pause()
        shown = "".join(segment.text for y in range(12) for segment in detail.render_line(y))
        assert "Callback" in shown
        # a resize renders the lines again at the new width
        await pilot.resize_terminal(160, 60)
        await pilot.pause()
        assert detail.max_scroll_y == 0
        assert detail.virtual_size.height == len(detail.text(detail.size.width - 2).splitlines())
