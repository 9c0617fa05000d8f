"""Messages that travel up from workers and widgets to the screen that owns the data (account
mode's, from its history feed to the app, are in `tui/account.py`: only account mode loads
them).

Plain classes with their own `__init__`, as Textual's widgets write theirs: a message is an event,
equal only to itself, and a dataclass would compile its methods at start-up for nothing.
"""

from __future__ import annotations

from textual.message import Message
from textual.message_pump import MessagePump

from orderdash.core.model.results import Fetched
from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.core.polling.watcher import Change, Failure


class TokenSubmitted(Message):
    """The user entered a valid order token."""

    def __init__(self, token: str) -> None:
        self.token = token
        super().__init__()


class WatchMessage(Message):
    """Base of the watcher's reports, each about one watched order."""

    def __init__(self, token: str) -> None:
        self.token = token
        super().__init__()


class OrderFetched(WatchMessage):
    """A read of `kind` succeeded: what it brought, and what changed since the last one."""

    def __init__(self, token: str, kind: Kind, fetched: Fetched, change: Change) -> None:
        self.kind = kind
        self.fetched = fetched
        self.change = change
        super().__init__(token)


class FetchFailed(WatchMessage):
    """A read failed; the watcher tries again later."""

    def __init__(self, token: str, failure: Failure) -> None:
        self.failure = failure
        super().__init__(token)


class WatchStatusChanged(WatchMessage):
    """The state of the order's requests, per kind, for the status line."""

    def __init__(self, token: str, status: dict[Kind, TrackStatus]) -> None:
        self.status = status
        super().__init__(token)


class OrderChosen(Message):
    """The user picked an order in the watch list."""

    def __init__(self, token: str) -> None:
        self.token = token
        super().__init__()


class WatchReporter:
    """Turns the watcher's callbacks into messages to `target` (the dashboard, once it is up;
    the app builds the watcher before any screen exists)."""

    def __init__(self) -> None:
        self.target: MessagePump | None = None

    def _post(self, message: Message) -> None:
        if self.target is not None:
            self.target.post_message(message)

    def on_fetched(self, token: str, kind: Kind, fetched: Fetched, change: Change) -> None:
        self._post(OrderFetched(token, kind, fetched, change))

    def on_failure(self, token: str, failure: Failure) -> None:
        self._post(FetchFailed(token, failure))

    def on_status(self, token: str, status: dict[Kind, TrackStatus]) -> None:
        self._post(WatchStatusChanged(token, status))


class WatchListRead(Message):
    """The watch list file, read in a worker: at start (`initial`), or after another instance
    changed it."""

    def __init__(self, tokens: list[str], warning: str | None, initial: bool) -> None:
        self.tokens = tokens
        self.warning = warning
        self.initial = initial
        super().__init__()


class WatchListSaved(Message):
    """This instance's changes merged into the file, by a worker: the list the file now holds,
    and what did not fit under the cap (`error` when the disk refused)."""

    def __init__(
        self,
        tokens: list[str],
        refused: list[str],
        warning: str | None,
        error: str | None = None,
    ) -> None:
        self.tokens = tokens
        self.refused = refused
        self.warning = warning
        self.error = error
        super().__init__()


class ResolveRequested(Message):
    """The operator asked to resolve an order that needs a human (`r` in the attention view)."""

    def __init__(self, token: str) -> None:
        self.token = token
        super().__init__()
