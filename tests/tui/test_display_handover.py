"""Who the customer's screens belong to: a standalone `orderdash pos` leads nowhere but out; the
customer display is not taken from a customer who may be paying without the operator's yes,
gives a finished order's screen back to "Welcome" by itself, and speaks its own language on
every screen. Driven by Pilot against the simulator, the display reading the channel file the
dashboard (or the test) writes."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from conftest import make_settings, screen_text, serving, wait_until
from orderdash.core.customer.channel import Publisher, channel_path
from orderdash.core.customer.face import CustomerFace
from orderdash.core.customer.handover import BackToWelcome, finished, may_be_paying
from orderdash.core.customer.reading import Reader
from orderdash.simulator import Simulator, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.customer_display import DisplayApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.charge import ChargeScreen
from orderdash.tui.screens.confirm import ConfirmScreen
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.qr import QRView
from support.faces import customer_face
from support.qr_screen import decode_qr_in_region

SIZE = (120, 36)
ACCESS = "access-Qq8-handover"


def face(**fields: object) -> CustomerFace:
    return customer_face(**{"deadline": 1_800_000_900.0, **fields})


class Monotonic:
    """The real monotonic clock, moved on by the test: the hold passes without waiting."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.ahead


def published(app: OrderDashApp) -> CustomerFace | None:
    assert app.publisher is not None
    return Reader(app.publisher.path, clock=app.publisher.clock).poll().face


def dashboard(
    server: SimulatorServer,
    tokens: list[str],
    *,
    monotonic: Callable[[], float] = time.monotonic,
    **settings: object,
) -> OrderDashApp:
    values = {"poll_interval": 0.2, "refresh_interval": 60.0, **settings}
    return make_app(make_settings(server.base_url, **values), tokens=tokens, monotonic=monotonic)


# -- orderdash pos: the customer's screen alone ---------------------------------------------------


@pytest.fixture
def account_server() -> Iterator[SimulatorServer]:
    with serving(SimulatorServer(Simulator(seed=7), access_token=ACCESS)) as server:
        yield server


async def test_standalone_pos_leads_nowhere_but_out(account_server: SimulatorServer) -> None:
    """`orderdash pos TOKEN` (built as the command builds it): Esc asks to quit and quits; the
    dashboard with the account's other orders, charges, copies, help and the palette are never
    reachable."""
    from orderdash.tui.run import build_dashboard

    sim = account_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="12.50")
    settings = make_settings(
        account_server.base_url,
        bearer=None,
        poll_interval=0.2,
        refresh_interval=60.0,
        access_token=SecretStr(ACCESS),
        customer_id="4711",
    )
    app = build_dashboard(settings, [token], pos=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, PosScreen) and "Scan to pay" in screen_text(app)
        )
        pos = app.screen
        await pilot.pause(0.2)
        footer = screen_text(app).splitlines()[-1]
        assert footer.split() == ["esc", "Quit"], footer
        for key in ("p", "n", "x", "X", "c", "y", "a", "l", "q", "ctrl+q", "question_mark"):
            await pilot.press(key)
            await pilot.pause()
            assert app.is_running and app.screen is pos, key
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert app.screen is pos
        assert not any(isinstance(s, ChargeScreen) for s in app.screen_stack)

        # Esc asks; "no" stays on the customer's screen
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "quit" in screen_text(app).lower()
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is pos)
        # yes: the program ends (no way led to the dashboard)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await pilot.pause()
    assert not app.is_running and app.return_code == 0


def test_pos_refuses_a_token_it_cannot_open_instead_of_starting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`orderdash pos` with no order to open would have nothing to show but the dashboard: it
    is refused with the reason (exit 2), and a good token starts the point of sale alone."""
    from orderdash import cli
    from orderdash.tui import run

    started: list[tuple[list[str], bool]] = []

    def dashboard(settings: object, tokens: list[str], *, pos: bool = False, **_: object) -> int:
        started.append((tokens, pos))
        return 0

    monkeypatch.setattr(run, "run_dashboard", dashboard)
    monkeypatch.setenv("ORDERDASH_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "none.toml").write_text("")
    for bad in ("", "two words", "caf\u00e9;x"):
        assert cli.main(["pos", bad]) == 2, bad
        assert "orderdash:" in capsys.readouterr().err
    assert started == []
    assert cli.main(["pos", "abc123"]) == 0
    assert started == [(["abc123"], True)]


async def test_the_dashboards_p_still_goes_back_with_esc(sim_server: SimulatorServer) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="12.50")
    app = dashboard(sim_server, [token])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        await pilot.pause(0.2)
        assert screen_text(app).splitlines()[-1].split() == ["esc", "Back"]
        await pilot.press("escape")
        assert app.screen is app.dashboard


# -- the display is not taken from a paying customer -------------------------------------------


async def on_display(path: Path, wanted: str) -> list[str]:
    """`orderdash display` on the channel, once `wanted` is on it: the codes it shows. (Run
    beside the dashboard, not around its steps: a dashboard is driven in its own context.)"""
    display = DisplayApp(path, poll_interval=0.05)
    async with display.run_test(size=(100, 36)) as pilot:
        await wait_until(pilot, lambda: wanted in screen_text(display))
        await pilot.pause(0.1)
        qr = display.query_one("#pos-qr", QRView)
        return decode_qr_in_region(display, qr.region) if qr.display else []


def paying_to(code: str) -> str:
    """What a payment code pays: its URI up to the amount (`coin:address`), with an amount."""
    address, amount = code.split("?amount=", 1)
    assert amount, code
    return address


async def test_x_and_p_ask_before_replacing_an_unpaid_order_on_the_display(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    first = sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    second = sim.create_order(coin="ltc", currency="USD", amount_fiat="9.00")
    app = dashboard(sim_server, [first, second], language="en")
    async with app.run_test(size=SIZE) as pilot:
        assert app.publisher is not None
        path = app.publisher.path
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("x")
        await wait_until(pilot, lambda: (published(app) or face(coin="")).coin == "BTC")
        scanned = await on_display(path, "Scan to pay")
        assert scanned and "?amount=" in scanned[0]
        # the first order's address: its amount may move with a rate renewed meanwhile
        first_code = [paying_to(code) for code in scanned]

        # the operator opens the other order and presses x: asked; "no" keeps the customer's
        app.dashboard.load(second)
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = screen_text(app)
        assert "The customer display shows order" in question
        assert "Replace it with" in question
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is app.dashboard)
        await pilot.pause(0.3)
        assert (published(app) or face(coin="")).coin == "BTC"
        assert app.state.customer_token == first
        assert [paying_to(code) for code in await on_display(path, "Scan to pay")] == first_code

        # p on it: asked too; "no" opens the POS and leaves the display alone
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        await pilot.pause(0.3)
        assert (published(app) or face(coin="")).coin == "BTC"
        assert [paying_to(code) for code in await on_display(path, "Scan to pay")] == first_code
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.dashboard)

        # x again, "yes": the display turns to the other order
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: (published(app) or face()).coin == "LTC")
        assert "LTC" in (await on_display(path, "LTC"))[0].upper()

        # that order paid in full: nobody is paying what the display shows, x on the first
        # order takes the display without a question
        sim.add_transaction(second)
        await wait_until(pilot, lambda: not (published(app) or face()).payable)
        app.dashboard.load(first)
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("x")
        await wait_until(pilot, lambda: (published(app) or face(coin="")).coin == "BTC")
        assert not isinstance(app.screen, ConfirmScreen)


async def test_a_charge_made_on_the_pos_takes_the_display_with_it(
    sim_server: SimulatorServer,
) -> None:
    """`n` on the point of sale turns it to the new order (`_charge_made`: the order loaded,
    then the point of sale asked for again): the display, which showed the point of sale's
    order, follows it without a question (one customer at the counter); so does an idle
    display (the last sale gone back to Welcome)."""
    sim = sim_server.sim
    first = sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    second = sim.create_order(coin="ltc", currency="USD", amount_fiat="9.00")
    third = sim.create_order(coin="doge", currency="EUR", amount_fiat="5.00")
    app = make_app(
        make_settings(sim_server.base_url, poll_interval=0.2, refresh_interval=60.0),
        tokens=[first, second, third],
        open_pos=True,
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        pos = app.screen
        await wait_until(pilot, lambda: (published(app) or face(coin="")).coin == "BTC")
        app.dashboard.load(second)  # as a charge made here does
        app.action_point_of_sale()
        await wait_until(pilot, lambda: (published(app) or face()).coin == "LTC")
        assert app.screen is pos and app.state.customer_token == second
        app.action_clear_display()  # as the return to Welcome does
        app.dashboard.load(third)
        app.action_point_of_sale()
        await wait_until(pilot, lambda: (published(app) or face()).coin == "DOGE")
        assert app.screen is pos


def test_what_counts_as_a_customer_paying_and_a_finished_order() -> None:
    paid = face(phase="CONFIRMED", payable=False, qr_text="", payments=1)
    assert may_be_paying(face()) and not may_be_paying(paid) and not may_be_paying(None)
    assert may_be_paying(face(payable=False, qr_text="", trouble="unreachable", phase="UNKNOWN"))
    assert finished(paid) and finished(face(phase="CONFIRMING", payable=False, qr_text=""))
    assert finished(face(phase="EXPIRED", payable=False, qr_text=""))
    # the banner sends the customer to the staff: it stays until cleared
    assert not finished(face(phase="EXPIRED", payable=False, qr_text="", payments=1))
    assert not finished(face(phase="OVERPAID", payable=False, qr_text="", payments=1))
    assert not finished(face()) and not finished(None)


def test_back_to_welcome_counts_from_when_the_order_finished() -> None:
    now = [100.0]
    timer = BackToWelcome(20.0, lambda: now[0])
    paid = face(phase="CONFIRMED", payable=False, qr_text="", payments=1)
    assert not timer.due(face())
    now[0] += 50
    assert not timer.due(paid)  # finished now: the 50 s before do not count
    now[0] += 19.5
    assert not timer.due(paid)
    now[0] += 0.5
    assert timer.due(paid)
    assert not BackToWelcome(0, lambda: now[0]).due(paid)  # 0: never


# -- a finished order gives the display back ---------------------------------------------------


async def test_a_paid_order_returns_the_display_to_welcome_after_the_hold(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    monotonic = Monotonic()
    app = dashboard(
        sim_server, [token], language="en", display_welcome_after=30.0, monotonic=monotonic
    )
    async with app.run_test(size=SIZE) as pilot:
        assert app.publisher is not None
        path = app.publisher.path
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("x")
        await wait_until(pilot, lambda: published(app) is not None)
        assert await on_display(path, "Scan to pay")
        sim.add_transaction(token)  # pays in full
        await wait_until(pilot, lambda: (published(app) or face()).phase == "CONFIRMING")
        assert await on_display(path, "Payment received, confirming") == []
        # the thank-you stays up for the hold (the clock is moved on, not waited for; the real
        # clock under it runs on too, so the check leaves a busy machine ten seconds of slack)
        monotonic.ahead += 20.0
        app.session.publish_display()
        await pilot.pause(0.2)
        assert (published(app) or face()).phase == "CONFIRMING"
        # then the welcome screen, with nobody clearing it
        monotonic.ahead += 11.0
        app.session.publish_display()
        await wait_until(pilot, lambda: not path.exists())
        await on_display(path, "Welcome")
        assert app.state.customer_token is None
        await wait_until(pilot, lambda: "customer display:" not in screen_text(app))


async def test_shift_x_clears_the_customer_display(sim_server: SimulatorServer) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    app = dashboard(sim_server, [token])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("x")
        await wait_until(pilot, lambda: published(app) is not None)
        await pilot.press("X")
        await pilot.pause()
        assert app.publisher is not None and not app.publisher.path.exists()
        assert app.state.customer_token is None


# -- the display's own language ------------------------------------------------------------------


async def test_the_displays_language_covers_every_screen(tmp_path: Path) -> None:
    """The dashboard publishes in English; the display was told German: German throughout."""
    path = channel_path("default", tmp_path)
    publisher = Publisher(path, language="en")
    app = DisplayApp(path, language="de", poll_interval=0.05)
    english = ("Scan to pay", "Amount due", "Pay to", "Expires in", "order 7", "Paid", "Welcome")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "Willkommen" in screen_text(app))
        publisher.publish(face(deadline=time.time() + 600))
        await wait_until(pilot, lambda: "Zum Bezahlen scannen" in screen_text(app))
        await pilot.pause(0.2)
        text = screen_text(app)
        assert not [word for word in english if word in text], text
        publisher.publish(face(phase="PARTLY_PAID", headline_amount="0.00012871 BTC", payments=1))
        await wait_until(pilot, lambda: "Teilweise bezahlt" in screen_text(app))
        publisher.publish(face(phase="CONFIRMED", payable=False, qr_text="", payments=1))
        await wait_until(pilot, lambda: "Bezahlt" in screen_text(app))
        text = screen_text(app)
        assert not [word for word in english if word in text], text
        publisher.end()
        await wait_until(pilot, lambda: "Willkommen" in screen_text(app))


def test_display_language_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`ORDERDASH_LANGUAGE=de orderdash display`: the display app is made in German."""
    from orderdash import cli
    from orderdash.tui import customer_display

    made: list[str] = []
    monkeypatch.setattr(customer_display.DisplayApp, "run", lambda self: made.append(self.language))
    config = tmp_path / "config.toml"
    config.write_text("")
    monkeypatch.setenv("ORDERDASH_LANGUAGE", "de")
    assert cli.main(["display", "--config", str(config)]) == 0
    monkeypatch.setenv("ORDERDASH_LANGUAGE", "en")
    assert cli.main(["display", "--config", str(config), "--language", "ja"]) == 0
    assert made == ["de", "ja"]
