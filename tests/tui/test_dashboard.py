"""The dashboard driven by Pilot against the simulator over real loopback HTTP."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from conftest import BEARER, make_settings, screen_text, wait_until
from orderdash.core.domain.text import amount_text
from orderdash.core.polling.refresh import Kind
from orderdash.simulator import DEMO_TOKENS, Fault, SimulatorServer
from orderdash.tui import desktop
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.qr import QRView
from orderdash.tui.widgets.status_line import StatusLine
from orderdash.tui.widgets.transactions import TransactionsTable

TOKEN = DEMO_TOKENS[0]
SIZE = (140, 48)


def dashboard_app(
    server: SimulatorServer, *, token: str | None = TOKEN, bearer: str | None = BEARER, **settings
) -> OrderDashApp:
    values = {"poll_interval": 0.2, "refresh_interval": 60.0, **settings}
    return make_app(make_settings(server.base_url, bearer=bearer, **values), token=token)


def requests_of(server: SimulatorServer, endpoint: str, token: str = TOKEN) -> list[dict]:
    return [r for r in server.sim.requests if r["endpoint"] == endpoint and r["token"] == token]


def every_field(wire: dict) -> list[str]:
    return [
        wire["companyName"],
        str(wire["id"]),
        str(wire["customerId"]),
        wire["token"],
        wire["type"],
        wire["status"]["label"],
        f"{wire['amountFiat']} {wire['currency']['abbreviation']}",
        f"{amount_text(wire['amount'])} BTC",
        f"1 BTC = {amount_text(wire['exchangeRate'], group=True)} EUR",
        wire["coin"],
        wire["currency"]["currency"],
        wire["createdAt"],
        str(wire["expirationTime"])[:4],
        "expires in",
        wire["urls"]["successUrl"][:30],
    ]


async def test_every_field_of_the_order_is_on_screen(sim_server: SimulatorServer) -> None:
    app = dashboard_app(sim_server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("i")  # the details view: the raw expiry fields too

        # the simulator renews the rate and the amount every minute: compare with what it
        # serves now, not with a copy taken before the app read it
        def missing() -> list[str]:
            wire = sim_server.sim.order_wire(TOKEN, with_qr=False)
            return [value for value in every_field(wire) if value not in screen_text(app)]

        try:
            await wait_until(pilot, lambda: not missing())
        except AssertionError as error:
            raise AssertionError(f"not on screen: {missing()}\n{error}") from None
        wire = sim_server.sim.order_wire(TOKEN, with_qr=False)
        text = screen_text(app)
        assert (
            wire["address"] in text.replace("\n", "").replace("│", "").replace(" ", "")
            or wire["address"] in text
        )
        tx = wire["transactions"][0]
        assert amount_text(tx["amount"]["base"]) in text
        assert tx["hash"][:6] in text
        # partly paid: the QR is the payment URI for what is still due (the server's underPaid)
        due = amount_text(-tx["amount"]["underPaid"])
        qr = app.dashboard.query_one(QRView)
        # the bech32 address in upper case inside the code, as written in the caption
        assert qr.encoded_text == f"BITCOIN:{wire['address'].upper()}?amount={due}"
        assert qr.caption_text == f"bitcoin:{wire['address']}?amount={due}"
        assert f"send {due} BTC" not in text and f"{due} BTC" in text
        assert "live" in screen_text(app)


async def test_new_transaction_appears_and_the_rate_call_follows(
    sim_server: SimulatorServer,
) -> None:
    app = dashboard_app(sim_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        table = app.dashboard.query_one(TransactionsTable)
        await wait_until(
            pilot, lambda: table.row_count == 1 and len(requests_of(sim_server, "rates")) == 1
        )
        tx = sim_server.sim.add_transaction(TOKEN, "0.00001")
        await wait_until(pilot, lambda: table.row_count == 2)
        # the rate refresh follows the new transaction at once, not after the 60 s interval
        await wait_until(pilot, lambda: len(requests_of(sim_server, "rates")) == 2, timeout=3)
        assert table.coordinate_to_cell_key((0, 0)).row_key.value == str(tx["id"]), "newest first"
        assert table.get_cell(str(tx["id"]), "new").plain == "\u25cf"
        await wait_until(pilot, lambda: "Payment received" in screen_text(app))
        assert f"{amount_text(tx['amount']['base'])} BTC" in screen_text(app)


async def test_table_updates_in_place_and_keeps_the_cursor(sim_server: SimulatorServer) -> None:
    token = DEMO_TOKENS[4]  # three payments
    app = dashboard_app(sim_server, token=token)
    async with app.run_test(size=SIZE) as pilot:
        table = app.dashboard.query_one(TransactionsTable)
        await wait_until(pilot, lambda: table.row_count == 3)
        await pilot.press("down", "down")
        selected = table.selected()
        assert selected is not None
        row_objects = dict(table.rows)
        sim_server.sim.add_transaction(token, "0.001")
        await wait_until(pilot, lambda: table.row_count == 4)
        assert table.selected() == selected, "the cursor stays on the same transaction"
        for key, row in row_objects.items():
            assert table.rows[key] is row, "existing rows are kept, not rebuilt"


async def test_switching_tokens_moves_the_fast_refresh_to_the_new_order(
    sim_server: SimulatorServer,
) -> None:
    other = DEMO_TOKENS[1]
    app = dashboard_app(sim_server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("slash")
        input_widget = app.dashboard.query_one("#token-input", Input)
        input_widget.value = f"  {other}  "
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: app.state.order is not None and app.state.order.token == other
        )
        workers = app.workers
        watch_workers = [w for w in workers if w.group == "watch" and not w.is_finished]
        assert len(watch_workers) == 1, "one watcher for every order"
        await pilot.pause(0.3)
        before_old = len(requests_of(sim_server, "order"))
        before_new = len(requests_of(sim_server, "order", other))
        await pilot.pause(1.0)
        # the new order is read every poll interval (0.2 s); the old one only at background pace
        assert len(requests_of(sim_server, "order", other)) - before_new >= 3
        assert len(requests_of(sim_server, "order")) - before_old <= 1
        assert set(app.state.entries) == {TOKEN, other}, "both stay on the watch list"
        assert "Ethereum" in screen_text(app)


async def test_failure_shows_stale_data_and_recovers(sim_server: SimulatorServer) -> None:
    app = dashboard_app(sim_server)
    async with app.run_test(size=SIZE) as pilot:
        detail = app.dashboard.query_one(OrderDetail)
        await wait_until(pilot, lambda: app.state.order is not None)
        sim_server.sim.add_fault(Fault(status=503))
        app.action_refresh()
        await wait_until(pilot, lambda: detail.has_class("-stale"))
        await wait_until(pilot, lambda: "HTTP 503" in screen_text(app))  # on the next paint
        text = screen_text(app)
        assert "STALE since" in text and "retrying" in text and "HTTP 503" in text
        assert "Demo Shop" in text, "the last good data stays on screen"
        sim_server.sim.clear_faults()
        await wait_until(pilot, lambda: not detail.has_class("-stale"), timeout=8)
        await wait_until(pilot, lambda: "live" in screen_text(app))


async def test_server_stopped_then_back(sim_server: SimulatorServer) -> None:
    app = dashboard_app(sim_server)
    async with app.run_test(size=SIZE) as pilot:
        detail = app.dashboard.query_one(OrderDetail)
        await wait_until(pilot, lambda: app.state.order is not None)
        sim_server.stop()
        await wait_until(pilot, lambda: detail.has_class("-stale"))
        # the status line says why on its next paint
        await wait_until(pilot, lambda: "cannot connect" in screen_text(app))
        sim_server.start()
        await wait_until(pilot, lambda: not detail.has_class("-stale"), timeout=8)


async def test_without_a_bearer_token_it_runs_on_get_order_alone(
    sim_server: SimulatorServer,
) -> None:
    app = dashboard_app(sim_server, bearer=None)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        # the notice is a toast: mounted and laid out a frame or two after the order
        await wait_until(pilot, lambda: "Rate refresh is off" in screen_text(app))
        text = screen_text(app)
        assert "Rate refresh is off" in text and "access_token_file" in text
        assert "rate refresh off: no bearer token" in text
        assert requests_of(sim_server, "rates") == []


async def test_refused_token_keeps_the_order_live_and_says_why(sim_server: SimulatorServer) -> None:
    app = dashboard_app(sim_server, bearer="wrong-bearer-value")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "rate refresh failing" in screen_text(app))
        text = screen_text(app)
        assert "refused the bearer token" in text and "wrong-bearer-value" not in text
        assert not app.dashboard.query_one(OrderDetail).has_class("-stale")


HOSTILE = (
    "ACME [/] [@click=app.quit]Pay[/] [link='https://evil.example']x[/] "
    "\x1b[2J\x1b]52;c;aGk=\x07\x9b\u202e"
)


async def test_hostile_server_text_is_shown_literally(sim_server: SimulatorServer) -> None:
    sim_server.sim.set_fields(
        TOKEN,
        {
            "companyName": HOSTILE,
            "status": {"code": "[bold]X", "label": "[/]" + HOSTILE},
            "email": "[@click=app.quit]e[/]",
        },
    )
    app = dashboard_app(sim_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        sim_server.sim.add_transaction(TOKEN, "0.00002")  # notification with the company name
        await wait_until(pilot, lambda: "Payment received" in screen_text(app))
        text = screen_text(app)
        assert "ACME [/] [@click=app.quit]Pay[/] [link='https://evil.example']x[/]" in text
        assert "\x1b" not in text and "\x9b" not in text and "\u202e" not in text
        assert "[@click=app.quit]e[/]" in text
        await pilot.click(OrderDetail, offset=(6, 1))
        await pilot.pause()
        assert app.is_running
        assert app.dashboard.sub_title.startswith("ACME [/]")


async def test_bad_token_gets_a_message_under_the_input(sim_server: SimulatorServer) -> None:
    app = dashboard_app(sim_server, token=None)
    async with app.run_test(size=SIZE) as pilot:
        assert app.focused is app.dashboard.query_one("#token-input")
        await pilot.press(".", ".", "enter")
        await pilot.pause()
        assert "'..' is not an order token" in screen_text(app)
        await pilot.press("backspace", "backspace", *"no-such", "enter")
        await wait_until(pilot, lambda: "no order with token 'no-such'" in screen_text(app))
        assert app.is_running


async def test_keys_copy_open_and_help(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    app = dashboard_app(sim_server)
    monkeypatch.setattr(desktop, "browser_available", lambda: True)
    monkeypatch.setattr(desktop, "open_in_browser", lambda url: opened.append(url) or True)
    wire = sim_server.sim.order_wire(TOKEN, with_qr=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.dashboard.query_one(TransactionsTable).row_count == 1)
        await pilot.press("c")
        assert app.clipboard == wire["address"]
        await pilot.press("y")
        assert app.clipboard == app.state.shown.payment.send.text
        await pilot.press("o")
        await wait_until(pilot, lambda: bool(opened))
        assert opened == [wire["transactions"][0]["hashUrl"]]
        await pilot.press("question_mark")
        assert "copy the payment address" in screen_text(app)
        await pilot.press("escape")
        await pilot.press("slash")
        assert app.focused is app.dashboard.query_one("#token-input")


async def test_a_non_http_explorer_link_is_not_opened(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = DEMO_TOKENS[0]
    sim_server.sim.add_transaction(token, "0.00001")
    sim_server.sim.set_fields(
        token,
        {
            "transactions": [
                dict(
                    sim_server.sim.order_wire(token, with_qr=False)["transactions"][0],
                    hashUrl="javascript:alert(1)",
                )
            ]
        },
    )
    opened: list[str] = []
    app = dashboard_app(sim_server, token=token)
    monkeypatch.setattr(app, "open_url", lambda url, **kw: opened.append(url))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: app.dashboard.query_one(TransactionsTable).row_count == 1)
        await pilot.press("o")
        assert opened == []
        assert "Not opening a link" in screen_text(app)


async def test_refresh_key_fetches_at_once(sim_server: SimulatorServer) -> None:
    app = dashboard_app(sim_server, poll_interval=30.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(requests_of(sim_server, "rates")) == 1)
        await pilot.press("r")
        await wait_until(
            pilot,
            lambda: (
                len(requests_of(sim_server, "rates")) == 2
                and len(requests_of(sim_server, "order")) == 2
            ),
        )


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (200, 60)])
async def test_layout_fits_from_80x24_up(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    app = dashboard_app(sim_server)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.dashboard.query_one(TransactionsTable).row_count == 1)
        await pilot.pause()
        for widget in (
            app.dashboard.query_one(OrderDetail),
            app.dashboard.query_one(TransactionsTable),
            app.dashboard.query_one(StatusLine),
        ):
            region = widget.region
            assert region.width > 0 and region.height > 0
            assert region.right <= size[0] and region.bottom <= size[1]
        qr = app.dashboard.query_one(QRView)
        if size[0] < 100:
            assert not qr.display and "QR hidden" in screen_text(app)
        else:
            assert qr.scale >= 1 and qr.encoded_text
        detail, qr_region = app.dashboard.query_one(OrderDetail).region, qr.region
        assert not detail.overlaps(qr_region)
        assert not app.dashboard.query_one(TransactionsTable).region.overlaps(detail)


async def test_the_qr_stands_beside_the_order_and_its_transactions(
    sim_server: SimulatorServer,
) -> None:
    """The order pane over the transactions, the QR beside both: drawn by #main alone (a
    docked QR), with no container of their own to mount and style."""
    from orderdash.tui.widgets.transactions import TransactionsPane

    app = dashboard_app(sim_server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.dashboard.query_one(TransactionsTable).row_count == 1)
        await pilot.pause()
        main = app.dashboard.query_one("#main")
        detail = app.dashboard.query_one(OrderDetail)
        pane = app.dashboard.query_one(TransactionsPane)
        qr = app.dashboard.query_one(QRView)
        assert detail.parent is main and pane.parent is main and qr.parent is main
        assert detail.region.bottom == pane.region.y and detail.region.x == pane.region.x
        assert qr.region.x >= max(detail.region.right, pane.region.right)
        assert qr.region.y == detail.region.y and qr.region.bottom == pane.region.bottom
        assert main.region.right == qr.region.right


async def test_rate_change_shows_its_direction(sim_server: SimulatorServer) -> None:
    app = dashboard_app(sim_server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        first = app.state.order.exchange_rate
        sim_server.sim.advance_clock(60)  # the simulator renews its rate each minute
        await pilot.press("r")
        await wait_until(pilot, lambda: app.state.order.exchange_rate != first)
        mark = "\u25b2" if app.state.order.exchange_rate > first else "\u25bc"
        await wait_until(pilot, lambda: f"EUR {mark}" in screen_text(app))


async def test_the_palettes_bell_toggle_rings_after_no_bell(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--no-bell`, then "Toggle bell" from the command palette: the next payment rings (it
    used to say "Bell on." while a second flag kept the bell silent)."""
    from textual.app import App

    rings: list[None] = []
    monkeypatch.setattr(App, "bell", lambda self: rings.append(None))
    app = dashboard_app(sim_server, bell=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        sim_server.sim.add_transaction(TOKEN, "0.00001")
        await wait_until(pilot, lambda: len(app.state.alerts) == 1)
        assert rings == [], "--no-bell: silent"
        await pilot.press("ctrl+p")
        for key in "toggle bell":
            await pilot.press("space" if key == " " else key)
        await wait_until(pilot, lambda: "Toggle bell" in screen_text(app))
        await pilot.pause(0.3)  # the palette's search settles on its best match
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Bell on." in screen_text(app))
        sim_server.sim.add_transaction(TOKEN, "0.00001")
        await wait_until(pilot, lambda: len(app.state.alerts) == 2)
        assert rings == [None]


async def test_an_answer_for_another_token_is_shown_with_a_warning(
    sim_server: SimulatorServer,
) -> None:
    from orderdash.core.model import jsontext

    other = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
    data = sim_server.sim.order_wire(other, with_qr=False)
    body = jsontext.dumps({"status": 1, "data": data})
    sim_server.sim.add_fault(Fault(endpoint="order", token=TOKEN, body=body))
    app = dashboard_app(sim_server, bearer=None)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        warning = f"answered for order token {other!r}, not {TOKEN!r} as asked"
        await wait_until(pilot, lambda: warning in screen_text(app))
        assert app.state.order.token == other, "shown, not refused"


async def test_a_duplicate_amount_is_invalid_and_the_last_good_data_stays(
    sim_server: SimulatorServer,
) -> None:
    from orderdash.core.model import jsontext

    app = dashboard_app(sim_server, bearer=None)
    async with app.run_test(size=SIZE) as pilot:
        detail = app.dashboard.query_one(OrderDetail)
        await wait_until(pilot, lambda: app.state.order is not None)
        good = app.state.order.amount
        data = sim_server.sim.order_wire(TOKEN, with_qr=False)
        data["amount"] = "@@"
        body = jsontext.dumps({"status": 1, "data": data})
        body = body.replace('"@@"', '0.00000109, "amount": 99.5')
        sim_server.sim.add_fault(Fault(endpoint="order", token=TOKEN, body=body))
        app.action_refresh()
        await wait_until(pilot, lambda: detail.has_class("-stale"))
        await wait_until(pilot, lambda: "'amount' appears twice" in screen_text(app))
        assert app.state.order.amount == good
        assert "99.5" not in screen_text(app)


async def test_the_clock_tick_and_the_app_state_repaint_no_screen(
    sim_server: SimulatorServer,
) -> None:
    """The app-level clock tick and the state handed down (freshness, the order on screen) are
    `var`s: a tick repaints the countdowns, never the whole screen (a `reactive` on the App or
    the screen repainted all of it every second: bench/run.py --case idle)."""
    app = dashboard_app(sim_server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.pause(0.3)
        screen = app.dashboard
        refreshed: list[str] = []
        for name, target in (("app", app), ("screen", screen)):
            original = target.refresh

            def refresh(*args: object, _name: str = name, _original=original, **kwargs: object):  # noqa: ANN001, ANN202
                refreshed.append(_name)
                return _original(*args, **kwargs)

            target.refresh = refresh  # type: ignore[method-assign]
        app.tick += 1
        screen.freshness = app.state.freshness.succeeded(Kind.ORDER, 1.0, None)
        app.shown = app.state.shown
        app.roster += 1
        await pilot.pause(0.2)
        assert refreshed == []


async def test_an_empty_start_says_no_order_is_loaded(sim_server: SimulatorServer) -> None:
    """Nothing given, nothing saved: the status line says so from the first paint on."""
    app = make_app(make_settings(sim_server.base_url))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        status = app.screen.query_one(StatusLine)
        assert str(status.render()).strip() == "no order loaded"
