"""What `core/qr/image.py`'s own PNG checks cost and what they spare, now that Pillow decodes.

For each image, in a fresh interpreter (its own peak RSS, wait4), median of `--reps`:
- `_decode_png` as the QR path calls it (the checks on the raw bytes, then Pillow on the
  pixel chunks);
- the checks alone (`_check_png`: signature, chunk walk and checksums, header bounds, one
  inflate of the image data into nothing);
- Pillow alone on the whole PNG (`Image.open(formats=["PNG"])`, `load`, the luminance as
  `decode_png` takes it): what decoding would cost with no check of ours in front.
Images: the simulator's QR image of a payment URI, the largest module-exact QR image (version
40, 10 pixels a module, 8-bit grey), and the hostile ones of the `responsive` case (the
4096x4096 16-bit Paeth bomb, an RGBA image under the cost limit).

    python bench/ab_png.py --reps 5        # from the repository root
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from common import child_env, median

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import io, json, sys, time, resource, base64
sys.path.insert(0, sys.argv[3])
from support.hostile_png import paeth_bomb, paeth_png, data_uri
from orderdash.core.qr import image as qr_image
from orderdash.core.qr.grid import QRImageError

def make(name):
    if name == "simulator":
        from orderdash.simulator.png import qr_png
        return qr_png("bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00123456")
    if name == "largest":
        import qrcode
        code = qrcode.QRCode(version=40, box_size=10, border=4)
        code.add_data("x" * 1200)
        code.make(fit=False)
        from PIL import Image
        img = code.make_image().get_image().convert("L")
        out = io.BytesIO(); img.save(out, format="PNG"); return out.getvalue()
    if name == "bomb":
        return base64.b64decode(paeth_bomb().split(",", 1)[1])
    if name == "under":
        side = int((qr_image.MAX_IMAGE_BITS / 4 / 32) ** 0.5)
        return paeth_png(side, side, depth=8, colour=6)
    raise SystemExit(name)

def pillow_alone(data):
    from PIL import Image
    image = Image.open(io.BytesIO(data), formats=["PNG"])
    image.load()
    luminance = qr_image._luminance(image)
    return [luminance.crop((0, y, image.width, y + 1)).tobytes() for y in range(image.height)]

data = make(sys.argv[1])
from PIL import PngImagePlugin  # imported before timing, in every arm
how = sys.argv[2]
work = {"decode_png": qr_image._decode_png, "checks": qr_image._check_png}.get(how, pillow_alone)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.thread_time()
try:
    work(data)
    outcome = "read"
except QRImageError as error:
    outcome = f"refused: {error}"
except Exception as error:
    outcome = f"{type(error).__name__}: {str(error)[:60]}"
took = time.thread_time() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"cpu": took, "rss_growth_kib": peak - base, "outcome": outcome}))
"""

IMAGES = ("simulator", "largest", "bomb", "under")
ARMS = ("decode_png", "checks", "pillow")


def once(image: str, arm: str) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-c", CHILD, image, arm, str(ROOT / "tests")],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=600,
        check=False,
    )
    if completed.returncode != 0:
        return {"cpu": float("nan"), "rss_growth_kib": 0, "outcome": completed.stderr[-200:]}
    result: dict[str, object] = json.loads(completed.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--image", action="append", choices=IMAGES)
    options = parser.parse_args()
    for image in options.image or IMAGES:
        runs: dict[str, list[dict[str, object]]] = {arm: [] for arm in ARMS}
        for rep in range(options.reps):
            for arm in ARMS if rep % 2 == 0 else ARMS[::-1]:
                runs[arm].append(once(image, arm))
        for arm in ARMS:
            cpu = [float(str(run["cpu"])) * 1000 for run in runs[arm]]
            rss = [int(str(run["rss_growth_kib"])) / 1024 for run in runs[arm]]
            print(
                f"{image:10} {arm:10} {median(cpu):8.1f} ms CPU ({min(cpu):.1f}-{max(cpu):.1f})"
                f"  peak RSS +{median(rss):6.1f} MiB  {runs[arm][0]['outcome']}"
            )


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
