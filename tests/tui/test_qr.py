"""QR codes: the core matrix, and the widget checked by decoding what it paints.

The scannability tests read the composited screen back (tests/support/qr_screen.py: what the
terminal would receive, rebuilt as a bitmap) and decode it with zxing-cpp. A code that only looks
right in a snapshot but does not scan fails here.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import zxingcpp
from rich.cells import cell_len
from textual.app import App, ComposeResult

from orderdash.core.qr import matrix as core_qr
from orderdash.core.qr.matrix import (
    QRError,
    QRMatrix,
    best_scale,
    build_matrix,
    cells_needed,
    half_block_rows,
    matrix_for,
    matrix_size,
)
from orderdash.tui.widgets.qr import QRView, caption_lines
from support.qr_screen import (
    BLACK,
    UPPER_HALF,
    WHITE,
    Painted,
    decode_bitmap,
    decode_qr_on_screen,
    find_code,
    rgb,
)

LEGACY = "3AxYawtkGxsnTfy6KxswzAFNDiGRuw1dH3"
BECH32 = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
TAPROOT = "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297"
URI = "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00012345"
HOSTILE = "ACME [/] [@click=app.quit]x[/] \x1b[2J"


# -- core ----------------------------------------------------------------------------------


def test_matrix_keeps_the_text_and_has_a_light_quiet_zone() -> None:
    matrix = build_matrix(BECH32)
    assert matrix.text == BECH32
    assert matrix.quiet_zone == 2
    # 42 bytes at level M is version 3: 29 modules, plus 2 quiet modules each side.
    assert matrix.size == 33
    assert all(len(row) == matrix.size for row in matrix.modules)
    assert all(isinstance(module, bool) for row in matrix.modules for module in row)
    edge = [*matrix.modules[:2], *matrix.modules[-2:]]
    assert not any(module for row in edge for module in row)
    assert not any(row[0] or row[1] or row[-1] or row[-2] for row in matrix.modules)
    # The top-left finder pattern starts right after the quiet zone.
    assert all(matrix.modules[2][2:9]) and matrix.modules[3][2] and not matrix.modules[3][3]


def test_quiet_zone_is_configurable() -> None:
    assert build_matrix(BECH32, quiet_zone=4).size == build_matrix(BECH32).size + 4
    assert build_matrix(BECH32, quiet_zone=0).size == 29


def test_higher_error_correction_makes_a_bigger_code() -> None:
    assert build_matrix(URI, error_correction="H").size > build_matrix(URI).size


def test_empty_text_is_a_qr_error() -> None:
    with pytest.raises(QRError):
        build_matrix("")


@pytest.mark.parametrize("length", [3000, 5_000_000])
def test_over_capacity_is_a_one_line_qr_error(length: int) -> None:
    with pytest.raises(QRError) as caught:
        build_matrix("x" * length)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == f"too long for a QR code ({length} characters)"
    assert "\n" not in str(caught.value)


def test_bad_parameters_are_not_qr_errors() -> None:
    with pytest.raises(ValueError) as caught:
        build_matrix(LEGACY, error_correction="X")
    assert not isinstance(caught.value, QRError)
    with pytest.raises(ValueError):
        build_matrix(LEGACY, quiet_zone=-1)


def test_matrix_for_is_cached() -> None:
    first = matrix_for(TAPROOT)
    assert matrix_for(TAPROOT) is first
    assert matrix_for(TAPROOT, 3) is not first
    assert matrix_for.cache_info().maxsize == 64


def _square(size: int) -> QRMatrix:
    return QRMatrix(text="t", modules=((False,) * size,) * size, quiet_zone=0)


@pytest.mark.parametrize("length", [1, 14, 25, 34, 47, 62, 77, 84, 100, 154, 400, 1000, 2331])
def test_matrix_size_is_the_built_code_s_size_without_building_it(length: int) -> None:
    for text in ("b" * length, "1" * length, ("bitcoin:BC1Q" + "X" * length)[:length]):
        for quiet_zone in (0, 2, 4):
            assert matrix_size(text, quiet_zone) == build_matrix(text, quiet_zone=quiet_zone).size


def test_matrix_size_refuses_what_build_matrix_refuses() -> None:
    for text in ("", "x" * 3000, "1" * 8000):
        with pytest.raises(QRError) as built:
            build_matrix(text)
        with pytest.raises(QRError) as sized:
            matrix_size(text)
        assert str(sized.value) == str(built.value)


async def test_a_code_drawn_later_takes_its_room_blank_and_draws_without_moving() -> None:
    app = QRApp(URI)
    later = QRApp(URI)
    async with app.run_test(size=(100, 40)) as pilot:
        drawn = app.query_one(QRView)
        drawn.styles.width = "auto"  # as on the dashboard: the code's width
        await pilot.pause()
        width, bitmap = drawn.content_region, Painted.of(app).bitmap()
        assert width.width < 100
    async with later.run_test(size=(100, 40)) as pilot:
        view = later.query_one(QRView)
        view.draw_later()
        view.styles.width = "auto"
        await pilot.pause()
        assert view.content_region == width  # the same room
        assert decode_bitmap(Painted.of(later).bitmap()) == []  # nothing to scan yet
        view.draw_now()
        await pilot.pause()
        assert view.content_region == width  # nothing moved
        assert Painted.of(later).bitmap() == bitmap
        assert decode_bitmap(Painted.of(later).bitmap()) == [URI]


def test_cells_needed_uses_half_blocks() -> None:
    assert cells_needed(_square(33), 1) == (33, 17)
    assert cells_needed(_square(33), 2) == (66, 33)
    assert cells_needed(_square(34), 1) == (34, 17)


@pytest.mark.parametrize(
    ("columns", "rows", "max_scale", "expected"),
    [
        (66, 33, 2, 2),
        (200, 200, 2, 2),
        (65, 33, 2, 1),
        (66, 32, 2, 1),
        (33, 17, 2, 1),
        (32, 17, 2, 0),
        (33, 16, 2, 0),
        (200, 200, 1, 1),
        (200, 200, 3, 3),
    ],
)
def test_best_scale(columns: int, rows: int, max_scale: int, expected: int) -> None:
    assert best_scale(_square(33), columns, rows, max_scale) == expected


@pytest.mark.parametrize("scale", [1, 2, 3])
def test_half_block_rows_are_module_exact(scale: int) -> None:
    matrix = build_matrix(LEGACY)
    rows = half_block_rows(matrix, scale)
    columns, text_rows = cells_needed(matrix, scale)
    assert len(rows) == text_rows
    assert all(len(row) == columns for row in rows)
    half_rows = [half for row in rows for half in zip(*row, strict=True)]
    if (matrix.size * scale) % 2:
        assert not any(half_rows.pop())  # the padding half-row is light
    rebuilt = [
        tuple(half_rows[y * scale][x * scale] for x in range(matrix.size))
        for y in range(matrix.size)
    ]
    assert tuple(rebuilt) == matrix.modules
    for y, half in enumerate(half_rows):
        for x, dark in enumerate(half):
            assert dark == matrix.modules[y // scale][x // scale]


def test_core_qr_does_not_import_textual_or_rich() -> None:
    code = (
        "import sys, orderdash.core.qr.matrix\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == ""


def test_caption_lines_fold_shorten_and_clean() -> None:
    assert caption_lines(TAPROOT, 30) == [TAPROOT[:30], TAPROOT[30:60], TAPROOT[60:]]
    assert caption_lines(LEGACY, 80) == [LEGACY]
    long = "a" * 50 + "MIDDLE" + "z" * 50
    lines = caption_lines(long, 10, 3)
    assert len(lines) == 3
    joined = "".join(lines)
    assert joined.startswith("aaaa") and joined.endswith("zzzz") and "\u2026" in joined
    assert caption_lines("a\x1bb\x9bc", 10) == ["a\ufffdb\ufffdc"]
    wide = caption_lines("\u6f22" * 100, 9, 3)
    assert len(wide) <= 3 and all(cell_len(line) <= 9 for line in wide)
    assert caption_lines("", 10) == [] and caption_lines(LEGACY, 0) == []


# -- the app under test ---------------------------------------------------------------------


class QRApp(App):
    def __init__(self, text: str, **options: object) -> None:
        super().__init__()
        self._text = text
        self._options = options

    def compose(self) -> ComposeResult:
        yield QRView(self._text, **self._options)


# -- scannability --------------------------------------------------------------------------

# Scale 2 needs 2*size columns and size+1 rows (the code plus one caption line).
EXPECTED_SCALE = {
    (80, 24): {LEGACY: 1, BECH32: 1, TAPROOT: 1, URI: 1},
    (100, 40): {LEGACY: 2, BECH32: 2, TAPROOT: 2, URI: 1},  # URI: 41 modules, 42 rows
    (160, 50): {LEGACY: 2, BECH32: 2, TAPROOT: 2, URI: 2},
}


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("size", list(EXPECTED_SCALE), ids="{0[0]}x{0[1]}".format)
@pytest.mark.parametrize(
    "content", [LEGACY, BECH32, TAPROOT, URI], ids=["legacy", "bech32", "taproot", "uri"]
)
async def test_the_painted_code_scans(theme: str, size: tuple[int, int], content: str) -> None:
    app = QRApp(content)
    async with app.run_test(size=size) as pilot:
        app.theme = theme
        await pilot.pause()
        view = app.query_one(QRView)
        screen = Painted.of(app)

        assert view.scale == EXPECTED_SCALE[size][content]
        assert view.encoded_text == content
        assert view.note == ""

        bitmap = screen.bitmap()
        assert decode_bitmap(bitmap) == [content]

        # Module-exact: the matrix appears once, each module scale x scale half-cells.
        matrix = matrix_for(content)
        hits = find_code(bitmap, matrix, view.scale)
        assert len(hits) == 1
        x, top = hits[0]
        assert top % 2 == 0  # the code starts on a cell boundary
        side = matrix.size * view.scale
        colours = {
            rgb(getattr(style, attribute), (-1, -1, -1))
            for row in screen.cells[top // 2 : (top + side + 1) // 2]
            for _, style in row[x : x + side]
            for attribute in ("color", "bgcolor")
        }
        assert colours <= {BLACK, WHITE}

        # Centred, and the caption under the code says what it encodes.
        width, _ = size
        assert abs(x - (width - side - x)) <= 1
        below = "".join(
            "".join(char for char, _ in row).strip()
            for row in screen.cells[(top + side + 1) // 2 :]
        )
        assert below == content


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_too_small_hides_the_code_with_a_note(theme: str) -> None:
    app = QRApp(BECH32)
    async with app.run_test(size=(30, 12)) as pilot:
        app.theme = theme
        await pilot.pause()
        view = app.query_one(QRView)
        screen = Painted.of(app)
        assert view.scale == 0
        assert view.encoded_text == ""
        assert view.note == ("QR hidden: needs 33x18 cells, have 30x12 - enlarge the terminal")
        flat = " ".join(screen.text.split())
        assert "QR hidden: needs 33x18 cells, have 30x12" in flat
        assert UPPER_HALF not in screen.text
        assert decode_bitmap(screen.bitmap()) == []
        # The caption still tells the user the address, folded to the width.
        assert BECH32[:30] in screen.text and BECH32[30:] in screen.text


async def test_resizing_changes_the_scale_and_keeps_it_scannable() -> None:
    app = QRApp(BECH32)
    async with app.run_test(size=(30, 12)) as pilot:
        await pilot.pause()
        view = app.query_one(QRView)
        assert view.scale == 0
        for size, scale in [((80, 24), 1), ((100, 40), 2), ((30, 12), 0)]:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            assert view.scale == scale
            assert decode_qr_on_screen(app) == ([BECH32] if scale else [])


async def test_setting_text_changes_the_code() -> None:
    app = QRApp(LEGACY)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        view = app.query_one(QRView)
        assert decode_qr_on_screen(app) == [LEGACY]
        view.text = URI
        await pilot.pause()
        assert view.encoded_text == URI and view.scale == 1
        assert decode_qr_on_screen(app) == [URI]


async def test_theme_switch_while_shown_keeps_pure_colours() -> None:
    app = QRApp(TAPROOT)
    async with app.run_test(size=(100, 40)) as pilot:
        app.theme = "textual-dark"
        await pilot.pause()
        view = app.query_one(QRView)
        dark_caption = Painted.of(app).cells[-2]
        app.theme = "textual-light"
        await pilot.pause()
        screen = Painted.of(app)
        assert decode_bitmap(screen.bitmap()) == [TAPROOT]
        light_caption = screen.cells[-2]
        # The caption follows the theme; the code does not.
        assert dark_caption[0][1].bgcolor != light_caption[0][1].bgcolor
        assert view.scale == 2


async def test_empty_text_shows_nothing_or_the_reason_it_is_given() -> None:
    from orderdash.tui.widgets.qr import EMPTY_NOTE

    app = QRApp("")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(QRView)
        assert view.scale == 0 and view.encoded_text == ""
        assert view.note == "" and Painted.of(app).text.strip() == ""
        view.placeholder = EMPTY_NOTE  # an order without an address
        await pilot.pause()
        assert view.note == EMPTY_NOTE
        assert EMPTY_NOTE in Painted.of(app).text


async def test_over_capacity_shows_the_error_and_keeps_running() -> None:
    too_long = "bitcoin:" + "q" * 2992
    app = QRApp(too_long)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(QRView)
        text = Painted.of(app).text
        assert view.scale == 0 and view.encoded_text == ""
        assert view.note == "too long for a QR code (3000 characters)"
        assert view.note in text
        assert "bitcoin:qqq" in text and "\u2026" in text  # caption shortened in the middle
        view.text = LEGACY
        await pilot.pause()
        assert app.is_running and view.scale == 1
        assert decode_qr_on_screen(app) == [LEGACY]


async def test_hostile_caption_is_shown_literally() -> None:
    app = QRApp(HOSTILE)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(QRView)
        screen = Painted.of(app)
        assert view.encoded_text == HOSTILE  # the code carries the exact bytes
        assert "ACME [/] [@click=app.quit]x[/] \ufffd[2J" in screen.text
        assert not any("\x1b" in char for row in screen.cells for char, _ in row)
        assert decode_bitmap(screen.bitmap(), zxingcpp.TextMode.Plain) == [HOSTILE]
        # Clicking where the "link" text is does nothing: it was never markup.
        caption_y = next(y for y, row in enumerate(screen.text.splitlines()) if "ACME" in row)
        caption_x = screen.text.splitlines()[caption_y].index("x[/]")
        await pilot.click(offset=(caption_x, caption_y))
        await pilot.pause()
        assert app.is_running
        assert "\x1b" not in app.export_screenshot()


async def test_no_caption_option_and_max_scale() -> None:
    app = QRApp(BECH32, caption=False, max_scale=1)
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        view = app.query_one(QRView)
        screen = Painted.of(app)
        assert view.scale == 1
        assert BECH32 not in screen.text
        assert decode_bitmap(screen.bitmap()) == [BECH32]


async def test_repaints_do_not_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    real_build = core_qr.build_matrix

    def counting_build(text: str, **options: object) -> QRMatrix:
        built.append(text)
        return real_build(text, **options)

    monkeypatch.setattr(core_qr, "build_matrix", counting_build)
    content = BECH32 + "?label=repaint-test"
    app = QRApp(content)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        view = app.query_one(QRView)
        first_line = view.render_line(5)
        for _ in range(3):
            view.refresh()
            await pilot.pause()
        assert view.render_line(5) is first_line
        assert built == [content]
