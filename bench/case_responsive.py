"""Case "responsive": how long the event loop is held while the point-of-sale screen shows an
order whose server QR image (`qr_content = "server"`) is hostile, against the same refresh of
an order whose image is the simulator's own, in the same run.

A coroutine asks to wake every 5 ms and records how late it wakes, from the refresh that brings
the image until the screen says the image is unusable (or shows it). The images are built in
memory by the test suite's `support/hostile_png.py`: the 4096x4096 16-bit Paeth bomb (refused
by its header), an RGBA image under the cost limit and the largest interlaced one it lets
through (both read to their last, bad row in a worker thread). Target: the worst lag with a
hostile image at most 3x the worst lag of the ordinary refresh (before the worker thread the
bomb held the loop ~40 s)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from common import (
    ROOT,
    Options,
    Row,
    median,
    seconds,
    settings_for,
    simulator,
    worst_lag_during,
)

sys.path.insert(0, str(ROOT / "tests"))

from support.hostile_png import data_uri, paeth_bomb, paeth_png  # noqa: E402

TARGET_RATIO = 3.0


def _under_the_limit() -> str:
    from orderdash.core.qr.image import MAX_IMAGE_BITS

    side = int((MAX_IMAGE_BITS / 4 / 32) ** 0.5)
    return data_uri(paeth_png(side, side, depth=8, colour=6))


def _interlaced() -> str:
    from orderdash.core.qr.image import MAX_IMAGE_BITS

    side = int((MAX_IMAGE_BITS / 32) ** 0.5)
    return data_uri(paeth_png(side, side, depth=8, colour=6, interlaced=True))


IMAGES: dict[str, Callable[[], str]] = {
    "4096x4096 16-bit Paeth bomb": paeth_bomb,
    "RGBA under the cost limit": _under_the_limit,
    "interlaced at the cost limit": _interlaced,
}


async def worst_lag(server: Any, uri: str | None) -> float:
    """The worst lag of the loop from the refresh bringing `uri` (None: a fresh order's own
    image, changed by a payment) until the screen has dealt with it."""
    from appkit import run_app, screen_text, wait_for

    from orderdash.core.qr.image import QRImageError, cached_matrix_from_data_uri
    from orderdash.tui.factory import make_app
    from orderdash.tui.screens.pos import PosScreen

    cached_matrix_from_data_uri.cache_clear()
    sim = server.sim
    token = sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
    settings = settings_for(
        server.base_url, poll_interval=0.2, refresh_interval=60.0, qr_content="server"
    )
    app = make_app(settings, token=token, open_pos=True)

    async def body(app: Any, _paints: Any) -> float:
        await wait_for(lambda: isinstance(app.screen, PosScreen), within=30)
        await wait_for(lambda: app.screen.query_one("#pos-qr").source == "server", within=30)
        await asyncio.sleep(0.3)

        async def work() -> None:
            if uri is None:
                sim.add_transaction(token, "0.00001")
                app.watcher.refresh_now(token)
                await asyncio.sleep(1.0)
            else:
                sim.set_fields(token, {"qrCode": uri})
                app.watcher.refresh_now(token)
                await wait_for(
                    lambda: isinstance(cached_matrix_from_data_uri.peek(uri), QRImageError),
                    within=90,
                )
                await wait_for(lambda: "unusable" in screen_text(app), within=10)
                app.watcher.refresh_now(token)
                await asyncio.sleep(0.5)

        return await worst_lag_during(work, freeze=True)

    return await run_app(app, body, size=(120, 40))


def run(options: Options) -> list[Row]:
    reps = max(3, options.reps // 2)
    with simulator(options.seed) as server:
        base = median([asyncio.run(worst_lag(server, None)) for _ in range(reps)])
        rows = [
            Row(
                "responsive",
                f"worst lag {seconds(base)}",
                note=f"median of {reps}: an ordinary refresh of the POS screen in server-QR "
                "mode (a payment), the baseline",
            )
        ]
        for name, image in IMAGES.items():
            uri = image()
            lag = median([asyncio.run(worst_lag(server, uri)) for _ in range(reps)])
            ratio = lag / base if base > 0 else None
            rows.append(
                Row(
                    "responsive",
                    f"worst lag {seconds(lag)}",
                    f"{seconds(base)}",
                    ratio,
                    f"<= {TARGET_RATIO:g}x",
                    ratio is not None and ratio <= TARGET_RATIO,
                    note=f"{name}: median of {reps} worst lags of the event loop",
                )
            )
    return rows
