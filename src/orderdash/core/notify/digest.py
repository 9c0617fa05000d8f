"""Many orders needing a human at once become one message: at most `PER_MINUTE` `attention`
messages go to a URL in any minute; beyond them the orders are gathered, and one digest ("12
orders need attention") goes when the minute allows, listing the first `LISTED` and counting the
rest. A storm of problem orders (a service that marks every order overpaid) is then a few
messages an owner can read, not thousands a webhook throttles.

Every `attention` message goes to every URL of the rules that name the event, so one count for
all of them is each URL's count. The gathering happens as a message is submitted, before the
sender's bounded queue: none of a storm is dropped, each is counted in a digest.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from orderdash.core.notify import messages
from orderdash.core.notify.messages import Message

#: `attention` messages a URL gets in any minute (the orders told one by one and the digests).
PER_MINUTE = 5
#: Seconds of that minute.
WINDOW = 60.0
#: Orders a digest names (the rest are counted).
LISTED = 20


class AttentionDigest:
    """Which `attention` messages go alone and which wait for the next digest; thread-safe
    (messages come from the callers' threads, the digest is taken by the sender's)."""

    def __init__(
        self,
        monotonic: Callable[[], float],
        *,
        per_minute: int = PER_MINUTE,
        window: float = WINDOW,
        listed: int = LISTED,
    ) -> None:
        self._monotonic, self._per_minute, self._window = monotonic, per_minute, window
        self._listed = listed
        self._lock = threading.Lock()
        #: When each message of the last minute went (alone or a digest).
        self._went: deque[float] = deque()
        #: The gathered orders' lines (the first `listed`) and how many were gathered.
        self._lines: list[str] = []
        self._gathered = 0

    def gather(self, message: Message) -> int:
        """0: `message` goes alone (the minute has room); else it was gathered, and this is how
        many are gathered now (1: the first, a digest is due from now on)."""
        with self._lock:
            now = self._monotonic()
            self._forget(now)
            if not self._gathered and len(self._went) < self._per_minute:
                self._went.append(now)
                return 0
            self._gathered += 1
            if len(self._lines) < self._listed:
                self._lines.append(message.body.partition("\n")[0])
            return self._gathered

    def due(self) -> float | None:
        """When the digest may go (monotonic seconds); None: nothing gathered."""
        with self._lock:
            if not self._gathered:
                return None
            return self._went[0] + self._window if len(self._went) >= self._per_minute else 0.0

    def take(self, *, now: bool = False) -> Message | None:
        """The digest of what was gathered, if it is due (or `now`: the program ends)."""
        with self._lock:
            at = self._monotonic()
            self._forget(at)
            if not self._gathered or (len(self._went) >= self._per_minute and not now):
                return None
            self._went.append(at)
            lines, count = self._lines, self._gathered
            self._lines, self._gathered = [], 0
        return messages.attention_digest(lines, count)

    def _forget(self, now: float) -> None:
        while self._went and self._went[0] <= now - self._window:
            self._went.popleft()
