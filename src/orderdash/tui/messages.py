"""Messages that travel up from workers and widgets to the screen that owns the data."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from orderdash.core.client import Fetched
from orderdash.core.refresh import Kind, TrackStatus
from orderdash.core.watcher import Change, Failure


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


@dataclass
class CustomerScreen(Message):
    """The point-of-sale screen was put up for the customer (`up`) or taken down."""

    up: bool


@dataclass
class TokensAdded(Message):
    """Tokens to add to the watch list (from the add dialog)."""

    text: str


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
