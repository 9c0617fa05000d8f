"""Nothing is payable after its time: the POS, the dashboard and the customer display withdraw
the QR and "Scan to pay" the second the order's deadline passes by the local clock (the
service's "expired" may be a poll or more away), and a rate period after the last good answer
in an outage (a read that hangs counts too); `p` and `x` on an order near its end ask first,
and the countdown stands out in the last minutes."""

from __future__ import annotations

import time
from pathlib import Path

from conftest import make_settings, screen_text, wait_until
from orderdash.core.customer.catalogue import catalogue
from orderdash.core.customer.channel import Publisher, channel_path
from orderdash.core.customer.face import CustomerFace
from orderdash.core.model import jsontext
from orderdash.core.model.errors import NetworkError
from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import OrderEnvelope
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.watcher import Change, Failure
from orderdash.core.watching.faces import RATE_PERIOD
from orderdash.core.watching.state import DashboardState
from orderdash.simulator import SimulatorServer
from orderdash.simulator.state import Fault
from orderdash.tui.app import OrderDashApp
from orderdash.tui.customer_display import DisplayApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.confirm import ConfirmScreen
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.qr import QRView
from support.faces import customer_face
from support.qr_screen import decode_qr_on_screen

FIXTURES = Path(__file__).parents[1] / "fixtures"
NOW = 1_800_000_000.0
WORDS = catalogue("en")
JA = catalogue("ja")
SCAN = WORDS.text("headline_awaiting")


class Offset:
    """A clock pushed forward by the test instead of waited for."""

    def __init__(self, base: float | None = None, source=time.time) -> None:  # noqa: ANN001
        self.offset = 0.0
        self.base = base
        self.source = source

    def __call__(self) -> float:
        if self.base is not None:
            return self.base + self.offset
        return self.source() + self.offset


def payable_face(**fields: object) -> CustomerFace:
    return customer_face(**{"deadline": NOW + 30, **fields})


# -- the customer's face, in the core --------------------------------------------------------------


def test_a_face_is_not_payable_from_its_deadline_on() -> None:
    from orderdash.core.customer.face import face_at

    face = payable_face()
    assert face_at(face, NOW + 29.9) is face
    expired = face_at(face, NOW + 30)
    assert expired.phase == "EXPIRED" and not expired.payable
    assert expired.qr_text == "" and expired.qr_modules == () and expired.coin_amount == ""
    assert expired.company == "Shop" and expired.order_id == "7"
    # read back from the channel it is still a valid face
    assert CustomerFace.model_validate_json(expired.model_dump_json()) == expired
    # no deadline known: nothing is decided on the local clock
    assert face_at(payable_face(deadline=None), NOW + 10**6).payable
    # a partly paid order keeps its payments: "expired after a partial payment"
    assert face_at(payable_face(phase="PARTLY_PAID", payments=1), NOW + 31).payments == 1


def _state(clock: Offset, monotonic: Offset) -> DashboardState:
    return DashboardState(
        store=None,
        bell=False,
        qr_content="auto",
        refresh_interval=60.0,
        rates_enabled=True,
        clock=clock,
        monotonic=monotonic,
    )


def _open_order(token: str) -> Fetched:
    data = jsontext.loads((FIXTURES / "get_order_example.json").read_bytes())["data"]
    data.update(
        token=token,
        transactions=[],
        createdAtMiliseconds=int(NOW * 1000),
        expiresAt=int((NOW + 600) * 1000),
        expirationTime=600_000,
    )
    order = OrderEnvelope.model_validate({"status": 1, "data": data}).data
    return Fetched(order, {}, NOW, 0.01)


def test_the_published_face_expires_by_the_dashboards_clock() -> None:
    clock, monotonic = Offset(NOW), Offset(0.0)
    state = _state(clock, monotonic)
    state.add(["tok"])
    state.fetched("tok", _open_order("tok"), Change(), looking=False)
    state.customer_token = "tok"
    face = state.customer_face()
    assert face is not None and face.payable and face.deadline == NOW + 600
    clock.offset = 599
    monotonic.offset = 30  # answers keep coming (monotonic: within the rate period)
    assert state.customer_face().payable  # type: ignore[union-attr]
    clock.offset = 600
    face = state.customer_face()
    assert face is not None and face.phase == "EXPIRED" and not face.payable and not face.qr_text


def test_the_rate_period_counts_from_the_last_good_answer() -> None:
    clock, monotonic = Offset(NOW), Offset(0.0)
    state = _state(clock, monotonic)
    state.add(["tok"])
    state.fetched("tok", _open_order("tok"), Change(), looking=False)
    state.customer_token = "tok"
    # a read that hangs: no failure reported yet, and still no answer a minute on
    monotonic.offset = RATE_PERIOD - 0.5
    assert state.trouble("tok", has_order=True) == ""
    monotonic.offset = RATE_PERIOD
    assert state.trouble("tok", has_order=True) == "unreachable"
    # an order no customer looks at may be read less often than that
    state.customer_token = None
    assert state.trouble("tok", has_order=True) == ""
    # a failure: from the last good answer, whoever looks
    monotonic.offset = 0.0
    state.fetched("tok", _open_order("tok"), Change(), looking=False)
    monotonic.offset = 50.0
    state.failed("tok", Failure(Kind.ORDER, NetworkError("cannot connect"), 1.0))
    assert state.trouble("tok", has_order=True) == ""
    monotonic.offset = RATE_PERIOD
    assert state.trouble("tok", has_order=True) == "unreachable"


async def test_the_customer_display_withdraws_the_code_at_the_deadline_by_its_own_clock(
    tmp_path: Path,
) -> None:
    path = channel_path("default", tmp_path)
    clock = Offset(NOW)
    publisher = Publisher(path, language="ja", clock=clock)
    app = DisplayApp(path, clock=clock, poll_interval=0.05, language="ja")
    async with app.run_test(size=(120, 36)) as pilot:
        publisher.publish(payable_face())
        await wait_until(pilot, lambda: JA.text("headline_awaiting") in screen_text(app))
        assert app.query_one("#pos-qr", QRView).display
        clock.offset = 30  # the dashboard's last word still says "payable"
        publisher.publish(payable_face())
        await wait_until(pilot, lambda: JA.text("headline_expired") in screen_text(app))
        assert JA.text("headline_awaiting") not in screen_text(app)
        assert not app.query_one("#pos-qr", QRView).display
        assert decode_qr_on_screen(app) == []


# -- the POS and the dashboard, against the simulator ------------------------------------------


def lagging_order(server: SimulatorServer) -> str:
    """An open order whose service says IN_PROGRESS even past its deadline."""
    sim = server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    sim.set_fields(token, {"status": {"code": "IN_PROGRESS", "label": "IN_PROGRESS"}})
    return token


def app_for(server: SimulatorServer, token: str, **options: object) -> OrderDashApp:
    settings = make_settings(
        server.base_url,
        poll_interval=0.2,
        refresh_interval=60.0,
        **options.pop("settings", {}),  # type: ignore[arg-type]
    )
    return make_app(settings, token=token, **options)  # type: ignore[arg-type]


def pos_banner(app: OrderDashApp) -> str:
    if not isinstance(app.screen, PosScreen):
        return ""
    return str(app.screen.query_one("#pos-banner").render())


async def test_the_pos_withdraws_the_qr_the_second_the_order_expires(
    sim_server: SimulatorServer,
) -> None:
    token = lagging_order(sim_server)
    clock = Offset()
    app = app_for(sim_server, token, clock=clock, open_pos=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: SCAN in pos_banner(app))
        await wait_until(pilot, lambda: len(decode_qr_on_screen(app)) == 1)
        # an hour on, for this machine and for the service, which still says IN_PROGRESS
        sim_server.sim.advance_clock(3601)
        clock.offset = 3601
        await wait_until(pilot, lambda: WORDS.text("headline_expired") in pos_banner(app))
        await pilot.pause(0.3)
        assert app.state.shown is not None and app.state.shown.payment.payable  # the service
        assert SCAN not in screen_text(app)
        assert decode_qr_on_screen(app) == []


async def test_the_dashboard_withdraws_the_qr_the_second_the_order_expires(
    sim_server: SimulatorServer,
) -> None:
    token = lagging_order(sim_server)
    clock = Offset()
    app = app_for(sim_server, token, clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        qr = app.dashboard.query_one("#qr", QRView)
        await wait_until(pilot, lambda: qr.encoded_text != "")
        sim_server.sim.advance_clock(3601)
        clock.offset = 3601
        await wait_until(pilot, lambda: qr.encoded_text == "")
        assert "time is up" in qr.placeholder
        await pilot.pause(0.2)
        assert decode_qr_on_screen(app) == []
        assert "No QR: the order's time" in screen_text(app), screen_text(app)


async def test_the_dashboard_withdraws_the_qr_a_rate_period_into_an_outage(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    monotonic = Offset(source=time.monotonic)
    app = app_for(sim_server, token, monotonic=monotonic)
    async with app.run_test(size=(120, 40)) as pilot:
        qr = app.dashboard.query_one("#qr", QRView)
        await wait_until(pilot, lambda: qr.encoded_text != "")
        sim_server.sim.add_fault(Fault(endpoint="any", status=503, times=None))
        await wait_until(pilot, lambda: app.state.freshness.stale)
        await pilot.pause(0.5)
        assert qr.encoded_text != ""  # within the rate period: the amount is still the order's
        monotonic.offset += RATE_PERIOD
        await wait_until(pilot, lambda: qr.encoded_text == "", timeout=2.5)
        assert "no answer from the service" in qr.placeholder
        sim_server.sim.clear_faults()
        await wait_until(pilot, lambda: qr.encoded_text != "", timeout=8)


async def test_a_hung_service_withdraws_the_qr_a_rate_period_after_the_last_answer(
    sim_server: SimulatorServer,
) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    monotonic = Offset(source=time.monotonic)
    app = app_for(sim_server, token, monotonic=monotonic, open_pos=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: SCAN in pos_banner(app))
        # every read now hangs for longer than the test: no failure is reported
        sim_server.sim.add_fault(Fault(endpoint="any", delay=15.0, times=None))
        await pilot.pause(2.0)  # the last good answer is behind us, the next read hangs
        # at most ~4 s since the last good answer (one customer poll and its answer): still
        # under a minute with 50 s more
        monotonic.offset += RATE_PERIOD - 10.0
        await pilot.pause(1.5)  # a tick or more
        assert SCAN in pos_banner(app) and len(decode_qr_on_screen(app)) == 1
        monotonic.offset += 10.0  # past a minute since the last good answer, however it fell
        await wait_until(
            pilot, lambda: WORDS.text("headline_cannot_check") in pos_banner(app), timeout=2.5
        )
        await pilot.pause(0.2)  # the banner is the widget's; the code is read off the screen
        assert decode_qr_on_screen(app) == []
        sim_server.sim.clear_faults()


# -- `p` and `x` near the end ------------------------------------------------------------------


async def test_p_and_x_on_an_order_about_to_expire_ask_first(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00", lifetime_s=90)
    app = app_for(sim_server, token, settings={"display_channel": "expiry-test"})
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.state.shown is not None)
        await wait_until(pilot, lambda: app.state.entries[token].payment is not None)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "expires in" in screen_text(app)
        await pilot.press("n")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, PosScreen) and app.state.customer_token is None

        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await pilot.pause(0.2)
        assert app.state.customer_token is None

        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: SCAN in pos_banner(app))
        # under two minutes left: the countdown stands out
        times = app.screen.query_one("#pos-times")
        await wait_until(pilot, lambda: times.has_class("-soon"))


async def test_p_on_an_order_with_time_left_opens_at_once(sim_server: SimulatorServer) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00")
    app = app_for(sim_server, token, settings={"pos_expiry_margin": 60.0})
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.state.entries[token].payment is not None)
        await pilot.press("p")
        await wait_until(pilot, lambda: SCAN in pos_banner(app))
        assert not app.screen.query_one("#pos-times").has_class("-soon")


def test_the_order_panes_countdown_stands_out_in_the_last_minutes() -> None:
    from orderdash.core.domain.expiry import expiry_for
    from orderdash.tui.widgets.order_detail import OrderDetail

    order = _open_order("tok").order  # 600 s left at NOW
    expiry = expiry_for(order, NOW)

    def expires(now: float) -> str:
        rows = dict(OrderDetail._times_rows(order, expiry, now))
        text = rows["Expires"]
        return " ".join(str(span.style) for span in text.spans) + " " + str(text.style)

    assert "on #de935f" not in expires(NOW)
    assert "on #de935f" in expires(NOW + 600 - 100)
    assert "on #de935f" not in expires(NOW + 600)  # expired: no countdown to watch


# -- an order whose coin is not chosen yet: the code is the checkout page ----------------------

CHECKOUT = "https://pay.example/checkout/"


def test_a_checkout_face_goes_at_the_orders_deadline() -> None:
    """The checkout page takes a payment as much as an address does: at the order's deadline
    by the local clock it goes, and the customer reads that the order has expired."""
    from orderdash.core.customer.face import customer_face, face_at
    from orderdash.core.domain.payment import payment_state
    from orderdash.core.qr.payload import QRContent, qr_payload
    from orderdash.tui.widgets.customer import headline

    fetched = _open_order("tok")
    order = fetched.order.model_copy(
        update={"coin": None, "coin_base_name": None, "exchange_rate": None, "amount": None}
    )
    state = payment_state(order, NOW)
    assert not state.payable  # no coin: the code is the checkout page
    payload = qr_payload(order, state, QRContent.AUTO)
    face = customer_face(order, state, payload, payment_url=f"{CHECKOUT}tok")
    assert face.checkout and face.payable and face.deadline == NOW + 600
    assert face_at(face, NOW + 599.9) is face
    expired = face_at(face, NOW + 600)
    assert expired.phase == "EXPIRED" and not expired.payable and not expired.checkout
    assert expired.qr_text == "" and expired.fiat_amount == ""
    for words in (WORDS, JA):
        assert headline(expired, words) == words.text("headline_expired")
    assert CustomerFace.model_validate_json(expired.model_dump_json()) == expired
    assert state.takes_payment  # the one test of the POS, the dashboard and `p`

    # what the dashboard publishes for the customer display, by its own clock
    clock, monotonic = Offset(NOW), Offset(0.0)
    dashboard = _state(clock, monotonic)
    dashboard.add(["tok"])
    dashboard.fetched("tok", Fetched(order, {}, NOW, 0.01), Change(), looking=False)
    assert dashboard.set_payment_url("tok", f"{CHECKOUT}tok")
    dashboard.customer_token = "tok"
    assert dashboard.customer_face().checkout  # type: ignore[union-attr]
    clock.offset, monotonic.offset = 600, 30
    published = dashboard.customer_face()
    assert published is not None and published.phase == "EXPIRED" and not published.qr_text


def lagging_checkout(server: SimulatorServer, **terms: object) -> str:
    """An order with no coin chosen whose service says IN_PROGRESS even past its deadline."""
    token = server.sim.create_order(coin=None, currency="EUR", amount_fiat="42.50", **terms)  # type: ignore[arg-type]
    server.sim.set_fields(token, {"status": {"code": "IN_PROGRESS", "label": "IN_PROGRESS"}})
    return token


async def test_the_pos_withdraws_the_checkout_page_the_second_the_order_expires(
    sim_server: SimulatorServer,
) -> None:
    token = lagging_checkout(sim_server)
    url = f"{CHECKOUT}{token}"
    clock = Offset()
    app = app_for(sim_server, token, clock=clock, open_pos=True)
    assert app.state.set_payment_url(token, url)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: WORDS.text("headline_choose_coin_scan") in pos_banner(app))
        await wait_until(pilot, lambda: decode_qr_on_screen(app) == [url])
        sim_server.sim.advance_clock(3601)
        clock.offset = 3601
        await wait_until(pilot, lambda: WORDS.text("headline_expired") in pos_banner(app))
        await pilot.pause(0.3)
        shown = app.state.shown
        assert shown is not None and shown.payment.takes_payment  # the service's last word
        assert decode_qr_on_screen(app) == []
        assert WORDS.text("headline_choose_coin_scan") not in screen_text(app)


async def test_the_dashboard_withdraws_a_coinless_orders_code_at_its_expiry(
    sim_server: SimulatorServer,
) -> None:
    token = lagging_checkout(sim_server)
    clock = Offset()
    app = app_for(sim_server, token, clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        qr = app.dashboard.query_one("#qr", QRView)
        await wait_until(pilot, lambda: app.state.shown is not None)
        await pilot.pause(0.3)
        assert "time is up" not in qr.placeholder
        sim_server.sim.advance_clock(3601)
        clock.offset = 3601
        await wait_until(pilot, lambda: "time is up" in qr.placeholder)
        assert qr.encoded_text == ""
        await pilot.pause(0.2)  # the widget's state first; the code is read off the screen
        assert decode_qr_on_screen(app) == []


async def test_p_on_a_coinless_order_about_to_expire_asks_first(
    sim_server: SimulatorServer,
) -> None:
    token = lagging_checkout(sim_server, lifetime_s=90)
    app = app_for(sim_server, token, settings={"display_channel": "expiry-coinless"})
    assert app.state.set_payment_url(token, f"{CHECKOUT}{token}")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.state.entries[token].payment is not None)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "expires in" in screen_text(app)
        await pilot.press("n")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, PosScreen)

        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await pilot.pause(0.2)
        assert app.state.customer_token is None


async def test_n_in_the_about_to_expire_question_starts_a_new_charge(
    sim_server: SimulatorServer,
) -> None:
    from pydantic import SecretStr

    from orderdash.tui.screens.charge import ChargeScreen

    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="10.00", lifetime_s=90)
    options = {"access_token": SecretStr("demo"), "customer_id": "4711"}
    app = app_for(sim_server, token, settings=options)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.state.entries[token].payment is not None)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        text = screen_text(app)
        assert "`" not in text and "n: no, a new charge" in text, text
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, ChargeScreen))
        assert app.state.customer_token is None
