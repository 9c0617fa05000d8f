"""The dashboard in account mode: with the access token, the watch list fills itself with the
account's open orders, new orders join with an alert, a refused log-in is one banner; driven by
Pilot against the simulator over loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from conftest import make_settings, screen_text, serving, wait_until
from orderdash.simulator import Simulator, SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.widgets.account_banner import AccountBanner
from support.account_dashboard import ACCESS, account_app, ask_to_charge, open_tokens, type_amount

SIZE = (140, 44)


@pytest.fixture
def server() -> Iterator[SimulatorServer]:
    with serving(
        SimulatorServer(Simulator(seed=7), access_token=ACCESS, history_page_cap=3)
    ) as server:
        yield server


def requests(server: SimulatorServer, endpoint: str) -> list[dict]:
    return [r for r in server.sim.requests if r["endpoint"] == endpoint]


async def test_the_watch_list_fills_with_exactly_the_open_orders(server) -> None:
    expected = open_tokens(server)
    assert expected and expected != set(server.sim.tokens())  # some demo orders are final
    app = account_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: set(app.state.entries) == expected)
        await wait_until(
            pilot, lambda: all(e.order is not None for e in app.state.entries.values())
        )
        text = screen_text(app)
        assert all(token in text for token in expected)
        await pilot.pause(0.7)  # two more history reads: nothing final joins
        assert set(app.state.entries) == expected
        assert app.state.alerts == type(app.state.alerts)()  # orders there at start: no alert
    assert len(requests(server, "login")) == 1


async def test_an_order_created_later_joins_with_a_new_order_alert(server) -> None:
    app = account_app(server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: set(app.state.entries) == open_tokens(server))
        token = server.sim.create_order(token="counter 7", coin="btc", amount_fiat="12.30")
        await wait_until(pilot, lambda: token in app.state.entries)
        await wait_until(pilot, lambda: "New order: 12.30 EUR" in screen_text(app))
        assert [a.text for a in app.state.alerts] == ["New order: 12.30 EUR"]
        assert app.state.entries[token].unseen
        # a watched order that turns final stays on the list
        server.sim.set_status(token, "CANCELED")
        await wait_until(
            pilot,
            lambda: (
                (entry := app.state.entries.get(token)) is not None
                and entry.order is not None
                and entry.order.status.code == "CANCELED"
            ),
        )
        await pilot.pause(0.7)
        assert token in app.state.entries


async def test_orders_added_by_hand_stay_and_are_not_announced(server) -> None:
    final = next(t for t in server.sim.tokens() if t not in open_tokens(server))
    app = account_app(server, tokens=(final,))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: set(app.state.entries) == open_tokens(server) | {final})
        await pilot.pause(0.7)
        assert final in app.state.entries and not app.state.alerts


async def test_a_refused_log_in_is_one_banner_and_no_loop(server) -> None:
    token = next(iter(open_tokens(server)))
    app = account_app(server, access="not-the-access-token", tokens=(token,), refresh_interval=0.3)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        # mounted with the first problem, over the token bar
        await wait_until(pilot, lambda: bool(app.dashboard.query(AccountBanner)))
        banner = app.dashboard.query_one(AccountBanner)
        names = [type(child).__name__ for child in app.dashboard.children]
        assert banner.display and "TitleHeader,AccountBanner,TokenBar" in ",".join(names)
        # mounted, then painted with its words (a busy machine shows the two apart)
        await wait_until(pilot, lambda: "Log-in refused" in screen_text(app))
        text = screen_text(app)
        assert "Log-in refused" in text and "not-the-access-token" not in text
        assert len([line for line in text.splitlines() if "Log-in refused" in line]) == 1
        await pilot.pause(2.0)  # several history reads and rate refreshes meanwhile
        # the rest keeps working: the order is read through the public getOrder
        assert app.state.order is not None and app.state.order.token == token
    assert len(requests(server, "login")) == 1
    assert requests(server, "history") == []


async def test_without_the_access_token_a_new_charge_says_what_it_needs(server) -> None:
    """Without the access token account mode is not made (`AccountSwitch`): `n` still says
    what a charge needs (`tui/charges.py`), and nothing is asked of the account."""
    from orderdash.tui.charges import NEEDS_CREDENTIALS

    token = next(iter(open_tokens(server)))
    app = make_app(make_settings(server.base_url, poll_interval=0.2), tokens=(token,))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        assert app.account.mode is None
        await pilot.press("n")
        await pilot.pause()
        assert [n.message for n in app._notifications] == [NEEDS_CREDENTIALS]
    assert requests(server, "login") == [] and requests(server, "history") == []


async def test_log_in_and_history_wait_for_the_first_paint(server) -> None:
    """Start-up is not slower with the access token: until the first paint no log-in may go
    (the client's gate is shut) and no history read is started; both follow it."""
    token = next(iter(open_tokens(server)))
    app = account_app(server, tokens=(token,), refresh_interval=0.3)
    at_first_paint: list[tuple[bool, int]] = []
    display = app._display

    def record_display(screen, renderable) -> None:  # noqa: ANN001
        if renderable is not None and not app._batch_count and not at_first_paint:
            gate = app.client.login_after
            assert gate is not None
            account_workers = sum(w.group == "account" for w in app.workers)
            at_first_paint.append((gate.is_set(), account_workers))
        display(screen, renderable)

    app._display = record_display  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(requests(server, "history")) >= 1)
        await wait_until(pilot, lambda: len(requests(server, "rates")) >= 1)
    assert at_first_paint == [(False, 0)]
    assert len(requests(server, "login")) == 1


async def test_a_log_in_waits_for_its_gate(server) -> None:
    import asyncio

    from orderdash.core.service.client import OrderClient

    token = next(iter(open_tokens(server)))
    settings = make_settings(server.base_url, bearer=None, access_token=SecretStr(ACCESS))
    async with OrderClient.from_settings(settings) as client:
        client.login_after = asyncio.Event()
        task = asyncio.create_task(client.refresh_rate(token))
        await asyncio.sleep(0.3)
        assert requests(server, "login") == [] and not task.done()
        client.login_after.set()
        fetched = await task
    assert fetched.order.token == token
    assert [r["endpoint"] for r in server.sim.requests] == ["login", "rates"]


# -- n: a new charge, from the amount to the customer's QR -----------------------------------


def creates(server: SimulatorServer) -> list[dict]:
    return requests(server, "create")


async def test_n_an_amount_confirmed_and_a_coin_show_the_orders_qr_on_the_pos(server) -> None:
    from textual.widgets import OptionList

    from orderdash.core.domain.text import amount_text
    from orderdash.tui.screens.charge import ChargeScreen
    from orderdash.tui.screens.pos import PosScreen
    from orderdash.tui.widgets.qr import QRView
    from support.qr_screen import decode_qr_in_region

    sim = server.sim
    app = account_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: set(app.state.entries) == open_tokens(server))
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, ChargeScreen))
        await type_amount(pilot, app, "12,50")
        await wait_until(pilot, lambda: "Not an amount" in screen_text(app))
        await type_amount(pilot, app, "12.5")
        # no currency set: the dialog names none (no guess from other orders)
        await wait_until(
            pilot, lambda: "Charge 12.50 in the account's currency?" in screen_text(app)
        )
        await pilot.pause(0.3)
        assert creates(server) == []  # nothing is sent before the person says yes
        before = set(sim.tokens())
        await pilot.press("y")
        await wait_until(pilot, lambda: "Which coin" in screen_text(app))
        options = app.screen.query_one(OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert "coin:BTC" in ids and ids[-1] == "customer-chooses"
        options.highlighted = ids.index("coin:BTC")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        (token,) = set(sim.tokens()) - before
        assert token in app.state.entries and app.state.token == token

        def wire() -> dict:
            return sim.order_wire(token, with_qr=False)

        def decoded() -> list[str]:
            qr = app.screen.query_one("#pos-qr", QRView)
            return decode_qr_in_region(app, qr.region)

        assert wire()["amountFiat"] == "12.50" and wire()["coinBaseName"] == "btc"
        await wait_until(
            pilot,
            lambda: (
                decoded()
                == [f"BITCOIN:{wire()['address'].upper()}?amount={amount_text(wire()['amount'])}"]
            ),
        )

        # every private request (log-in, history, rates, the coins, the choice) is in the
        # budget the `b` view shows
        def private_at_the_service() -> int:
            kinds = ("login", "history", "rates", "ui_order")
            return sum(r["endpoint"] in kinds for r in sim.requests)

        def private_in_the_budget() -> int:
            return {u.name: u for u in app.watcher.budget_use()}["rate"].last_minute

        await wait_until(pilot, lambda: private_in_the_budget() == private_at_the_service())
        assert len(requests(server, "ui_order")) == 2
    assert len(creates(server)) == 1


async def test_n_without_a_coin_shows_the_checkout_page_then_the_address(server) -> None:
    """'Let the customer choose': the POS's QR is the service's checkout page for the new order
    (Generate Order's payment_url), and the address once the order gets a coin."""
    from textual.widgets import OptionList

    from orderdash.core.domain.text import amount_text
    from orderdash.simulator.app import CHECKOUT_URL
    from orderdash.tui.screens.pos import PosScreen
    from support.qr_screen import decode_qr_on_screen

    sim = server.sim
    app = account_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_to_charge(pilot, app, server, "7.25")
        before = set(sim.tokens())
        await pilot.press("y")
        await wait_until(pilot, lambda: "Which coin" in screen_text(app))
        options = app.screen.query_one(OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        options.highlighted = ids.index("customer-chooses")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        (token,) = set(sim.tokens()) - before
        checkout = CHECKOUT_URL + token
        await wait_until(pilot, lambda: decode_qr_on_screen(app) == [checkout])
        assert "Scan to choose your coin and pay" in screen_text(app)

        sim.choose_coin(token, "btc")
        wire = sim.order_wire(token, with_qr=False)
        expected = f"BITCOIN:{wire['address'].upper()}?amount={amount_text(wire['amount'])}"
        await wait_until(pilot, lambda: decode_qr_on_screen(app) == [expected], timeout=10)


async def test_a_create_whose_answer_is_lost_is_retried_as_the_same_charge(server) -> None:
    """Every try of the create loses its answer: the person is told in one line, presses
    Enter again, and the same charge (same token) finds its order: exactly one is made."""
    from orderdash.simulator import Fault
    from orderdash.tui.screens.charge import ChargeScreen

    sim = server.sim
    sim.add_fault(Fault(endpoint="create", reset_after=0, times=3))
    app = account_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_to_charge(pilot, app, server, "7.25")
        before = set(sim.tokens())
        await pilot.press("enter")
        await wait_until(pilot, lambda: "may exist" in screen_text(app), timeout=10)
        assert "Not made" not in screen_text(app)
        assert "try the same charge again" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Which coin" in screen_text(app))
        assert len(set(sim.tokens()) - before) == 1
        await pilot.press("escape")  # leave the coin to the customer
        await wait_until(pilot, lambda: not isinstance(app.screen, ChargeScreen))
    made = [r["token"] for r in creates(server)]
    assert len(made) == 4 and len(set(made)) == 1
    (token,) = set(sim.tokens()) - before
    assert sim.order_wire(token, with_qr=False)["amountFiat"] == "7.25"


async def test_a_refused_charge_says_why_in_one_line_and_keeps_the_amount(server) -> None:
    from textual.widgets import Input

    from orderdash.tui.screens.charge import ChargeScreen

    app = account_app(server, customer_id="1")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: set(app.state.entries) == open_tokens(server))
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, ChargeScreen))
        await type_amount(pilot, app, "5")
        await wait_until(pilot, lambda: "Charge 5" in screen_text(app))
        await pilot.press("y")
        await wait_until(pilot, lambda: "Not made:" in screen_text(app))
        line = next(x for x in screen_text(app).splitlines() if "Not made:" in x)
        assert "customer_id: Invalid customer_id" in line
        assert app.screen.query_one("#charge-amount", Input).value == "5"
        assert ACCESS not in screen_text(app)
    assert len(creates(server)) == 1


async def test_n_on_the_pos_screen_charges_and_the_pos_turns_to_the_new_order(server) -> None:
    from orderdash.tui.screens.charge import ChargeScreen
    from orderdash.tui.screens.pos import PosScreen

    sim = server.sim
    first = next(iter(sorted(open_tokens(server))))
    values = {
        "poll_interval": 0.2,
        "refresh_interval": 60.0,
        "access_token": SecretStr(ACCESS),
        "customer_id": "4711",
    }
    settings = make_settings(server.base_url, bearer=None, **values)
    app = make_app(settings, token=first, open_pos=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        pos = app.screen
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, ChargeScreen))
        await type_amount(pilot, app, "3.10")
        await wait_until(pilot, lambda: "Charge 3.10" in screen_text(app))
        before = set(sim.tokens())
        await pilot.press("y")
        await wait_until(pilot, lambda: "Which coin" in screen_text(app))
        await pilot.press("escape")  # the customer chooses on the checkout page
        await wait_until(pilot, lambda: app.screen is pos)
        (token,) = set(sim.tokens()) - before
        await wait_until(pilot, lambda: pos.order is not None and pos.order.token == token)
        assert app.state.token == token and token in app.state.entries


def test_the_demo_runs_in_account_mode_with_an_access_token_held_in_memory(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`orderdash demo` logs in as a merchant does: its dashboard gets an access token and the
    account number, no bearer, and the embedded simulator takes that token."""
    import asyncio

    from orderdash import cli
    from orderdash.core.service.client import OrderClient
    from orderdash.tui import run

    seen: dict[str, object] = {}

    def dashboard(settings, tokens, **_: object) -> int:  # noqa: ANN001
        async def read() -> object:
            async with OrderClient.from_settings(settings) as client:
                return await client.account_orders()

        seen["settings"], seen["orders"] = settings, asyncio.run(read())
        return 0

    monkeypatch.setattr(run, "run_dashboard", dashboard)
    assert cli.main(["demo", "--customer-interval", "0"]) == 0
    settings = seen["settings"]
    assert settings.access_token is not None and settings.bearer_token is None
    assert settings.customer_id == "4711"
    assert len(seen["orders"].items) >= 7  # logged in: the history of the demo orders
    secret = settings.access_token.get_secret_value()
    out = capsys.readouterr()
    assert secret not in out.out + out.err


# -- the till's currency, amounts typed one way, an outcome never guessed -------------------


async def open_charge(pilot, app: OrderDashApp, server: SimulatorServer) -> None:  # noqa: ANN001
    from orderdash.tui.screens.charge import ChargeScreen

    await wait_until(pilot, lambda: set(app.state.entries) == open_tokens(server))
    await pilot.press("n")
    await wait_until(pilot, lambda: isinstance(app.screen, ChargeScreen))


async def test_an_order_in_another_currency_stops_the_charge_before_the_customer_sees_it(
    server,
) -> None:
    """The till's currency is CHF (the setting); the account makes EUR orders. The dialog says
    CHF, and the made order's EUR stops the charge: no coin list, no POS, one line naming both
    currencies and the order."""
    from orderdash.tui.screens.charge import ChargeScreen
    from orderdash.tui.screens.pos import PosScreen

    sim = server.sim
    app = account_app(server, currency="CHF")
    pushed: list[str] = []
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_charge(pilot, app, server)
        assert "Amount in CHF (e.g. 12.50):" in screen_text(app)
        await type_amount(pilot, app, "12.50")
        await wait_until(pilot, lambda: "Charge 12.50 CHF?" in screen_text(app))
        before = set(sim.tokens())
        await pilot.press("y")
        await wait_until(pilot, lambda: "Stopped:" in screen_text(app))
        (token,) = set(sim.tokens()) - before
        line = next(x for x in screen_text(app).splitlines() if "Stopped:" in x)
        assert "'EUR'" in line and "CHF" in line and token in line
        assert "Which coin" not in screen_text(app) and "Order made" not in screen_text(app)
        await pilot.pause(0.5)
        pushed.append(type(app.screen).__name__)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ChargeScreen))
        await pilot.pause(0.5)
        assert not isinstance(app.screen, PosScreen) and app.state.token != token
    assert pushed == ["ChargeScreen"]
    assert not [r for r in sim.requests if r["endpoint"] == "ui_order" and r["method"] == "POST"]


async def test_without_the_setting_the_first_order_tells_the_currency_for_the_session(
    server,
) -> None:
    from orderdash.tui.screens.charge import ChargeScreen

    app = account_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_charge(pilot, app, server)
        assert "Amount in the account's currency (e.g. 12.50):" in screen_text(app)
        await type_amount(pilot, app, "5")
        await wait_until(
            pilot, lambda: "Charge 5.00 in the account's currency?" in screen_text(app)
        )
        await pilot.press("y")
        # told by the made order, as the service reports it
        await wait_until(pilot, lambda: "Order made for 5.00 EUR." in screen_text(app))
        await pilot.press("escape")  # the customer chooses the coin
        await wait_until(pilot, lambda: not isinstance(app.screen, ChargeScreen))
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, ChargeScreen))
        assert "Amount in EUR (e.g. 12.50):" in screen_text(app)


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("12_50", "not digits"),
        ("\u0661\u0662", "not digits"),
        ("\uff11\uff12", "not digits"),
        ("12,50", "use a point: 12.50"),
        ("1e3", "not digits"),
    ],
)
async def test_an_amount_typed_another_way_is_refused_in_the_dialog(server, typed, reason) -> None:
    app = account_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_charge(pilot, app, server)
        from textual.widgets import Input

        app.screen.query_one("#charge-amount", Input).value = typed
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Not an amount" in screen_text(app))
        # no "Charge 12.50 EUR?" in the dialog (the footer under it names the n key "Charge")
        dialog = "\n".join(screen_text(app).splitlines()[:-1])
        assert reason in dialog and "Charge" not in dialog
    assert creates(server) == []


async def test_the_dialog_shows_the_attempt_and_the_seconds_while_the_order_is_made(
    server,
) -> None:
    from orderdash.simulator import Fault

    server.sim.add_fault(Fault(endpoint="create", delay=3.0, times=1))
    app = account_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_to_charge(pilot, app, server, "4.00")
        await pilot.press("y")
        # from the first second: the try and the time since the yes
        await wait_until(pilot, lambda: "attempt 1 of 3 \u00b7 0 s" in screen_text(app))
        await wait_until(pilot, lambda: "attempt 1 of 3 \u00b7 2 s" in screen_text(app))
        await wait_until(pilot, lambda: "Which coin" in screen_text(app), timeout=15)
    assert len(creates(server)) == 1


async def test_an_unknown_outcome_names_the_order_and_l_looks_it_up_then_goes_on(
    server,
) -> None:
    """Every try loses its answer after the order is made: not "Not made" but "order T may
    exist"; `l` reads it by its token and the charge goes on to the coin, then the POS."""
    from textual.widgets import OptionList

    from orderdash.simulator import Fault
    from orderdash.tui.screens.pos import PosScreen

    sim = server.sim
    sim.add_fault(Fault(endpoint="create", reset_after=0, times=3))
    app = account_app(server)
    async with app.run_test(size=(160, 40)) as pilot:
        await ask_to_charge(pilot, app, server, "6.40")
        before = set(sim.tokens())
        await pilot.press("y")
        await wait_until(pilot, lambda: "may exist" in screen_text(app), timeout=15)
        (token,) = set(sim.tokens()) - before
        text = screen_text(app)
        assert f"Unknown: order {token} may exist" in text and "Not made" not in text
        assert "l: look it up" in text
        await pilot.press("l")
        await wait_until(pilot, lambda: "Order made for 6.40 EUR." in screen_text(app))
        options = app.screen.query_one(OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        options.highlighted = ids.index("coin:BTC")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        assert app.state.token == token
    assert len(creates(server)) == 3
    assert sim.order_wire(token, with_qr=False)["coinBaseName"] == "btc"


async def test_a_checkout_link_that_is_not_https_never_becomes_the_customers_qr(server) -> None:
    from orderdash.simulator import Fault
    from orderdash.tui.screens.pos import PosScreen

    sim = server.sim
    sim.add_fault(Fault(endpoint="create", answer_payment_url="javascript:alert(1)//https://x"))
    app = account_app(server)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ask_to_charge(pilot, app, server, "2.00")
        before = set(sim.tokens())
        await pilot.press("y")
        await wait_until(pilot, lambda: "Which coin" in screen_text(app))
        notes = [n.message for n in app._notifications]
        assert any("not https: not shown" in note for note in notes)
        await pilot.press("escape")  # the customer would choose on the checkout page
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        (token,) = set(sim.tokens()) - before
        assert token not in app.state.payment_urls
        assert "javascript" not in screen_text(app)


async def test_l_on_an_order_the_service_does_not_have_says_not_made(server) -> None:
    """The creates went to a listener whose answers were lost, and the service (base URL) has
    no such order: `l` says "Not made" (the service said so), and offers the same charge again."""
    from orderdash.simulator import Fault

    with SimulatorServer(Simulator(seed=8), access_token=ACCESS) as listener:
        listener.sim.add_fault(Fault(endpoint="create", reset_after=0, times=3))
        app = account_app(server, create_url=listener.base_url)
        async with app.run_test(size=(160, 40)) as pilot:
            await ask_to_charge(pilot, app, server, "3.30")
            await pilot.press("y")
            await wait_until(pilot, lambda: "may exist" in screen_text(app), timeout=15)
            await pilot.press("l")
            await wait_until(
                pilot, lambda: "Not made: the service has no order" in screen_text(app)
            )
            assert "try the same charge again" in screen_text(app)
        sent = [r for r in listener.sim.requests if r["endpoint"] == "create"]
        assert len(sent) == 3
