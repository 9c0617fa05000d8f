"""The one factory: `make_app` builds the App (`tui/app.py`) and its parts (`tui/parts.py`) for
the CLI, the tests and the screenshots; what it is given (a client, the clocks) is what they
inject.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from orderdash.core.settings.model import Settings
from orderdash.tui.app import OrderDashApp
from orderdash.tui.parts import build_parts
from orderdash.tui.receipts import Receipts, receipt_printer
from orderdash.tui.resolutions import Resolutions, show_accepted

if TYPE_CHECKING:
    from orderdash.core.service.client import OrderClient
    from orderdash.core.usecases.reads import BookOpener


def make_app(
    settings: Settings,
    *,
    client: OrderClient | None = None,
    token: str | None = None,
    tokens: Sequence[str] = (),
    clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
    open_pos: bool = False,
    pos_only: bool = False,
    notices: Sequence[str] = (),
    account: bool | None = None,
    demo: bool = False,
    open_book: BookOpener | None = None,
) -> OrderDashApp:
    """Build the app, its state, its watcher and the watch list's store; pass `client` to
    inject one (tests), else it is made from `settings`.

    `token` (or the first of `tokens`) opens in the detail panes; all of them join the watch list.
    `clock`, `monotonic`, `notices`: as `build_parts` takes them. `account`: the watch list fills
    itself with the account's open orders (default: when the access token is configured).
    `demo`: the orders are simulated (`orderdash demo`): the customer's screens say DEMO.
    `open_book`: opens the shop's book for the close of day (None: the ledger the settings
    name); the tests and the screenshots give a ledger of their own.
    """
    from orderdash.tui import compat

    compat.install()
    parts = build_parts(
        settings,
        client=client,
        clock=clock,
        monotonic=monotonic,
        notices=notices,
        demo=demo,
        open_book=open_book,
    )
    app = OrderDashApp(
        settings,
        parts,
        tokens=[token, *tokens] if token else list(tokens),
        open_pos=open_pos,
        pos_only=pos_only,
        account=settings.access_token is not None if account is None else account,
    )
    # an order the ledger holds accepted at the counter is shown paid on every screen
    app.books.accepted = shown = partial(show_accepted, app)
    app.resolutions = Resolutions(
        settings,
        screens=app,
        ledger=app.books,
        state=parts.state,
        client=parts.client,
        watcher=parts.watcher,
        notify=app.notify,
        shown=shown,
    )
    app.receipts = Receipts(
        settings,
        parts.state,
        printer=receipt_printer(settings, parts.open_book, parts.language),
        # the receipt is made from the book: the orders read so far written first, in order
        written=lambda: app.books.writer.written_down(),
        run_worker=app.run_worker,
        notify=app.notify,
        facing=lambda: app.counter.customer_facing,
        line_changed=partial(_receipt_line, app),
    )
    return app


def _receipt_line(app: OrderDashApp, line: tuple[str, str]) -> None:
    """The last word on a receipt to the App (the point of sale's staff line shows it), and the
    footers asked again whether `T` applies."""
    app.receipt_line = line
    app.refresh_bindings()
