"""Messages that travel up from workers and widgets to the screen that owns the data (account
mode's, from its history feed to the app, are in `tui/account.py`: only account mode loads
them)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message
from textual.message_pump import MessagePump

from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.core.polling.watcher import Change, Failure
from orderdash.core.service.client import Fetched


@dataclass
class TokenSubmitted(Message):
    """The user entered a valid order token."""

    token: str


@dataclass
class WatchMessage(Message):
    """Base of the watcher's reports, each about one watched order."""

    token: str


@dataclass
class OrderFetched(WatchMessage):
    kind: Kind
    fetched: Fetched
    change: Change


@dataclass
class FetchFailed(WatchMessage):
    failure: Failure


@dataclass
class WatchStatusChanged(WatchMessage):
    status: dict[Kind, TrackStatus]


@dataclass
class OrderChosen(Message):
    """The user picked an order in the watch list."""

    token: str


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


@dataclass
class WatchListRead(Message):
    """The watch list file, read in a worker: at start (`initial`), or after another instance
    changed it."""

    tokens: list[str]
    warning: str | None
    initial: bool


@dataclass
class WatchListSaved(Message):
    """This instance's changes merged into the file, by a worker: the list the file now holds,
    and what did not fit under the cap (`error` when the disk refused)."""

    tokens: list[str]
    refused: list[str]
    warning: str | None
    error: str | None = None
