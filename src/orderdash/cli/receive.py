"""`orderdash receive`: the callback receiver on its own (docs/receiver.md), served by
`callback_server/server.py` until Ctrl-C; its alarms and refusals said on stderr too."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import TYPE_CHECKING

from orderdash.callback_server.server import ReceiverServer
from orderdash.cli.options import EXIT_INTERRUPTED
from orderdash.cli.settings import settings_from_args
from orderdash.core.model.errors import UsageError
from orderdash.core.runtime import logs
from orderdash.core.service.client import OrderClient
from orderdash.core.usecases.reads import BookOpener, command_gates, ledger_book
from orderdash.core.usecases.receive import RECEIVER_LOGGER, CallbackDesk, ReceiveOptions

if TYPE_CHECKING:
    from orderdash.core.ledger import Book
    from orderdash.core.settings.model import Settings


def run_receive(args: argparse.Namespace, open_book: BookOpener | None = None) -> int:
    settings, _ = settings_from_args(args)
    # the command line over the settings (`receive_host`, `receive_port`), as for every setting
    host = settings.receive_host if args.host is None else args.host
    port = settings.receive_port if args.port is None else args.port
    if not 0 <= port <= 65535:
        raise UsageError("--port must be 0 to 65535")
    options = ReceiveOptions.from_settings(settings)
    _alarms_on_stderr()
    book = (open_book or ledger_book)(settings)
    try:
        asyncio.run(_serve(settings, book, options, host, port))
    finally:
        book.close_connection()
    # it serves until stopped: by Ctrl-C (or SIGTERM), which uvicorn takes to stop cleanly
    return EXIT_INTERRUPTED


def _alarms_on_stderr() -> None:
    """The receiver's warnings (its alarms, the callbacks refused) on stderr as well as in the
    log file: the receiver owns no screen, and whoever runs it watches its output. Redacted as
    the log file is."""
    setup = logs.current()
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    if setup is not None:
        handler.addFilter(setup.redactor)
        handler.setFormatter(logs.RedactingFormatter(setup.redactor, "orderdash: %(message)s"))
    logging.getLogger(RECEIVER_LOGGER).addHandler(handler)


async def _serve(
    settings: Settings, book: Book, options: ReceiveOptions, host: str, port: int
) -> None:
    async with OrderClient.from_settings(settings) as client:
        gate, _ = command_gates(settings)
        desk = CallbackDesk(book, client, gate, options)
        server = ReceiverServer(desk, host, port)
        await server.serve(lambda url: print(f"receiving callbacks at {url}", flush=True))
