"""Case 5, QR: what a layout and a paint ask of the QR widget for a 100-character payment URI
(`get_content_width`, `get_content_height`, `render_lines` of the whole widget), in a running
app:

- cold: every cache cleared (`matrix_for`, the widget module's strip caches, the instance's
  layout and strips, Textual's line cache of the widget), against encoding the same text alone
  (`build_matrix`: qrcode's work, the floor of a cold render);
- cached: only Textual's line cache cleared (as after `refresh()`), against the cold figure.
"""

from __future__ import annotations

import asyncio
import functools
import time
from typing import Any

from common import Options, Row, median, seconds

SIZE = (110, 60)


def payment_uri(length: int = 100) -> str:
    uri = "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00123456&label="
    return uri + "Bench%20Shop%20order%20" + "7" * (length - len(uri) - 23)


def clear_widget_caches(view: Any) -> None:
    """Every cache the QR path keeps, whatever qr.py holds in this version."""
    from orderdash.core.qr.matrix import matrix_for
    from orderdash.tui.widgets import qr as qr_module

    matrix_for.cache_clear()
    for value in vars(qr_module).values():
        if isinstance(value, functools._lru_cache_wrapper):
            value.cache_clear()
    for name in list(vars(view)):
        if name.endswith("_key") and name.startswith("_"):
            setattr(view, name, None)
    view._styles_cache.clear()


def paint_once(view: Any) -> float:
    from textual.geometry import Region, Size

    width, height = view.size
    started = time.perf_counter()
    container = Size(width, height)
    view.get_content_width(container, container)
    view.get_content_height(container, container, width)
    lines = view.render_lines(Region(0, 0, width, height))
    elapsed = time.perf_counter() - started
    assert len(lines) == height
    return elapsed


async def measure(options: Options) -> dict[str, list[float]]:
    from appkit import run_app, wait_for
    from textual.app import App, ComposeResult

    from orderdash.core.qr.matrix import build_matrix
    from orderdash.tui.widgets.qr import QRView

    uri = payment_uri()
    assert len(uri) == 100, len(uri)

    class QRApp(App[None]):
        def compose(self) -> ComposeResult:
            yield QRView(uri, id="qr")

    results: dict[str, list[float]] = {"cold": [], "cached": [], "encode": []}

    async def body(app: Any, _: Any) -> None:
        view = app.query_one(QRView)
        await wait_for(lambda: view.scale > 0)
        assert view.encoded_text == uri
        for _ in range(max(options.reps, 5)):
            started = time.perf_counter()
            build_matrix(uri)
            results["encode"].append(time.perf_counter() - started)
            clear_widget_caches(view)
            results["cold"].append(paint_once(view))
            for _ in range(3):
                view._styles_cache.clear()
                results["cached"].append(paint_once(view))
            await asyncio.sleep(0)

    await run_app(QRApp(), body, size=SIZE)
    return results


def run(options: Options) -> list[Row]:
    results = asyncio.run(measure(options))
    cold, cached, encode = (median(results[k]) for k in ("cold", "cached", "encode"))
    return [
        Row(
            "qr",
            f"cold {seconds(cold)}",
            f"qrcode encode alone {seconds(encode)}",
            cold / encode,
            note=f"100-character URI in a {SIZE[0]}x{SIZE[1]} QRView: content width, content "
            f"height and render_lines of the whole widget, all caches cleared; median of "
            f"{len(results['cold'])}",
            data=results,
        ),
        Row(
            "qr",
            f"cached {seconds(cached)}",
            f"cold {seconds(cold)}",
            cached / cold,
            note="the same with the widget's caches warm (Textual's line cache cleared, as "
            "after refresh())",
        ),
    ]
