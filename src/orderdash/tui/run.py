"""Running the dashboard from the command line (the demo wires the simulator in: cli/demo.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from orderdash.core.runtime.logs import ensure_configured
from orderdash.core.service.client import OrderClient
from orderdash.core.settings.model import Settings
from orderdash.core.watching.watchlist_file import first_token

if TYPE_CHECKING:
    from orderdash.core.usecases.reads import BookOpener
    from orderdash.tui.app import OrderDashApp

log = logging.getLogger(__name__)


def build_dashboard(
    settings: Settings,
    tokens: list[str],
    *,
    pos: bool = False,
    notices: Sequence[str] = (),
    demo: bool = False,
    open_book: BookOpener | None = None,
) -> OrderDashApp:
    """The dashboard as `orderdash tui` runs it. The order it opens with is asked for first,
    before Textual and the screens are imported (`OrderClient.begin_first_read`): its answer
    is on its way while they load."""
    client = OrderClient.from_settings(settings)
    if (first := first_token(tokens)) is not None:
        client.begin_first_read(first)
    from orderdash.tui.factory import make_app

    # `orderdash pos`: the point of sale alone, turned to the customer (no way to the dashboard)
    return make_app(
        settings,
        client=client,
        tokens=tokens,
        pos_only=pos,
        notices=notices,
        demo=demo,
        open_book=open_book,
    )


def run_dashboard(
    settings: Settings,
    tokens: list[str],
    *,
    pos: bool = False,
    notices: Sequence[str] = (),
    demo: bool = False,
    open_book: BookOpener | None = None,
    receiving: Callable[[str], None] | None = None,
) -> int:
    """`notices`: warnings printed before the screen took over the terminal, shown again;
    `demo`: the simulator's orders (`orderdash demo`), marked DEMO on the customer's screens;
    `open_book`: as `make_app` takes it; `receiving`: told the URL of the receiver run inside
    the dashboard (`receive = true`) once it listens."""
    # while the screen is up nothing may log to the terminal: the log file or nowhere
    ensure_configured(settings.log_file, [settings.bearer_token, settings.access_token])
    log.info(
        "dashboard started: %s, %d order(s), poll %gs, rate %gs",
        settings.base_url,
        len(tokens),
        settings.poll_interval,
        settings.refresh_interval,
    )
    app = build_dashboard(
        settings, tokens, pos=pos, notices=notices, demo=demo, open_book=open_book
    )
    if receiving is not None:
        app.books.receiving = receiving
    if app.publisher is not None:
        # loaded by the parts by now, but kept off this module's import: the first read
        # goes out before it (`build_dashboard`)
        from orderdash.core.customer.channel import end_on_signals

        end_on_signals(app.publisher)
    try:
        app.run()
    finally:
        log.info("dashboard stopped (exit code %s)", app.return_code)
    # a crash (Textual has printed its traceback) must not look like success to a script
    return app.return_code or 0
