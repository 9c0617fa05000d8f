"""One line at the bottom: freshness of the data, next rate refresh, connection state."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from orderdash.core.domain.text import duration_text
from orderdash.core.polling.refresh import Kind
from orderdash.core.watching.onscreen import Freshness
from orderdash.tui.text import literal, text_key, text_shape


def _clock(moment: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(moment))


def _in(seconds: float) -> str:
    return duration_text(max(seconds, 0) + 0.999)


def status_text(state: Freshness, now: float, customer_display: str = "") -> Text:
    """The line at monotonic time `now` (the countdowns); `last_update` is shown as wall time;
    what the customer display shows at the end."""
    line = _freshness_text(state, now)
    if customer_display:
        line.append(" \u00b7 ")
        line.append_text(literal(customer_display, "bold", limit=80))
    return line


def _freshness_text(state: Freshness, now: float) -> Text:
    line = Text()
    if state.stale:
        line.append(" \u25b2 retrying ", "bold white on #a54242")
        if state.retry_at:
            line.append(f" in {_in(min(state.retry_at.values()) - now)} ", "bold")
        if state.last_update is not None:
            line.append(f"\u00b7 stale since {_clock(state.last_update)} ", "bold #de935f")
        error = state.errors[Kind.ORDER]
        line.append("\u00b7 ")
        line.append_text(literal(error, limit=160))
        return line
    if state.last_update is None:
        return Text(" \u2026 loading" if state.loading else " no order loaded", "italic dim")
    line.append(" \u25cf live ", "bold black on #8fd18f")
    line.append(f" updated {_clock(state.last_update)}")
    if not state.rates_enabled:
        line.append(" \u00b7 rate refresh off: no bearer token", "dim")
    elif Kind.RATES in state.errors:
        line.append(" \u00b7 rate refresh failing, retry in ", "#de935f")
        line.append(_in(state.retry_at.get(Kind.RATES, now) - now), "#de935f")
        line.append(": ", "#de935f")
        line.append_text(literal(state.errors[Kind.RATES], "#de935f", limit=160))
    elif (rates := state.statuses.get(Kind.RATES)) is not None and rates.budget_held:
        # the service renews the rate every minute; say why this one is older
        line.append(" \u00b7 rate older than a minute: the rate budget is short (b)", "#de935f")
    elif state.next_rate_at is not None:
        line.append(f" \u00b7 next rate in {_in(state.next_rate_at - now)}")
    return line


class StatusLine(Static):
    """Shows `freshness` and `customer_display` (bound from the screen: `data_bind`); `tick`
    (the app's clock, once a second) moves
    the countdowns, and nothing else on screen repaints for them.

    A tick that would show the same text repaints nothing, and one that only changes digits
    repaints this line without a layout pass over the screen.
    """

    DEFAULT_CSS = """
    /* a long error wraps to a second row rather than losing its advice at the edge */
    StatusLine {
        height: auto;
        max-height: 2;
        background: $panel;
    }
    """

    freshness: reactive[Freshness] = reactive(Freshness, layout=False, repaint=False)
    customer_display: reactive[str] = reactive("", layout=False, repaint=False)

    def __init__(
        self,
        monotonic: Callable[[], float] = time.monotonic,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._monotonic = monotonic
        self._shown: tuple[object, ...] | None = None
        self._shape: str | None = None

    def on_mount(self) -> None:
        self._show()  # (`is_mounted` turns true only once the mount handlers have run)

    def watch_freshness(self) -> None:
        self.tick()

    def watch_customer_display(self) -> None:
        self.tick()

    def tick(self) -> None:
        if self.is_mounted:
            self._show()

    def _show(self) -> None:
        text = status_text(self.freshness, self._monotonic(), self.customer_display)
        key = text_key(text)
        if key == self._shown:
            return
        shape = text_shape(text)
        self.update(text, layout=shape != self._shape)
        self._shown, self._shape = key, shape
