"""What a TUI helper may ask of Textual's App instead of holding the App, typed, in one place.

- A helper that needs one call is given that call: `Notify`, `PushScreen`, `RunWorker` (the
  App's own methods fit them).
- A helper that uses several of Textual's App's services is handed Textual's App, typed as the
  small Protocols it needs: `Tells` (tell the operator), `Asks` (put a screen up), `Works` (run
  work off the screen's turn). Their members are those same calls, so each call is typed once.

Every member here is Textual's App's own (tests/unit/test_tui_helpers.py), never orderdash's
App's: what a helper works on (the session, the client, the ledger) it is given itself
(`tui/app.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

T = TypeVar("T")


class Notify(Protocol):
    """The App's `notify`: a toast (the counter holds what is news while a dialog is up)."""

    def __call__(
        self,
        message: str,
        *,
        title: str = ...,
        severity: SeverityLevel = ...,
        timeout: float | None = ...,
        markup: bool = ...,
    ) -> None: ...


class PushScreen(Protocol):
    """The App's `push_screen`: a screen or a question over the screen on top."""

    def __call__(
        self, screen: Screen[T], callback: Callable[[T | None], None] | None = ...
    ) -> object: ...


class RunWorker(Protocol):
    """The App's `run_worker`: a coroutine, or a function in a thread."""

    def __call__(
        self,
        work: Callable[[], object] | Coroutine[object, object, object],
        *,
        group: str = ...,
        exit_on_error: bool = ...,
        exclusive: bool = ...,
        thread: bool = ...,
    ) -> object: ...


class Tells(Protocol):
    """Tells the operator something: a toast."""

    @property
    def notify(self) -> Notify: ...


class Asks(Protocol):
    """Puts a screen or a question up over the screen on top."""

    @property
    def screen(self) -> Screen[object]: ...

    @property
    def push_screen(self) -> PushScreen: ...


class Works(Protocol):
    """Runs work off the screen's turn; a callback goes through the App's message queue, in
    order with its other messages."""

    @property
    def run_worker(self) -> RunWorker: ...

    def call_later(self, callback: Callable[..., object], *args: object) -> bool: ...
