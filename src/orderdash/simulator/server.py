"""Serve a Simulator over real HTTP: uvicorn in a background thread with its own event loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import sys
import threading
import time
from types import TracebackType
from typing import Any

import uvicorn

from orderdash.simulator.api import DEFAULT_ACCESS_TOKEN, DEFAULT_CUSTOMER_ID
from orderdash.simulator.app import SimulatedReset, create_app, normalize_prefix
from orderdash.simulator.state import Simulator

log = logging.getLogger(__name__)

#: How often the live customer (`Simulator(live=True)`) is asked what is due, in seconds.
LIVE_TICK = 1.0


class _DropSimulatedResets(logging.Filter):
    """Keep uvicorn's error log quiet about the connection resets a Fault asks for."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not _is_simulated_reset(exc)


def _is_simulated_reset(exc: BaseException | None) -> bool:
    if exc is None:
        return False
    if isinstance(exc, SimulatedReset):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_simulated_reset(e) for e in exc.exceptions)
    return False


_RESET_FILTER = _DropSimulatedResets()


def _install_log_filter() -> None:
    logger = logging.getLogger("uvicorn.error")
    if _RESET_FILTER not in logger.filters:
        logger.addFilter(_RESET_FILTER)


class SimulatorServer:
    """uvicorn serving `create_app(sim, ...)` in a daemon thread; a context manager.

    `port=0` picks a free port; after the first start the server keeps that port, so
    `stop()` then `start()` serves again on the same port (the socket uses SO_REUSEADDR).
    With `customer_interval` set, a background task calls `sim.customer_step()` that often (or,
    for a live simulator, its live customer every `LIVE_TICK` seconds). With `callback_url` the
    simulator POSTs its callbacks there (`callback_form`: form-encoded; `callback_faults`: a
    rotation of faults, "delayed" by `callback_delay` s; `CallbackOutbox.configure`); stopping
    the server stops their sender.
    """

    def __init__(
        self,
        sim: Simulator,
        bearer_token: str = "secret",
        host: str = "127.0.0.1",
        port: int = 0,
        prefix: str = "",
        customer_interval: float | None = None,
        *,
        startup_timeout: float = 10.0,
        callback_url: str | None = None,
        callback_form: bool = False,
        callback_faults: tuple[str, ...] = (),
        callback_delay: float | None = None,
        **account: Any,
    ) -> None:
        if customer_interval is not None and customer_interval <= 0:
            raise ValueError("customer_interval must be positive or None")
        if callback_url is not None:
            sim.callbacks.configure(
                callback_url, form=callback_form, faults=callback_faults, delay=callback_delay
            )
        self.sim = sim
        self.host = host
        self.prefix = normalize_prefix(prefix)
        self.customer_interval = customer_interval
        self.startup_timeout = startup_timeout
        #: access_token ("demo"), bearer_lifetime (s), history_page_cap: see ServiceAPI
        self.app = create_app(sim, bearer_token=bearer_token, prefix=self.prefix, **account)
        self._port: int = port
        self._bound_port: int | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # -------------------------------------------------------------- addresses
    @property
    def port(self) -> int:
        if self._bound_port is None:
            raise RuntimeError("the server has not been started")
        return self._bound_port

    @property
    def root_url(self) -> str:
        """http://host:port (no prefix): where the /_sim/ control endpoints live."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        """http://host:port + prefix: the service's {base_url}."""
        return self.root_url + self.prefix

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    # -------------------------------------------------------------- lifecycle
    def _bind(self) -> socket.socket:
        port = self._bound_port if self._bound_port is not None else self._port
        infos = socket.getaddrinfo(
            self.host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
        family, socktype, proto, _, address = infos[0]
        sock = socket.socket(family, socktype, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(128)
        except BaseException:
            sock.close()
            raise
        sock.set_inheritable(True)
        return sock

    def start(self) -> SimulatorServer:
        """Start serving (no-op if running); returns once the server accepts connections."""
        with self._lock:
            if self.running:
                return self
            sock = self._bind()
            self._bound_port = sock.getsockname()[1]
            config = uvicorn.Config(
                self.app,
                log_level="warning",
                access_log=False,
                log_config=None,
                lifespan="on",
                # a simulated slow response must not hold up a stop (tests stop servers mid-request)
                # uvicorn annotates it int; it is the timeout of an asyncio.wait_for
                timeout_graceful_shutdown=0.2,  # type: ignore[arg-type]
            )
            _install_log_filter()
            server = uvicorn.Server(config)
            thread = threading.Thread(
                target=self._run,
                args=(server, sock),
                name=f"orderdash-simulator:{self._bound_port}",
                daemon=True,
            )
            self._server = server
            self._thread = thread
            thread.start()
            deadline = time.monotonic() + self.startup_timeout
            while not server.started:
                if not thread.is_alive():
                    sock.close()
                    raise RuntimeError("the simulator server stopped while starting")
                if time.monotonic() > deadline:
                    server.should_exit = True
                    thread.join(5)
                    sock.close()
                    raise TimeoutError("the simulator server did not start in time")
                time.sleep(0.005)
            return self

    def _run(self, server: uvicorn.Server, sock: socket.socket) -> None:
        try:
            asyncio.run(self._serve(server, sock))
        except BaseException:  # pragma: no cover - logged, the thread just ends
            log.exception("the simulator server failed")
        finally:
            sock.close()

    async def _serve(self, server: uvicorn.Server, sock: socket.socket) -> None:
        task: asyncio.Task[None] | None = None
        if self.customer_interval is not None:
            task = asyncio.create_task(self._customers(self.customer_interval))
        try:
            await server.serve(sockets=[sock])
        finally:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _customers(self, interval: float) -> None:
        live = self.sim.live_customer
        while True:
            # the live customer keeps its own times (simulator clock): it is asked often
            await asyncio.sleep(min(interval, LIVE_TICK) if live else interval)
            try:
                if live is not None:
                    live.step()
                else:
                    self.sim.customer_step()
            except Exception:  # pragma: no cover - a bug must not stop the server
                log.exception("customer_step failed")

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving and wait for the server thread (idempotent). The port is kept."""
        with self._lock:
            server, thread = self._server, self._thread
            if server is None or thread is None:
                return
            server.should_exit = True
            thread.join(timeout)
            if thread.is_alive():  # pragma: no cover - stuck connections
                server.force_exit = True
                thread.join(timeout)
            self._server = None
            self._thread = None
        self.sim.callbacks.close(timeout=1.0)

    def __enter__(self) -> SimulatorServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def run_simulator(
    host: str = "127.0.0.1",
    port: int = 8080,
    bearer_token: str = "secret",
    seed: int = 7,
    prefix: str = "",
    customer_interval: float | None = 20.0,
    *,
    run: str = "",
    live: bool = False,
    history_days: int = 0,
    callbacks: dict[str, Any] | None = None,
    **account: Any,
) -> None:
    """Serve a demo-filled simulator until Ctrl-C (or SIGTERM); blocking, for the CLI.
    `run` suffixes the demo tokens and `live` keeps a customer opening and paying orders
    (Simulator), `history_days` adds past days of orders. `callbacks`: SimulatorServer's
    callback_url, callback_form, callback_faults, callback_delay. `account`: access_token,
    bearer_lifetime, history_page_cap (ServiceAPI)."""
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sim = Simulator(seed=seed, with_demo_orders=True, run=run, live=live, history_days=history_days)
    server = SimulatorServer(
        sim,
        bearer_token=bearer_token,
        host=host,
        port=port,
        prefix=prefix,
        customer_interval=customer_interval,
        **(callbacks or {}),
        **account,
    )
    previous_term: Any = None
    in_main = threading.current_thread() is threading.main_thread()
    if in_main:
        previous_term = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    try:
        server.start()
        out = sys.stdout
        print(f"orderdash simulator serving {server.base_url}", file=out)
        for line in banner(server, sim, account):
            print(line, file=out)
        out.flush()
        while server.running:
            time.sleep(0.25)
    except KeyboardInterrupt:
        pass
    finally:
        try:
            server.stop()
        except KeyboardInterrupt:  # pragma: no cover - a second Ctrl-C while stopping
            pass
        if in_main:
            signal.signal(signal.SIGTERM, previous_term)


def banner(server: SimulatorServer, sim: Simulator, account: dict[str, Any]) -> list[str]:
    """What `orderdash simulate` says after its first line: the demo orders, the account the
    log-in and Generate Order accept, and the control. The account is named only where it is
    the simulator's own made-up default (the access token `demo`, the customer id 4711): an
    access token read from a file is never printed."""
    lines = [
        f"  demo orders: {', '.join(sim.demo_tokens)}",
        f"  e.g. {server.base_url}/order/{sim.demo_tokens[0]}/",
    ]
    # only the simulator's own made-up defaults: what was given (a file's token) is never said
    named = []
    if "access_token" not in account:
        named.append(f"access token {DEFAULT_ACCESS_TOKEN}")
    if "customer_id" not in account:
        named.append(f"customer id {DEFAULT_CUSTOMER_ID}")
    if named:
        lines.append(f"  account: {', '.join(named)} (the simulator's made-up defaults)")
    if sim.callbacks.url is not None:
        log_url = f"{server.root_url}/_sim/callbacks"
        lines.append(f"  callbacks: POST to {sim.callbacks.url} (their log: {log_url})")
    lines.append(f"  control: {server.root_url}/_sim/orders   (Ctrl-C stops)")
    return lines


def _raise_keyboard_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
