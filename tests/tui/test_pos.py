"""Point of sale: the customer-facing screen, driven by Pilot against the simulator."""

from __future__ import annotations

from decimal import Decimal

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.core.domain.text import amount_text
from orderdash.simulator import SimulatorServer
from orderdash.simulator.state import Fault
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.notices import MAX_HELD
from orderdash.tui.screens.pos import CONNECTION_PROBLEM, PosScreen
from orderdash.tui.widgets.big_figure import BigFigure, render_lines
from orderdash.tui.widgets.qr import QRView
from support.qr_screen import decode_qr_in_region
from support.wallets import WALLETS

SIZE = (120, 40)


def pos_app(server: SimulatorServer, token: str, **settings: object) -> OrderDashApp:
    values = {"poll_interval": 0.2, "refresh_interval": 60.0, **settings}
    return make_app(make_settings(server.base_url, **values), token=token, open_pos=True)


def pos_of(app: OrderDashApp) -> PosScreen:
    assert isinstance(app.screen, PosScreen)
    return app.screen


def banner(app: OrderDashApp) -> str:
    return str(pos_of(app).query_one("#pos-banner").render())


def decoded(app: OrderDashApp) -> list[str]:
    qr = pos_of(app).query_one("#pos-qr", QRView)
    return decode_qr_in_region(app, qr.region)


def figure_of(app: OrderDashApp) -> BigFigure:
    return pos_of(app).query_one(BigFigure)


def figure_drawn(app: OrderDashApp) -> bool:
    """The big figure is on screen whole: every row of its glyphs, inside the side column."""
    figure = figure_of(app)
    if not figure.display or not figure.lines:
        return False
    region = figure.content_region
    if not pos_of(app).query_one("#pos-side").content_region.contains_region(region):
        return False
    rows = screen_text(app).splitlines()[region.y : region.bottom]
    drawn = render_lines(figure.lines, figure.scale)
    return [row[region.x : region.x + len(drawn[0])] for row in rows] == list(drawn)


async def test_pos_follows_a_payment_from_scan_to_paid(sim_server: SimulatorServer) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    address = sim.order_wire(token, with_qr=False)["address"]

    def amount_now() -> str:
        # renewed every minute: what the simulator serves now
        return amount_text(sim.order_wire(token, with_qr=False)["amount"])

    app = pos_app(sim_server, token)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, PosScreen) and "Scan to pay" in screen_text(app)
        )
        await wait_until(
            pilot,
            lambda: (
                # a bech32 address goes into the code in upper case (qr_uppercase)
                decoded(app) == [f"BITCOIN:{address.upper()}?amount={amount_now()}"]
                and f"{amount_now()} BTC" in screen_text(app)
                # the caption under it reads as people write it
                and pos_of(app).query_one("#pos-qr", QRView).caption_text
                == f"bitcoin:{address}?amount={amount_now()}"
                and f"bitcoin:{address[:20]}" in screen_text(app)
            ),
        )
        amount = Decimal(amount_now())
        assert "40.00 EUR" in screen_text(app)
        assert address in screen_text(app)

        part = (amount / 4).quantize(Decimal("0.00000001"))
        sim.add_transaction(token, part)
        await wait_until(pilot, lambda: "Partly paid: send" in screen_text(app))
        tx = sim.order_wire(token, with_qr=False)["transactions"][-1]
        due = -tx["amount"]["underPaid"]
        assert f"Partly paid: send {amount_text(due)} BTC more" in screen_text(app)
        # the QR asks for what is left
        expected = f"BITCOIN:{address.upper()}?amount={amount_text(due)}"
        await wait_until(pilot, lambda: decoded(app) == [expected])

        sim.add_transaction(token)  # pays the rest
        await wait_until(pilot, lambda: "Payment received, confirming" in screen_text(app))
        assert not pos_of(app).query_one("#pos-qr", QRView).display, "no QR once nothing is due"


async def test_escape_returns_to_the_dashboard_and_p_comes_back(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin="ltc", currency="GBP", amount_fiat="12.00")
    app = pos_app(sim_server, token)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        await pilot.press("escape")
        assert app.screen is app.dashboard
        await pilot.press("p")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PosScreen) and "Scan to pay" in screen_text(app)
        )


async def test_fiat_can_be_the_primary_amount(sim_server: SimulatorServer) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="1234.50")
    app = pos_app(sim_server, token, pos_primary="fiat")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "Scan to pay" in screen_text(app))
        # the figure is sized once the code beside it has its size (a frame later)
        await wait_until(pilot, lambda: figure_drawn(app))
        assert figure_of(app).text == "1,234.50 EUR"
        assert "1,234.50 EUR" in screen_text(app)


@pytest.mark.parametrize("size", [(60, 24), (72, 24), (80, 24), (120, 40), (160, 50)])
@pytest.mark.parametrize("primary", ["coin", "fiat"])
async def test_the_big_figure_is_whole_with_its_unit_or_not_drawn(
    sim_server: SimulatorServer, size: tuple[int, int], primary: str
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="98765.43")
    app = pos_app(sim_server, token, pos_primary=primary)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: "Scan to pay" in screen_text(app))
        pos = pos_of(app)
        qr = pos.query_one("#pos-qr", QRView)
        await wait_until(pilot, lambda: decoded(app) == [qr.encoded_text])
        figure = figure_of(app)
        unit = "EUR" if primary == "fiat" else "BTC"
        amount = figure.amount
        assert amount and figure.unit == unit

        # settles once the code and the column beside it have their sizes; a fit that is never
        # redone for the column's final width fails here
        await wait_until(pilot, lambda: figure_drawn(app) or not figure.display)
        if size[0] >= 80:
            assert figure_drawn(app), "room for the figure from 80 columns"
        if figure.display:
            # the unit in the same glyphs as the amount
            assert figure.text == f"{amount} {unit}"
        # the amount is on screen either way, as bold text too
        assert f"{amount} {unit}" in screen_text(app)


@pytest.mark.parametrize("size", [(60, 24), (80, 24), (100, 30), (160, 50)])
async def test_pos_qr_scans_at_every_size(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="25.00")
    app = pos_app(sim_server, token)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: "Scan to pay" in screen_text(app))
        await pilot.pause(0.2)
        qr = pos_of(app).query_one("#pos-qr", QRView)
        assert qr.scale >= 1
        assert decoded(app) == [qr.encoded_text]
        if size == (160, 50):
            assert qr.scale >= 2, "larger modules when there is room"


async def test_coin_without_uri_standard_encodes_the_address(sim_server: SimulatorServer) -> None:
    token = sim_server.sim.create_order(coin="usdt", currency="USD", amount_fiat="99.00")
    address = sim_server.sim.order_wire(token, with_qr=False)["address"]
    app = pos_app(sim_server, token, qr_content="uri")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "Scan to pay" in screen_text(app))
        await pilot.pause(0.2)
        assert decoded(app) == [address]
        assert "No payment link standard for USDT: address only" in screen_text(app)


async def test_server_image_mode_shows_the_services_qr(sim_server: SimulatorServer) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
    address = sim_server.sim.order_wire(token, with_qr=False)["address"]
    app = pos_app(sim_server, token, qr_content="server")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: pos_of(app).query_one("#pos-qr", QRView).source == "server")
        await pilot.pause(0.2)
        assert decoded(app) == [address]  # the simulator's image encodes the address


FINE_DUE = Decimal("0.000128701234567890123456")


async def test_an_amount_finer_than_a_satoshi_is_shown_and_encoded_rounded_up(
    sim_server: SimulatorServer,
) -> None:
    """The issue's order: every wallet model reads the code decoded from the screen and sends
    at least the amount due, and less than one satoshi more."""
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount=FINE_DUE)
    address = sim.order_wire(token, with_qr=False)["address"]
    app = pos_app(sim_server, token)
    async with app.run_test(size=SIZE) as pilot:
        pos = await wait_for_pos(pilot, app)
        qr = pos.query_one("#pos-qr", QRView)
        await wait_until(pilot, lambda: decoded(app) == [qr.encoded_text] != [])
        [uri] = decoded(app)
        assert uri == f"BITCOIN:{address.upper()}?amount=0.00012871"
        for name, read in WALLETS.items():
            sats = read(uri)
            assert sats is not None
            sent = Decimal(sats) / 10**8
            assert FINE_DUE <= sent < FINE_DUE + Decimal("0.00000001"), name
        await wait_until(pilot, lambda: figure_drawn(app))
        assert figure_of(app).text == "0.00012871 BTC"
        text = screen_text(app)
        assert "0.00012871 BTC" in text
        # the server's own figure stays visible, the derived one is labelled
        assert "rounded up to the satoshi" in text and str(FINE_DUE) in text
        assert qr.caption_text == f"bitcoin:{address}?amount=0.00012871"


async def test_qr_uppercase_off_keeps_the_uri_as_written(sim_server: SimulatorServer) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount=FINE_DUE)
    address = sim_server.sim.order_wire(token, with_qr=False)["address"]
    app = pos_app(sim_server, token, qr_uppercase=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_pos(pilot, app)
        expected = f"bitcoin:{address}?amount=0.00012871"
        await wait_until(pilot, lambda: decoded(app) == [expected])
        assert pos_of(app).query_one("#pos-qr", QRView).caption_text == ""  # the text itself


async def wait_for_pos(pilot, app: OrderDashApp) -> PosScreen:  # noqa: ANN001
    await wait_until(
        pilot, lambda: isinstance(app.screen, PosScreen) and "Scan to pay" in screen_text(app)
    )
    return pos_of(app)


async def test_the_customer_sees_no_operator_keys_and_q_does_not_quit(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    app = pos_app(sim_server, token)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_pos(pilot, app)
        await pilot.pause(0.2)
        footer = screen_text(app).splitlines()[-1]
        assert footer.split() == ["esc", "Back"], footer
        for key in ("q", "ctrl+q", "question_mark", "ctrl+p"):
            await pilot.press(key)
            await pilot.pause()
            assert app.is_running and isinstance(app.screen, PosScreen), key
        await pilot.press("escape")
        assert app.screen is app.dashboard
        await pilot.pause(0.2)
        assert "palette" in screen_text(app).splitlines()[-1]  # the operator has the keys back
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_a_failure_reads_as_a_connection_problem_to_the_customer(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    app = pos_app(sim_server, token)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for_pos(pilot, app)
        sim_server.sim.add_fault(Fault(endpoint="order", status=503, times=None))
        await wait_until(pilot, lambda: CONNECTION_PROBLEM in screen_text(app))
        text = screen_text(app)
        assert "503" not in text and "retrying" not in text and "STALE" not in text
        sim_server.sim.clear_faults()
        await wait_until(pilot, lambda: CONNECTION_PROBLEM not in screen_text(app), timeout=8)


async def test_the_demo_pos_shows_nothing_of_other_orders_and_the_operator_gets_it_after(
    sim_server: SimulatorServer,
) -> None:
    """`orderdash demo` (the demo orders on the simulator), the POS open on the first order,
    a payment on another customer's order: nothing of it on the customer's screen, no bell;
    back on the dashboard the operator sees the notification and the alerts log has it."""
    from orderdash.simulator import DEMO_TOKENS

    sim = sim_server.sim
    settings = make_settings(
        sim_server.base_url, poll_interval=0.2, budget_per_minute=3000, bell=True
    )
    app = make_app(settings, tokens=list(DEMO_TOKENS))
    rings: list[str | None] = []
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        dashboard = app.dashboard
        app.bell = lambda: rings.append(app.state.token)  # type: ignore[method-assign]
        await wait_until(
            pilot, lambda: all(entry.payment is not None for entry in app.state.entries.values())
        )
        await pilot.press("p")
        pos = await wait_until_pos_shows(pilot, app, "Partly paid")
        other = "demo-usdt-eur"  # Pixel Games
        sim.add_transaction(other, "10")
        await wait_until(pilot, lambda: any(alert.token == other for alert in app.state.alerts))
        await pilot.pause(0.3)
        text = screen_text(app)
        for leak in ("Pixel Games", other, "Payment received", "USDT", "\u00b7 demo-"):
            assert leak not in text, leak
        assert rings == [], "the bell rings only for the order on the POS screen"
        assert app.screen is pos

        sim.add_transaction("demo-btc-eur", "0.00001")  # the customer at the counter pays
        await wait_until(pilot, lambda: rings == ["demo-btc-eur"])
        assert "Pixel Games" not in screen_text(app)

        await pilot.press("escape")
        assert app.screen is dashboard
        # the held toast, titled with the other order (the watch list shows its name anyway)
        await wait_until(pilot, lambda: f"Pixel Games \u00b7 {other}" in screen_text(app))
        assert "Payment received: 10 USDT" in screen_text(app)


async def wait_until_pos_shows(pilot, app: OrderDashApp, words: str) -> PosScreen:  # noqa: ANN001
    await wait_until(pilot, lambda: isinstance(app.screen, PosScreen) and words in screen_text(app))
    return pos_of(app)


async def test_operator_warnings_wait_until_the_operator_is_back(
    sim_server: SimulatorServer,
) -> None:
    """`orderdash pos` without a bearer token: the operator's warning (shown just before the
    POS screen came up) is not left on the customer's screen; Esc brings it back."""
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    settings = make_settings(sim_server.base_url, bearer=None, poll_interval=0.2)
    app = make_app(settings, token=token, open_pos=True, notices=["a settings warning"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for_pos(pilot, app)
        await pilot.pause(0.3)
        text = screen_text(app)
        assert "Rate refresh is off" not in text and "a settings warning" not in text
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: (
                "Rate refresh is off" in screen_text(app)
                and "a settings warning" in screen_text(app)
            ),
        )


async def test_many_held_notifications_are_summed_up_for_the_operator(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    app = pos_app(sim_server, token)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        await wait_for_pos(pilot, app)
        for n in range(MAX_HELD + 8):
            app.notify(f"note number {n}", timeout=30, markup=False)
        await pilot.pause(0.2)
        assert "note number" not in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: f"note number {MAX_HELD + 7}" in screen_text(app))
        text = screen_text(app)
        assert f"{MAX_HELD + 4} more while the point-of-sale screen was up" in text
        assert all(f"note number {MAX_HELD + n}" in text for n in (4, 5, 6, 7))
        assert f"note number {MAX_HELD + 3}" not in text


async def figure_at(sim_server: SimulatorServer, size: tuple[int, int]) -> tuple[int, str]:
    """The big figure's height in rows and what it says, on an order due in BTC."""
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    app = pos_app(sim_server, token)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        await wait_until(pilot, lambda: figure_drawn(app))
        await pilot.pause(0.2)
        assert figure_drawn(app)
        figure = figure_of(app)
        return figure.rows, figure.text


async def test_the_big_figure_grows_with_the_screen_and_carries_its_unit(
    sim_server: SimulatorServer,
) -> None:
    small_rows, small_text = await figure_at(sim_server, (80, 24))
    large_rows, large_text = await figure_at(sim_server, (200, 60))
    assert small_rows >= 3
    assert large_rows >= 5 and large_rows > small_rows
    for text in (small_text, large_text):
        assert text.endswith(" BTC"), text
