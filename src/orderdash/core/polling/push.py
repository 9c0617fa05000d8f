"""Whether the service's callbacks are believed to reach the book, and so how closely to poll.

While announcements flow (one heard within `quiet` seconds) each order is polled at the
fallback pace only: the poll still finds what a lost callback missed, and expiry, which is
never pushed. The poller returns to full polling, and says so once, when no announcement came
for `quiet` seconds, or when a poll found an order paid that no announcement covered within
`alarm` seconds (the callback URL or a proxy on the way is broken): that alarm is raised once
per order.

Pure policy: time is passed in (monotonic seconds), nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

from orderdash.core.polling.plan import FALLBACK_SLOWDOWN

#: What is said: the push began to flow, it stopped (quiet), or a payment came without one.
NewsKind = Literal["flowing", "stopped", "no-callback"]

#: Most tokens remembered as announced, or as paid and waiting for their announcement.
MAX_REMEMBERED = 10_000


class PushNews(NamedTuple):
    kind: NewsKind
    #: The order, for "no-callback"; "" otherwise.
    token: str
    #: One line, fit for the screen and the log.
    text: str


class PushPace:
    """The push's state from what the watcher hears (`heard`) and what its polls find
    (`polled_paid`); `news` is told each change of state and each alarm."""

    def __init__(
        self,
        *,
        fallback: float,
        quiet: float,
        alarm: float,
        news: Callable[[PushNews], None] = lambda news: None,
    ) -> None:
        self.fallback, self.quiet, self.alarm = fallback, quiet, alarm
        self.news = news
        #: True while announcements flow: orders are polled at the fallback pace.
        self.flowing = False
        self._last_heard: float | None = None
        #: When each token was last announced.
        self._announced: dict[str, float] = {}
        #: Orders a poll found paid, with no announcement yet: when that poll came.
        self._waiting: dict[str, float] = {}
        #: Orders the "no callback" alarm was raised for (once each).
        self._alarmed: set[str] = set()

    def heard(self, token: str, now: float) -> bool:
        """`token` was announced; True when this begins the flow (the pace changes)."""
        self._last_heard = now
        _remember(self._announced, token, now)
        self._waiting.pop(token, None)
        if self.flowing:
            return False
        self.flowing = True
        self.news(
            PushNews(
                "flowing",
                "",
                f"Callbacks reach the book: orders are polled {FALLBACK_SLOWDOWN} times less "
                f"often (each at most once every {self.fallback:g} s), as a fallback.",
            )
        )
        return True

    def polled_paid(self, token: str, now: float) -> None:
        """A poll (not an announcement) found `token` newly paid."""
        if not self.flowing or token in self._alarmed:
            return
        announced = self._announced.get(token)
        if announced is not None and now - announced <= self.alarm:
            return  # its callback came first
        if token not in self._waiting:
            _remember(self._waiting, token, now)

    def check(self, now: float) -> bool:
        """Time passed: True when the push stopped now (full polling again)."""
        if not self.flowing:
            return False
        late = [t for t, at in self._waiting.items() if now - at >= self.alarm]
        for token in late:
            del self._waiting[token]
            self._alarmed.add(token)
            self.news(
                PushNews(
                    "no-callback",
                    token,
                    f"Paid per the service, no callback in {self.alarm:g} s: check the "
                    "callback URL and the proxy before it; polling in full again.",
                )
            )
        if late:
            self._stop()
            return True
        if self._last_heard is not None and now - self._last_heard >= self.quiet:
            self._stop()
            self.news(
                PushNews(
                    "stopped",
                    "",
                    f"No callback for {self.quiet:g} s: polling every order in full again.",
                )
            )
            return True
        return False

    def _stop(self) -> None:
        self.flowing = False
        self._waiting.clear()

    def forget(self, token: str) -> None:
        """`token` is no longer watched."""
        self._announced.pop(token, None)
        self._waiting.pop(token, None)


def _remember(where: dict[str, float], token: str, now: float) -> None:
    where.pop(token, None)
    where[token] = now
    while len(where) > MAX_REMEMBERED:
        del where[next(iter(where))]  # the oldest
