"""Reproducible states of the dashboard, for the snapshot tests and scripts/screenshots.py.

Each scene runs the real app against an in-process simulator whose clock, like the app's, is
frozen, so the same scene renders the same screen on any machine (times shown in UTC).
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr
from textual.pilot import Pilot

from conftest import screen_text
from orderdash.core.settings.model import Settings
from orderdash.simulator import DEMO_TOKENS, Fault, Simulator, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app

if TYPE_CHECKING:
    from orderdash.core.usecases.reads import BookOpener

#: 2026-11-21 10:00:00 UTC
FROZEN_NOW = 1795255200.0
SCENE_BEARER = "scene-bearer-token"
SCENE_ACCESS = "scene-access-token"


async def _loaded(pilot: Pilot) -> None:
    await _until(pilot, lambda: pilot.app.state.order is not None)  # type: ignore[attr-defined]


async def _stale(pilot: Pilot) -> None:
    await _loaded(pilot)
    app: OrderDashApp = pilot.app  # type: ignore[assignment]
    server: SimulatorServer = app.scene_server  # type: ignore[attr-defined]
    # Retry-After makes the retry countdown the same on every run
    server.sim.add_fault(Fault(status=503, headers={"Retry-After": "30"}))
    assert app.watcher is not None
    app.watcher.refresh_now(app.state.token)
    await _until(pilot, lambda: app.dashboard.query_one("#detail").has_class("-stale"))


async def _pos(pilot: Pilot) -> None:
    from orderdash.tui.screens.pos import PosScreen

    await _loaded(pilot)
    await _until(
        pilot,
        lambda: isinstance(pilot.app.screen, PosScreen) and pilot.app.screen.state is not None,
    )


def _pos_order(sim: Simulator, paid: str = "") -> None:
    """A fresh bitcoin order at the till; `paid`: "" nothing, "part" a third, "all" in full."""
    token = sim.create_order(token="till-42", coin="btc", currency="EUR", amount_fiat="42.00")
    if paid == "part":
        amount = sim.order_wire(token, with_qr=False)["amount"]
        sim.add_transaction(token, (amount / 3).quantize(Decimal("0.00000001")))
    elif paid == "all":
        sim.add_transaction(token)


def _pos_short_order(sim: Simulator) -> None:
    """An ether order of 30.00 EUR paid 0.14 EUR short (a wallet's exchange fee), then closed
    underpaid by the service: within a 1 % payment tolerance."""
    token = sim.create_order(token="till-44", coin="eth", currency="EUR", amount_fiat="30.00")
    amount = Decimal(str(sim.order_wire(token, with_qr=False)["amount"]))
    sim.add_transaction(token, (amount * (1 - Decimal("0.14") / 30)).quantize(Decimal("1E-18")))
    sim.set_status(token, "UNDERPAID", "Underpaid")


def _pos_fine_order(sim: Simulator) -> None:
    """An order whose amount due is finer than a satoshi, as the service sends some."""
    sim.create_order(token="till-43", coin="btc", amount="0.000128701234567890123456")


async def _watching(pilot: Pilot) -> None:
    await _loaded(pilot)
    app: OrderDashApp = pilot.app  # type: ignore[assignment]
    await _until(pilot, lambda: all(e.fetched for e in app.state.entries.values()))


async def _attention(pilot: Pilot) -> None:
    """`!` over every demo order: the ones that need a human, the first in full below."""
    from orderdash.tui.screens.attention import AttentionScreen

    await _watching(pilot)
    app: OrderDashApp = pilot.app  # type: ignore[assignment]
    await _until(pilot, lambda: app.attention > 0)
    await pilot.press("exclamation_mark")
    await _until(pilot, lambda: isinstance(app.screen, AttentionScreen))
    await pilot.pause()


async def _account(pilot: Pilot) -> None:
    """The account's open orders have filled the list by themselves, every one read."""
    from orderdash.core.domain.status import is_open

    app: OrderDashApp = pilot.app  # type: ignore[assignment]
    server: SimulatorServer = app.scene_server  # type: ignore[attr-defined]
    expected = {o["token"] for o in server.sim.list_orders() if is_open(o["status"])}
    await _until(
        pilot,
        lambda: (
            set(app.state.entries) == expected
            and all(e.fetched for e in app.state.entries.values())
        ),
    )


async def _charge_confirm(pilot: Pilot) -> None:
    """`n`, an amount typed: the charge waits for the person's yes."""
    from orderdash.tui.screens.charge import ChargeScreen

    await _account(pilot)
    app: OrderDashApp = pilot.app  # type: ignore[assignment]
    await pilot.press("n")
    await _until(pilot, lambda: isinstance(app.screen, ChargeScreen))
    await pilot.press(*"12.50", "enter")
    await _until(pilot, lambda: "Charge 12.50" in screen_text(app))


async def _pos_words(pilot: Pilot) -> None:
    """The point of sale up, showing `words` (found by the scene's own check)."""
    from orderdash.tui.screens.pos import PosScreen

    app: OrderDashApp = pilot.app  # type: ignore[assignment]
    await _until(pilot, lambda: isinstance(app.screen, PosScreen))
    await _until(pilot, lambda: app.scene_words in screen_text(app))  # type: ignore[attr-defined]


def _pos_no_coin_order(sim: Simulator) -> None:
    """An order made at the till with no coin chosen yet: the customer picks it on the page."""
    sim.create_order(token="till-44", coin=None, currency="EUR", amount_fiat="42.00")


async def _close_day(pilot: Pilot) -> None:
    """`Z` on the account's day: today's report read, shown as a dry run (not closed yet), and
    the day at a glance from the ledger beside it."""
    from orderdash.tui.screens.close_day import CloseDayScreen

    await _account(pilot)
    app: OrderDashApp = pilot.app  # type: ignore[assignment]
    await pilot.press("escape", "Z")
    await _until(
        pilot,
        lambda: (
            isinstance(app.screen, CloseDayScreen)
            and app.screen.result is not None
            and not app.screen.reading
            and app.screen.glance is not None
        ),
    )


async def _close_day_glance(pilot: Pilot) -> None:
    """`Z`, then `g`: the day at a glance in the report's place (its text form, narrow)."""
    from orderdash.tui.widgets.day_glance import DayGlance

    await _close_day(pilot)
    await pilot.press("g")
    await _until(pilot, lambda: pilot.app.screen.query_one(DayGlance).display)


async def _empty(pilot: Pilot) -> None:
    await pilot.pause()


async def _until(pilot: Pilot, predicate: Callable[[], bool], limit: float = 10.0) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the scene did not reach its state")
        await pilot.pause(0.05)
    await pilot.pause(0.1)


@dataclass(frozen=True)
class Scene:
    name: str
    caption: str
    size: tuple[int, int]
    token: str | None
    settle: Callable[[Pilot], Awaitable[None]] = _loaded
    bearer: bool = True
    prepare: Callable[[Simulator], None] = field(default=lambda sim: None)
    pos: bool = False
    #: More orders on the watch list beside `token`.
    also_watch: tuple[str, ...] = ()
    #: Account mode: the access token instead of the bearer, the list fills itself.
    account: bool = False
    #: The service's checkout page for `token` is known (the till made the order).
    checkout: bool = False
    #: Words the screen must show before it is taken (`_pos_words`).
    words: str = ""
    #: The books in a ledger of the scene's own (`scene_book`), not in the user's ledger.
    book: bool = False
    #: The payment tolerance, in percent (`underpaid_tolerance`).
    tolerance: Decimal = Decimal(0)

    async def taken(self, pilot: Pilot) -> None:
        """Settled, and the title's attention count as of now (it is otherwise counted at the
        next tick, which a loaded machine may take after the picture)."""
        await self.settle(pilot)
        app: OrderDashApp = pilot.app  # type: ignore[assignment]
        app.attention_keeper.update()
        await pilot.pause()


SCENES = (
    Scene("empty", "Start: type or paste an order token", (120, 36), None, _empty),
    Scene("order-awaiting-payment", "An order waiting for its payment", (120, 36), DEMO_TOKENS[5]),
    Scene("order-with-payments", "An order with several payments", (140, 42), DEMO_TOKENS[4]),
    Scene(
        "stale",
        "The service fails: last good data kept, marked stale",
        (120, 36),
        DEMO_TOKENS[0],
        _stale,
    ),
    Scene("narrow-80x24", "80x24: everything but the QR", (80, 24), DEMO_TOKENS[1]),
    Scene(
        "watch-list",
        "Watching every demo order; the selected one in the panes below",
        (160, 50),
        DEMO_TOKENS[0],
        _watching,
        also_watch=DEMO_TOKENS[1:],
    ),
    Scene(
        "watch-list-120x40",
        "Watching every demo order at 120x40: the columns that fit, figures whole or marked",
        (120, 40),
        DEMO_TOKENS[0],
        _watching,
        also_watch=DEMO_TOKENS[1:],
    ),
    Scene(
        "watch-list-80x24",
        "Watching every demo order at 80x24, newest first: token, created, status, what to pay "
        "and health stay",
        (80, 24),
        DEMO_TOKENS[1],
        _watching,
        also_watch=DEMO_TOKENS[:1] + DEMO_TOKENS[2:],
    ),
    Scene(
        "attention-120x40",
        "Need attention (!): under- and overpaid orders, their figures, ages and next steps",
        (120, 40),
        DEMO_TOKENS[0],
        _attention,
        also_watch=DEMO_TOKENS[1:],
    ),
    Scene(
        "attention-80x24",
        "Need attention at 80x24: the highlighted order in full below the table",
        (80, 24),
        DEMO_TOKENS[0],
        _attention,
        also_watch=DEMO_TOKENS[1:],
    ),
    Scene(
        "account",
        "Account mode: the account's open orders fill the list, no token typed",
        (120, 40),
        None,
        _account,
        account=True,
    ),
    Scene(
        "close-day-120x40",
        "Close of day (Z): sales against received per currency, the till's first, then the "
        "rest; beside it the day at a glance, hour by hour against a week earlier",
        (120, 40),
        None,
        _close_day,
        account=True,
        book=True,
    ),
    Scene(
        "close-day-80x24",
        "Close of day at 80x24: every figure whole, the report scrolls",
        (80, 24),
        None,
        _close_day,
        account=True,
        book=True,
    ),
    Scene(
        "close-day-glance-80x24",
        "The day at a glance at 80x24 (Z, then g): its text form, the totals first, then hour "
        "by hour against a week earlier",
        (80, 24),
        None,
        _close_day_glance,
        account=True,
        book=True,
    ),
    Scene(
        "charge-confirm",
        "New charge (n): the amount confirmed before anything is sent",
        (120, 40),
        None,
        _charge_confirm,
        account=True,
    ),
    Scene(
        "pos-choose-coin",
        "Point of sale, no coin chosen: the checkout page as the QR, the fiat amount",
        (120, 36),
        "till-44",
        _pos_words,
        prepare=_pos_no_coin_order,
        pos=True,
        checkout=True,
        words="Scan to choose your coin and pay",
    ),
    Scene(
        "pos-not-found",
        "Point of sale on a token the service does not know: no QR, words for the customer",
        (120, 36),
        "till-404",
        _pos_words,
        pos=True,
        words="This order was not found",
    ),
    Scene(
        "pos-scan-to-pay",
        "Point of sale: scan to pay",
        (120, 36),
        "till-42",
        _pos,
        prepare=_pos_order,
        pos=True,
    ),
    Scene(
        "pos-partly-paid",
        "Point of sale: a third paid, the QR asks for the rest",
        (120, 36),
        "till-42",
        _pos,
        prepare=lambda sim: _pos_order(sim, "part"),
        pos=True,
    ),
    Scene(
        "pos-paid",
        "Point of sale: paid in full",
        (120, 36),
        "till-42",
        _pos,
        prepare=lambda sim: _pos_order(sim, "all"),
        pos=True,
    ),
    Scene(
        "pos-paid-within-tolerance",
        "Point of sale: paid 0.14 EUR short, within a 1 % tolerance: paid, the shortfall "
        "absorbed on the staff line",
        (120, 36),
        "till-44",
        _pos,
        prepare=_pos_short_order,
        pos=True,
        tolerance=Decimal(1),
    ),
    Scene(
        "pos-rounded-up",
        "Point of sale: an amount finer than a satoshi, rounded up, the service's figure beside",
        (120, 36),
        "till-43",
        _pos,
        prepare=_pos_fine_order,
        pos=True,
    ),
    Scene(
        "pos-80x24",
        "Point of sale at 80x24",
        (80, 24),
        "till-42",
        _pos,
        prepare=_pos_order,
        pos=True,
    ),
    Scene(
        "pos-60x24",
        "Point of sale at 60x24: the code first",
        (60, 24),
        "till-42",
        _pos,
        prepare=_pos_order,
        pos=True,
    ),
)


def scene(name: str) -> Scene:
    return next(s for s in SCENES if s.name == name)


@contextmanager
def utc_time() -> Iterator[None]:
    """Local time is UTC inside: the status line's clock reads the same everywhere."""
    previous = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = previous
        time.tzset()


@contextmanager
def scene_book(wanted: bool) -> Iterator[tuple[BookOpener | None, dict[str, str]]]:
    """An opener of an empty SQLite ledger of the scene's own, there while inside (`wanted`),
    never the user's, and the `ledger` setting naming it (so that the App's writer keeps the
    orders it reads in it too); None and no setting when the scene keeps no books."""
    if not wanted:
        yield None, {}
        return
    import tempfile

    from orderdash.core.ledger.sqlite import SqliteEngine
    from orderdash.core.ledger.store import SqlBook

    with tempfile.TemporaryDirectory(prefix="orderdash-scene-") as directory:
        path = Path(directory) / "ledger.sqlite3"
        yield lambda settings: SqlBook(SqliteEngine(path)), {"ledger": str(path)}


@contextmanager
def scene_app(chosen: Scene, **settings_given: object) -> Iterator[OrderDashApp]:
    """The app of `chosen`, connected to a frozen-clock simulator that runs while inside;
    `settings_given` are settings on top of the scene's (a test's own, e.g. readonly)."""
    simulator = Simulator(seed=7, clock=lambda: FROZEN_NOW)
    chosen.prepare(simulator)
    account = {"access_token": SCENE_ACCESS} if chosen.account else {}
    with (
        utc_time(),
        scene_book(chosen.book) as (open_book, ledger),
        SimulatorServer(simulator, bearer_token=SCENE_BEARER, port=0, **account) as server,
    ):
        credentials = (
            # the simulated account's fiat is the euro: a till set up as the README says
            {"access_token": SecretStr(SCENE_ACCESS), "customer_id": "4711", "currency": "EUR"}
            if chosen.account
            else {"bearer_token": SecretStr(SCENE_BEARER) if chosen.bearer else None}
        )
        settings = Settings(
            base_url=server.base_url,
            poll_interval=30.0,
            refresh_interval=60.0,
            bell=False,
            persist_watchlist=False,
            underpaid_tolerance=chosen.tolerance,
            **credentials,
            **ledger,  # type: ignore[arg-type]
            **settings_given,  # type: ignore[arg-type]
        )
        app = make_app(
            settings,
            token=chosen.token,
            tokens=chosen.also_watch,
            clock=lambda: FROZEN_NOW,
            monotonic=lambda: 0.0,  # countdowns frozen at their full length
            open_pos=chosen.pos,
            open_book=open_book,
        )
        app.scene_server = server  # type: ignore[attr-defined]
        app.scene_words = chosen.words  # type: ignore[attr-defined]
        if chosen.checkout and chosen.token is not None:
            from orderdash.simulator.app import CHECKOUT_URL

            app.state.set_payment_url(chosen.token, CHECKOUT_URL + chosen.token)
        yield app
