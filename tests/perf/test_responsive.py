"""The event loop stays free while the service sends what is costly to read (issue 19).

The server's QR image is decoded in a worker thread with its cost bounded by the PNG header
before any work. Here the dashboard and the point-of-sale screen show an order whose `qrCode` is
a hostile image: every decode runs off the event loop's thread, once per image (the failure is
cached), and the screen says the image is unusable. Without the worker thread the 4096x4096
image held the loop ~40 s. How long the loop is held is measured, against an ordinary refresh in
the same run, by `bench/run.py --case responsive` (wall-clock bounds flake on a loaded machine).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.core.qr import image as qr_image
from orderdash.core.qr.image import MAX_IMAGE_BITS, QRImageError, cached_matrix_from_data_uri
from orderdash.simulator import SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.screens.pos import PosScreen
from support.hostile_png import data_uri, paeth_bomb, paeth_png


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
async def test_the_server_qr_image_is_read_off_the_event_loop_once(
    sim_server: SimulatorServer, image: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    uri = image()
    cached_matrix_from_data_uri.cache_clear()
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="5.00")
    settings = make_settings(
        sim_server.base_url, poll_interval=0.2, refresh_interval=60.0, qr_content="server"
    )
    app = make_app(settings, token=token, open_pos=True)
    decoded_on: list[int] = []
    decode = qr_image.matrix_from_data_uri

    def watched_decode(seen: str, **options: int) -> object:
        if seen == uri:
            decoded_on.append(threading.get_ident())
        return decode(seen, **options)

    monkeypatch.setattr(qr_image, "matrix_from_data_uri", watched_decode)
    loop_thread = threading.get_ident()

    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen), timeout=10)
        await wait_until(
            pilot,
            lambda: app.screen.query_one("#pos-qr").source == "server",
            timeout=10,
        )
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
    assert len(decoded_on) == 1, f"decoded {len(decoded_on)} times"
    assert decoded_on[0] != loop_thread, "the image was decoded on the event loop's thread"
