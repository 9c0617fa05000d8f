"""Start-up: what each command loads, and the dashboard's first request and first paint
(the collector during start-up is tested in test_startup_collector.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import make_settings, run_python, wait_until
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.watcher import OrderWatcher
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.screens.dashboard import DashboardScreen
from support.scripted_client import Recorder, ScriptedClient, with_transactions

TOKEN = DEMO_TOKENS[0]
SIZE = (140, 48)


def loaded_by(*argv: str) -> set[str]:
    """The top-level packages `orderdash ARGV` has loaded when it exits (in a fresh process,
    through `cli.main` as the installed script runs it)."""
    code = (
        "import sys\n"
        "from orderdash.cli import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    return set(result.stderr.split())


@pytest.mark.parametrize(
    "argv", [("--help",), ("--version",), ("get", "--help")], ids=["help", "version", "get-help"]
)
def test_help_and_version_load_neither_httpx_pydantic_nor_textual(argv: tuple[str, ...]) -> None:
    loaded = loaded_by(*argv)
    assert "argparse" in loaded  # the probe saw the command run
    assert loaded.isdisjoint({"httpx", "httpcore", "pydantic", "pydantic_core", "textual", "rich"})


async def test_a_prefetched_order_is_the_first_scheduled_read() -> None:
    """`prefetch` sends getOrder before the order is scheduled; the schedule's first read of
    it takes that answer instead of asking again."""
    client = ScriptedClient([with_transactions(1)], rates=False)
    recorder = Recorder()
    watcher = OrderWatcher(
        client,
        recorder,
        poll_interval=60.0,
        refresh_interval=60.0,
        budget_per_minute=100_000,
        budget_per_hour=10_000_000,
    )
    watcher.prefetch(TOKEN)
    await asyncio.sleep(0)
    assert client.calls[Kind.ORDER] == 1  # out before the order is even on the list
    watcher.add(TOKEN)
    watcher.focus({TOKEN})
    runner = asyncio.create_task(watcher.run())
    try:
        for _ in range(100):
            if recorder.fetched:
                break
            await asyncio.sleep(0.01)
        assert recorder.fetched == [(Kind.ORDER, ())]
        assert client.calls[Kind.ORDER] == 1
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)


async def test_a_prefetch_for_an_order_never_watched_ends_with_the_watcher() -> None:
    class SlowClient(ScriptedClient):
        async def get_order(self, token: str) -> Any:
            await asyncio.sleep(30)

    watcher = OrderWatcher(SlowClient([]), Recorder(), poll_interval=60.0, refresh_interval=60.0)
    watcher.prefetch("other-token")
    await asyncio.sleep(0)
    early = watcher._early["other-token"]
    runner = asyncio.create_task(watcher.run())
    await asyncio.sleep(0.01)
    runner.cancel()
    await asyncio.gather(runner, return_exceptions=True)
    await asyncio.sleep(0)
    assert early.cancelled()


def dashboard_composed(app: Any) -> bool:
    """The dashboard is on the screen stack with its widgets."""
    return any(isinstance(s, DashboardScreen) and s.children for s in app.screen_stack)


async def test_the_first_get_order_goes_out_before_the_dashboard_composes(
    sim_server: SimulatorServer,
) -> None:
    app = make_app(make_settings(sim_server.base_url, poll_interval=60.0), tokens=[TOKEN])
    composed_at_first_request: list[bool] = []
    get_order = app.client.get_order_first

    async def recording_get_order(token: str) -> Any:
        if not composed_at_first_request:
            composed_at_first_request.append(dashboard_composed(app))
        return await get_order(token)

    app.client.get_order_first = recording_get_order  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
    assert composed_at_first_request == [False]
    # that request was the dashboard's first read of the order: it was not asked twice
    reads = [r for r in sim_server.sim.requests if r["endpoint"] == "order" and r["token"] == TOKEN]
    assert len(reads) == 1


def started_as_cli(base_url: str) -> str:
    """The start of a fresh interpreter's check: set up as `cli.main` sets up, with settings
    for the simulator at `base_url` (`settings`)."""
    return (
        "import asyncio, json, sys\n"
        "from orderdash.core.runtime import startup\n"
        "startup.no_pydantic_plugins()  # as cli.main starts\n"
        "from pydantic import SecretStr\n"
        "from orderdash.core.settings.model import Settings\n"
        f"settings = Settings(base_url={base_url!r}, persist_watchlist=False,\n"
        "    bell=False, bearer_token=SecretStr('t'), poll_interval=60.0)\n"
    )


def test_tui_sends_its_first_read_before_it_imports_textual(sim_server: SimulatorServer) -> None:
    """`orderdash tui TOKEN` (`tui.run.build_dashboard`) asks for the order it opens with
    before Textual and the screens are imported, so that the service's answer is on its way
    while they load; the dashboard then takes that answer: the order is read once."""
    code = (
        started_as_cli(sim_server.base_url)
        + "from orderdash.core.service.client import OrderClient\n"
        "from orderdash.tui.run import build_dashboard\n"
        "seen = []\n"
        "begin = OrderClient.begin_first_read\n"
        "def recording(self, token):\n"
        "    seen.append([token, 'textual' in sys.modules])\n"
        "    begin(self, token)\n"
        "OrderClient.begin_first_read = recording\n"
        f"app = build_dashboard(settings, [{TOKEN!r}])\n"
        "async def main():\n"
        "    async with app.run_test(size=(120, 40)) as pilot:\n"
        "        while app.state.order is None:\n"
        "            await pilot.pause(0.02)\n"
        "asyncio.run(main())\n"
        "print(json.dumps(seen))\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [[TOKEN, False]]
    reads = [r for r in sim_server.sim.requests if r["endpoint"] == "order" and r["token"] == TOKEN]
    assert len(reads) == 1


#: What the dashboard's first paint does without, loaded when first needed: the async
#: transport's backend, the customer's face and the channel file's model, the help and alerts
#: screens, the desktop's clipboard and browser, account mode (without the access token: its
#: feed, its models), the notices held from the customer; and never: pydantic's plugin
#: finder's `importlib.metadata` (no plugins).
LOADED_LATER = (
    "anyio._backends._asyncio",
    "importlib.metadata",
    "orderdash.core.customer.face",
    "orderdash.core.customer.published",
    "orderdash.tui.screens.help",
    "orderdash.tui.screens.alerts",
    "orderdash.tui.desktop",
    "webbrowser",
    "tomllib",
    "orderdash.tui.account",
    "orderdash.core.polling.account",
    "orderdash.core.model.account",
    "_strptime",  # (the order's times are read without it)
    "orderdash.tui.notices",  # (with the first notice)
    "orderdash.tui.widgets.account_banner",  # (with the account's first problem)
    "orderdash.core.customer.reading",  # (the display's end of the channel)
    "orderdash.core.qr.image",  # (the server's QR image: only with qr_content = "server")
    "orderdash.core.qr.grid",
    "PIL",  # (and Pillow, which reads it, with the first image decoded)
    "orderdash.core.watching.alert",  # (with the first alert)
    "orderdash.core.polling.budget_use",  # (the budget view, `b`)
)

#: Classes the first paint does without, in modules it loads no more (each ~0.7 ms to make):
#: account mode's messages and its reads' results, an alert, the budget view's figures, the
#: display's reading.
DEFINED_LATER = (
    "AccountBaseline",
    "AccountOrders",
    "HistoryRead",
    "AccountNewOrder",
    "AccountFailed",
    "Alert",
    "BudgetUse",
    "Reading",
)


def test_the_first_paint_waits_for_no_rate_call_and_loads_only_what_it_shows(
    sim_server: SimulatorServer,
) -> None:
    """The first read goes through the blocking client in a thread (the async transport's
    first request imports anyio's asyncio backend), the rate call, which the first paint does
    not show, goes after it, and nothing in LOADED_LATER is imported by then (nor any class of
    DEFINED_LATER defined)."""
    code = (
        started_as_cli(sim_server.base_url) + "from orderdash.tui.factory import make_app\n"
        f"app = make_app(settings, tokens=[{TOKEN!r}])\n"
        "seen = {}\n"
        "paint = app.first_paint.paint\n"
        "def recording():\n"
        "    if not seen:\n"
        f"        seen['loaded'] = [m for m in {LOADED_LATER!r} if m in sys.modules]\n"
        "        seen['order'] = app.state.order is not None\n"
        "        ours = [m for n, m in list(sys.modules.items()) if n.startswith('orderdash.')]\n"
        f"        seen['defined'] = [n for n in {DEFINED_LATER!r}\n"
        "            if any(hasattr(module, n) for module in ours)]\n"
        "    paint()\n"
        "app.first_paint.paint = recording\n"
        "rate_before_paint = []\n"
        "refresh_rate = app.client.refresh_rate\n"
        "async def recording_rate(token):\n"
        "    rate_before_paint.append(not seen)\n"
        "    return await refresh_rate(token)\n"
        "app.client.refresh_rate = recording_rate\n"
        "async def main():\n"
        "    async with app.run_test(size=(120, 40)) as pilot:\n"
        "        while not (seen and rate_before_paint):\n"
        "            await pilot.pause(0.02)\n"
        "asyncio.run(main())\n"
        "print(json.dumps({**seen, 'rate_before_paint': rate_before_paint[0]}))\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["order"] is True
    assert seen["loaded"] == []
    assert seen["defined"] == []
    assert seen["rate_before_paint"] is False  # the rate call came after the first paint


def test_get_builds_only_the_models_it_reads_and_no_pydantic_plugins(
    sim_server: SimulatorServer,
) -> None:
    code = (
        "import contextlib, io, os, sys\n"
        "from orderdash.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main(['get', {TOKEN!r}, '--json', '--base-url', {sim_server.base_url!r}])\n"
        "from orderdash.core.model import wire as models\n"
        "built = sorted(name for name, value in vars(models).items()\n"
        "    if isinstance(value, type) and issubclass(value, models.BaseModel)\n"
        "    and value.__module__ == models.__name__ and value.__pydantic_complete__)\n"
        "def subclasses(cls):\n"
        "    for sub in cls.__subclasses__():\n"
        "        yield sub\n"
        "        yield from subclasses(sub)\n"
        "defined = {c.__name__ for c in subclasses(models.BaseModel)\n"
        "    if c.__module__.startswith('orderdash.')}\n"
        "account = sorted(defined & {'CoinChoice', 'CreatedOrder', 'LoginEnvelope',\n"
        "    'HistoryItem', 'HistoryMeta', 'HistoryPage', 'HistoryEnvelope'}) or ['none']\n"
        "print(os.environ.get('PYDANTIC_DISABLE_PLUGINS'), 'importlib.metadata' in sys.modules,\n"
        "    ','.join(account), *built, file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    result = run_python(code, drop=("ORDERDASH_", "PYDANTIC_"))
    assert result.returncode == 0, result.stderr
    plugins, plugin_finder, account, *built = result.stderr.split()
    assert plugins == "__all__"
    assert plugin_finder == "False"  # pydantic's finder (importlib.metadata) not loaded
    assert "OrderEnvelope" in built  # (its nested models are built inside its validator)
    assert "RatesEnvelope" not in built
    # the log-in's, the history's, Generate Order's, the coins' models are not even defined
    assert account == "none"


def app_with_a_held_first_answer(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, asyncio.Event]:
    """The dashboard on TOKEN whose first getOrder answers only once the event is set (the
    hold on painting made long enough to wait for it)."""
    from orderdash.tui import first_paint

    class HeldClient(ScriptedClient):
        async def aclose(self) -> None:
            pass

    monkeypatch.setattr(first_paint, "FIRST_PAINT_WAIT", 30.0)
    client = HeldClient([with_transactions(1)], rates=False)
    answer = asyncio.Event()
    scripted_get_order = client.get_order

    async def held_get_order(token: str) -> Any:
        await answer.wait()
        return await scripted_get_order(token)

    client.get_order = held_get_order  # type: ignore[method-assign]
    settings = make_settings("http://127.0.0.1:9", poll_interval=60.0, bearer=None)
    return make_app(settings, client=client, tokens=[TOKEN]), answer  # type: ignore[arg-type]


async def test_the_first_paint_shows_the_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """No empty dashboard is painted first: the screen waits for the order it opens (up to
    FIRST_PAINT_WAIT, made long here). The first answer is held back while the app runs. Once
    the order is on the dashboard, the screen is laid out, rendered and painted right away,
    not at its next update tick."""
    app, answer = app_with_a_held_first_answer(monkeypatch)
    painted_with_order: list[bool] = []
    painted_as_hold_ended: list[bool] = []
    display, paint = app._display, app.first_paint.paint

    def recording_display(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        # while a batch holds, Textual renders but does not paint (App._display)
        painted = renderable is not None and not app._batch_count
        if painted and isinstance(screen, DashboardScreen):
            painted_with_order.append(app.state.order is not None)

    def recording_paint() -> None:
        paint()
        painted_as_hold_ended.append(bool(painted_with_order))

    app._display = recording_display  # type: ignore[method-assign]
    app.first_paint.paint = recording_paint  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(10):  # the dashboard is up, and would have painted by now
            await pilot.pause(0.05)
        answer.set()
        for _ in range(300):
            if painted_with_order:
                break
            await pilot.pause(0.02)
    assert painted_with_order[:1] == [True]
    assert painted_as_hold_ended[:1] == [True]


async def test_nothing_is_rendered_while_painting_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the start-up's hold on painting the dashboard is laid out but not rendered (a
    render would be thrown away: Textual paints nothing while a batch is open); once the order
    is on it, the screen is rendered in full, once."""
    from textual._compositor import Compositor, LayoutUpdate

    app, answer = app_with_a_held_first_answer(monkeypatch)
    rendered_while_held: list[bool] = []
    painted: list[tuple[str, bool]] = []
    render_update = Compositor.render_update
    display = app._display

    def recording_render_update(self: Compositor, *args: Any, **kwargs: Any) -> Any:
        rendered_while_held.append(bool(app._batch_count))
        return render_update(self, *args, **kwargs)

    def recording_display(screen: Any, renderable: Any) -> None:
        if renderable is not None and not app._batch_count and isinstance(screen, DashboardScreen):
            painted.append((type(renderable).__name__, app.state.order is not None))
        display(screen, renderable)

    monkeypatch.setattr(Compositor, "render_update", recording_render_update)
    app._display = recording_display  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(10):  # the dashboard is up, laid out, and would have rendered by now
            await pilot.pause(0.05)
        assert app.screen.size.width == SIZE[0]
        assert not any(rendered_while_held)
        answer.set()
        for _ in range(300):
            if painted:
                break
            await pilot.pause(0.02)
    assert rendered_while_held and not any(rendered_while_held)
    # the first paint is the whole screen (what was never painted is not left out)
    assert painted[0] == (LayoutUpdate.__name__, True)


def test_get_sends_its_one_request_without_an_event_loop(sim_server: SimulatorServer) -> None:
    """`orderdash get` asks through httpx's blocking client (OrderClient.get_order_now): neither
    asyncio nor anyio's asyncio backend (which the async client loads with its first request)
    is loaded."""
    code = (
        "import contextlib, io, sys\n"
        "from orderdash.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    rc = main(['get', {TOKEN!r}, '--json', '--base-url', {sim_server.base_url!r}])\n"
        f"assert {TOKEN!r} in out.getvalue()\n"
        "backends = sorted(m for m in sys.modules\n"
        "    if m.startswith('anyio._backends') or m.split('.')[0] == 'asyncio')\n"
        "print(*backends, file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stderr.split() == []
    reads = [r for r in sim_server.sim.requests if r["endpoint"] == "order"]
    assert len(reads) == 1


async def test_the_dashboard_is_styled_once_as_it_mounts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each widget of the dashboard gets its style as it mounts; the screen's first resume,
    right after, does not style them all again (HeldRenderScreen)."""
    from textual.css.stylesheet import Stylesheet

    app, answer = app_with_a_held_first_answer(monkeypatch)
    styled: dict[str, int] = {}
    apply = Stylesheet.apply

    def recording_apply(self: Stylesheet, node: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(node, "id", None):
            styled[node.id] = styled.get(node.id, 0) + 1
        return apply(self, node, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "apply", recording_apply)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(10):  # mounted and resumed, the first answer still held back
            await pilot.pause(0.05)
        assert isinstance(app.screen, DashboardScreen)
        # widgets whose classes and pseudo-classes nothing changes meanwhile
        assert {name: styled.get(name) for name in ("detail", "main", "qr")} == {
            "detail": 1,
            "main": 1,
            "qr": 1,
        }
        answer.set()


async def test_the_saved_list_is_read_while_the_dashboard_mounts(
    sim_server: SimulatorServer, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The saved watch list is read in a worker that starts before the dashboard's widgets
    mount (its answer opens the first order once the app's mount handler is done)."""
    from orderdash.core.watching.watchlist_file import WatchListFile

    app = make_app(
        make_settings(
            sim_server.base_url,
            poll_interval=60.0,
            persist_watchlist=True,
            watchlist_file=str(tmp_path / "watchlist.json"),
        ),
        tokens=[TOKEN],
    )
    mounted_at_read: list[bool] = []
    load = WatchListFile.load

    def recording_load(self: WatchListFile) -> Any:
        mounted_at_read.append(dashboard_composed(app))
        return load(self)

    monkeypatch.setattr(WatchListFile, "load", recording_load)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
    assert mounted_at_read == [False]


def test_get_loads_no_config_parser_or_log_file_handler_it_does_not_need(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    """Without a config file `orderdash get` loads no TOML parser, and without a log file no
    `logging.handlers` (~5 ms of its start together); with both, both are read and written."""

    def get_loads(*options: str) -> list[str]:
        code = (
            "import contextlib, io, os, sys\n"
            "os.environ.pop('ORDERDASH_CONFIG', None)\n"
            f"os.environ['XDG_CONFIG_HOME'] = {str(tmp_path)!r}\n"
            "from orderdash.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            f"    rc = main(['get', {TOKEN!r}, '--json', *{list(options)!r}])\n"
            f"assert {TOKEN!r} in out.getvalue()\n"
            "lazy = ('tomllib', 'logging.handlers')\n"
            "print(*(m for m in lazy if m in sys.modules), file=sys.stderr)\n"
            "sys.exit(rc)\n"
        )
        result = run_python(code)
        assert result.returncode == 0, result.stderr
        return result.stderr.split()

    assert get_loads("--base-url", sim_server.base_url) == []
    (tmp_path / "orderdash").mkdir()
    (tmp_path / "orderdash" / "config.toml").write_text(f'base_url = "{sim_server.base_url}"\n')
    log = tmp_path / "get.log"
    assert get_loads("--log", str(log)) == ["tomllib", "logging.handlers"]
    assert f"token='{TOKEN}' status=200" in log.read_text()


async def test_the_dashboard_is_the_first_screen(sim_server: SimulatorServer) -> None:
    """No empty default screen under the dashboard (it was mounted, styled and resumed for
    nothing); the app's mount handler goes on once the dashboard's widgets are mounted."""
    app = make_app(make_settings(sim_server.base_url, poll_interval=60.0), tokens=[TOKEN])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        assert [type(screen) for screen in app.screen_stack] == [DashboardScreen]
