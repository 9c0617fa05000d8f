"""The resolve dialog, driven by Pilot against the simulator over loopback: `R` on an overpaid
order, the kind, the reason, the refund worked out live (basis, rate, fee), copied, confirmed
and written to the ledger (read back from the file), one line of result; the App's
`resolve_order(token)` on an order not watched reads it first; a failed write confirmed again
writes the same resolution (one id); read-only has no `R`."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace as NS

import pytest
from textual.app import App
from textual.widgets import Input

from conftest import make_settings, screen_text, wait_until
from orderdash.core.ledger import LedgerError, ResolutionRecord
from orderdash.core.ledger.open import open_book
from orderdash.core.model import jsontext
from orderdash.core.settings.model import Settings
from orderdash.simulator import SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.dashboard import DashboardScreen
from orderdash.tui.screens.resolve import ResolveScreen
from support.typed import type_into

SIZE = (120, 40)


def overpaid(sim_server: SimulatorServer) -> str:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount="0.001")
    sim_server.sim.add_transaction(token, "0.0015")
    return token


def resolve_app(sim_server: SimulatorServer, ledger: Path, tokens: tuple[str, ...], **more):
    settings = make_settings(
        sim_server.base_url, ledger=str(ledger), till="front", operator="anna", **more
    )
    return make_app(settings, tokens=tokens)


def written(ledger: Path, token: str) -> list[ResolutionRecord]:
    book = open_book(Settings(ledger=str(ledger)))
    try:
        return book.resolutions_of([token])
    finally:
        book.close_connection()


async def test_r_resolves_the_order_with_its_refund_and_writes_it_down(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    token = overpaid(sim_server)
    ledger = tmp_path / "ledger.sqlite3"
    app = resolve_app(sim_server, ledger, (token,))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("escape", "R")
        await wait_until(pilot, lambda: isinstance(app.screen, ResolveScreen))
        screen = app.screen
        assert isinstance(screen, ResolveScreen) and screen.token == token
        await wait_until(pilot, lambda: screen.known)
        text = screen_text(app)
        assert "nothing is sent to the service" in text
        assert "Owes back the excess: 0.0005" in text and "BTC" in text, text
        screen.query("#resolve-kind RadioButton")[1].value = True  # refunded
        await type_into(pilot, screen, "#resolve-reason", "sent back [b]x[/b]")
        screen.query("#resolve-basis RadioButton")[3].value = True  # a typed rate
        await pilot.pause()
        assert "no rate given" in screen_text(app)
        await type_into(pilot, screen, "#resolve-rate", "20000")
        await type_into(pilot, screen, "#resolve-fee", "0.00001")
        await pilot.pause()
        fiat = screen.owed.fiat_amount
        expected = (fiat / Decimal(20000)).quantize(Decimal("1E-8"), "ROUND_FLOOR")
        expected -= Decimal("0.00001")
        assert screen.refund is not None and screen.refund.record.amount == expected
        assert f"Refund: {expected:f} BTC" in screen_text(app)
        await pilot.press("ctrl+y")
        assert app.clipboard == f"{expected:f}"
        # a fee over the refund: refused in one line, nothing worked out
        screen.query_one("#resolve-fee", Input).value = "9"
        await pilot.pause()
        assert screen.refund is None and "nothing to refund" in screen_text(app)
        screen.query_one("#resolve-fee", Input).value = "0.00001"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: screen.written is not None)
        assert f"order {token} resolved: refunded" in screen_text(app)
        assert "sent back [b]x[/b]" in screen_text(app)  # literal, never markup
        (record,) = written(ledger, token)
        assert (record.kind, record.reason, record.operator, record.till) == (
            "refunded",
            "sent back [b]x[/b]",
            "anna",
            "front",
        )
        assert record.refund.amount == expected and record.refund.rate == Decimal(20000)
        assert record.refund.basis == "typed" and record.refund.fee == Decimal("0.00001")
        assert await app.books.writer.resolutions_of([token]) == [record]  # off the loop
        await pilot.press("ctrl+s")  # Done
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen))
        assert len(written(ledger, token)) == 1


async def test_no_reason_no_resolution(sim_server: SimulatorServer, tmp_path: Path) -> None:
    token = overpaid(sim_server)
    ledger = tmp_path / "ledger.sqlite3"
    app = resolve_app(sim_server, ledger, (token,))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        app.action_resolve_order()  # the order on screen
        await wait_until(pilot, lambda: isinstance(app.screen, ResolveScreen))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "needs a reason" in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen))
    assert written(ledger, token) == []


async def test_a_reason_that_says_nothing_is_refused_as_the_command_refuses_it(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    token = overpaid(sim_server)
    ledger = tmp_path / "ledger.sqlite3"
    app = resolve_app(sim_server, ledger, (token,))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        app.action_resolve_order()
        await wait_until(pilot, lambda: isinstance(app.screen, ResolveScreen))
        screen = app.screen
        assert isinstance(screen, ResolveScreen)
        await wait_until(pilot, lambda: screen.known)
        screen.query("#resolve-kind RadioButton")[0].value = True  # settled
        # pasted: two zero-width spaces, then two letters
        for reason in ("\u200b\u200b", "ab"):
            screen.query_one("#resolve-reason", Input).value = reason
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert "at least 3 letters or digits" in screen_text(app), reason
            assert screen.written is None and not screen.writing
        screen.query_one("#resolve-reason", Input).value = "kept as a tip"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: screen.written is not None)
    assert [r.reason for r in written(ledger, token)] == ["kept as a tip"]


async def test_the_apps_resolve_order_reads_an_order_not_watched(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    watched = overpaid(sim_server)
    other = overpaid(sim_server)
    ledger = tmp_path / "ledger.sqlite3"
    app = resolve_app(sim_server, ledger, (watched,))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        app.action_resolve_order(other)
        await wait_until(pilot, lambda: isinstance(app.screen, ResolveScreen))
        screen = app.screen
        await wait_until(pilot, lambda: screen.owed is not None)
        assert screen.token == other and other not in app.state.entries
        screen.query("#resolve-basis RadioButton")[2].value = True  # today's rate
        await pilot.pause()
        assert screen.refund is not None and screen.refund.record.basis == "today"
        assert screen.refund.record.rate == screen._today is not None
        await type_into(pilot, screen, "#resolve-reason", "asked by mail")
        await pilot.press("ctrl+s")
        await pilot.pause()
        # what was done is never a default: nothing is written until it is chosen
        assert "Choose what was done" in screen_text(app) and screen.written is None
        screen.query("#resolve-kind RadioButton")[0].value = True  # settled
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: screen.written is not None)
    (record,) = written(ledger, other)
    assert record.refund.basis == "today" and record.kind == "settled"


class FlakyWriter:
    """A ledger whose first write fails."""

    def __init__(self) -> None:
        self.asked: list[ResolutionRecord] = []

    async def resolution_made(self, record: ResolutionRecord) -> ResolutionRecord:
        self.asked.append(record)
        if len(self.asked) == 1:
            raise LedgerError("the ledger x: disk I/O error")
        return record


async def test_a_failed_write_confirmed_again_is_the_same_resolution() -> None:
    writer = FlakyWriter()
    data = {
        "token": "tok",
        "id": 1,
        "createdAtMiliseconds": 1_700_000_000_000,
        "status": {"code": "PAID", "label": "PAID"},
        "currency": {"abbreviation": "EUR"},
        "coinBaseName": "btc",
        "amountFiat": "10",
        "amount": Decimal("0.001"),
        "transactions": [],
    }

    class Host(App[None]):
        def on_ready(self) -> None:
            self.push_screen(
                ResolveScreen("tok", writer=writer, till="front", operator="anna", order=data)
            )

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ResolveScreen)
        await wait_until(pilot, lambda: screen.known)
        assert "owes nothing back" in screen_text(app)
        await type_into(pilot, screen, "#resolve-reason", "paid in cash")
        screen.query("#resolve-kind RadioButton")[0].value = True  # settled
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not screen.writing and "Not written" in screen_text(app))
        assert "disk I/O error" in screen_text(app) and screen.written is None
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: screen.written is not None)
    assert len(writer.asked) == 2 and writer.asked[0].id == writer.asked[1].id


class SlowWriter:
    """A ledger that writes only when the test lets it."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.asked: list[ResolutionRecord] = []

    async def resolution_made(self, record: ResolutionRecord) -> ResolutionRecord:
        self.asked.append(record)
        await self.go.wait()
        return record


def get_order_example() -> dict:
    path = Path(__file__).parent.parent / "fixtures" / "examples" / "get_order.json"
    return jsontext.loads(path.read_text())["data"]


class Host(App[None]):
    def __init__(self, screen: ResolveScreen) -> None:
        super().__init__()
        self.dialog = screen
        self.closed: list[ResolutionRecord | None] = []

    def on_ready(self) -> None:
        self.push_screen(self.dialog, callback=self.closed.append)


async def test_esc_and_cancel_wait_while_the_resolution_is_written() -> None:
    writer = SlowWriter()
    screen = ResolveScreen(
        "tok", writer=writer, till="front", operator="anna", order=get_order_example()
    )
    app = Host(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: screen.known)
        await type_into(pilot, screen, "#resolve-reason", "kept as credit")
        screen.query("#resolve-kind RadioButton")[0].value = True  # settled
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: len(writer.asked) == 1)
        await pilot.press("escape")
        await pilot.click("#resolve-cancel")
        await pilot.pause()
        # still open: what became of the write is told here, never lost
        assert app.screen is screen and app.closed == []
        assert "Writing it down\u2026 (wait)" in screen_text(app)
        writer.go.set()
        await wait_until(pilot, lambda: screen.written is not None)
        assert "resolved: settled" in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.closed == [writer.asked[0]])


async def test_todays_rate_is_the_order_read_now_never_the_one_on_screen() -> None:
    answer = asyncio.Event()
    fresh = get_order_example()

    async def read() -> NS:
        await answer.wait()
        return NS(raw=fresh, order=NS(exchange_rate=Decimal("20000")))

    screen = ResolveScreen(
        "tok",
        writer=SlowWriter(),
        till="front",
        operator="anna",
        order=get_order_example(),
        today_rate=Decimal("9205.6"),  # as last read on screen: not today's
        read=read,
    )
    app = Host(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: screen.known)
        screen.query("#resolve-basis RadioButton")[2].value = True  # today's rate
        await pilot.pause()
        assert screen.refund is None and "reading the order for today's rate" in screen.refusal
        answer.set()
        await wait_until(pilot, lambda: screen.refund is not None)
        # the excess 0.40 USD at 20000 (what `orderdash resolve --refund-at today` takes too)
        assert screen.refund.record.rate == Decimal("20000")
        assert screen.refund.record.amount == Decimal("0.00002")


@pytest.mark.parametrize("readonly", [True, False])
async def test_read_only_has_no_r(
    sim_server: SimulatorServer, tmp_path: Path, readonly: bool
) -> None:
    token = overpaid(sim_server)
    app: OrderDashApp = resolve_app(
        sim_server, tmp_path / "ledger.sqlite3", (token,), readonly=readonly
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("escape")
        assert ("R" in app.screen.active_bindings) is not readonly
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert ("Resolve the order" in titles) is not readonly
        await pilot.press("R")
        await pilot.pause()
        assert isinstance(app.screen, ResolveScreen) is not readonly
        if readonly:
            # the App's way is off too: through its actions, and called directly
            assert app.check_action("resolve_order", ()) is False
            await app.run_action("resolve_order")
            app.action_resolve_order(token)
            await pilot.pause()
            assert isinstance(app.screen, DashboardScreen)


async def test_the_arrows_choose_in_the_radio_sets_and_nothing_is_cut_at_80_columns(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    from textual.widgets import RadioSet

    token = overpaid(sim_server)
    app = resolve_app(sim_server, tmp_path / "ledger.sqlite3", (token,))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        app.action_resolve_order()
        await wait_until(pilot, lambda: isinstance(app.screen, ResolveScreen))
        screen = app.screen
        assert isinstance(screen, ResolveScreen)
        await wait_until(pilot, lambda: screen.known)
        kind = screen.query_one("#resolve-kind", RadioSet)
        basis = screen.query_one("#resolve-basis", RadioSet)
        kind.focus()
        await pilot.pause()
        assert kind.pressed_index == -1  # focus alone chooses nothing
        await pilot.press("right")
        assert kind.pressed_index == 1  # refunded
        basis.focus()
        await pilot.press("right")
        assert basis.pressed_index == 1 and screen.basis == "payment"
        await pilot.pause()
        text = screen_text(app)
        for word in ("Payment's rate", "Today's rate", "Typed rate", "customer asked"):
            assert word in text, text
        await pilot.press("left")
        assert screen.basis == ""
