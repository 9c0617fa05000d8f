"""The attention view (`!`) and the title's count, against the simulator on loopback: every kind
(still paying: part-paid while open; overpaid, expired with a payment, paid after expiry,
unconfirmed past the threshold, a token reused for another order) appears in the view and is
counted in the title at 80x24 and 120x40 and narrower; Enter shows the order, `r` resolves it
through the dialog (read-only: not) and it leaves, a resolution in the ledger leaves (one
written while the app runs too), a payment after a resolution brings the order back, an answer
is classified in a thread, Escape goes back; within the payment tolerance an order closed short
leaves, and "still paying" is apart from "closed short"."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from conftest import make_settings, screen_text, serving, wait_until
from orderdash.core.books import orders as book_orders
from orderdash.core.books.resolve import new_resolution
from orderdash.core.ledger.open import open_book
from orderdash.core.settings.model import Settings
from orderdash.core.watching import attention as keeper_module
from orderdash.simulator import Simulator, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.messages import ResolveRequested
from orderdash.tui.screens.attention import AttentionScreen
from orderdash.tui.screens.dashboard import DashboardScreen
from orderdash.tui.screens.resolve import ResolveScreen
from support.notify_endpoint import Endpoint
from support.typed import type_into

UNDER, OVER, PAID = "demo-btc-eur", "demo-bch-usd", "demo-ltc-gbp"
EXPIRED, LATE, UNCONF, REUSED = "att-expired", "att-late", "att-unconf", "att-reused"
KINDS = {
    UNDER: "still paying",
    OVER: "overpaid",
    EXPIRED: "expired with payment",
    LATE: "paid after expiry",
    UNCONF: "unconfirmed",
}


@pytest.fixture(scope="module")
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=31)
    # hostile text from the service: shown literally, never as markup or a terminal control
    sim.set_fields(UNDER, {"companyName": "[/] ACME [@click=app.quit]x[/]\x1b[2J"})
    # paid in part before its expiry, then expired
    sim.create_order(token=EXPIRED, age_s=3600, lifetime_s=600)
    sim.add_transaction(EXPIRED, "0.00001", age_s=3300)
    sim.set_status(EXPIRED, "EXPIRED", "Expired")
    # paid in full 40 minutes after it expired
    sim.create_order(token=LATE, age_s=3600, lifetime_s=600)
    sim.add_transaction(LATE, None, age_s=600)
    # paid two hours ago, still waiting for its confirmations
    sim.create_order(token=UNCONF, age_s=9000, lifetime_s=7200)
    sim.add_transaction(UNCONF, None, age_s=7200)
    sim.set_status(UNCONF, "PAID_UNCONFIRMED", "Paid / Unconfirmed")
    # open, nothing paid yet: nothing to do until its token names another order
    sim.create_order(token=REUSED, age_s=60)
    with serving(SimulatorServer(sim, port=0)) as server:
        yield server


def attention_app(server: SimulatorServer, **settings: object) -> OrderDashApp:
    values = make_settings(
        server.base_url, poll_interval=0.2, refresh_interval=60.0, budget_per_minute=1200,
        **settings,
    )  # fmt: skip
    return make_app(values, tokens=[UNDER, OVER, PAID, EXPIRED, LATE, UNCONF, REUSED])


def title_line(app: OrderDashApp) -> str:
    return screen_text(app).splitlines()[0]


def now_ms() -> int:
    """Now (the simulator's clock is the real one here), for a resolution made now."""
    return int(time.time() * 1000)


async def test_every_kind_in_the_view_then_a_reused_token_enter_and_resolve(
    server: SimulatorServer,
) -> None:
    app = attention_app(server)
    asked: list[str] = []

    def hook(message: object) -> None:
        if isinstance(message, ResolveRequested):
            asked.append(message.token)

    async with app.run_test(size=(120, 40), notifications=True, message_hook=hook) as pilot:
        await wait_until(pilot, lambda: app.attention == 5, timeout=10)
        assert "! 5 watched need attention" in title_line(app)
        await pilot.press("exclamation_mark")
        assert isinstance(app.screen, AttentionScreen)
        await pilot.pause()
        text = screen_text(app)
        rows = {line.split()[0]: line for line in text.splitlines() if " ago " in line}
        for token, kind in KINDS.items():
            assert token in rows and kind in rows[token], (token, text)
        assert PAID not in rows and REUSED not in rows  # paid in full; open, unpaid
        # a shortfall and an excess, signed, in coin and in fiat
        assert "-" in rows[UNDER] and " BTC" in rows[UNDER] and " EUR" in rows[UNDER]
        assert "+" in rows[OVER] and " BCH" in rows[OVER] and " USD" in rows[OVER]
        assert "refund" in rows[OVER]
        # the highlighted order in full below the table: every kind, its figure, the next step
        assert (
            "still paying: shortfall " in text
            and "Next step: wait, or accept at the counter" in text
        )
        assert "[/] ACME [@click=app.quit]x[/]" in text and "\x1b" not in text

        # the service reset: the open order's token names another order now
        # (another identity than any earlier: the module's tests share one server, in any order)
        was = server.sim.order_wire(REUSED, with_qr=False)
        server.sim.set_fields(
            REUSED,
            {"id": was["id"] + 1000, "createdAtMiliseconds": was["createdAtMiliseconds"] + 1000},
        )
        await wait_until(pilot, lambda: "identity changed" in screen_text(app), timeout=10)
        assert app.attention == 6

        # r on the highlighted row: the resolve dialog; once written, the order leaves
        screen = app.screen
        token = screen.highlighted
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ResolveScreen))
        assert set(asked) == {token}  # (posted by the view, answered by the app)
        dialog = app.screen
        assert dialog.token == token
        await wait_until(pilot, lambda: dialog.known)
        dialog.query("#resolve-kind RadioButton")[3].value = True  # customer asked
        await type_into(pilot, dialog, "#resolve-reason", "mailed the customer")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: dialog.written is not None)
        await pilot.press("ctrl+s")  # Done
        await wait_until(pilot, lambda: app.screen is screen)
        await wait_until(pilot, lambda: app.attention == 5)
        assert token not in screen.tokens_shown
        await wait_until(pilot, lambda: "5 of the watched orders" in title_line(app))

        # Enter shows the order on the dashboard
        await pilot.press("down")
        target = screen.highlighted
        assert target is not None and target != token
        await pilot.press("enter")
        assert isinstance(app.screen, DashboardScreen)
        await wait_until(pilot, lambda: app.state.token == target)


async def test_a_resolved_order_leaves_and_escape_goes_back(server: SimulatorServer) -> None:
    app = attention_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.attention >= 5, timeout=10)
        before = app.attention
        await pilot.press("exclamation_mark")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert table.row_count == before
        app.attention_keeper.resolved = {OVER: now_ms()}
        await wait_until(pilot, lambda: app.attention == before - 1)
        await wait_until(pilot, lambda: table.row_count == before - 1)
        assert OVER not in screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen)
        assert f"! {before - 1} watched need attention" in title_line(app)


@pytest.mark.parametrize(
    ("size", "shown"),
    [((120, 40), "need attention"), ((80, 24), "need attention"), ((40, 24), "!")],
)
async def test_the_title_counts_them_at_every_width(
    server: SimulatorServer, size: tuple[int, int], shown: str
) -> None:
    app = attention_app(server)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.attention >= 5, timeout=10)
        count = app.attention
        await wait_until(pilot, lambda: f"{count}" in title_line(app))
        line = title_line(app)
        assert shown in line and (f"! {count}" in line or f"!{count}" in line), line
        # the title gives way to the count, cut with a sign
        assert size[0] > 80 or "\u2026" in line or "orderdash" in line
        if size[0] >= 80:  # (and 60 columns below)
            await assert_figures_whole(pilot, app)
        # each kind resolved in turn leaves the count, down to none
        for token in KINDS:
            app.books.resolved({token: now_ms()})
            count -= 1
            await wait_until(pilot, lambda count=count: app.attention == count)
            if count:
                await wait_until(pilot, lambda count=count: f"{count}" in title_line(app))
                assert token not in {found.token for found in app.attention_keeper.found}
        await wait_until(pilot, lambda: "!" not in title_line(app))


async def test_a_readonly_operator_resolves_nothing(server: SimulatorServer) -> None:
    app = attention_app(server, readonly=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_until(pilot, lambda: app.attention >= 5, timeout=10)
        await pilot.press("exclamation_mark")
        await pilot.pause()
        assert isinstance(app.screen, AttentionScreen)
        assert app.screen.check_action("resolve", ()) is False
        await pilot.press("r")
        await pilot.pause()
        assert "orderdash resolve" not in screen_text(app)
        assert "READ-ONLY" in screen_text(app)


async def test_an_order_resolved_in_the_ledger_is_not_counted(
    server: SimulatorServer, tmp_path: Path
) -> None:
    """A resolution written before the dashboard starts (`orderdash resolve`, another till):
    the order is asked of the ledger when it first needs a human, and leaves the count."""
    ledger = tmp_path / "ledger.sqlite3"
    book = open_book(Settings(ledger=str(ledger)))
    try:
        book.resolution_made(
            new_resolution(OVER, "refunded", "sent back by hand", till="back", operator="eve")
        )
    finally:
        book.close_connection()
    app = attention_app(server, ledger=str(ledger))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.attention == 4, timeout=10)
        await pilot.pause(0.5)
        assert app.attention == 4  # the resolved order does not come back
        assert OVER not in {found.token for found in app.attention_keeper.found}
        assert "! 4 watched need attention" in title_line(app)


@pytest.mark.skipif(find_spec("apprise") is None, reason="Apprise is not installed")
async def test_the_owner_hears_of_each_order_that_needs_a_human_once(
    server: SimulatorServer, tmp_path: Path
) -> None:
    """An `attention` rule: one message per order of every kind (the view's kind and next
    step), none for an order the ledger holds resolved, none for a part payment into an order
    still open (the customer may pay the rest), none again at later reads."""
    ledger = tmp_path / "ledger.sqlite3"
    book = open_book(Settings(ledger=str(ledger)))
    try:
        book.resolution_made(
            new_resolution(OVER, "settled", "kept as credit", till="a", operator="b")
        )
    finally:
        book.close_connection()
    endpoint = Endpoint()
    app = attention_app(
        server,
        ledger=str(ledger),
        notify=[{"events": ["attention"], "urls": [endpoint.url("owner")]}],
    )
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: app.attention == 4, timeout=10)
            await wait_until(pilot, lambda: len(endpoint.at("owner")) >= 3, timeout=10)
            await pilot.pause(1.0)  # more reads: nothing more is sent
        assert app.alarms.notices is not None and app.alarms.notices.notifier.drain(5)
        bodies = [str(body["message"]) for body in endpoint.at("owner")]
        told = {token for token in KINDS if any(token in body for body in bodies)}
        assert told == set(KINDS) - {OVER, UNDER} and len(bodies) == 3, bodies
        for token, kind in KINDS.items():
            if token not in (OVER, UNDER):
                (body,) = [b for b in bodies if token in b]
                assert kind.split()[0] in body.splitlines()[0].lower() and "Next step:" in body
    finally:
        if app.alarms.notices is not None:
            app.alarms.notices.notifier.close(2)
        endpoint.close()


async def assert_figures_whole(pilot, app: OrderDashApp) -> None:  # noqa: ANN001
    """In `!`: the columns that do not fit are left out and counted, never cut at the edge:
    each amount on screen is the whole figure, and the hidden ones are said."""
    await pilot.press("exclamation_mark")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, AttentionScreen)
    text = screen_text(app)
    names = [str(column.label) for column in screen.query_one(DataTable).ordered_columns]
    for found in app.attention_keeper.found:
        item = found.first
        if item.coin_amount is None or item.fiat_amount is None:
            continue
        coin, fiat = format(item.coin_amount, "f"), format(item.fiat_amount, "f")
        # the table's row (the detail below names the token with its company after a dot)
        (row,) = [
            line for line in text.splitlines() if found.token in line and "\u00b7" not in line
        ]
        if "Coin" in names:
            assert f"{coin} {item.coin}".upper() in row.upper(), row
        if "Fiat" in names:
            assert f"{fiat} {item.currency}" in row, row
    hidden = 6 - len(names)
    assert (f"{hidden} column" in text) == (hidden > 0), (names, text)
    assert names[:2] == ["Order", "What happened"]
    await pilot.press("escape")
    await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen))


async def test_every_figure_shown_is_whole_at_60_columns(server: SimulatorServer) -> None:
    app = attention_app(server)
    async with app.run_test(size=(60, 30)) as pilot:
        await wait_until(pilot, lambda: app.attention >= 5, timeout=10)
        await assert_figures_whole(pilot, app)


async def test_a_payment_after_the_resolution_brings_the_order_back(
    server: SimulatorServer,
) -> None:
    """Resolved (asked the customer for the rest), the order leaves; the customer pays again:
    it is back in the view and the title's count."""
    token = server.sim.create_order(token="att-again", amount_fiat="50.00", lifetime_s=7200)
    server.sim.add_transaction(token, "0.0001", age_s=600)
    values = make_settings(server.base_url, poll_interval=0.2, refresh_interval=60.0)
    app = make_app(values, tokens=[token])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.attention == 1, timeout=10)
        app.books.resolved({token: now_ms() - 1000})
        await wait_until(pilot, lambda: app.attention == 0)
        await wait_until(pilot, lambda: "!" not in title_line(app))
        server.sim.add_transaction(token, "0.00001")
        await wait_until(pilot, lambda: app.attention == 1, timeout=10)
        await wait_until(pilot, lambda: "! 1 watched needs attention" in title_line(app))
        assert [o.token for o in app.attention_keeper.found] == [token]


async def test_a_resolution_written_elsewhere_meanwhile_leaves_within_the_recheck(
    server: SimulatorServer, tmp_path: Path
) -> None:
    """Another till (or `orderdash resolve` in another terminal) resolves an order on screen:
    the ledger is asked again about the orders in view, and it leaves the count."""
    ledger = tmp_path / "ledger.sqlite3"
    app = attention_app(server, ledger=str(ledger))
    app.attention_keeper.recheck_every = 1.0  # (a minute in use)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.attention == 5, timeout=10)
        book = open_book(Settings(ledger=str(ledger)))
        try:
            book.resolution_made(
                new_resolution(OVER, "refunded", "sent back", till="back", operator="eve")
            )
        finally:
            book.close_connection()
        await wait_until(pilot, lambda: app.attention == 4, timeout=10)
        assert OVER not in {found.token for found in app.attention_keeper.found}
        await wait_until(pilot, lambda: "! 4 watched need attention" in title_line(app))


async def test_an_order_of_many_payments_is_classified_off_the_event_loop(
    server: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The books' reading and the classification of an answer (cost grows with its payments)
    run in a thread, one classification at a time; the title's count still arrives."""
    token = server.sim.create_order(token="att-many", amount_fiat="50.00", lifetime_s=7200)
    for n in range(300):
        server.sim.add_transaction(token, "0.00000001", age_s=900 - n)
    read_on: list[int] = []
    running: list[int] = [0, 0]  # now, at most
    real_read, real_classify = book_orders.read_order, keeper_module.classify

    def read(raw: Any) -> Any:
        read_on.append(threading.get_ident())
        return real_read(raw)

    def classify(batch: Any) -> Any:
        running[0] += 1
        running[1] = max(running)
        try:
            return real_classify(batch)
        finally:
            running[0] -= 1

    monkeypatch.setattr(book_orders, "read_order", read)
    monkeypatch.setattr(keeper_module, "classify", classify)
    values = make_settings(server.base_url, poll_interval=0.2, refresh_interval=60.0)
    app = make_app(values, tokens=[token, UNDER, OVER])
    async with app.run_test(size=(80, 24)) as pilot:
        loop_thread = threading.get_ident()
        await wait_until(pilot, lambda: app.attention == 3, timeout=10)
        await wait_until(pilot, lambda: "! 3 watched need attention" in title_line(app))
        assert token in {found.token for found in app.attention_keeper.found}
    assert read_on and loop_thread not in read_on, "an answer was read on the event loop"
    assert running[1] == 1


async def test_within_the_tolerance_leaves_and_still_paying_is_apart_from_closed_short(
    sim_server: SimulatorServer,
) -> None:
    """A 1 % tolerance: an order closed 0.14 EUR short of 30.00 EUR needs nobody; one closed
    a quarter short is "closed short", one open and part-paid "still paying", each with its
    own next step, and the counts say what they count."""
    from decimal import Decimal

    sim = sim_server.sim

    def paid_short(token: str, status: str, share: str) -> str:
        sim.create_order(token=token, coin="eth", currency="EUR", amount_fiat="30.00")
        amount = Decimal(str(sim.order_wire(token, with_qr=False)["amount"]))
        sim.add_transaction(token, (amount * (1 - Decimal(share))).quantize(Decimal("1E-18")))
        if status:
            sim.set_status(token, status)
        return token

    within = paid_short("tol-within", "UNDERPAID", "0.0046667")  # 0.14 EUR short
    closed = paid_short("tol-closed", "UNDERPAID", "0.25")
    open_ = paid_short("tol-open", "", "0.25")
    settings = make_settings(
        sim_server.base_url, poll_interval=0.2, refresh_interval=60.0,
        underpaid_tolerance=Decimal(1),
    )  # fmt: skip
    app = make_app(settings, tokens=[within, closed, open_])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.attention == 2 and app.state.order is not None)
        assert "! 2 watched need attention" in title_line(app)
        await pilot.press("exclamation_mark")
        await pilot.pause()
        text = screen_text(app)
        rows = {line.split()[0]: line for line in text.splitlines() if " ago " in line}
        assert within not in rows
        assert "closed short" in rows[closed] and "ask the customer" in rows[closed]
        assert "still paying" in rows[open_] and "wait, or accept at the" in rows[open_]
        assert "2 of the watched orders: 1 closed short, 1 still paying" in title_line(app)
