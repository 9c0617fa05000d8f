"""The event loop stays free while the service sends what is costly to read (issue 19).

The server's QR image is decoded in a worker thread with its cost bounded by the PNG header
before any work; the lag of the event loop is measured by a coroutine that asks to wake every
5 ms and records how late it wakes, while the dashboard and the point-of-sale screen show an
order whose `qrCode` is a hostile image. Without the worker thread the 4096x4096 image held
the loop ~40 s, and the image under the cost limit ~0.7 s with the hand-written decoder this
project had (~0.1-0.2 s with Pillow, which lets go of the GIL while it decodes); with it, the
worst lag seen on a loaded 2-core machine is ~30-70 ms (the renders of the refreshed order).
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.core.qr.image import MAX_IMAGE_BITS, QRImageError, cached_matrix_from_data_uri
from orderdash.simulator import SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.screens.pos import PosScreen
from support.hostile_png import data_uri, paeth_bomb, paeth_png

TICK = 0.005
MAX_LAG = 0.100


def costly_under_the_limit() -> str:
    """An RGBA image the cost limit lets through (a quarter of it), Paeth rows, bad last filter
    byte: read to its last row, all in the worker."""
    side = int((MAX_IMAGE_BITS / 4 / 32) ** 0.5)
    return data_uri(paeth_png(side, side, depth=8, colour=6))


def costly_interlaced() -> str:
    """The largest RGBA image the cost limit lets through, Adam7-interlaced (seven passes to
    read and put together), Paeth rows, bad last filter byte."""
    side = int((MAX_IMAGE_BITS / 32) ** 0.5)
    return data_uri(paeth_png(side, side, depth=8, colour=6, interlaced=True))


@pytest.mark.parametrize(
    "image",
    [paeth_bomb, costly_under_the_limit, costly_interlaced],
    ids=["4096x4096-16bit-paeth", "under-limit", "interlaced-at-the-limit"],
)
async def test_the_server_qr_image_never_holds_the_event_loop(
    sim_server: SimulatorServer, image: Callable[[], str]
) -> None:
    uri = image()
    cached_matrix_from_data_uri.cache_clear()
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
    settings = make_settings(
        sim_server.base_url, poll_interval=0.2, refresh_interval=60.0, qr_content="server"
    )
    app = make_app(settings, token=token, open_pos=True)
    worst = 0.0
    running = True

    async def ticker() -> None:
        nonlocal worst
        while running:
            asked = time.monotonic()
            await asyncio.sleep(TICK)
            worst = max(worst, time.monotonic() - asked - TICK)

    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen), timeout=10)
        # settled on the simulator's own image first: start-up costs are not what is measured
        await wait_until(
            pilot,
            lambda: app.screen.query_one("#pos-qr").source == "server",
            timeout=10,
        )
        await pilot.pause(0.3)
        # A full collection of the app's heap holds the loop ~100 ms whatever the image: not
        # what is measured here. Frozen, the heap as it stands is left out of collections.
        gc.collect()
        gc.freeze()
        task = asyncio.create_task(ticker())
        try:
            sim_server.sim.set_fields(token, {"qrCode": uri})
            app.watcher.refresh_now(token)
            await wait_until(
                pilot,
                lambda: isinstance(cached_matrix_from_data_uri.peek(uri), QRImageError),
                timeout=90,
            )
            await wait_until(pilot, lambda: "unusable" in screen_text(app), timeout=10)
            # the next refresh finds the failure in the cache: no second decode
            app.watcher.refresh_now(token)
            await pilot.pause(0.5)
            assert app.is_running
        finally:
            running = False
            await task
            gc.unfreeze()
    print(f"worst event-loop lag {worst * 1000:.1f} ms")
    assert worst < MAX_LAG, f"the event loop was held {worst * 1000:.0f} ms"
