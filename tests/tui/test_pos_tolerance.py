"""An order paid a little short, on the point of sale and the customer display: within the
payment tolerance (`underpaid_tolerance`) once nothing more is to come, or paid by the
service's word, it is "Paid" for the customer, never a payment code, while the staff line
shows the shortfall absorbed in fiat and coin; the point of sale's `a` accepts an order short
as paid (one question, one written-off resolution in the ledger), refused while read-only.
Driven by Pilot against the simulator over loopback."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.core.customer.catalogue import catalogue
from orderdash.core.customer.channel import Publisher, channel_path
from orderdash.core.domain.text import amount_text
from orderdash.core.ledger import ResolutionRecord
from orderdash.core.ledger.open import open_book
from orderdash.core.settings.model import Settings
from orderdash.simulator import SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.customer_display import DisplayApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.confirm import ConfirmScreen
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.keys_footer import KeysFooter
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.qr import QRView
from orderdash.tui.widgets.watch_rows import payment_text
from support.faces import customer_face

SIZE = (100, 30)
NOW = 1_800_000_000.0


def short_order(server: SimulatorServer, status: str) -> tuple[str, str, str]:
    """A 30.00 EUR ETH order paid 0.14 EUR short, then given `status` by the service: its
    token and the shortfall in fiat and in coin, as the service says them."""
    sim = server.sim
    token = sim.create_order(coin="eth", currency="EUR", amount_fiat="30.00")
    amount = Decimal(str(sim.order_wire(token, with_qr=False)["amount"]))
    sim.add_transaction(token, (amount * (1 - Decimal("0.14") / 30)).quantize(Decimal("1E-18")))
    if status != "IN_PROGRESS":
        sim.set_status(token, status)
    tx = sim.order_wire(token, with_qr=False)["transactions"][-1]
    fiat = -Decimal(tx["amountFiat"]["underPaid"])
    assert fiat == Decimal("0.14")
    return token, f"{amount_text(fiat)} EUR", f"{amount_text(-tx['amount']['underPaid'])} ETH"


def pos_app(server: SimulatorServer, token: str, **values: object) -> OrderDashApp:
    settings = make_settings(server.base_url, poll_interval=0.2, refresh_interval=60.0, **values)
    return make_app(settings, token=token, open_pos=True)


def pos_of(app: OrderDashApp) -> PosScreen:
    assert isinstance(app.screen, PosScreen)
    return app.screen


def banner(app: OrderDashApp) -> str:
    screen = app.screen
    return str(screen.query_one("#pos-banner").render()) if isinstance(screen, PosScreen) else ""


def staff(app: OrderDashApp) -> str:
    return str(pos_of(app).query_one("#pos-staff").render())


def footer_keys(app: OrderDashApp) -> dict[str, str]:
    keys, _ = pos_of(app).query_one(KeysFooter).shown
    return {key.key: key.description for key in keys}


def written(ledger: Path, token: str) -> list[ResolutionRecord]:
    book = open_book(Settings(ledger=str(ledger)))
    try:
        return book.resolutions_of([token])
    finally:
        book.close_connection()


@pytest.mark.parametrize(
    ("status", "tolerance", "headline", "absorbed"),
    [
        ("UNDERPAID", "1", "Paid", "paid within tolerance"),
        ("EXPIRED", "1", "Paid", "paid within tolerance"),
        ("UNDERPAID", "0", "Underpaid: order closed", ""),
        # the service took it as paid (its own tolerance): paid, the shortfall shown all the same
        ("PAID", "0", "Payment received, confirming", "paid by the service"),
    ],
)
async def test_an_order_a_little_short_with_nothing_more_to_come(
    sim_server: SimulatorServer, status: str, tolerance: str, headline: str, absorbed: str
) -> None:
    token, fiat, coin = short_order(sim_server, status)
    app = pos_app(sim_server, token, underpaid_tolerance=Decimal(tolerance))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: banner(app).startswith(headline))
        pos = pos_of(app)
        assert not pos.query_one("#pos-qr", QRView).display
        assert "send" not in banner(app)
        face = app.state.face_for(token)  # what the customer display is sent
        assert face is not None and not face.payable and not face.qr_text
        if absorbed:
            assert staff(app) == f"Staff: {absorbed}, {fiat} ({coin}) short, absorbed"
            assert app.state.shown is not None
            assert f"{fiat} ({coin}) short" in app.state.shown.payment.summary  # the order view
            # the watch list's row
            assert payment_text(app.state.shown.payment, 60) == f"{headline}, {fiat} short"
        else:
            assert not pos.query_one("#pos-staff").display
            assert face.phase == "UNDERPAID"
        if headline == "Paid":
            assert face.phase == "PAID_SHORT" and "a" not in footer_keys(app)


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_customer_display_says_paid_without_a_code(tmp_path: Path, language: str) -> None:
    path = channel_path("default", tmp_path)
    publisher = Publisher(path, language="en", clock=lambda: NOW)
    app = DisplayApp(path, clock=lambda: NOW, poll_interval=0.05, language=language)
    words = catalogue(language)
    face = customer_face(
        phase="PAID_SHORT",
        payable=False,
        qr_text="",
        coin="ETH",
        amount_label="label_received",
        coin_amount="0.008847931729287661",
        fiat_amount="29.86",
        payments=1,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        publisher.publish(face)
        await wait_until(
            pilot, lambda: words.text("headline_paid_short") in screen_text(app).replace(" ", "")
        )
        assert words.text("headline_paid_short") == words.text("headline_confirmed")
        assert not app.query_one("#pos-qr", QRView).display


async def test_a_accepts_an_order_short_as_paid_once_asked_and_writes_it_down(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    token, fiat, coin = short_order(sim_server, "UNDERPAID")
    ledger = tmp_path / "ledger.sqlite3"
    app = pos_app(sim_server, token, ledger=str(ledger), till="front", operator="anna")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: banner(app).startswith("Underpaid"))
        assert footer_keys(app).get("a") == "Accept as paid"
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = "Accept 30.00 EUR order as paid, 0.14 EUR short? The shortfall is written off."
        assert str(app.screen.query_one("#confirm-body Static").render()) == question
        await pilot.press("y")
        await wait_until(pilot, lambda: banner(app) == "Paid")
        face = app.state.face_for(token)
        assert face is not None and face.phase == "PAID_SHORT" and not face.payable
        assert (
            staff(app) == f"Staff: accepted as paid at the counter, {fiat} ({coin}) short, absorbed"
        )
        assert "a" not in footer_keys(app)
        records = written(ledger, token)
        assert [(r.kind, r.reason, r.operator, r.till) for r in records] == [
            ("written-off", "accepted at the counter", "anna", "front")
        ]


async def test_an_order_accepted_at_the_counter_is_paid_on_the_dashboard_under_it_at_once(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    """The order on screen is one value on the app that every pane showing it is bound to: the
    acceptance reaches the dashboard's order pane with the customer's screen, not at its next
    read."""
    token, fiat, coin = short_order(sim_server, "UNDERPAID")
    app = pos_app(sim_server, token, ledger=str(tmp_path / "ledger.sqlite3"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: banner(app).startswith("Underpaid"))
        detail = app.dashboard.query_one(OrderDetail)
        assert "accepted as paid" not in detail.text()
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: banner(app) == "Paid")
        assert f"accepted as paid at the counter, {fiat} ({coin}) short" in detail.text()


async def test_an_acceptance_at_the_counter_is_shown_paid_after_a_restart(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    """The ledger holds the acceptance, not the process that made it: a till started again (or
    another on the same book) shows the order paid once the ledger answered about it."""
    from orderdash.core.books.resolve import ACCEPTED_REASON, new_resolution

    token, fiat, coin = short_order(sim_server, "UNDERPAID")
    ledger = tmp_path / "ledger.sqlite3"
    book = open_book(Settings(ledger=str(ledger)))
    try:
        record = new_resolution(token, "written-off", ACCEPTED_REASON, till="a", operator="x")
        book.resolution_made(record)
    finally:
        book.close_connection()
    app = pos_app(sim_server, token, ledger=str(ledger), till="front", operator="anna")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: banner(app) == "Paid")
        assert (
            staff(app) == f"Staff: accepted as paid at the counter, {fiat} ({coin}) short, absorbed"
        )
        face = app.state.face_for(token)
        assert face is not None and face.phase == "PAID_SHORT" and not face.payable


async def test_read_only_accepts_nothing_at_the_counter(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    token, _, _ = short_order(sim_server, "IN_PROGRESS")
    ledger = tmp_path / "ledger.sqlite3"
    app = pos_app(sim_server, token, ledger=str(ledger), readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: banner(app).startswith("Partly paid"))
        assert "a" not in footer_keys(app)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, PosScreen) and banner(app).startswith("Partly paid")
        # the way in, whatever calls it, refuses too
        from orderdash.tui.resolutions import accept_as_paid

        accept_as_paid(app, token, "Accept?")
        await pilot.pause()
        assert isinstance(app.screen, PosScreen)
    assert not ledger.exists() or written(ledger, token) == []
