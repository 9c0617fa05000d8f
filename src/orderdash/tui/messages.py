"""Messages that travel up from workers and widgets to the screen that owns the data."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from orderdash.core.client import Fetched
from orderdash.core.refresh import Kind, TrackStatus
from orderdash.core.watcher import Failure


@dataclass
class TokenSubmitted(Message):
    """The user entered a valid order token."""

    token: str


@dataclass
class WatchMessage(Message):
    """Base of the watcher's reports: `generation` tells stale reports of an old token apart."""

    token: str
    generation: int


@dataclass
class OrderFetched(WatchMessage):
    kind: Kind
    fetched: Fetched
    new_transaction_ids: tuple[int, ...]


@dataclass
class FetchFailed(WatchMessage):
    failure: Failure


@dataclass
class WatchStatusChanged(WatchMessage):
    status: dict[Kind, TrackStatus]
