"""What a helper the App builds asks of Textual, typed, when it uses several of Textual's App's
services (tell the operator, put a screen up, run work off the screen's turn): it names them in
a small Protocol of Textual's own members, and is handed Textual's App for them; a helper that
needs one call is given that call (`tui/callables.py`). Nothing here is orderdash's App: what a
helper works on (the session, the client, the ledger) it is given itself (`tui/app.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

T = TypeVar("T")


class Tells(Protocol):
    """Tells the operator something: a toast (`notify`)."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


class Asks(Protocol):
    """Puts a screen or a question up over the screen on top."""

    @property
    def screen(self) -> Screen[object]: ...

    def push_screen(
        self, screen: Screen[T], callback: Callable[[T | None], None] | None = None
    ) -> object: ...


class Works(Protocol):
    """Runs work off the screen's turn (a coroutine, or a function in a thread); a callback goes
    through the App's message queue, in order with its other messages."""

    def run_worker(
        self,
        work: Callable[[], object] | Coroutine[object, object, object],
        *,
        group: str = ...,
        exit_on_error: bool = ...,
        exclusive: bool = ...,
        thread: bool = ...,
    ) -> object: ...

    def call_later(self, callback: Callable[..., object], *args: object) -> bool: ...
