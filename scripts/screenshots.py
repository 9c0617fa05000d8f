"""Render the dashboard's main states headless to screenshots/*.svg.

python scripts/screenshots.py            # all scenes
python scripts/screenshots.py stale      # some of them
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the scenes are test fixtures: they live with the tests' support code, not in the product
sys.path.insert(0, str(ROOT / "tests"))

from scenes import SCENES, Scene, scene_app  # noqa: E402

OUT = ROOT / "screenshots"


async def render(chosen: Scene) -> Path:
    with scene_app(chosen) as app:
        async with app.run_test(size=chosen.size) as pilot:
            await chosen.settle(pilot)
            path = OUT / f"{chosen.name}.svg"
            app.save_screenshot(filename=path.name, path=str(OUT))
            return path


def main(names: list[str]) -> int:
    OUT.mkdir(exist_ok=True)
    chosen = [s for s in SCENES if not names or s.name in names]
    for item in chosen:
        path = asyncio.run(render(item))
        print(f"{path.relative_to(OUT.parent)}  {item.size[0]}x{item.size[1]}  {item.caption}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
