"""Bench-only entry point, run in a fresh interpreter by the start-up and idle cases.

    python bench/child_app.py SPEC_JSON OUT_JSON

SPEC_JSON: {"mode": "orderdash" | "display" | "bare" | "floor" | "used" | "idle", "base_url": ...,
"token": ..., "token_file": ..., "width": ..., "height": ..., "idle_seconds": ..., "settle": ...,
"patches": [NAME, ...], "without": [NAME, ...]}

"patches" (bench/ab_compat.py) names modules of `orderdash.tui.compat` imported before the app
is built; those also in "without" are left out (their `install` a no-op; `held_render`'s screen
runs Textual's own methods), to measure what each buys. It may also name the start-up's other
mechanisms (`MECHANISMS`: the collector's pause, the first read's thread, the first-paint
hold), taken away in the child when also in "without".

"orderdash" builds the dashboard the way `orderdash tui TOKEN --bearer-token-file F` does (the
CLI's own functions: its parser, its settings and logging set-up, `tui.run.build_dashboard`)
and exits at the first paint that shows the order;
"display" builds the customer display as `orderdash display --title T` does and exits at its
first paint (the welcome screen with the shop's name: no dashboard publishes to it);
"bare" is a Textual app with a Header, a Static and a Footer that exits at its first paint;
"floor" is the same app after importing httpx and pydantic's BaseModel (the dependencies);
"used" is the floor with the dependencies used once, at their cheapest: one getOrder fetched with
an httpx client that loads no certificates (the URL is plain http), validated by a pydantic model
of the order's five fields and its transactions' three, its company name shown in the Static (as
information beside the floor);
"idle" opens the order and then measures CPU and repaints while nothing happens. Both apps
render through the same counting driver. The result goes to OUT_JSON.
"""

from __future__ import annotations

import time

MAIN_AT = time.monotonic()  # the interpreter is up and running this file

import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
from typing import Any  # noqa: E402

STAMPS: dict[str, float] = {}


def build_bare(*, with_dependencies: bool = False) -> tuple[Any, Any, Any]:
    if with_dependencies:
        # what any client of the service in this stack loads before its first request: the
        # HTTP client and the model library (pydantic's BaseModel machinery, not just its
        # lazy top-level package); httpx's command-line tool kept out as orderdash keeps it out
        # (`core/service/transport.py`): a floor that loads it (~47 ms) flatters orderdash
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
        import httpx  # noqa: F401
        from pydantic import BaseModel  # noqa: F401
    return bare_app("A bare Textual app: a header, this line and a footer.")


def bare_app(text: str, *, markup: bool = True) -> tuple[Any, Any, Any]:
    """A Textual app with a Header, `text` in a Static and a Footer (the floors' app)."""
    from textual.app import App, ComposeResult
    from textual.widgets import Footer, Header, Static

    class BareApp(App[None]):
        def compose(self) -> ComposeResult:
            yield Header()
            yield Static(text, markup=markup)
            yield Footer()

    return BareApp(), lambda: True, lambda screen: text in screen


def build_used(spec: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The floor with httpx and pydantic used once, as any client of the service must before it
    shows an order: a model defined and built, a request sent. Cheapest use: no certificate
    bundle is loaded (`verify=False`: the URL is plain http), the model holds only what a
    minimal view shows."""
    from decimal import Decimal

    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # as the floor's
    import httpx
    from pydantic import BaseModel

    class Transaction(BaseModel):
        id: int
        hash: str
        amount: dict[str, Decimal]

    class Order(BaseModel):
        companyName: str  # noqa: N815 - the service's field name
        amount: Decimal
        amountFiat: Decimal  # noqa: N815
        address: str
        transactions: list[Transaction]

    class Envelope(BaseModel):
        data: Order

    with httpx.Client(verify=False) as client:
        response = client.get(f"{spec['base_url']}/order/{spec['token']}/")
        response.raise_for_status()
    order = Envelope.model_validate_json(response.content).data
    return bare_app(order.companyName, markup=False)  # the service's text, shown literally


def build_orderdash(spec: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The app as `orderdash tui TOKEN --bearer-token-file F` builds it: the CLI's parser (only
    the command's own, as `cli.main`), its settings (environment and config file included) and
    logging set-up, then `tui.run.build_dashboard` (`make_app` in trees without it)."""
    from orderdash import cli

    argv = ["tui", spec["token"], "--base-url", spec["base_url"]]
    argv += ["--bearer-token-file", spec["token_file"], "--no-bell"]
    if hasattr(cli, "parse_command_line"):
        # as cli.main: the command's own parser, the settings and the logging set up
        args = cli.parse_command_line(argv)
        try:
            from orderdash.cli.settings import settings_from_args
        except ImportError:  # older trees: the same function under its old name
            settings_from_args = cli._load_settings
        settings, _ = settings_from_args(args)
    else:  # older trees
        from orderdash.core.settings.sources import load_settings

        args = cli.build_parser().parse_args(argv)
        overrides = {name: getattr(args, name, None) for name in cli.SETTING_OPTIONS}
        settings, _ = load_settings({k: v for k, v in overrides.items() if v is not None})
    # one token, or a list of them since the watch list
    tokens = args.token if isinstance(args.token, list) else [args.token]
    try:
        from orderdash.tui.run import build_dashboard
    except ImportError:  # older trees: the app is built here as their CLI built it
        app = _make_app(settings, tokens)
    else:
        # the first getOrder is sent as the dashboard is built, in a thread: timed there
        from orderdash.core.service.client import OrderClient

        OrderClient.get_order_now = _timed(OrderClient.get_order_now)  # type: ignore[method-assign]
        app = build_dashboard(settings, tokens)

    def ready() -> bool:
        try:
            return app.state.order is not None
        except LookupError:
            return False

    def shown(screen: str) -> bool:
        order = app.state.order
        if order is None or order.company_name not in screen:
            return False
        return all(tx.hash[:6] in screen for tx in order.transactions[:1])

    return app, ready, shown


def _timed(get_order: Any) -> Any:
    """`get_order` recording when the first getOrder went out and came back (the start-up
    time's breakdown)."""

    def timed(*args: Any) -> Any:
        STAMPS.setdefault("fetch_started_at", time.monotonic())
        fetched = get_order(*args)
        STAMPS.setdefault("fetched_at", time.monotonic())
        return fetched

    return timed


def _make_app(settings: Any, tokens: list[str]) -> Any:
    import inspect

    from orderdash.tui.factory import make_app

    if "tokens" in inspect.signature(make_app).parameters:
        app = make_app(settings, tokens=tokens)
    else:
        app = make_app(settings, token=tokens[0])
    # the dashboard's first read goes through `get_order_first` where the client has it
    name = "get_order_first" if hasattr(app.client, "get_order_first") else "get_order"
    get_order = getattr(app.client, name)

    async def timed_get_order(token: str) -> Any:
        STAMPS.setdefault("fetch_started_at", time.monotonic())
        fetched = await get_order(token)
        STAMPS.setdefault("fetched_at", time.monotonic())
        return fetched

    setattr(app.client, name, timed_get_order)
    return app


#: The shop's name the "display" child shows on its welcome screen.
DISPLAY_TITLE = "Bench Coffee Shop"


def build_display(spec: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The customer display as `orderdash display --title T` builds it (cli/display.py): the
    CLI's parser, the settings loader without the token file, the channel, the language."""
    import os

    from orderdash import cli
    from orderdash.cli import SETTING_OPTIONS, build_parser
    from orderdash.core.customer.catalogue import resolve_language
    from orderdash.core.customer.channel import channel_path
    from orderdash.core.settings.sources import load_settings

    argv = ["display", "--title", DISPLAY_TITLE]
    if hasattr(cli, "parse_command_line"):
        args = cli.parse_command_line(argv)  # the command's own parser, as cli.main
    else:  # older trees
        args = build_parser().parse_args(argv)
    overrides = {name: getattr(args, name, None) for name in SETTING_OPTIONS}
    settings, _ = load_settings(
        {k: v for k, v in overrides.items() if v is not None}, dict(os.environ), with_token=False
    )
    from orderdash.tui.customer_display import DisplayApp

    app = DisplayApp(
        channel_path(settings.display_channel),
        language=resolve_language(settings.language, os.environ),
        title=settings.display_title,
        primary=settings.pos_primary,
    )
    return app, lambda: True, lambda screen: DISPLAY_TITLE in screen


def _no_first_read_thread() -> None:
    """The dashboard's first getOrder sent as any other, through the async client, once the
    app's event loop runs (not in a thread of its own before Textual is imported)."""
    from orderdash.core.service.client import OrderClient

    OrderClient.begin_first_read = lambda self, token: None  # type: ignore[method-assign]
    OrderClient.get_order_first = OrderClient.get_order  # type: ignore[method-assign]


def _no_first_paint_hold() -> None:
    """Painting is not held until the order is on the dashboard: the batch orderdash opens at
    start-up (wherever in orderdash that is) is not opened; Textual's own batches are."""
    import contextlib

    from textual.app import App

    batch_update = App.batch_update

    def unheld(self: Any) -> Any:
        if sys._getframe(1).f_globals.get("__name__", "").startswith("orderdash."):
            return contextlib.nullcontext()
        return batch_update(self)

    App.batch_update = unheld  # type: ignore[method-assign]


def _no_plain_http() -> None:
    """The plain-http client's transports made by httpx as it makes them for a client without
    certificate checks (`verify=False`: a TLS context without the CA bundle), same limits."""
    import orderdash.core.service.transport as transport  # first: httpx as orderdash imports it
    from orderdash.core.service import plain_http

    httpx = transport.httpx

    def blocking() -> Any:
        return httpx.HTTPTransport(verify=False, limits=plain_http.LIMITS)

    def asynchronous() -> Any:
        return httpx.AsyncHTTPTransport(verify=False, limits=plain_http.LIMITS)

    plain_http.PlainHTTPTransport = blocking  # type: ignore[assignment,misc]
    plain_http.PlainAsyncHTTPTransport = asynchronous  # type: ignore[assignment,misc]


def _no_pydantic_hook() -> None:
    """pydantic's plugins off by its own switch alone (its plugin finder imported as it is)."""
    import os

    from orderdash.core.runtime import startup

    os.environ.setdefault(*startup.PYDANTIC_NO_PLUGINS)
    startup.no_pydantic_plugins = lambda: None


def _no_gc_freeze() -> None:
    """The collector resumed after the first paint without freezing what start-up made."""
    import gc

    from orderdash.core.runtime import startup

    def resume() -> None:
        if startup._paused:
            startup._paused = False
            gc.enable()

    startup.resume = resume


#: Start-up mechanisms that are not Textual patches, by the name bench/ab_compat.py gives
#: them: each function, run before the app is built, takes its mechanism away ("without").
#: "gc_pause" (the collector paused until the first paint, then what start-up made frozen) is
#: taken away where `startup.pause` is called, above; "pydantic_hook" before
#: `startup.no_pydantic_plugins` is called there.
MECHANISMS: dict[str, Any] = {
    "gc_pause": lambda: None,
    "pydantic_hook": lambda: None,
    "gc_freeze": _no_gc_freeze,
    "first_read_thread": _no_first_read_thread,
    "first_paint_hold": _no_first_paint_hold,
    "plain_http": _no_plain_http,
}


def main() -> None:
    spec = json.loads(sys.argv[1])
    out_path = sys.argv[2]
    mode = spec["mode"]
    without = set(spec.get("without", ()))
    if mode not in ("bare", "floor", "used"):
        # as `orderdash` starts (cli.main): no pydantic plugins, no cyclic collection until
        # the app's first paint
        from orderdash.core.runtime import startup

        if "pydantic_hook" in without:
            _no_pydantic_hook()
        startup.no_pydantic_plugins()
        if "gc_pause" not in without:
            startup.pause()
    for name in spec.get("patches", ()):
        if name in MECHANISMS:
            if name in without:
                MECHANISMS[name]()
            continue
        # bench/ab_compat.py: both arms import the patch's module here; the "without" arm
        # makes its `install` a no-op (held_render: its screen's overrides Textual's own)
        import importlib

        module = importlib.import_module(f"orderdash.tui.compat.{name}")
        if name not in without:
            continue
        if name == "held_render":
            from textual.screen import Screen

            held = module.HeldRenderScreen
            held._compositor_refresh = Screen._compositor_refresh  # type: ignore[method-assign]
            held._on_screen_resume = Screen._on_screen_resume  # type: ignore[method-assign]
        else:
            module.install = lambda: None  # type: ignore[attr-defined]
    if mode in ("bare", "floor"):
        app, ready, shown = build_bare(with_dependencies=mode == "floor")
    elif mode == "used":
        app, ready, shown = build_used(spec)
    elif mode == "display":
        app, ready, shown = build_display(spec)
    else:
        app, ready, shown = build_orderdash(spec)
    # after the app is built, as its start imports them: `orderdash tui` sends its first
    # getOrder before asyncio and textual are imported (`build_dashboard`); the bench's driver
    # (which imports textual) and asyncio imported first made the request wait for both
    import asyncio

    from appkit import PaintLog, run_app, screen_text

    result: dict[str, Any] = {"mode": mode, "main_at": MAIN_AT, "built_at": time.monotonic()}
    built = resource.getrusage(resource.RUSAGE_SELF)
    result["cpu_at_built"] = built.ru_utime + built.ru_stime  # what the imports took

    async def body(app: Any, paints: PaintLog) -> None:
        # The first paint after which the data is on screen, checked at each paint as it ends
        # ("ready": the data was handed to the widgets; then the composited screen's text).
        # Checking between paints from this coroutine instead missed a paint that came right
        # after the data, and counted a later one.
        def on_screen() -> bool:
            return ready() and shown(screen_text(app))

        found = paints.watch(on_screen)
        if paints.paints and on_screen():  # painted before this coroutine first ran
            found.cancel()
            paint = paints.paints[-1]
        else:
            try:
                paint = await asyncio.wait_for(found, 30)
            except TimeoutError:
                raise TimeoutError("no paint showed the data within 30 s") from None
        result["paint_at"] = paint.wall
        result["paints_before"] = len(paints.paints)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        result["max_rss_kib_at_paint"] = usage.ru_maxrss
        result["cpu_at_paint"] = usage.ru_utime + usage.ru_stime  # less bent by a busy machine
        if spec.get("time_collect"):
            # one full collection once the app is up (what the freeze at the first paint
            # spares each later one), timed in this thread's CPU
            import gc

            from orderdash.core.runtime import startup

            startup.resume()
            started = time.thread_time()
            gc.collect()
            result["collect_cpu"] = time.thread_time() - started
        if mode == "idle":
            await measure_idle(app, paints, spec, result)

    asyncio.run(run_app(app, body, size=(spec["width"], spec["height"])))
    result["max_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result.update(STAMPS)
    with open(out_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)


async def measure_idle(app: Any, paints: Any, spec: dict[str, Any], result: dict[str, Any]) -> None:
    import asyncio

    await asyncio.sleep(spec.get("settle", 2.0))  # the first rate call and its repaint
    driver = paints.driver
    first_paint = len(paints.paints)
    bytes0, writes0 = driver.bytes_written, driver.writes
    usage0 = resource.getrusage(resource.RUSAGE_SELF)
    wall0 = time.monotonic()
    await asyncio.sleep(spec["idle_seconds"])
    usage1 = resource.getrusage(resource.RUSAGE_SELF)
    wall1 = time.monotonic()
    window = paints.paints[first_paint:]
    cpu = (usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)
    full = app.screen._compositor.render_full_update().render_segments(app.console)
    width, height = app.size
    result.update(
        window=wall1 - wall0,
        cpu=cpu,
        bytes=driver.bytes_written - bytes0,
        writes=driver.writes - writes0,
        paints=len(window),
        cells=sum(p.cells for p in window),
        max_cells=max((p.cells for p in window), default=0),
        full_updates=sum(1 for p in window if p.full),
        full_repaint_bytes=len(full.encode("utf-8")),
        screen_cells=width * height,
    )


if __name__ == "__main__":
    main()
