"""The customer display: the local channel, the dashboard publishing on it (`x`, `p`, clear,
exit), and `orderdash display` following it, against the simulator."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.core.customer.channel import (
    MAX_BYTES,
    STALE_AFTER,
    ChannelError,
    Publisher,
    channel_path,
)
from orderdash.core.customer.face import CustomerFace
from orderdash.core.customer.reading import Reader, parse
from orderdash.core.settings.sources import load_settings
from orderdash.simulator import SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.customer_display import DisplayApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.customer import CustomerPanel
from orderdash.tui.widgets.qr import QRView
from support.faces import customer_face
from support.qr_screen import decode_qr_in_region

SIZE = (120, 36)


def face(**fields: object) -> CustomerFace:
    return customer_face(**fields)


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


# -- the channel ---------------------------------------------------------------------------------


def test_publisher_writes_a_private_file_atomically_and_removes_it(tmp_path: Path) -> None:
    path = channel_path("till-2", tmp_path / "run" / "orderdash")
    clock = Clock()
    publisher = Publisher(path, language="de", clock=clock)
    assert not path.parent.exists()  # nothing made before something is shown
    assert publisher.publish(face()) is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o700
    # no temporary left; the lock beside it, private too
    lock = path.with_name("display-till-2.lock")
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name, lock.name]
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600
    reading = Reader(path, clock=clock).poll()
    assert reading.face == face() and reading.language == "de"
    publisher.end()
    assert not path.exists()
    assert Reader(path, clock=clock).poll().face is None


def test_channel_names_cannot_leave_the_directory(tmp_path: Path) -> None:
    for bad in ("../x", "a/b", "", "x" * 41, "caf\u00e9", "a b"):
        with pytest.raises(ChannelError):
            channel_path(bad, tmp_path)


def test_a_face_read_back_cannot_carry_a_code_it_says_cannot_be_checked() -> None:
    """The channel is untrusted input: words that withdraw the code come without one, and a
    checkout page is an http(s) link."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        face(trouble="unreachable")  # payable, with a code
    with pytest.raises(ValidationError):
        face(payable=False, trouble="not_found")  # still a code
    with pytest.raises(ValidationError):
        face(phase="COIN_NOT_CHOSEN", checkout=True, qr_text="javascript:alert(1)")
    assert face(phase="COIN_NOT_CHOSEN", checkout=True, qr_text="https://pay.example/o/1")
    assert face(payable=False, qr_text="", trouble="not_found").trouble == "not_found"


def test_a_dashboard_gone_quiet_is_the_idle_screen(tmp_path: Path) -> None:
    path = channel_path("default", tmp_path)
    clock = Clock()
    Publisher(path, clock=clock).publish(face())
    reader = Reader(path, clock=clock)
    clock.now += STALE_AFTER - 0.5
    assert reader.poll().face is not None
    clock.now += 1.0
    reading = reader.poll()
    assert reading.face is None and reading.problem == "dashboard gone"


def test_the_publisher_writes_again_only_for_a_change_or_a_heartbeat(tmp_path: Path) -> None:
    path = channel_path("default", tmp_path)
    clock = Clock()
    publisher = Publisher(path, clock=clock)
    publisher.publish(face())
    first = path.stat().st_mtime_ns, path.stat().st_ino
    clock.now += 0.2
    publisher.publish(face())
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == first
    publisher.publish(face(phase="CONFIRMED", payable=False, qr_text=""))
    assert Reader(path, clock=clock).poll().face.phase == "CONFIRMED"


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"[]",
        json.dumps({"format": 1, "heartbeat": 1, "face": None, "extra": 1}).encode(),
        json.dumps({"format": 2, "heartbeat": 1}).encode(),
        json.dumps({"format": 1, "heartbeat": 1, "language": "xx"}).encode(),
        # a control character, markup is fine (literal), an escape sequence is not
        json.dumps(
            {"format": 1, "heartbeat": 1, "face": {**face().model_dump(), "company": "\x1b[2J"}}
        ).encode(),
        json.dumps(
            {"format": 1, "heartbeat": 1, "face": {**face().model_dump(), "coin_amount": "1e5"}}
        ).encode(),
        json.dumps(
            {"format": 1, "heartbeat": 1, "face": {**face().model_dump(), "qr_modules": ["01"]}}
        ).encode(),
        b" " * (MAX_BYTES + 1),
        b"\xff\xfe",
    ],
)
def test_an_untrusted_channel_file_is_refused_not_shown(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "display-default.json"
    path.write_bytes(content)
    reading = Reader(path, clock=Clock(1)).poll()
    assert reading.face is None
    assert reading.problem.startswith("unreadable channel file")


def test_display_settings_never_read_the_token(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("secret-token")
    token_file.chmod(0o600)
    env = {"ORDERDASH_CONFIG": str(tmp_path / "none.toml"), "ORDERDASH_BEARER_TOKEN_FILE": "x"}
    config = tmp_path / "none.toml"
    config.write_text(f'bearer_token_file = "{token_file}"\nbearer_token = "inline"\n')
    settings, _ = load_settings({}, env, with_token=False)
    assert settings.bearer_token is None
    # nor the access token's file (a missing one is no error either: it is not opened)
    env["ORDERDASH_ACCESS_TOKEN_FILE"] = str(tmp_path / "missing")
    settings, _ = load_settings({}, env, with_token=False)
    assert settings.access_token is None
    # the same configuration for the dashboard: the token is read
    with_token, _ = load_settings({}, {"ORDERDASH_CONFIG": str(config)})
    assert with_token.bearer_token is not None


# -- the dashboard publishes ---------------------------------------------------------------------


def dashboard(server: SimulatorServer, tokens: list[str], **settings: object) -> OrderDashApp:
    values = {"poll_interval": 0.2, "refresh_interval": 60.0, "language": "fr", **settings}
    return make_app(make_settings(server.base_url, **values), tokens=tokens)


def published(app: OrderDashApp) -> CustomerFace | None:
    assert app.publisher is not None
    return Reader(app.publisher.path, clock=app.publisher.clock).poll().face


async def test_x_publishes_the_order_on_screen_and_follows_it(
    sim_server: SimulatorServer, runtime_dir: Path
) -> None:
    sim = sim_server.sim
    first = sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    second = sim.create_order(coin="ltc", currency="USD", amount_fiat="9.00")
    app = dashboard(sim_server, [first, second])
    async with app.run_test(size=SIZE) as pilot:
        assert app.publisher is not None
        path = app.publisher.path
        assert path.is_relative_to(runtime_dir)
        await wait_until(pilot, lambda: app.state.order is not None)
        assert not path.exists()  # nothing shown yet: nothing written
        await pilot.press("x")
        await wait_until(pilot, lambda: published(app) is not None)
        shown = published(app)
        assert shown is not None and shown.phase == "AWAITING" and shown.coin == "BTC"
        address = sim.order_wire(first, with_qr=False)["address"]
        assert address.upper() in shown.qr_text
        raw = path.read_text()
        assert first not in raw  # the token is not the customer's business
        assert json.loads(raw)["language"] == "fr"
        await wait_until(pilot, lambda: f"customer display: {first[:8]}" in screen_text(app))

        # the operator opens the other order: the display keeps the customer's
        app.dashboard.load(second)
        await wait_until(pilot, lambda: app.state.order is not None)
        sim.add_transaction(first)  # pays what remains
        await wait_until(pilot, lambda: (published(app) or face()).phase == "CONFIRMING")
        assert published(app).coin == "BTC"  # type: ignore[union-attr]

        # x on the other order switches the display to it
        await pilot.press("x")
        await wait_until(pilot, lambda: (published(app) or face()).coin == "LTC")
        await wait_until(pilot, lambda: f"customer display: {second[:8]}" in screen_text(app))

        # cleared: the file goes, the display is idle
        app.action_clear_display()
        await pilot.pause()
        assert not path.exists()
        assert "customer display:" not in screen_text(app)
        await pilot.press("x")
        await wait_until(pilot, lambda: path.exists())
    # the dashboard exits: publishing stops
    assert not path.exists()


async def test_p_opens_the_pos_and_publishes_it(sim_server: SimulatorServer) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    app = dashboard(sim_server, [token])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        await wait_until(pilot, lambda: published(app) is not None)
        # what the customer display shows is what the POS screen shows
        pos = app.screen
        assert isinstance(pos, PosScreen)
        await wait_until(pilot, lambda: pos.face is not None)
        # (each read re-bases the deadline and the countdown on its arrival: not compared)
        moving = {"rate_renews_at": None, "deadline": None}
        assert published(app).model_copy(update=moving) == pos.face.model_copy(update=moving)  # type: ignore[union-attr]
        # in French, as set
        assert "Scannez pour payer" in screen_text(app)


async def test_palette_commands_show_and_clear(sim_server: SimulatorServer) -> None:
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    app = dashboard(sim_server, [token])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        titles = {c.title: c for c in app.get_system_commands(app.screen)}
        titles["Show on customer display"].callback()
        await wait_until(pilot, lambda: published(app) is not None)
        titles["Clear customer display"].callback()
        await pilot.pause()
        assert app.publisher is not None and not app.publisher.path.exists()


# -- orderdash display ---------------------------------------------------------------------------


def display_text(app: DisplayApp) -> str:
    return screen_text(app)  # type: ignore[arg-type]


async def test_a_poll_while_the_display_shuts_down_does_nothing(tmp_path: Path) -> None:
    """The display's poll interval can fire while it is closing, its screen being removed: it
    must not look for widgets that are gone (NoMatches, seen in full runs on a loaded machine)."""
    path = channel_path("default", tmp_path)
    Publisher(path, language="en").publish(face())
    app = DisplayApp(path, poll_interval=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "Scan to pay" in display_text(app))
    app.poll()  # as a last tick after the screen went; nothing raised


async def test_display_is_idle_then_follows_the_channel(tmp_path: Path) -> None:
    path = channel_path("default", tmp_path)
    clock = Clock()
    publisher = Publisher(path, language="en", clock=clock)
    app = DisplayApp(path, title="Caf\u00e9 [b]Nord[/b]", clock=clock, poll_interval=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = display_text(app)
        assert "Welcome" in text and "Caf\u00e9 [b]Nord[/b]" in text  # literal, never markup
        assert not app.query_one(CustomerPanel).display

        publisher.publish(face())
        await wait_until(pilot, lambda: "Scan to pay" in display_text(app))
        qr = app.query_one("#pos-qr", QRView)
        assert decode_qr_in_region(app, qr.region) == ["BITCOIN:BC1QTEST?amount=0.00012871"]
        assert "0.00012871 BTC" in display_text(app)
        assert "12.00 EUR" in display_text(app)

        # a payment: the banner changes, the code goes
        panel = app.query_one(CustomerPanel)
        flashes = []
        real_flash = panel.flash
        panel.flash = lambda: (flashes.append(1), real_flash())[-1]  # type: ignore[method-assign]
        clock.now += 1
        publisher.publish(
            face(
                phase="CONFIRMING",
                payable=False,
                qr_text="",
                amount_label="label_received",
                payments=1,
            )
        )
        await wait_until(pilot, lambda: "Payment received, confirming" in display_text(app))
        assert not app.query_one("#pos-qr", QRView).display
        # the same order got a payment: the banner flashes (once; the class itself blinks on
        # timers, so whether it is set at this moment depends on how long the wait took)
        assert flashes == [1]

        # the dashboard stops beating: idle, no stale code
        publisher.publish(face())
        await wait_until(pilot, lambda: "Scan to pay" in display_text(app))
        clock.now += STALE_AFTER + 1
        await wait_until(pilot, lambda: "Welcome" in display_text(app))
        assert not app.query_one(CustomerPanel).display

        # keys change nothing; the file written by someone else is refused
        path.write_text("{}")
        for key in ("escape", "enter", "x", "p", "q", "ctrl+p", "tab"):
            await pilot.press(key)
        assert app.is_running
        assert "Welcome" in display_text(app)
        await pilot.press("ctrl+c")
    assert not app.is_running


async def test_display_keys_quit_only_with_ctrl_c(tmp_path: Path) -> None:
    app = DisplayApp(channel_path("default", tmp_path), poll_interval=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("q", "escape", "ctrl+p")
        await pilot.pause()
        assert app.is_running and len(app.screen_stack) == 1
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


def test_a_fifo_at_the_channel_path_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "display-default.json"
    os.mkfifo(path)
    reading = Reader(path, clock=Clock(1)).poll()  # would block forever if opened
    assert reading.face is None and reading.problem


def test_file_mode_survives_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        path = channel_path("default", tmp_path / "fresh")
        Publisher(path, clock=Clock()).publish(face())
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert parse(path.read_bytes()).face == face()


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_dashboard_killed_by_a_signal_removes_its_channel_file(
    tmp_path: Path, signame: str
) -> None:
    path = channel_path("default", tmp_path)
    script = f"""
import os, signal, time
from pathlib import Path
from orderdash.core.customer.channel import Publisher, end_on_signals
from orderdash.core.customer.face import CustomerFace
publisher = Publisher(Path({str(path)!r}))
publisher.publish(CustomerFace(phase="CONFIRMED"))
end_on_signals(publisher)
print("published", flush=True)
time.sleep(30)
"""
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "published\n"
    assert path.exists()
    process.send_signal(getattr(signal, signame))
    assert process.wait(timeout=10) == -getattr(signal, signame)  # still dies of it
    process.stdout.close()
    assert not path.exists()


async def test_the_display_is_told_when_its_order_cannot_be_checked(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    """An order the service stops knowing: the published face has no code, and the customer
    display shows the words, not a QR."""
    from orderdash.simulator.state import Fault

    sim = sim_server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    app = dashboard(sim_server, [token], language="en")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("x")
        await wait_until(pilot, lambda: (published(app) or face(payable=False)).payable)
        sim.add_fault(Fault(endpoint="any", status=404, times=None))
        await wait_until(
            pilot, lambda: (seen := published(app)) is not None and seen.trouble == "not_found"
        )
        shown = published(app)
        assert shown is not None and not shown.payable and not shown.qr_text
        assert app.publisher is not None
        display = DisplayApp(app.publisher.path, poll_interval=0.05)
        async with display.run_test(size=(80, 24)) as display_pilot:
            await wait_until(
                display_pilot, lambda: "This order was not found" in display_text(display)
            )
            await display_pilot.pause(0.1)
            assert not display.query_one("#pos-qr", QRView).display
