"""One line at the bottom: freshness of the data, next rate refresh, connection state."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.text import Text
from textual.widgets import Static

from orderdash.core.domain.display import duration_text
from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.tui.text import literal


@dataclass
class Freshness:
    """What the status line knows; the screen updates it, the line renders it every second."""

    last_update: float | None = None  # wall time of the last good data
    rates_enabled: bool = True
    loading: bool = False
    #: The last error and the time of the next try, per failing kind of request. `retry_at` and
    #: `next_rate_at` are read off the monotonic clock the line counts down with (a wall-clock
    #: step back of an hour once showed "next rate in 1:00:59").
    errors: dict[Kind, str] = field(default_factory=dict)
    retry_at: dict[Kind, float] = field(default_factory=dict)
    next_rate_at: float | None = None
    statuses: dict[Kind, TrackStatus] = field(default_factory=dict)

    @property
    def stale(self) -> bool:
        """The order poll is failing: what is on screen is no longer being renewed.

        A failing rate call alone does not make the data stale (getOrder keeps it current);
        it is reported on its own.
        """
        return Kind.ORDER in self.errors


def _clock(moment: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(moment))


def _in(seconds: float) -> str:
    return duration_text(max(seconds, 0) + 0.999)


def status_text(state: Freshness, now: float) -> Text:
    """The line at monotonic time `now` (the countdowns); `last_update` is shown as wall time."""
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
    elif state.next_rate_at is not None:
        line.append(f" \u00b7 next rate in {_in(state.next_rate_at - now)}")
    return line


def text_key(text: Text) -> tuple[object, ...]:
    """What a Text shows: its characters, base style and styled spans (Text's own == ignores
    the base style)."""
    return (text.plain, str(text.style), tuple(text.spans))


def text_shape(text: Text) -> str:
    """The characters of `text` with every digit as 0: two texts of the same shape take the same
    cells, so a countdown that only changes digits needs no new layout."""
    return text.plain.translate(_DIGITS_AS_ZERO)


_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")


class StatusLine(Static):
    """Re-renders itself once a second; nothing else on screen repaints for the countdown.

    A tick that would show the same text repaints nothing, and one that only changes digits
    repaints this line without a layout pass over the screen.
    """

    def __init__(self, monotonic: Callable[[], float] = time.monotonic, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._monotonic = monotonic
        self.state = Freshness()
        self._shown: tuple[object, ...] | None = None
        self._shape: str | None = None

    def on_mount(self) -> None:
        self.set_interval(1.0, self.tick)
        self.tick()

    def tick(self) -> None:
        text = status_text(self.state, self._monotonic())
        key = text_key(text)
        if key == self._shown:
            return
        shape = text_shape(text)
        self.update(text, layout=shape != self._shape)
        self._shown, self._shape = key, shape
