"""The customer is never shown a QR that cannot be checked or must not be paid: an outage past a
rate period, an order the service does not know, a settled order (POS and dashboard); and an
order without a coin shows its checkout page and the fiat amount until a coin is chosen."""

from __future__ import annotations

import time

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.core.customer.catalogue import catalogue
from orderdash.core.domain.text import amount_text
from orderdash.core.watching.faces import RATE_PERIOD
from orderdash.simulator import SimulatorServer
from orderdash.simulator.app import CHECKOUT_URL
from orderdash.simulator.state import Fault
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.big_figure import BigFigure
from orderdash.tui.widgets.qr import EMPTY_NOTE, QRView
from support.qr_screen import decode_qr_on_screen

SIZES = [(80, 24), (100, 30), (120, 40)]
WORDS = catalogue("en")
CANNOT_CHECK = WORDS.text("headline_cannot_check")
NOT_FOUND = WORDS.text("headline_not_found")


class Monotonic:
    """The app's monotonic clock, pushed forward by the test instead of waited for."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


def pos_app(server: SimulatorServer, token: str, **options: object) -> OrderDashApp:
    settings = make_settings(
        server.base_url,
        poll_interval=0.2,
        refresh_interval=60.0,
        **options.pop("settings", {}),  # type: ignore[arg-type]
    )
    return make_app(settings, token=token, open_pos=True, **options)  # type: ignore[arg-type]


def pos_of(app: OrderDashApp) -> PosScreen:
    assert isinstance(app.screen, PosScreen)
    return app.screen


def banner(app: OrderDashApp) -> str:
    return str(pos_of(app).query_one("#pos-banner").render())


def on_pos(app: OrderDashApp, words: str) -> bool:
    return isinstance(app.screen, PosScreen) and words in banner(app)


def qr_of(app: OrderDashApp) -> QRView:
    return pos_of(app).query_one("#pos-qr", QRView)


@pytest.mark.parametrize("size", SIZES)
async def test_an_outage_withdraws_the_qr_after_one_rate_period(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    address = sim.order_wire(token, with_qr=False)["address"]
    clock = Monotonic()
    app = pos_app(sim_server, token, monotonic=clock)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: on_pos(app, "Scan to pay"))
        await wait_until(pilot, lambda: decode_qr_on_screen(app) == [qr_of(app).encoded_text])

        sim.add_fault(Fault(endpoint="any", status=503, times=None))
        await wait_until(pilot, lambda: pos_of(app).connection_problem)
        # within the rate period the amount is still the order's: the code stays, with a note
        await pilot.pause(0.5)
        assert qr_of(app).display and decode_qr_on_screen(app)

        clock.offset += RATE_PERIOD  # a minute without an answer
        # within one tick of the app's clock and one poll
        await wait_until(pilot, lambda: on_pos(app, CANNOT_CHECK), timeout=1.0 + 0.2 + 1.0)
        await pilot.pause(0.1)
        assert not qr_of(app).display
        assert decode_qr_on_screen(app) == []
        text = screen_text(app)
        assert address not in text and "Scan to pay" not in text
        assert "503" not in text and EMPTY_NOTE not in text

        sim.clear_faults()
        await wait_until(pilot, lambda: on_pos(app, "Scan to pay"), timeout=8)
        await wait_until(pilot, lambda: decode_qr_on_screen(app) == [qr_of(app).encoded_text])


@pytest.mark.parametrize("size", SIZES)
async def test_an_unknown_token_says_not_found_within_one_request_timeout(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    timeout = 3.0
    app = pos_app(sim_server, "no-such-order", settings={"timeout": timeout})
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: on_pos(app, NOT_FOUND), timeout=timeout)
        text = screen_text(app)
        assert WORDS.text("advice_ask_staff") in text
        assert "Loading" not in text and EMPTY_NOTE not in text and "404" not in text
        assert not qr_of(app).display and decode_qr_on_screen(app) == []


async def test_an_order_that_starts_answering_404_loses_its_qr(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    app = pos_app(sim_server, token)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: on_pos(app, "Scan to pay"))
        sim_server.sim.add_fault(Fault(endpoint="any", status=404, times=None))
        await wait_until(pilot, lambda: on_pos(app, NOT_FOUND))
        await pilot.pause(0.1)
        assert not qr_of(app).display and decode_qr_on_screen(app) == []


#: (status code, words on the POS banner) of every settled state.
SETTLED = [
    ("PAID", "Payment received, confirming"),
    ("CONFIRMED", "Paid"),
    ("OVERPAID", "Overpaid"),
    ("EXPIRED", "Expired"),
    ("CANCELED", "Canceled"),
    ("UNDERPAID", "Underpaid"),
]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("code", "words"), SETTLED)
async def test_no_qr_for_a_settled_order_on_the_pos_nor_the_dashboard(
    sim_server: SimulatorServer, code: str, words: str, size: tuple[int, int]
) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    sim.set_status(token, code)
    app = pos_app(sim_server, token)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: on_pos(app, words))
        await pilot.pause(0.2)
        assert not qr_of(app).display and decode_qr_on_screen(app) == []
        await pilot.press("escape")
        dashboard_qr = app.dashboard.query_one("#qr", QRView)
        await wait_until(pilot, lambda: app.state.shown is not None)
        await pilot.pause(0.2)
        assert dashboard_qr.encoded_text == ""
        assert dashboard_qr.placeholder.startswith("No QR: the order is")
        if size[0] >= 100:  # narrower, the dashboard hides its QR pane anyway
            assert "No QR: the order is" in screen_text(app)
        assert decode_qr_on_screen(app) == []


async def test_the_dashboard_qr_goes_once_the_order_is_paid(sim_server: SimulatorServer) -> None:
    """README: "once nothing is due the QR goes away, so nobody pays twice", on the dashboard."""
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    settings = make_settings(sim_server.base_url, poll_interval=0.2)
    app = make_app(settings, token=token)
    async with app.run_test(size=(120, 40)) as pilot:
        qr = app.dashboard.query_one("#qr", QRView)
        await wait_until(pilot, lambda: qr.encoded_text != "")
        await wait_until(pilot, lambda: decode_qr_on_screen(app) == [qr.encoded_text])
        sim.add_transaction(token)
        await wait_until(pilot, lambda: qr.encoded_text == "")
        assert decode_qr_on_screen(app) == []
        assert "nothing more is to be paid" in screen_text(app)


@pytest.mark.parametrize("size", SIZES)
async def test_without_a_coin_the_qr_is_the_checkout_page_then_the_address(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin=None, currency="EUR", amount_fiat="42.50")
    url = f"{CHECKOUT_URL}{token}"
    app = pos_app(sim_server, token)
    assert app.state.set_payment_url(token, url)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: on_pos(app, WORDS.text("headline_choose_coin_scan")))
        await wait_until(pilot, lambda: decode_qr_on_screen(app) == [url])
        assert "42.50 EUR" in screen_text(app)
        figure = pos_of(app).query_one(BigFigure)
        assert figure.amount == "42.50" and figure.unit == "EUR"

        sim.choose_coin(token, "btc")
        await wait_until(pilot, lambda: on_pos(app, "Scan to pay"))
        wire = sim.order_wire(token, with_qr=False)
        address, amount = wire["address"], amount_text(wire["amount"])
        expected = f"BITCOIN:{address.upper()}?amount={amount}"
        await wait_until(pilot, lambda: decode_qr_on_screen(app) == [expected])


async def test_without_a_coin_and_no_checkout_page_the_fiat_amount_shows_without_a_qr(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin=None, currency="EUR", amount_fiat="42.50")
    app = pos_app(sim_server, token)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: on_pos(app, "Choose a coin to pay with"))
        await pilot.pause(0.2)
        assert "42.50 EUR" in screen_text(app)
        assert decode_qr_on_screen(app) == [] and EMPTY_NOTE not in screen_text(app)


def test_only_http_links_are_kept_as_checkout_pages(sim_server: SimulatorServer) -> None:
    app = pos_app(sim_server, "t")
    assert not app.state.set_payment_url("t", "javascript:alert(1)")
    assert not app.state.set_payment_url("t", "https://pay.example/\x1b[2J")
    assert app.state.payment_urls == {}
