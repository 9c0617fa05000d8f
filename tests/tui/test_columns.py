"""What the watch list and the transactions table show is whole and true: a figure in a cell is
every digit, or rounded and marked "≈", or cut and marked "…", never silently cropped (a
cropped "0.12378" for 0.12378025 looks whole); the columns fit the width by priority; the list
title counts stale and failing orders; "stale since" is the last good fetch's time.

The screens are read as drawn (`render_line`), at 80x24, 100x30 and 120x40."""

from __future__ import annotations

import asyncio
import copy
import re
import time
from collections.abc import Iterator
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.widgets import DataTable

from conftest import make_settings, screen_text, wait_until
from orderdash.core.domain.columns import KEEP, ColumnSpec, fit_columns
from orderdash.core.domain.text import CUT, ROUNDED, amount_text, fit_amount, fit_money
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.simulator.state import Fault
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.transactions import TransactionsPane, TransactionsTable
from orderdash.tui.widgets.watch_list import COLUMN_SPECS, WatchListPane, WatchTable

SIZES = [(80, 24), (100, 30), (120, 40)]
#: The columns the list never drops: which order, its state, what to pay, its health.
NEVER_DROPPED = ("token", "status", "payment", "health")
#: Figures from the service's docs and the issue: more decimals than any column gives them.
LONG_AMOUNTS = ("0.000128701234567890123456", "41.66666667", "0.12378025")


# -- the one function every figure in a cell goes through --------------------------------------


@pytest.mark.parametrize(
    ("value", "width", "shown"),
    [
        ("0.12378025", 10, "0.12378025"),  # fits: every digit
        ("0.12378025", 7, "\u22480.1238"),  # the "0.12378": now rounded and marked
        ("41.66666667", 8, "\u224841.6667"),
        ("0.000128701234567890123456", 12, "\u22480.000128701"),
        ("-0.00010437", 11, "-0.00010437"),
        ("-0.00010437", 8, "\u2248-0.0001"),
        ("9.9999", 4, "\u224810"),  # the carry lengthens it: fewer decimals
        ("0.000128701234567890123456", 5, "0.00\u2026"),  # rounding would say 0: cut instead
        ("123456789", 6, "12345\u2026"),  # not even the whole number fits: cut
    ],
)
def test_fit_amount_keeps_every_digit_or_marks_what_it_dropped(
    value: str, width: int, shown: str
) -> None:
    assert fit_amount(Decimal(value), width) == shown


def test_fit_money_keeps_the_unit_and_groups_thousands() -> None:
    assert fit_money(Decimal("1234.5"), "EUR", 12, group=True) == "1,234.5 EUR"
    assert fit_money(Decimal("1234.56"), "EUR", 10, group=True) == "\u22481,235 EUR"
    assert fit_money(None, "EUR", 10) == "\u2014 EUR"


def _rounded_form(text: str) -> Decimal:
    return Decimal(text.removeprefix(ROUNDED).replace(",", ""))


@settings(max_examples=400, deadline=None)
@given(
    value=st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
        lambda d: abs(d) < Decimal("1e30") and d.as_tuple().exponent >= -30  # type: ignore[operator]
    ),
    width=st.integers(min_value=1, max_value=40),
    group=st.booleans(),
)
def test_a_fitted_figure_is_whole_rounded_or_cut_never_silently(
    value: Decimal, width: int, group: bool
) -> None:
    whole = amount_text(value, group=group)
    shown = fit_amount(value, width, group=group)
    assert cell_len(shown) <= width
    if shown == whole:
        return
    assert shown != whole[: len(shown)], "a strict prefix of the digits with no mark"
    if shown.startswith(ROUNDED):
        rounded = _rounded_form(shown)
        exponent = rounded.as_tuple().exponent
        assert isinstance(exponent, int)
        # as near as its decimals allow, and not zero for a non-zero value
        assert abs(rounded - value) <= Decimal(1).scaleb(exponent) / 2
        assert rounded != 0
    else:
        assert shown.endswith(CUT) and whole.startswith(shown[: -len(CUT)])


# -- which columns fit ----------------------------------------------------------------------------

SPECS = (
    ColumnSpec("token", "Token"),
    ColumnSpec("company", "Company", drop=3),
    ColumnSpec("created", "Created", drop=2),
    ColumnSpec("amount", "Amount", drop=1, min_width=8),
    ColumnSpec("payment", "Payment", min_width=10, max_width=20),
)
NATURAL = {"token": 15, "company": 18, "created": 3, "amount": 26, "payment": 30}


def test_columns_go_by_priority_and_the_kept_ones_never_go() -> None:
    def total(widths: dict[str, int]) -> int:
        return sum(w + 2 for w in widths.values())

    wide = fit_columns(SPECS, NATURAL, 200)
    assert wide == {**NATURAL, "created": 7}, "room: every column at its natural width"
    widths = fit_columns(SPECS, NATURAL, 80)
    assert list(widths) == ["token", "created", "amount", "payment"], "the company goes first"
    assert total(widths) <= 80
    narrow = fit_columns(SPECS, NATURAL, 40)
    assert set(narrow) == {"token", "payment"} and total(narrow) <= 40
    tiny = fit_columns(SPECS, NATURAL, 10)
    assert set(tiny) == {spec.key for spec in SPECS if spec.drop == KEEP}
    assert tiny["payment"] == 10, "shrunk to its minimum, never dropped"


# -- the screens --------------------------------------------------------------------------------


def list_app(server: SimulatorServer, tokens: list[str], **values: object) -> OrderDashApp:
    options = {"poll_interval": 0.3, "refresh_interval": 60.0, **values}
    return make_app(make_settings(server.base_url, **options), tokens=tokens)


def long_orders(server: SimulatorServer) -> list[str]:
    """Orders whose amounts have more decimals than a column gives them; one partly paid."""
    sim = server.sim
    tokens = [sim.create_order(coin="btc", amount=amount) for amount in LONG_AMOUNTS]
    sim.add_transaction(tokens[0], "0.00001")
    return tokens


def all_loaded(app: OrderDashApp) -> bool:
    return all(entry.fetched is not None for entry in app.state.entries.values())


def rendered_cells(table: DataTable) -> Iterator[tuple[str, str, str]]:
    """(row key, column key, text as drawn) of every cell on screen, read off the table's
    rendered lines at each column's place."""
    widths = [column.get_render_width(table) for column in table.ordered_columns]
    top = int(table.scroll_y)
    for y in range(1, table.size.height):
        row = top + y - 1
        if row >= table.row_count:
            break
        line = "".join(segment.text for segment in table.render_line(y))
        row_key = table.coordinate_to_cell_key((row, 0)).row_key.value
        x = 0
        for column, width in zip(table.ordered_columns, widths, strict=True):
            yield str(row_key), str(column.key.value), line[x : x + width].strip()
            x += width


def money_texts(app: OrderDashApp) -> set[str]:
    """Every figure of every watched order (coin and fiat, the order's and each payment's)."""
    texts = set()
    for entry in app.state.entries.values():
        order = entry.order
        if order is None:
            continue
        values = [order.amount, order.amount_fiat, order.exchange_rate]
        for tx in order.transactions:
            for amounts in (tx.amount, tx.amount_fiat):
                values += [amounts.base, amounts.total, amounts.under_paid, amounts.over_paid]
        if entry.payment is not None:
            send = entry.payment.send
            values += [entry.payment.due_coin, entry.payment.excess_coin]
            values += [send.amount if send is not None else None]
        for value in values:
            if value is not None:
                texts |= {amount_text(value), amount_text(value, group=True)}
    return texts


NUMBER = re.compile(r"(?<![\w.])[\u2248-]*\d[\d,.]*\u2026?(?!\w)")
#: The columns that hold figures: the list's and the transactions table's.
MONEY_COLUMNS = {"fiat", "amount", "payment"} | {
    f"{kind}_{name}" for kind in ("coin", "fiat") for name in ("base", "total", "under", "over")
}


def silently_cut(cell: str, money: set[str]) -> list[str]:
    """The figures in a drawn cell that are a strict prefix of a money value, unmarked."""
    found = []
    for number in NUMBER.findall(cell):
        if ROUNDED in number or number.endswith(CUT) or number in money:
            continue  # marked, or a whole figure of its own
        if any(
            m != number and m.startswith(number) and m[len(number)] in ".0123456789" for m in money
        ):
            found.append(number)
    return found


def transaction_money(table: TransactionsTable) -> set[str]:
    return {
        amount_text(value)
        for tx in table.transactions.values()
        for amounts in (tx.amount, tx.amount_fiat)
        for value in (amounts.base, amounts.total, amounts.under_paid, amounts.over_paid)
    }


def assert_whole_and_true(
    app: OrderDashApp, table: DataTable, money: set[str] | None = None
) -> None:
    """No drawn cell is cropped by the table, and none holds an unmarked cut figure."""
    money = money_texts(app) if money is None else money
    assert table.virtual_size.width <= table.size.width, "no column beyond the edge"
    for row_key, column, drawn in rendered_cells(table):
        cell = table.get_cell(row_key, column)
        text = getattr(cell, "plain", str(cell)).strip()
        assert drawn == text, f"{column} of {row_key} is cropped: {drawn!r} for {text!r}"
        if column in MONEY_COLUMNS:
            assert not silently_cut(drawn, money), f"{column} of {row_key}: {drawn!r}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_list_keeps_its_priority_columns_and_whole_figures(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    tokens = long_orders(sim_server)
    app = list_app(sim_server, [*tokens, *DEMO_TOKENS])
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        await pilot.pause()
        pane = app.dashboard.query_one(WatchListPane)
        table = pane.table
        assert set(NEVER_DROPPED) <= set(pane.columns)
        header = "".join(segment.text for segment in table.render_line(0))
        for label in ("Token", "Status", "Payment", "Health"):
            assert label in header
        if size[0] < 120:
            assert "company" not in pane.columns, "the company goes first"
        for row in range(table.row_count):  # every row, as it scrolls into view
            table.move_cursor(row=row)
            await pilot.pause()
            assert_whole_and_true(app, table)
        # the open order's payments: whole figures in the columns that fit
        transactions = app.dashboard.query_one(TransactionsTable)
        if transactions.size.height > 1:
            await wait_until(pilot, lambda: transactions.row_count == 1)
            await pilot.pause()
            assert {"new", "coin_base", "coin_under"} <= set(transactions.shown_columns)
            assert_whole_and_true(app, transactions)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_columns_follow_the_width_and_never_leave_a_cropped_cell(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    """Resized from wide to `size` and back: the columns fit each width."""
    tokens = long_orders(sim_server)
    app = list_app(sim_server, [*tokens, *DEMO_TOKENS[:3]])
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        pane = app.dashboard.query_one(WatchListPane)
        await wait_until(pilot, lambda: len(pane.columns) == len(COLUMN_SPECS))
        await pilot.resize_terminal(*size)
        await wait_until(pilot, lambda: len(pane.columns) < len(COLUMN_SPECS))
        await pilot.pause()
        assert_whole_and_true(app, pane.table)
        await pilot.resize_terminal(200, 50)
        await wait_until(pilot, lambda: len(pane.columns) == len(COLUMN_SPECS))


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    # 1 to 27 decimals, drawn directly (a filter on the exponent threw most draws away)
    amount=st.integers(min_value=1, max_value=27).flatmap(
        lambda places: st.decimals(
            min_value=Decimal(1).scaleb(-places),
            max_value=Decimal("99999"),
            places=places,
            allow_nan=False,
            allow_infinity=False,
        )
    ),
    paid=st.sampled_from([None, "0.00000001", "0.001"]),
    size=st.sampled_from(SIZES),
)
def test_no_drawn_cell_holds_a_strict_prefix_of_a_money_value(
    sim_server: SimulatorServer, amount: Decimal, paid: str | None, size: tuple[int, int]
) -> None:
    sim = sim_server.sim
    token = sim.create_order(coin="btc", amount=amount)
    if paid is not None and Decimal(paid) < amount:
        sim.add_transaction(token, paid)

    async def check() -> None:
        app = list_app(sim_server, [token, DEMO_TOKENS[0], DEMO_TOKENS[2]], persist_watchlist=False)
        async with app.run_test(size=size) as pilot:
            await wait_until(pilot, lambda: all_loaded(app))
            await pilot.pause()
            table = app.dashboard.query_one(WatchTable)
            table.move_cursor(row=table.get_row_index(token))
            await pilot.pause()
            assert_whole_and_true(app, table)

    asyncio.run(check())


# -- stale and failing ------------------------------------------------------------------------


async def test_an_outage_counts_stale_and_failing_orders_in_the_title(
    sim_server: SimulatorServer,
) -> None:
    sim = sim_server.sim
    app = list_app(sim_server, list(DEMO_TOKENS[:4]))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        pane = app.dashboard.query_one(WatchListPane)
        assert "stale" not in str(pane.border_title)
        sim.add_fault(Fault(status=503))
        app.session.watch(["no-such-order"], save=False)  # never answered: failing
        for token in DEMO_TOKENS[:4]:
            app.watcher.refresh_now(token)
        await wait_until(
            pilot,
            lambda: str(pane.border_title).startswith("Watching 5 \u00b7 4 stale \u00b7 1 failing"),
            timeout=10,
        )
        title = next(line for line in screen_text(app).splitlines() if "Watching 5" in line)
        assert "4 stale" in title and "1 failing" in title, "on screen, not cut off"
        sim.clear_faults()
        for token in DEMO_TOKENS[:4]:
            app.watcher.refresh_now(token)
        await wait_until(pilot, lambda: "stale" not in str(pane.border_title), timeout=10)


async def test_stale_since_is_the_time_of_the_last_good_fetch(
    sim_server: SimulatorServer,
) -> None:
    """An order opened from the list shows what was fetched before: when its reads fail,
    "stale since" is that fetch's time, not the moment it was opened."""
    sim = sim_server.sim
    now = [time.time()]
    settings_ = make_settings(sim_server.base_url, poll_interval=0.3, refresh_interval=60.0)
    opened, other = DEMO_TOKENS[0], DEMO_TOKENS[1]
    app = make_app(settings_, tokens=[opened, other], clock=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        fetched = app.state.entries[other].fetched
        assert fetched is not None
        sim.add_fault(Fault(status=503))
        now[0] += 600  # ten minutes on: what the list holds of `other` is that old
        await pilot.press("slash")
        app.dashboard.query_one("#token-input").value = other
        await pilot.press("enter")
        detail = app.dashboard.query_one(OrderDetail)
        await wait_until(pilot, lambda: detail.stale_since is not None)
        assert detail.stale_since == fetched.received_at
        since = time.strftime("%H:%M:%S", time.localtime(fetched.received_at))
        assert f"STALE since {since}" in screen_text(app)
        assert f"stale since {since}" in screen_text(app)


def header_line(table: DataTable) -> str:
    return "".join(segment.text for segment in table.render_line(0))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_an_error_text_never_widens_a_column(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    """A mistyped token's 404 text once widened the Company column for good: Status and
    Payment left the screen and stayed gone after the row was removed."""
    app = list_app(sim_server, list(DEMO_TOKENS[:4]))
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        await pilot.pause()
        table = app.dashboard.query_one(WatchTable)
        before = header_line(table)
        mistyped = "demo-eth-uds"  # as long as the others: its 404 text is what is long
        app.session.watch([mistyped], save=False)
        await wait_until(pilot, lambda: app.state.entries[mistyped].health == "error")
        await pilot.pause()
        assert header_line(table) == before, "the columns stay as they were"
        assert_whole_and_true(app, table)
        error = next(
            text
            for key, column, text in rendered_cells(table)
            if key == mistyped and column == "payment"
        )
        assert error.startswith("no order with token") and error.endswith(CUT)
        app.session.unwatch(mistyped)
        await pilot.pause()
        assert header_line(table) == before


async def test_the_sort_reverses_from_the_keyboard_and_the_header_says_which_way(
    sim_server: SimulatorServer,
) -> None:
    app = list_app(sim_server, list(DEMO_TOKENS))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        table = app.dashboard.query_one(WatchTable)
        table.focus()
        app.dashboard.query_one(WatchListPane).sort_by("token")  # (the list opens newest first)
        await pilot.pause()

        def tokens() -> list[str]:
            return [
                table.coordinate_to_cell_key((row, 0)).row_key.value
                for row in range(table.row_count)
            ]

        assert tokens() == sorted(DEMO_TOKENS) and "Token \u25b2" in header_line(table)
        await pilot.press("S")
        assert tokens() == sorted(DEMO_TOKENS, reverse=True)
        assert "Token \u25bc" in header_line(table) and "\u25b2" not in header_line(table)
        await pilot.press("S")
        assert tokens() == sorted(DEMO_TOKENS) and "Token \u25b2" in header_line(table)
        await pilot.press("s")  # the next column: its own mark, the token's goes
        assert "Token \u25b2" not in header_line(table)
        assert header_line(table).count("\u25b2") == 1


async def test_a_long_amount_gone_gives_its_columns_back() -> None:
    """The transactions table drops what does not fit whole, and takes it back when the long
    figure goes (DataTable alone never narrows a column)."""
    from support.transactions_pane import PaneApp, parsed, wire

    wires = [wire(100 + i, i) for i in range(3)]
    app = PaneApp()
    async with app.run_test(size=(110, 20)) as pilot:
        pane = app.query_one(TransactionsPane)
        pane.show(parsed(wires), (), "BTC", "EUR")
        await pilot.pause()
        table = pane.table
        before = table.shown_columns
        assert "coin_total" in before and "fiat_over" not in before
        assert_whole_and_true(app, table, transaction_money(table))  # type: ignore[arg-type]
        longer = copy.deepcopy(wires)
        longer[1]["amount"]["underPaid"] = "-0.000123456789012345678901234567"
        pane.show(parsed(longer), (), "BTC", "EUR")
        await pilot.pause()
        assert "coin_under" in table.shown_columns, "what is still due stays, whole"
        assert "-0.000123456789012345678901234567" in "\n".join(
            text for _, column, text in rendered_cells(table) if column == "coin_under"
        )
        assert len(table.shown_columns) < len(before), "others made room"
        assert_whole_and_true(app, table, transaction_money(table))  # type: ignore[arg-type]
        pane.show(parsed(wires), (), "BTC", "EUR")
        await pilot.pause()
        assert table.shown_columns == before
