"""What a helper of the App is given instead of the App: its calls, each as a type (the App's
own methods fit them)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen


class Notify(Protocol):
    """The App's `notify` (its counter holds what is news while a dialog is up)."""

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
    """The App's `push_screen`, for a screen whose result nobody waits for."""

    def __call__(
        self, screen: Screen[None], callback: Callable[[None], None] | None = ...
    ) -> object: ...


class RunWorker(Protocol):
    """The App's `run_worker`, for a coroutine."""

    def __call__(
        self,
        work: Coroutine[object, object, None],
        *,
        group: str = ...,
        exclusive: bool = ...,
        exit_on_error: bool = ...,
    ) -> object: ...
