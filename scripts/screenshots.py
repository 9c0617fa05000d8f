"""Render the dashboard's main states headless to screenshots/*.svg, and, when Chromium is
installed (ORDERDASH_CHROMIUM or `chromium` on PATH), the customer display in a browser to
screenshots/customer-display-browser.png.

python scripts/screenshots.py            # all scenes
python scripts/screenshots.py stale      # some of them
python scripts/screenshots.py browser    # only the browser page
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the scenes are test fixtures: they live with the tests' support code, not in the product
sys.path.insert(0, str(ROOT / "tests"))

from support.scenes import SCENES, Scene, scene_app  # noqa: E402

OUT = ROOT / "screenshots"


async def render(chosen: Scene) -> Path:
    with scene_app(chosen) as app:
        async with app.run_test(size=chosen.size) as pilot:
            await chosen.taken(pilot)
            path = OUT / f"{chosen.name}.svg"
            app.save_screenshot(filename=path.name, path=str(OUT))
            return path


#: The browser's viewports: a tablet on its side, and a phone upright.
VIEWPORTS = {
    "customer-display-browser.png": (1100, 640),
    "customer-display-phone.png": (390, 844),
}


def render_browser() -> list[Path]:
    """The web customer display in Chromium, on an ETH order of the seeded simulator, in
    German, at a tablet's and a phone's size: `orderdash display --web` fed by the dashboard's
    publishing code."""
    import tempfile

    from playwright.sync_api import sync_playwright

    from orderdash.simulator import Simulator, SimulatorServer
    from support.browser import Display, OrderPublisher, chromium_path, decoded, free_port, wait_for

    path = chromium_path()
    if path is None:
        print("customer-display-*.png skipped: no Chromium (apt-get install chromium)")
        return []
    shots = []
    with (
        tempfile.TemporaryDirectory() as runtime,
        SimulatorServer(Simulator(seed=7), bearer_token="screenshots", port=0) as server,
    ):
        token = server.sim.create_order(coin="eth", currency="EUR", amount_fiat="24.50")
        publisher = OrderPublisher(server, token, Path(runtime), language="de")
        display = Display("127.0.0.1", free_port(), Path(runtime), extra=("--language", "de"))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=path, args=["--no-sandbox", "--disable-gpu"]
                )
                for name, (width, height) in VIEWPORTS.items():
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.goto(display.url)
                    wait_for(lambda page=page: decoded(_shot(page)))
                    page.screenshot(path=str(OUT / name))
                    page.close()
                    shots.append(OUT / name)
                browser.close()
        finally:
            display.stop()
            publisher.stop()
    return shots


def _shot(page: object) -> object:
    from support.browser import screenshot

    return screenshot(page)


def main(names: list[str]) -> int:
    import os
    import tempfile

    OUT.mkdir(exist_ok=True)
    # the scenes' dashboards keep a ledger (the orders they read): a throw-away one, never the
    # developer's own books
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="orderdash-screenshots-")
    # and their customer display a channel of their own: a dashboard running on this machine
    # holds the default one, and a scene would otherwise be asked to take it over
    os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="orderdash-screenshots-run-")
    chosen = [s for s in SCENES if not names or s.name in names]
    for item in chosen:
        path = asyncio.run(render(item))
        print(f"{path.relative_to(OUT.parent)}  {item.size[0]}x{item.size[1]}  {item.caption}")
    if not names or "browser" in names:
        for shot in render_browser():
            print(f"{shot.relative_to(OUT.parent)}  Chromium  the customer display in a browser")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
