"""The QR as people see it in the running app: decoded from the screen's cells, in both themes."""

from __future__ import annotations

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.simulator import SimulatorServer
from orderdash.tui.factory import make_app
from orderdash.tui.screens.pos import PosScreen
from orderdash.tui.widgets.qr import QRView
from support.qr_screen import decode_qr_in_region

CONTENTS = {
    "short-address": ("3AxYawtkGxsnTfy6KxswzAFNDiGRuw1dH3", "address"),
    "long-bech32": ("bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297", "address"),
    "uri-with-amount": ("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "uri"),
}


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("content", sorted(CONTENTS))
@pytest.mark.parametrize(
    ("screen", "size"),
    [("dashboard", (100, 30)), ("dashboard", (180, 56)), ("pos", (80, 24)), ("pos", (140, 44))],
)
async def test_qr_decodes_to_what_it_claims(
    sim_server: SimulatorServer, theme: str, content: str, screen: str, size: tuple[int, int]
) -> None:
    address, mode = CONTENTS[content]
    token = sim_server.sim.create_order(coin="btc", currency="EUR", amount_fiat="25.00")
    sim_server.sim.set_fields(token, {"address": address})
    settings = make_settings(sim_server.base_url, poll_interval=5.0, qr_content=mode)
    app = make_app(settings, token=token, open_pos=screen == "pos")
    async with app.run_test(size=size) as pilot:
        app.theme = theme
        await wait_until(pilot, lambda: app.state.order is not None)
        if screen == "pos":
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, PosScreen) and "Scan to pay" in screen_text(app),
            )
            qr = app.screen.query_one("#pos-qr", QRView)
        else:
            qr = app.dashboard.query_one(QRView)
        await pilot.pause(0.2)
        assert qr.scale >= 1, screen_text(app)
        expected = qr.encoded_text
        if mode == "uri":
            # a bech32 address goes into the code in upper case (qr_uppercase, the default)
            assert expected.startswith(f"BITCOIN:{address.upper()}?amount=")
        else:
            assert expected == address
        assert decode_qr_in_region(app, qr.region) == [expected]
