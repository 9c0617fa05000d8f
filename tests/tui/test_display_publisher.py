"""One publisher per customer display: the channel's lock is held by the dashboard whose order is
on the display, and only it writes the channel file. A second dashboard on the same channel asks
its operator first, from what the channel file shows; on a yes the holder lets go and says so,
on a no nothing changes, and the display never alternates between the two. The lock goes with
a holder that dies. `orderdash demo` publishes on a channel of its own, every face marked DEMO.

Two dashboards run side by side in this process (each opens the lock file on its own, as two
processes do); their heartbeats are driven by the test (`publish_display`, what the App's
tick calls) rather than waited for."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.core.customer.channel import Publisher, channel_path
from orderdash.core.customer.holding import TAKEOVER_WAIT, Takeover, ask_to_yield
from orderdash.core.customer.reading import Reader, Reading
from orderdash.core.watching.session import TAKEN_OVER
from orderdash.simulator import SimulatorServer
from orderdash.tui.app import OrderDashApp
from orderdash.tui.customer_display import DisplayApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.confirm import ConfirmScreen
from orderdash.tui.screens.pos import PosScreen
from support.faces import customer_face

SIZE = (120, 36)


def reading(path: Path) -> Reading:
    """What `orderdash display` reads from the channel now."""
    return Reader(path).poll()


def dashboard(server: SimulatorServer, token: str, till: str) -> OrderDashApp:
    settings = make_settings(
        server.base_url, poll_interval=0.2, refresh_interval=60.0, language="en", till=till
    )
    return make_app(settings, tokens=[token])


def recording(app: OrderDashApp) -> list[str]:
    """The notices `app` shows, as they are given."""
    told: list[str] = []
    notify = app.notify

    def record(message: str, **options: object) -> None:
        told.append(message)
        notify(message, **options)  # type: ignore[arg-type]

    app.notify = record  # type: ignore[method-assign]
    return told


async def heartbeats(apps: tuple[OrderDashApp, ...], path: Path, count: int = 3) -> set[str]:
    """`count` heartbeats of every dashboard (as their ticks do), and the holder ids the
    display read after each."""
    seen = set()
    for _ in range(count):
        for app in apps:
            app.session.publish_display()
        await asyncio.sleep(0.02)
        seen.add(f"{reading(path).holder}:{(reading(path).face or customer_face()).coin}")
    return seen


async def test_a_second_dashboard_asks_and_the_display_never_alternates(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    first = sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    second = sim.create_order(coin="ltc", currency="USD", amount_fiat="9.00")
    a = dashboard(sim_server, first, "till-a")
    b = dashboard(sim_server, second, "till-b")
    a_told = recording(a)
    async with a.run_test(size=SIZE) as pa, b.run_test(size=SIZE) as pb:
        assert a.publisher is not None and b.publisher is not None
        path = a.publisher.path
        assert b.publisher.path == path
        holder_a, holder_b = a.publisher.holder, b.publisher.holder
        await wait_until(pa, lambda: a.state.order is not None)
        await wait_until(pb, lambda: b.state.order is not None)
        await pa.press("x")
        await wait_until(pa, lambda: (reading(path).face or customer_face(coin="")).coin == "BTC")

        # the second dashboard's x: a question, read from the channel file; the display stays
        await pb.press("x")
        assert await heartbeats((a, b), path) == {f"{holder_a}:BTC"}
        await wait_until(pb, lambda: isinstance(b.screen, ConfirmScreen))
        question = screen_text(b)
        assert "Take over the customer display?" in question
        assert "till-a's order" in question and "(40.00 EUR), unpaid" in question
        assert "a customer may" in question and "Take it over?" in question

        # no: nothing changes
        await pb.press("n")
        await wait_until(pb, lambda: b.screen is b.dashboard)
        assert await heartbeats((a, b), path) == {f"{holder_a}:BTC"}
        assert b.state.customer_token is None and a.state.customer_token == first

        # yes: the first lets go at its next heartbeat and says so once; the second publishes
        await pb.press("x")
        await wait_until(pb, lambda: isinstance(b.screen, ConfirmScreen))
        await pb.press("y")
        await wait_until(pb, lambda: b.screen is b.dashboard)
        a.session.publish_display()
        await wait_until(pb, lambda: reading(path).holder == holder_b)
        assert await heartbeats((a, b), path) == {f"{holder_b}:LTC"}
        assert a.state.customer_token is None and b.state.customer_token == second
        assert a_told.count(TAKEN_OVER) == 1
        await wait_until(pa, lambda: "customer display:" not in screen_text(a))
        assert f"customer display: {second[:8]}" in screen_text(b)

        # the first's X (clear) is no longer its to do: the second's order stays on
        a.action_clear_display()
        assert await heartbeats((a, b), path) == {f"{holder_b}:LTC"}


@pytest.fixture
def held_elsewhere(runtime_dir: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process that holds the default channel, showing till-9's order 1013 (12.50 EUR)
    awaiting payment, until it is killed."""
    path = channel_path("default")
    assert path.is_relative_to(runtime_dir)
    script = f"""
import time
from pathlib import Path
from orderdash.core.customer.channel import Publisher
from orderdash.core.customer.face import CustomerFace
face = CustomerFace(phase="AWAITING", coin="ETH", currency="EUR", fiat_amount="12.50",
                    order_id="1013", address="0xabc", qr_text="0xabc", payable=True)
Publisher(Path({str(path)!r}), till="till-9").publish(face)
print("published", flush=True)
time.sleep(60)
"""
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline() == "published\n"
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


async def test_the_lock_goes_with_a_holder_killed_hard(
    sim_server: SimulatorServer, held_elsewhere: subprocess.Popen[str]
) -> None:
    """A dashboard in another process holds the display and is killed with SIGKILL (no handler
    runs): the lock goes with it, and the next `x` takes the display without a question."""
    path = channel_path("default")
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="40.00")
    app = dashboard(sim_server, token, "till-1")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "till-9's order 1013 (12.50 EUR), unpaid" in screen_text(app)
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is app.dashboard)
        assert (reading(path).face or customer_face()).coin == "ETH"

        held_elsewhere.send_signal(signal.SIGKILL)
        await wait_until(pilot, lambda: held_elsewhere.poll() == -signal.SIGKILL)
        await pilot.press("x")
        await wait_until(pilot, lambda: (reading(path).face or customer_face()).coin == "BTC")
        assert app.screen is app.dashboard  # nobody was asked
        assert app.publisher is not None and reading(path).holder == app.publisher.holder


# -- the lock itself ----------------------------------------------------------------------------


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_only_the_holder_writes_the_channel(tmp_path: Path) -> None:
    path = channel_path("default", tmp_path)
    clock = Clock()
    first, second = Publisher(path, clock=clock), Publisher(path, clock=clock)
    assert first.publish(customer_face()) is None and first.holds
    problem = second.publish(customer_face(coin="LTC"))
    assert problem is not None and "another till" in problem
    assert not second.holds and not second.claim()
    assert Reader(path, clock=clock).poll().face == customer_face()
    second.end()  # not the holder: the holder's file stays
    assert path.exists()
    first.end()  # cleared: the file goes and the channel is free
    assert not path.exists()
    assert second.claim() and second.publish(customer_face(coin="LTC")) is None
    assert not first.claim()


def test_the_holder_lets_go_only_for_a_fresh_request_naming_it(tmp_path: Path) -> None:
    path = channel_path("default", tmp_path)
    clock = Clock()
    holder = Publisher(path, clock=clock)
    holder.publish(customer_face())
    ask_to_yield(path, "0123456789abcdef", "fedcba9876543210", clock.now)  # another's
    assert not holder.yield_if_asked()
    ask_to_yield(path, holder.holder, "fedcba9876543210", clock.now - TAKEOVER_WAIT - 1)
    assert not holder.yield_if_asked()  # too old: the asker gave up
    ask_to_yield(path, holder.holder, "fedcba9876543210", clock.now)
    assert holder.yield_if_asked() and not holder.holds
    # the file is left to the one who asked (it writes next), and never removed by the old
    # holder, nor written by it
    assert path.exists()
    holder.end()
    assert path.exists()
    problem = holder.publish(customer_face(coin="LTC"))
    assert problem is None and holder.holds  # nobody took it: free, so taken again


def test_a_takeover_waits_for_the_holder_and_gives_up_in_time(tmp_path: Path) -> None:
    path = channel_path("default", tmp_path)
    clock, monotonic = Clock(), Clock(100.0)
    holder, asker = Publisher(path, clock=clock), Publisher(path, clock=clock)
    holder.publish(customer_face())
    takeover = Takeover(
        asker.lock, path, holder=holder.holder, by=asker.holder, clock=clock, monotonic=monotonic
    )
    assert takeover.poll() == "waiting" and not asker.holds
    assert holder.yield_if_asked()
    assert takeover.poll() == "taken" and asker.holds
    assert not path.with_name("display-default.takeover").exists()  # withdrawn
    # a holder that never looks: refused once the wait is over, the request withdrawn
    late = Takeover(
        holder.lock, path, holder=asker.holder, by=holder.holder, clock=clock, monotonic=monotonic
    )
    assert late.poll() == "waiting"
    monotonic.now += TAKEOVER_WAIT
    assert late.poll() == "refused" and asker.holds and not holder.holds
    assert not path.with_name("display-default.takeover").exists()


def test_a_lock_path_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    path = channel_path("default", tmp_path)
    target = tmp_path / "elsewhere"
    path.with_name("display-default.lock").symlink_to(target)
    problem = Publisher(path).publish(customer_face())
    assert problem is not None and "could not be updated" in problem
    assert not target.exists() and not path.exists()


# -- the demo ------------------------------------------------------------------------------------


def test_the_demo_publishes_on_its_own_channel_marked_demo(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, runtime_dir: Path
) -> None:
    """`orderdash demo` (built as the command builds it, its config file naming the shop's
    channel): its orders go on the `demo` channel, never `default`; every face says DEMO, on
    the customer display (in the display's language) and its own point of sale. With
    `--channel` it uses the one named."""
    from orderdash import cli
    from orderdash.tui import run

    config = tmp_path / "orderdash" / "config.toml"
    config.parent.mkdir()
    config.write_text('display_channel = "default"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    seen: dict[str, object] = {}

    async def drive(app: OrderDashApp) -> None:
        async with app.run_test(size=SIZE) as pilot:
            assert app.publisher is not None
            await wait_until(pilot, lambda: app.state.order is not None)
            await pilot.press("x")
            await wait_until(pilot, lambda: reading(app.publisher.path).face is not None)  # type: ignore[union-attr]
            seen["path"] = app.publisher.path
            seen["face"] = reading(app.publisher.path).face
            display = DisplayApp(app.publisher.path, language="de", poll_interval=0.05)
            async with display.run_test(size=(100, 36)) as shown:
                await wait_until(shown, lambda: "DEMO \u00b7 " in screen_text(display))
                seen["display"] = screen_text(display)
            await pilot.press("p")
            await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
            await wait_until(pilot, lambda: "DEMO \u00b7 " in screen_text(app))

    def dashboard(settings, tokens, *, demo: bool = False, **options: object) -> int:  # noqa: ANN001
        seen["channel"] = settings.display_channel
        if "face" not in seen:
            asyncio.run(drive(run.build_dashboard(settings, tokens, demo=demo)))
        return 0

    monkeypatch.setattr(run, "run_dashboard", dashboard)
    assert cli.main(["demo", "--customer-interval", "0", "--history-days", "0"]) == 0
    assert seen["channel"] == "demo"
    assert seen["path"] == channel_path("demo")
    face = seen["face"]
    assert face is not None and face.demo  # type: ignore[attr-defined]
    shown = str(seen["display"])
    assert "Eine simulierte Bestellung: senden Sie kein Geld" in shown  # under the address
    assert face.address and face.address in shown  # type: ignore[attr-defined]
    default = channel_path("default")
    assert not default.exists() and not default.with_name("display-default.lock").exists()

    given = ["demo", "--customer-interval", "0", "--history-days", "0", "--channel", "t3"]
    assert cli.main(given) == 0
    assert seen["channel"] == "t3"
