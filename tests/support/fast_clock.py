"""Time for the budget tests: an event loop whose clock runs fast, and the most starts any
sliding window holds."""

from __future__ import annotations

import asyncio
import selectors

SPEED = 60.0


class _FastSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """Waits a sixtieth of what the loop asks (the loop counts in fast seconds)."""

    def select(self, timeout: float | None = None):  # noqa: ANN201 - as the base class
        return super().select(None if timeout is None else timeout / SPEED)


class FastLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock runs `SPEED` times faster than the wall: every sleep and
    timeout of the watcher (and of httpx) passes in a sixtieth of its time, so minutes of
    polling against the real simulator take seconds. Nothing in the test sleeps."""

    def __init__(self) -> None:
        super().__init__(selector=_FastSelector())

    def time(self) -> float:
        return super().time() * SPEED


def max_in_window(times: list[float], window: float) -> int:
    """Most starts in any half-open window (t - window, t]."""
    times = sorted(times)
    best, left = 0, 0
    for right, t in enumerate(times):
        while times[left] + window <= t:
            left += 1
        best = max(best, right - left + 1)
    return best
