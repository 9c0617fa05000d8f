"""The POS big figure: drawn whole within the room it is given, with its unit, or not at all."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from orderdash.tui.widgets.big_figure import (
    FONT,
    NOTHING,
    best_layout,
    drawable,
    figure_size,
    render_lines,
)

AMOUNTS = st.from_regex(r"-?[0-9]{1,3}(,[0-9]{3}){0,3}(\.[0-9]{1,24})?", fullmatch=True)
UNITS = st.sampled_from(["BTC", "EUR", "USDT", "DOGE", "ltc", "", "CHF"])


@given(AMOUNTS, UNITS, st.integers(0, 250), st.integers(0, 80))
def test_a_figure_fits_its_room_whole_or_is_not_drawn(
    amount: str, unit: str, width: int, rows: int
) -> None:
    lines, scale = best_layout(amount, unit, width, rows)
    if (lines, scale) == NOTHING:
        # not even the smallest glyphs fit: nothing drawn (the plain text shows it)
        assert figure_size((f"{amount} {unit}".strip(),), (1, 1)).width > width or rows < 3
        return
    # every character of the amount and its unit, in order
    assert " ".join(lines) == f"{amount} {unit}".strip()
    drawn = render_lines(lines, scale)
    size = figure_size(lines, scale)
    assert len(drawn) == size.height <= rows
    assert {cell_len(row) for row in drawn} == {size.width}
    assert size.width <= width


def test_more_room_draws_larger_glyphs() -> None:
    small = best_layout("0.00012871", "BTC", 40, 7)
    large = best_layout("0.00012871", "BTC", 120, 27)
    assert figure_size(*small).height >= 3
    assert figure_size(*large).height > figure_size(*small).height
    assert " ".join(large[0]) == "0.00012871 BTC"


def test_the_glyphs_tell_digits_apart() -> None:
    glyphs = [FONT[ch] for ch in "0123456789.,-"]
    assert len(set(glyphs)) == len(glyphs)
    assert not drawable("1 €") and drawable("12.50 eur")
