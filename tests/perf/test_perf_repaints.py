"""The per-second ticks and the polls repaint only what changed (bench/ measures the cost).

The status line and the detail pane's expiry countdown tick every second, and every poll hands
the detail pane the order again: an unchanged text must not be set again, and a text that only
changes digits must not cost a layout pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from orderdash.core.domain.payment import payment_state
from orderdash.core.polling.refresh import Kind
from orderdash.core.qr.matrix import build_matrix, half_block_rows
from orderdash.core.watching.onscreen import Freshness
from orderdash.tui.text import text_shape
from orderdash.tui.widgets import qr as qr_module
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.status_line import StatusLine
from support.example_order import NOW, example_order


def recorded(widget: Static) -> list[dict[str, Any]]:
    """Every `update` call on `widget` from now on, as its keyword arguments."""
    calls: list[dict[str, Any]] = []
    original = widget.update

    def update(*args: Any, **kwargs: Any) -> None:
        calls.append(kwargs)
        original(*args, **kwargs)

    widget.update = update  # type: ignore[method-assign]
    return calls


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


class StatusApp(App[None]):
    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def compose(self) -> ComposeResult:
        yield StatusLine(monotonic=self.clock)


async def test_the_status_line_repaints_only_what_changes() -> None:
    clock = Clock()
    app = StatusApp(clock)
    async with app.run_test() as pilot:
        line = app.query_one(StatusLine)
        line.freshness = Freshness(last_update=NOW - 5, next_rate_at=NOW + 42.5)
        calls = recorded(line)
        line.tick()
        line.freshness = Freshness(last_update=NOW - 5, next_rate_at=NOW + 42.5)  # equal: no call
        line.tick()
        assert calls == [], "the same text is not set again"
        clock.now += 1  # next rate in 0:41: same shape
        line.tick()
        assert calls == [{"layout": False}]
        line.freshness = line.freshness.failed(
            Kind.ORDER, "the service failed (HTTP 503)", NOW + 30
        )
        assert calls[-1] == {"layout": True}, "another text, another shape: laid out again"
        await pilot.pause()
        assert "stale since" in str(line.render())


def test_shapes_mask_digits_only() -> None:
    assert text_shape(Text("expires in 59:58")) == text_shape(Text("expires in 10:07"))
    assert text_shape(Text("expires in 9:59")) != text_shape(Text("expires in 10:00"))


class DetailApp(App[None]):
    def compose(self) -> ComposeResult:
        yield OrderDetail()


def rebuilt_parts(detail: OrderDetail) -> Callable[[], list[str]]:
    """The parts of `detail` given something new to show since this call, each time asked."""
    builds = {name: part.build for name, part in detail._parts.items()}

    def since() -> list[str]:
        changed = [name for name, part in detail._parts.items() if part.build is not builds[name]]
        builds.update((name, part.build) for name, part in detail._parts.items())
        return changed

    return since


def recorded_refreshes(widget: Widget) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every `refresh` call on `widget` from now on: its regions and its keyword arguments."""
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    original = widget.refresh

    def refresh(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return original(*args, **kwargs)

    widget.refresh = refresh  # type: ignore[method-assign]
    return calls


async def test_the_detail_pane_repaints_only_what_changes() -> None:
    app = DetailApp()
    async with app.run_test(size=(100, 40)) as pilot:
        detail = app.query_one(OrderDetail)
        order = example_order()
        payment = payment_state(order, NOW)
        detail.show(order, NOW, None, payment, "the address")
        detail.tick(NOW + 100.2)  # expires in 58:19
        await pilot.pause()
        rebuilt, refreshes = rebuilt_parts(detail), recorded_refreshes(detail)
        # a poll with the same data in new objects; the service counts expirationTime down
        # (its raw value is in the details view only: in the same second nothing changes)
        poll = example_order().model_copy(update={"expiration_time": 3_600_000 - 100_400})
        detail.show(poll, NOW + 100.4, None, payment, "the address")
        detail.tick(NOW + 100.6)  # the same second of the countdown
        assert rebuilt() == [] and refreshes == []
        detail.tick(NOW + 101.4)  # 58:18: digits only, repainted in place
        assert rebuilt() == ["times"]
        # the times part's lines only (a whole-pane repaint each second was ~2,100 cells/s)
        [(regions, options)] = refreshes
        times = detail._parts["times"].lines_at(app.console, detail.scrollable_content_region.width)
        assert options == {} and [(r.y, r.height) for r in regions] == [
            (detail._tops["times"], len(times))
        ]
        assert "58:18" in detail.text()
        # a new rate: the money part changes
        changed = order.model_copy(update={"exchange_rate": order.exchange_rate + 1})
        detail.show(changed, NOW + 101.4, 1, payment, "the address")
        parts = rebuilt()
        assert "money" in parts and "head" not in parts and "identity" not in parts


@pytest.mark.parametrize("text", ["bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "x" * 300])
@pytest.mark.parametrize("scale", [1, 2, 3])
def test_qr_strips_are_module_exact(text: str, scale: int) -> None:
    """The run-length strips equal the half-block rows of the matrix, cell for cell."""
    matrix = build_matrix(text, quiet_zone=2)
    strips = qr_module._strips_of(matrix, scale)
    expected = half_block_rows(matrix, scale)
    assert len(strips) == len(expected)
    for strip, row in zip(strips, expected, strict=True):
        # (glyph, style) per cell, as the old per-cell drawing did
        cells = [qr_module._CELLS[pair] for pair in row]
        drawn = [
            (segment.text[i], segment.style) for segment in strip for i in range(len(segment.text))
        ]
        assert drawn == cells


async def test_setting_the_same_staleness_repaints_nothing() -> None:
    """The screen sets the detail pane's staleness on every answer; only a change repaints."""
    app = DetailApp()
    async with app.run_test() as pilot:
        detail = app.query_one(OrderDetail)
        detail.stale_since = NOW
        await pilot.pause()
        assert detail.border_title.startswith("Order \u00b7 STALE since")
        refreshes = recorded_refreshes(detail)
        detail.stale_since = NOW
        assert refreshes == []
        detail.stale_since = None
        assert refreshes and detail.border_title == "Order"
        assert not detail.has_class("-stale")


class KeysApp(App[None]):
    """Two focusable widgets with the same shown keys, and one with a key of its own."""

    def compose(self) -> ComposeResult:
        from textual.binding import Binding
        from textual.widgets import Button

        from orderdash.tui.widgets.keys_footer import KeysFooter

        class Extra(Button):
            BINDINGS = [Binding("x", "press", "Extra key")]

        yield Button("one", id="one")
        yield Button("two", id="two")
        yield Extra("three", id="three")
        yield KeysFooter()


async def test_the_footer_is_repainted_only_when_its_keys_change() -> None:
    from orderdash.tui.widgets.keys_footer import KeysFooter

    app = KeysApp()
    async with app.run_test() as pilot:
        footer = app.query_one(KeysFooter)
        await pilot.pause()
        assert not footer.children  # one widget draws the line
        repainted: list[str] = []
        original = footer.refresh

        def refresh(*args: object, **kwargs: object) -> object:
            repainted.append(app.focused.id if app.focused else "")
            return original(*args, **kwargs)  # type: ignore[arg-type]

        footer.refresh = refresh  # type: ignore[method-assign]
        app.query_one("#two").focus()  # the same keys: nothing to repaint
        await pilot.pause()
        await pilot.pause()
        assert repainted == []
        app.query_one("#three").focus()  # a key of its own: shown
        await pilot.pause()
        await pilot.pause()
        assert repainted == ["three"]
        assert "Extra key" in "".join(
            segment.text for strip in app.screen._compositor.render_strips() for segment in strip
        )
