"""Receipts printed from the point of sale to a network printer on 127.0.0.1 that records the
bytes, decoded here as the printer would print them: `P` after a payment, `P` again a reprint,
a printer that is off (one line, the next charge goes on, `T` prints it) and `receipt_auto`
with two dashboards on one book (the ledger's claim: one print). Driven by Pilot against the
simulator over loopback, the ledger a SQLite book."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from conftest import make_settings, screen_text, wait_until
from orderdash.core.books.receipt_text import reprint_line
from orderdash.core.customer.catalogue import catalogue
from orderdash.core.ledger.open import open_book
from orderdash.core.settings.model import Settings
from orderdash.core.usecases.receipt import ReceiptOptions, receipt_text
from orderdash.simulator import SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.keys_footer import KeysFooter
from support.escpos_text import CUT, INIT, printed_text
from support.fake_printer import FakePrinter

SIZE = (100, 30)


@pytest.fixture
def printer() -> Iterator[FakePrinter]:
    fake = FakePrinter()
    fake.on()
    yield fake
    fake.off()


def pos_app(
    server: SimulatorServer, token: str, ledger: Path, printer: FakePrinter, **values: object
) -> OrderDashApp:
    settings = make_settings(
        server.base_url,
        poll_interval=0.2,
        customer_poll_interval=0.2,
        refresh_interval=60.0,
        ledger=str(ledger),
        receipt_printer=printer.name,
        **values,
    )
    return make_app(settings, token=token, open_pos=True)


def receipt_line(app: OrderDashApp) -> str:
    screen = app.screen
    assert isinstance(screen, PosScreen)
    line = screen.query_one("#pos-receipt")
    return str(line.render()) if line.display else ""


def footer_keys(app: OrderDashApp) -> dict[str, str]:
    keys, _ = app.screen.query_one(KeysFooter).shown
    return {key.key: key.description for key in keys}


def the_receipt(app: OrderDashApp, token: str) -> str:
    """The order's receipt as the ledger makes it, in text, with the app's settings."""
    book = open_book(app.settings)
    try:
        return receipt_text(book, token, ReceiptOptions.from_settings(app.settings, by="pos"))
    finally:
        book.close_connection()


def journal(ledger: Path, token: str) -> list[tuple[str, str, str]]:
    """The ledger's journal of the order's receipts: (copy, till, outcome) each."""
    book = open_book(Settings(ledger=str(ledger)))
    try:
        return [(row[0], row[1], row[5]) for row in book.receipt_prints(token)]
    finally:
        book.close_connection()


async def pay_on_the_pos(
    app: OrderDashApp, pilot: Pilot[None], server: SimulatorServer, token: str
) -> None:
    """The order on the POS, then paid (its reads written to the ledger from then on)."""
    await wait_until(pilot, lambda: "Scan to pay" in screen_text(app))
    await wait_until(pilot, lambda: app.client.on_order_read is not None)
    server.sim.add_transaction(token)


async def test_p_prints_the_paid_order_and_again_a_reprint_with_one_more_line(
    sim_server: SimulatorServer, printer: FakePrinter, tmp_path: Path
) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="12.00")
    app = pos_app(sim_server, token, ledger, printer, till="front")
    async with app.run_test(size=SIZE) as pilot:
        await pay_on_the_pos(app, pilot, sim_server, token)
        await wait_until(pilot, lambda: footer_keys(app).get("P") == "Receipt")
        await pilot.press("P")
        await wait_until(pilot, lambda: printer.count() == 1)
        await wait_until(pilot, lambda: receipt_line(app) == f"Staff: Receipt printed: {token}.")
        await pilot.press("P")
        await wait_until(pilot, lambda: printer.count() == 2)
        await wait_until(pilot, lambda: "reprinted" in receipt_line(app))
    original, reprint = printer.received
    assert original.startswith(INIT) and original.endswith(CUT)
    text, _ = printed_text(original)
    assert text == the_receipt(app, token)
    assert token in text and "12.00 EUR" in text
    assert printed_text(reprint)[0] == text + reprint_line(catalogue("en"), 42) + "\n"
    assert reprint.startswith(INIT) and reprint.endswith(CUT)
    assert journal(ledger, token) == [
        ("original", "front", "printed"),
        ("reprint", "front", "printed"),
    ]


async def test_a_printer_off_is_one_line_the_next_charge_goes_on_and_t_prints_it(
    sim_server: SimulatorServer, printer: FakePrinter, tmp_path: Path
) -> None:
    sim, ledger = sim_server.sim, tmp_path / "ledger.sqlite3"
    first = sim.create_order(coin="btc", currency="EUR", amount_fiat="12.00")
    app = pos_app(sim_server, first, ledger, printer)
    async with app.run_test(size=SIZE) as pilot:
        await pay_on_the_pos(app, pilot, sim_server, first)
        await wait_until(pilot, lambda: footer_keys(app).get("P") == "Receipt")
        printer.off()
        await pilot.press("P")
        await wait_until(pilot, lambda: "not printed" in receipt_line(app))
        line = receipt_line(app)
        assert line.startswith(
            f"Staff: Receipt for {first} not printed: the printer {printer.name}"
        )
        assert line.endswith("\u00b7 T tries again") and "\n" not in line
        assert footer_keys(app).get("T") == "Retry receipt"
        # the next customer: a new order on the POS, paid, while the first receipt waits
        second = sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
        app.dashboard.load(second)
        await wait_until(
            pilot, lambda: "Scan to pay" in screen_text(app) and "5.00 EUR" in screen_text(app)
        )
        assert "not printed" in receipt_line(app) and footer_keys(app).get("T") == "Retry receipt"
        sim.add_transaction(second)
        await wait_until(pilot, lambda: footer_keys(app).get("P") == "Receipt")
        printer.on()
        await pilot.press("P")  # its receipt prints; the first one still waits for T
        await wait_until(pilot, lambda: receipt_line(app) == f"Staff: Receipt printed: {second}.")
        assert printer.count() == 1 and footer_keys(app).get("T") == "Retry receipt"
        await pilot.press("T")
        await wait_until(pilot, lambda: printer.count() == 2)
        await wait_until(pilot, lambda: "T" not in footer_keys(app))
        assert receipt_line(app) == f"Staff: Receipt printed: {first}."
    assert [printed_text(data)[0] for data in printer.received] == [
        the_receipt(app, second),
        the_receipt(app, first),  # the original, no REPRINT
    ]
    assert journal(ledger, first) == [
        ("original", app.settings.till, "failed"),
        ("original", app.settings.till, "printed"),
    ]


async def test_receipt_auto_prints_once_for_one_payment_with_two_dashboards_on_one_book(
    sim_server: SimulatorServer, printer: FakePrinter, tmp_path: Path
) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="12.00")
    apps = [
        pos_app(
            sim_server, token, ledger, printer, till=till, display_channel=till, receipt_auto=True
        )
        for till in ("front", "back")
    ]
    async with apps[0].run_test(size=SIZE) as pilot, apps[1].run_test(size=SIZE) as other:
        await wait_until(other, lambda: "Scan to pay" in screen_text(apps[1]))
        await wait_until(other, lambda: apps[1].client.on_order_read is not None)
        await pay_on_the_pos(apps[0], pilot, sim_server, token)
        await wait_until(pilot, lambda: printer.count() == 1)
        # both saw it paid and are done with it: the one that lost the claim printed nothing
        await wait_until(
            pilot,
            lambda: all(
                a.receipts._auto_done == {token} and not a.receipts._printing for a in apps
            ),
        )
        lines = [a.receipt_line[1] for a in apps]
        assert sorted(lines) == ["", f"Receipt printed: {token}."], lines
        assert all(not a.receipts.failed for a in apps)
    assert printer.count() == 1
    assert printed_text(printer.received[0])[0] in {the_receipt(app, token) for app in apps}
    assert [(copy, outcome) for copy, _, outcome in journal(ledger, token)] == [
        ("original", "printed")
    ]
