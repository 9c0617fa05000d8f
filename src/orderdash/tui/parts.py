"""The App's parts, built by `make_app` (`tui/factory.py`) before the App: the client, the
state, the watcher, the customer display's channel and the session that keeps them in step.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orderdash.core.customer.catalogue import resolve_language
from orderdash.core.customer.channel import Publisher, channel_path, channel_unusable
from orderdash.core.polling.watcher import OrderWatcher
from orderdash.core.service.client import OrderClient
from orderdash.core.settings.model import Settings
from orderdash.core.watching.session import WatchSession
from orderdash.core.watching.state import DashboardState
from orderdash.core.watching.watchlist_file import WatchListFile, default_path
from orderdash.tui.messages import WatchReporter

if TYPE_CHECKING:
    from orderdash.core.usecases.reads import BookOpener

log = logging.getLogger(__name__)


@dataclass(eq=False, repr=False)
class Parts:
    client: OrderClient
    state: DashboardState
    watcher: OrderWatcher
    reporter: WatchReporter
    session: WatchSession
    #: The customer's language (the `language` setting resolved).
    language: str
    clock: Callable[[], float]
    monotonic: Callable[[], float]
    #: Warnings shown once the screen is up.
    notices: Sequence[str]
    #: Opens the shop's book for the close of day (None: the ledger the settings name).
    open_book: BookOpener | None = None


def build_parts(
    settings: Settings,
    *,
    client: OrderClient | None = None,
    clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
    notices: Sequence[str] = (),
    demo: bool = False,
    open_book: BookOpener | None = None,
) -> Parts:
    """The App's parts; `client` injected (tests), else made from `settings`; `demo`: the
    orders are simulated (`orderdash demo`), and every face a customer sees says so.

    `clock` is the wall clock (times shown, expiry); `monotonic` times the countdowns on screen,
    so a wall-clock step cannot skew them. `notices` are warnings shown once the screen is up
    (the terminal's earlier output is hidden behind it). `open_book`: as `Parts` holds it."""
    if client is None:
        client = OrderClient.from_settings(settings, clock=clock)
    store = None
    if settings.persist_watchlist:
        path = settings.watchlist_file
        store = WatchListFile(Path(path).expanduser() if path else default_path())
    state = DashboardState(
        store=store,
        bell=settings.bell,
        qr_content=settings.qr_content,
        qr_uppercase=settings.qr_uppercase,
        underpaid_tolerance=settings.underpaid_tolerance,
        refresh_interval=settings.refresh_interval,
        rates_enabled=client.has_credentials,
        clock=clock,
        monotonic=monotonic,
        demo=demo,
    )
    state.account_connected = settings.access_token is not None
    reporter = WatchReporter()
    watcher = OrderWatcher(
        client,
        reporter,
        poll_interval=settings.poll_interval,
        refresh_interval=settings.refresh_interval,
        concurrency=settings.concurrency,
        customer_poll_interval=settings.customer_poll_interval,
        late_window=settings.late_window,
        **settings.budgets,
    )
    language = resolve_language(settings.language, os.environ)
    publisher: Publisher | None = None
    try:
        publisher = Publisher(
            channel_path(settings.display_channel),
            language=language,
            till=settings.till,
            clock=clock,
        )
    except OSError as error:
        # a runtime directory another user made (or one not ours to write): the dashboard runs,
        # without the customer display
        log.warning("customer display off: %s", error)
        notices = [*notices, channel_unusable(error)]
    session = WatchSession(
        state,
        watcher,
        publisher=publisher,
        welcome_after=settings.display_welcome_after,
        monotonic=monotonic,
    )
    return Parts(
        client,
        state,
        watcher,
        reporter,
        session,
        language,
        clock,
        monotonic,
        list(notices),
        open_book,
    )
