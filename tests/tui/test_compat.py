"""Each mend of `orderdash.tui.compat` (Textual 8.2.8), checked on its own.

The column widths (Textual issue #3533): a DataTable measures its columns on idle. When a frame
is drawn between a change and that idle (CI caught it on the watch list: "ACME [/]" for
"ACME [/] Corp"), Textual 8.2 keeps serving the lines it cached at the old widths. Each test
draws that frame on purpose, then checks the row as the screen shows it after the idle. The two
leaks are checked on the real app, the newest-first table against DataTable's own row order.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from rich.segment import Segment
from rich.text import Text
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from textual.widgets._toast import Toast, ToastHolder
from textual.widgets.data_table import RowKey

from conftest import BEARER, make_settings, serving, wait_until
from orderdash.simulator import DEMO_TOKENS, Simulator, SimulatorServer
from orderdash.tui import compat
from orderdash.tui.compat.newest_first_table import NewestFirstTable
from orderdash.tui.factory import make_app

LONG = "ACME [/] Corp"


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield DataTable()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("Company", key="company")
        table.add_column("Coin", key="coin")
        table.add_row(Text("Good Shop"), Text("BTC"), key="good")


def row_line(table: DataTable, row_key: str) -> str:
    """The row's line as the table renders it now (header is line 0)."""
    y = table.get_row_index(row_key) + 1
    return "".join(segment.text for segment in table.render_line(y))


@pytest.fixture(autouse=True)
def mended() -> None:
    compat.install()


async def test_a_longer_value_widens_its_column_even_after_a_frame_in_between() -> None:
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(DataTable)
        await pilot.pause()
        table.update_cell("good", "company", Text(LONG), update_width=True)
        assert LONG not in row_line(table, "good")  # the frame drawn before the idle
        await pilot.pause()
        assert f"{LONG}  BTC" in row_line(table, "good")


async def test_a_new_wider_row_widens_the_rows_drawn_before_it() -> None:
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(DataTable)
        await pilot.pause()
        table.add_row(Text(LONG), Text("LTC"), key="long")
        before = row_line(table, "good")
        await pilot.pause()
        after = row_line(table, "good")
        assert before.index("BTC") < after.index("BTC") == len(f" {LONG}  ")
        assert f"{LONG}  LTC" in row_line(table, "long")


async def test_install_wraps_once() -> None:
    measure = DataTable._update_column_widths
    compat.install()
    assert DataTable._update_column_widths is measure
    assert measure.__wrapped__.__name__ == "_update_column_widths"


# -- the two leaks (styles_cache, toast), mended on the real app ---------------------------


@pytest.fixture
def idle_server() -> Iterator[SimulatorServer]:
    with serving(SimulatorServer(Simulator(seed=7), bearer_token=BEARER)) as server:
        yield server


TOASTS_PER_ROUND = 15


def styles_caches() -> int:
    gc.collect()
    return sum(1 for obj in gc.get_objects() if isinstance(obj, StylesCache))


async def test_toasts_leave_no_styles_cache_behind(idle_server: SimulatorServer) -> None:
    """Rounds of toasts: the caches of the removed ones go with them (without the mend each
    round of 15 kept 15 more: 71, 86, 101). A few removed toasts stay referenced until
    Textual's next layout and their timers' end, each a Toast and a ToastHolder: how many
    depends on the machine's load (2 to 5 seen under a CPU burner, so two rounds' counts can
    differ by up to ~10). So rounds are compared, and growth of a round's worth is the leak."""
    app = make_app(make_settings(idle_server.base_url, poll_interval=5.0), token=DEMO_TOKENS[0])
    async with app.run_test(size=(140, 48), notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        counts = []
        for round_ in range(3):
            for n in range(TOASTS_PER_ROUND):
                app.notify(f"payment {round_}.{n}", timeout=0.3, markup=False)
                await pilot.pause(0.05)
            await wait_until(pilot, lambda: not app.screen.query(Toast), timeout=5)
            await pilot.pause(0.3)
            counts.append(styles_caches())
        assert counts[-1] - counts[0] < TOASTS_PER_ROUND, counts


async def test_dismissed_toasts_leave_no_empty_holder(idle_server: SimulatorServer) -> None:
    app = make_app(make_settings(idle_server.base_url, poll_interval=5.0), token=DEMO_TOKENS[0])
    async with app.run_test(size=(140, 48), notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        for n in range(5):
            app.notify(f"payment {n}", markup=False)
        await pilot.pause(0.2)
        app.clear_notifications()
        await pilot.pause(0.3)
        assert not app.screen.query(ToastHolder)


# -- newest_first_table --------------------------------------------------------------------------


class NewestFirstApp(App[None]):
    def compose(self) -> ComposeResult:
        yield NewestFirstTable()


def stock_order(table: NewestFirstTable) -> list[RowKey]:
    """The row order DataTable itself derives from its row locations (the overridden
    `ordered_rows` of Textual 8.2.8, run on our table)."""
    return [row.key for row in DataTable.ordered_rows.fget(table)]  # type: ignore[attr-defined]


async def test_newest_first_rows_agree_with_datatables_own_order() -> None:
    app = NewestFirstApp()
    async with app.run_test() as pilot:
        table = app.query_one(NewestFirstTable)
        table.add_column("n", key="n")
        keys = [table.add_row(Text(str(n)), key=str(n)) for n in (3, 2, 1)]
        table.place_rows(keys, on_top=False)
        assert table.adds_on_top
        # two payments arrive: each added row lands on top at once, no re-indexing
        new = [table.add_row(Text(str(n)), key=str(n)) for n in (4, 5)][::-1]
        table.place_rows(new + keys, on_top=True)
        await pilot.pause()
        expected = ["5", "4", "3", "2", "1"]
        assert [row.key.value for row in table.ordered_rows] == expected
        assert [key.value for key in stock_order(table)] == expected
        assert [table.get_row_index(str(n)) for n in range(5, 0, -1)] == [0, 1, 2, 3, 4]
        assert [k.value for k, _ in table._y_offsets] == expected
        # a removal re-indexes the rows the stock way: the next placing starts afresh
        table.remove_row("3")
        assert not table.adds_on_top
        rest = [RowKey(k) for k in ("5", "4", "2", "1")]
        table.place_rows(rest, on_top=False)
        assert [key.value for key in stock_order(table)] == ["5", "4", "2", "1"]


@contextmanager
def stock_rendering() -> Iterator[None]:
    """NewestFirstTable draws its lines the way DataTable itself does, for the time being."""
    mine = {name: NewestFirstTable.__dict__[name] for name in ("_render_cell", "_get_offsets")}
    for name in mine:
        setattr(NewestFirstTable, name, getattr(DataTable, name))
    try:
        yield
    finally:
        for name, method in mine.items():
            setattr(NewestFirstTable, name, method)


def drawn(table: DataTable) -> list[list[Segment]]:
    """Every line of the table, header first, as it draws it now: DataTable's caches are
    emptied, the texts a NewestFirstTable keeps for its cells are not."""
    DataTable._clear_caches(table)
    width = table.size.width
    height = table.header_height + table._total_row_height + 1  # and one past the end
    return [list(table._render_line(y, 0, width, table.rich_style)) for y in range(height)]


def assert_drawn_as_stock(table: DataTable) -> None:
    """Segment by segment (text, style and the row/column metadata a click reads)."""
    mine = drawn(table)
    with stock_rendering():
        stock = drawn(table)
    assert table._total_row_height == DataTable._total_row_height.fget(table)  # type: ignore[attr-defined]
    assert mine == stock


async def test_newest_first_cells_draw_as_datatable_draws_them() -> None:
    """The rendered text a cell keeps across changes is laid under the row's styles just as
    DataTable lays them (zebra, cursor, hover, header, the metadata of each cell)."""
    app = NewestFirstApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(NewestFirstTable)
        table.zebra_stripes = True
        table.add_column(Text("Shop"), key="shop")
        table.add_column(Text("Amount", justify="right"), key="amount")
        table.add_column("Mark", key="mark")
        table.add_column("n", key="n")
        cells: list[tuple[Any, ...]] = [
            (Text("Good [/] Shop", "bold"), Text("-0.0001", justify="right"), Text(""), 1),
            ("[b]markup[/b] kept", Text("12.5", "red", justify="right"), Text("\u25cf"), 2),
            (Text("third"), None, "", 3),
        ]
        keys = [table.add_row(*row, key=str(row[-1])) for row in cells][::-1]
        table.place_rows(keys, on_top=False)
        await pilot.pause()
        for cursor_type in ("row", "cell"):
            table.cursor_type = cursor_type
            table.cursor_coordinate = Coordinate(1, 1)
            table.hover_coordinate = Coordinate(2, 0)
            table._show_hover_cursor = True
            await pilot.pause()
            assert_drawn_as_stock(table)
        drawn(table)  # the cells' texts kept at their widths, then:
        table.update_cell("2", "amount", Text("13.5", "red", justify="right"))  # same width
        table.update_cell("1", "shop", Text("Good [/] Shop", "bold"))  # same text, new object
        await pilot.pause()
        assert "13.5" in "".join(segment.text for segment in drawn(table)[2])
        assert_drawn_as_stock(table)
        # a wider row on top: every column it widens is drawn wider on every row
        table.add_row(Text("a much longer shop name"), Text("-0.000123456789"), "", 4, key="4")
        table.place_rows([RowKey("4"), *keys], on_top=True)
        await pilot.pause()
        assert "a much longer shop name  " in "".join(s.text for s in drawn(table)[1])
        assert_drawn_as_stock(table)


# -- key names (key_names): Textual's answers without the Unicode name database ---------------


def bound_named_keys() -> set[str]:
    """Every key without a modifier and longer than one character bound by a widget, screen or
    app class of orderdash.tui, or by a Textual class they use or derive from."""
    import importlib
    import inspect
    import pkgutil

    from textual.binding import Binding
    from textual.dom import DOMNode

    import orderdash.tui

    keys: set[str] = set()
    for info in pkgutil.walk_packages(orderdash.tui.__path__, "orderdash.tui."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if not (inspect.isclass(value) and issubclass(value, DOMNode)):
                continue
            for cls in value.__mro__:
                for binding in cls.__dict__.get("BINDINGS", []):
                    key = binding.key if isinstance(binding, Binding) else binding[0]
                    keys.update(k.strip() for k in key.split(","))
    return {key for key in keys if len(key) > 1 and "+" not in key}


def test_the_key_tables_hold_textuals_answers_for_every_key_bound() -> None:
    import string

    import textual.app
    import textual.keys

    from orderdash.tui.compat import key_names

    bound = bound_named_keys()
    assert {"question_mark", "slash", "escape", "tab", "enter"} <= bound
    assert bound <= set(key_names.DISPLAYS), bound - set(key_names.DISPLAYS)
    assert set(key_names.DISPLAYS) == set(key_names.CHARACTERS)
    for key, shown in key_names.DISPLAYS.items():
        assert textual.keys.format_key(key) == shown, key
        assert textual.keys.key_to_character(key) == key_names.CHARACTERS[key], key
    # a key of one character: shown as Textual shows it, without the lookup
    for character in string.printable.strip() + "é€ß":
        assert textual.app.format_key(character) == textual.keys.format_key(character)
    # anything else still goes to Textual
    assert textual.app.format_key("f5") == textual.keys.format_key("f5") == "f5"
    assert textual.app.format_key("exclamation_mark") == "!"


async def test_the_first_paint_looks_up_no_key_name(
    idle_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's own key functions are cached per process: emptied here, so that the dashboard's
    first paint asks for every key it shows. Without the mend: 20 lookups (~0.9 MiB paged in)."""
    import unicodedata

    import textual.keys

    textual.keys.format_key.cache_clear()
    textual.keys.key_to_character.cache_clear()
    looked_up: list[str] = []
    lookup = unicodedata.lookup

    def counted(name: str) -> str:
        looked_up.append(name)
        return lookup(name)

    monkeypatch.setattr(unicodedata, "lookup", counted)
    app = make_app(make_settings(idle_server.base_url, poll_interval=5.0), token=DEMO_TOKENS[0])
    async with app.run_test(size=(140, 48)) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.pause()
        footer = app.screen.query_one("KeysFooter")
        lines = (footer.render_line(y) for y in range(footer.size.height))
        shown = "".join(segment.text for line in lines for segment in line)
    assert looked_up == []
    assert "?" in shown and "/" in shown  # question_mark and slash, as Textual shows them


# -- strip caches (strip_caches): made when first used -----------------------------------------


def test_strips_make_their_caches_when_first_used() -> None:
    """Textual makes seven caches with every strip; here a strip makes each when it first uses
    it, of the size Textual gives it, and a strip draws and cuts as before."""
    from textual.cache import FIFOCache
    from textual.strip import Strip

    from orderdash.tui.compat import strip_caches

    original = Strip.__new__(Strip)
    strip_caches._TEXTUAL_INIT(original, [Segment("x")])
    made = {name: getattr(original, name) for name in Strip.__slots__}
    caches = {name: c._maxsize for name, c in made.items() if isinstance(c, FIFOCache)}
    assert caches == strip_caches.CACHE_SIZES

    strip = Strip([Segment("hello "), Segment("world")])
    for name in strip_caches.CACHE_SIZES:
        with pytest.raises(AttributeError):
            object.__getattribute__(strip, name)  # not made yet
    assert strip.crop(2, 8).text == "llo wo"
    assert strip.crop(2, 8) is strip.crop(2, 8)  # cached, as Textual caches it
    assert strip._crop_cache._maxsize == 16
    assert [part.text for part in strip.divide([3, 11])] == ["hel", "lo world"]
    with pytest.raises(AttributeError):
        strip.no_such_attribute  # noqa: B018
