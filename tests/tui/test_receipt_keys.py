"""Receipts at the counter, as the keys and the screens see them: `P` on the point of sale and on
the dashboard, a refusal for an unpaid order, a printer that fails (one line, `T` tries again)
and `receipt_auto` on an order accepted at the counter. The printer here records what it is
asked; the receipt's own bytes are tested with a printer on loopback (test_receipt_counter.py).
Driven by Pilot against the simulator over loopback."""

from __future__ import annotations

import threading
from decimal import Decimal
from pathlib import Path

from conftest import make_settings, screen_text, wait_until
from orderdash.simulator import SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.receipts import NO_PRINTER, Printed
from orderdash.tui.screens.confirm import ConfirmScreen
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.keys_footer import KeysFooter

SIZE = (100, 30)


class Recorder:
    """A printer that records each receipt asked of it (token, reprint); `off` fails them."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, bool]] = []
        self.off = False
        self.originals: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, token: str, *, reprint: bool, by: str) -> Printed:
        with self._lock:
            if self.off:
                return Printed("failed", "printer 127.0.0.1:9 unreachable (connection refused)")
            if not reprint and token in self.originals:
                return Printed("elsewhere")
            self.asked.append((token, reprint))
            self.originals.add(token)
            return Printed("reprinted" if reprint else "printed")


def app_for(
    server: SimulatorServer, token: str, printer: Recorder, **values: object
) -> OrderDashApp:
    values = {"poll_interval": 0.2, "customer_poll_interval": 0.2, **values}
    values = {"receipt_printer": "127.0.0.1:9", **values}  # (the Recorder prints)
    settings = make_settings(server.base_url, refresh_interval=60.0, **values)
    app = make_app(settings, token=token, open_pos=True)
    app.receipts._printer = printer
    return app


def receipt_line(app: OrderDashApp) -> str:
    screen = app.screen
    assert isinstance(screen, PosScreen)
    line = screen.query_one("#pos-receipt")
    return str(line.render()) if line.display else ""


def footer_keys(app: OrderDashApp) -> dict[str, str]:
    keys, _ = app.screen.query_one(KeysFooter).shown
    return {key.key: key.description for key in keys}


async def test_p_on_the_pos_refuses_an_unpaid_order_and_a_till_without_printer_in_one_line(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="12.00")
    printer = Recorder()
    app = app_for(sim_server, token, printer, receipt_printer=None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "Scan to pay" in screen_text(app))
        assert "P" not in footer_keys(app)  # (shown once the order is paid)
        await pilot.press("P")
        await wait_until(pilot, lambda: receipt_line(app) != "")
        assert receipt_line(app) == (
            f"Staff: No receipt for {token}: it is not paid (awaiting payment)."
        )
        assert printer.asked == [] and not app.receipts._printing
        sim_server.sim.add_transaction(token)
        await wait_until(pilot, lambda: footer_keys(app).get("P") == "Receipt")
        await pilot.press("P")
        await wait_until(pilot, lambda: receipt_line(app) == f"Staff: {NO_PRINTER}")
        assert printer.asked == []


async def test_p_on_the_dashboard_prints_the_highlighted_order_and_refuses_an_unpaid_one(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    paid = sim.create_order(coin="btc", currency="EUR", amount_fiat="12.00")
    sim.add_transaction(paid)
    unpaid = sim.create_order(coin="btc", currency="EUR", amount_fiat="3.00")
    printer = Recorder()
    settings = make_settings(
        sim_server.base_url, poll_interval=0.2, refresh_interval=60.0, receipt_printer="lp0"
    )
    app = make_app(settings, tokens=[unpaid, paid])
    app.receipts._printer = printer
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_until(
            pilot, lambda: all(app.state.entries[t].payment is not None for t in (paid, unpaid))
        )
        await pilot.press("P")  # the open order: not paid
        await wait_until(pilot, lambda: any("not paid" in n.message for n in app._notifications))
        assert printer.asked == []
        await pilot.press("g")
        while app.dashboard.target_token() != paid:
            await pilot.press("down")
        printer.off = True
        await pilot.press("P")
        await wait_until(pilot, lambda: footer_keys(app).get("T") == "Retry receipt")
        assert any(f"Receipt for {paid} not printed" in n.message for n in app._notifications)
        printer.off = False
        await pilot.press("T")
        await wait_until(pilot, lambda: printer.asked == [(paid, False)])
        await wait_until(
            pilot, lambda: f"Receipt printed: {paid}." in [n.message for n in app._notifications]
        )
        await wait_until(pilot, lambda: "T" not in footer_keys(app))


async def test_receipt_auto_prints_once_when_the_order_on_the_pos_is_accepted_at_the_counter(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="30.00")
    printer = Recorder()
    ledger = str(tmp_path / "ledger.sqlite3")
    app = app_for(sim_server, token, printer, receipt_auto=True, ledger=ledger)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "Scan to pay" in screen_text(app))
        amount = Decimal(str(sim.order_wire(token, with_qr=False)["amount"]))
        sim.add_transaction(token, (amount / 2).quantize(Decimal("1E-8")))
        await wait_until(pilot, lambda: footer_keys(app).get("a") == "Accept as paid")
        assert printer.asked == []  # part-paid: no receipt yet
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: printer.asked == [(token, False)])
        await wait_until(pilot, lambda: receipt_line(app) == f"Staff: Receipt printed: {token}.")
        sim.add_transaction(token)  # the rest arrives after all: paid again, no second receipt
        await wait_until(pilot, lambda: "Paid" in screen_text(app) and not app.receipts._printing)
        assert printer.asked == [(token, False)]


def test_p_and_t_clash_with_no_other_key_and_the_help_lists_them() -> None:
    from textual.binding import Binding

    from orderdash.tui.bindings import DASHBOARD_BINDINGS
    from orderdash.tui.screens.help import KEYS

    def actions(bindings: object, key: str) -> set[str]:
        assert isinstance(bindings, list)
        return {b.action.split("(")[0] for b in bindings if isinstance(b, Binding) and b.key == key}

    app_keys = OrderDashApp.BINDINGS
    for screen_keys in (DASHBOARD_BINDINGS, PosScreen.BINDINGS):
        assert actions(screen_keys, "P") == {"print_receipt"}
        assert actions(screen_keys, "T") == set() and actions(app_keys, "P") == set()
    assert actions(app_keys, "T") == {"retry_receipt"}
    helped = {key for key, _ in KEYS}
    assert {"P", "T"} <= helped


async def test_read_only_prints_no_receipt(sim_server: SimulatorServer) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="12.00")
    sim.add_transaction(token)
    printer = Recorder()
    settings = make_settings(sim_server.base_url, poll_interval=0.2, readonly=True)
    app = make_app(settings, token=token)
    app.receipts._printer = printer
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.state.shown is not None)
        assert "P" not in app.screen.active_bindings
        app.receipts.print(token, by="dashboard")
        await pilot.pause()
        assert printer.asked == [] and not app.receipts._printing
