"""Messages that travel up from workers and widgets to the screen that owns the data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message
from textual.message_pump import MessagePump

from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.core.polling.watcher import Change, Failure
from orderdash.core.service.client import Fetched
from orderdash.core.service.errors import OrderdashError

if TYPE_CHECKING:
    # only account mode (tui/account.py) loads the account's feed
    from orderdash.core.polling.account import AccountOrder


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


@dataclass
class AccountBaseline(Message):
    """The account's first history read: the orders there at start."""

    orders: list[AccountOrder]


@dataclass
class AccountNewOrder(Message):
    """An order the history lists for the first time since start."""

    order: AccountOrder


@dataclass
class AccountFailed(Message):
    """Reading the account's history failed (once per failure streak)."""

    error: OrderdashError


@dataclass
class AccountRecovered(Message):
    """The history reads again after a failure."""


class AccountReporter:
    """Turns the account feed's callbacks into messages to `target` (the app)."""

    def __init__(self, target: MessagePump) -> None:
        self.target = target

    def on_baseline(self, orders: list[AccountOrder]) -> None:
        self.target.post_message(AccountBaseline(orders))

    def on_new_order(self, order: AccountOrder) -> None:
        self.target.post_message(AccountNewOrder(order))

    def on_account_failure(self, error: OrderdashError) -> None:
        self.target.post_message(AccountFailed(error))

    def on_account_recovered(self) -> None:
        self.target.post_message(AccountRecovered())
