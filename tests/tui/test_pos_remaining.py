"""The point of sale's `m` on a part-paid order: a QR for exactly what is still due (our payment
URI, whatever `qr_content` says), read back off the screen, and back to the order's own code;
offered only while the order is open and part-paid, and withdrawn as the main code is."""

from __future__ import annotations

import re
import time
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.core.customer.catalogue import catalogue
from orderdash.core.customer.channel import Publisher, channel_path
from orderdash.core.customer.face import CustomerFace
from orderdash.core.customer.reading import Reader
from orderdash.core.domain.text import amount_text
from orderdash.simulator import SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.customer_display import DisplayApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.keys_footer import KeysFooter
from orderdash.tui.widgets.qr import QRView
from support.faces import customer_face
from support.qr_screen import decode_qr_in_region

SIZE = (120, 40)
WORDS = catalogue("en")
NOW = 1_800_000_000.0


class Offset:
    """The wall clock, pushed forward by the test instead of waited for."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


def pos_app(server: SimulatorServer, token: str, **options: object) -> OrderDashApp:
    values = {"poll_interval": 0.2, "refresh_interval": 60.0, **options.pop("settings", {})}  # type: ignore[dict-item]
    settings = make_settings(server.base_url, **values)
    return make_app(settings, token=token, open_pos=True, **options)  # type: ignore[arg-type]


def pos_of(app: OrderDashApp) -> PosScreen:
    assert isinstance(app.screen, PosScreen)
    return app.screen


def qr_of(app: OrderDashApp) -> QRView:
    return pos_of(app).query_one("#pos-qr", QRView)


def decoded(app: OrderDashApp) -> list[str]:
    qr = qr_of(app)
    return decode_qr_in_region(app, qr.region) if qr.display else []


def footer_keys(app: OrderDashApp) -> dict[str, str]:
    keys, _ = pos_of(app).query_one(KeysFooter).shown
    return {key.key: key.description for key in keys}


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def banner(app: OrderDashApp) -> str:
    if not isinstance(app.screen, PosScreen):
        return ""
    return str(app.screen.query_one("#pos-banner").render())


def pay_part(server: SimulatorServer, token: str) -> tuple[str, str]:
    """A quarter of the order paid: the shortfall in coin and fiat, as the service says."""
    sim = server.sim
    amount = Decimal(str(sim.order_wire(token, with_qr=False)["amount"]))
    sim.add_transaction(token, (amount / 4).quantize(Decimal("0.00000001")))
    tx = sim.order_wire(token, with_qr=False)["transactions"][-1]
    fiat = -Decimal(tx["amountFiat"]["underPaid"])  # decimal text on the wire
    return amount_text(-tx["amount"]["underPaid"]), amount_text(fiat, group=True)


def part_paid_on_screen(app: OrderDashApp) -> bool:
    return "Partly paid" in banner(app) and "m" in footer_keys(app)


async def test_m_shows_exactly_what_is_still_due_and_goes_back(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    address = sim.order_wire(token, with_qr=False)["address"]
    app = pos_app(sim_server, token, settings={"qr_content": "address"})
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: decoded(app) == [address])
        assert "m" not in footer_keys(app), "nothing paid yet: nothing to offer"
        await pilot.press("m")
        await pilot.pause(0.1)
        assert decoded(app) == [address] and app.state.remaining_for is None

        due, due_fiat = pay_part(sim_server, token)
        await wait_until(pilot, lambda: part_paid_on_screen(app))
        assert footer_keys(app)["m"] == "Still-due QR"
        assert decoded(app) == [address], "the order's own code until asked"

        await pilot.press("m")
        remaining = f"BITCOIN:{address.upper()}?amount={due}"
        await wait_until(pilot, lambda: decoded(app) == [remaining])
        still_due = WORDS.text("qr_still_due", coin=f"{due} BTC", fiat=f"{due_fiat} EUR")
        assert qr_of(app).caption_text == f"bitcoin:{address}?amount={due}"
        assert still_due in screen_text(app)
        assert footer_keys(app)["m"] == "Order QR"

        # the customer display (terminal and browser) reads the same off the channel
        def published() -> CustomerFace | None:
            assert app.publisher is not None
            return Reader(app.publisher.path, clock=app.publisher.clock).poll().face

        await wait_until(pilot, lambda: (face := published()) is not None and face.remaining)
        face = published()
        assert face is not None and face.qr_text == remaining and face.coin_amount == due

        await pilot.press("m")
        await wait_until(pilot, lambda: decoded(app) == [address])
        assert still_due not in screen_text(app)
        await wait_until(pilot, lambda: (face := published()) is not None and not face.remaining)
        assert footer_keys(app)["m"] == "Still-due QR"

        await pilot.press("m")
        await wait_until(pilot, lambda: decoded(app) == [remaining])
        sim.add_transaction(token)  # pays the rest
        await wait_until(pilot, lambda: "Payment received" in banner(app))
        await pilot.pause(0.1)
        assert not qr_of(app).display and decoded(app) == []
        assert "m" not in footer_keys(app)
        assert still_due not in screen_text(app)


@pytest.mark.parametrize("size", [(80, 24), SIZE])
async def test_server_image_mode_still_gets_our_code_for_what_is_due(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
    address = sim_server.sim.order_wire(token, with_qr=False)["address"]
    app = pos_app(sim_server, token, settings={"qr_content": "server"})
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: qr_of(app).source == "server")
        due, due_fiat = pay_part(sim_server, token)
        await wait_until(pilot, lambda: part_paid_on_screen(app))
        await wait_until(pilot, lambda: qr_of(app).source == "server" and decoded(app) == [address])
        await pilot.press("m")
        remaining = f"BITCOIN:{address.upper()}?amount={due}"
        await wait_until(pilot, lambda: decoded(app) == [remaining])
        assert qr_of(app).source == "text", "ours, not the server's image"
        statement = WORDS.text("qr_still_due", coin=f"{due} BTC", fiat=f"{due_fiat} EUR")
        region = pos_of(app).query_one("#pos-due-label").region
        rows = screen_text(app).splitlines()[region.y : region.bottom]
        assert squeezed(statement) in squeezed("".join(row[region.x :] for row in rows))
        await pilot.press("m")
        await wait_until(pilot, lambda: qr_of(app).source == "server" and decoded(app) == [address])


async def test_auto_mode_offers_nothing_its_code_already_asks_for_what_is_due(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
    address = sim_server.sim.order_wire(token, with_qr=False)["address"]
    app = pos_app(sim_server, token)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(decoded(app)) == 1)
        due, _ = pay_part(sim_server, token)
        remaining = f"BITCOIN:{address.upper()}?amount={due}"
        await wait_until(
            pilot, lambda: "Partly paid" in banner(app) and decoded(app) == [remaining]
        )
        assert "m" not in footer_keys(app)
        await pilot.press("m")
        await pilot.pause(0.1)
        assert app.state.remaining_for is None and decoded(app) == [remaining]


async def test_the_remaining_code_goes_the_second_the_order_expires(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    # the service still says IN_PROGRESS past the deadline: this machine's clock decides
    sim.set_fields(token, {"status": {"code": "IN_PROGRESS", "label": "IN_PROGRESS"}})
    address = sim.order_wire(token, with_qr=False)["address"]
    clock = Offset()
    app = pos_app(sim_server, token, clock=clock, settings={"qr_content": "address"})
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: decoded(app) == [address])
        due, _ = pay_part(sim_server, token)
        await wait_until(pilot, lambda: part_paid_on_screen(app))
        await pilot.press("m")
        await wait_until(pilot, lambda: decoded(app) == [f"BITCOIN:{address.upper()}?amount={due}"])

        sim.advance_clock(3601)
        clock.offset = 3601
        await wait_until(pilot, lambda: WORDS.text("headline_expired_partly_paid") in banner(app))
        await pilot.pause(0.1)
        assert not qr_of(app).display and decoded(app) == []
        assert "m" not in footer_keys(app)
        assert due not in screen_text(app)


# -- the customer display ------------------------------------------------------------------------

REMAINING_URI = "bitcoin:3AxYawtkGxsnTfy6KxswzAFNDiGRuw1dH3?amount=0.00004369"


@pytest.mark.parametrize("language", ["en", "de", "ja"])  # every catalogue has the key
async def test_the_customer_display_shows_the_remaining_code_in_its_language(
    tmp_path: Path, language: str
) -> None:
    path = channel_path("default", tmp_path)
    publisher = Publisher(path, language="en", clock=lambda: NOW)
    app = DisplayApp(path, clock=lambda: NOW, poll_interval=0.05, language=language)
    words = catalogue(language)
    remaining = customer_face(
        phase="PARTLY_PAID",
        amount_label="label_still_due",
        coin_amount="0.00004369",
        fiat_amount="0.40",
        headline_amount="0.00004369 BTC",
        qr_text=REMAINING_URI,
        address="3AxYawtkGxsnTfy6KxswzAFNDiGRuw1dH3",
        deadline=NOW + 600,
        payments=1,
        remaining=True,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        publisher.publish(remaining)
        qr = app.query_one("#pos-qr", QRView)
        await wait_until(pilot, lambda: decode_qr_in_region(app, qr.region) == [REMAINING_URI])
        statement = words.text("qr_still_due", coin="0.00004369 BTC", fiat="0.40 EUR")
        label = str(app.query_one("#pos-due-label").render())
        assert label == statement
        # whole on screen, however it wraps
        region = app.query_one("#pos-due-label").region
        rows = screen_text(app).splitlines()[region.y : region.bottom]
        assert squeezed(statement) in squeezed("".join(row[region.x :] for row in rows))

        # the order's own code again: the words go with it
        publisher.publish(remaining.model_copy(update={"remaining": False}))
        await wait_until(pilot, lambda: str(app.query_one("#pos-due-label").render()) != label)
        assert str(app.query_one("#pos-due-label").render()) == words.text("label_still_due")
