"""Issue 20: what you see is whole and true, and the keys act on what you see. Each case at
80x24, 100x30 and 120x40, driven by Pilot against the simulator on loopback."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from test_watch_list_pane import all_loaded, list_app, shown
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widgets import Static

from conftest import screen_text, wait_until
from orderdash.core.domain.units import sendable
from orderdash.core.model.errors import InvalidToken
from orderdash.core.service.tokens import operator_token
from orderdash.simulator import DEMO_TOKENS, SimulatorServer
from orderdash.tui import desktop
from orderdash.tui.app import OrderDashApp
from orderdash.tui.screens.confirm import ConfirmScreen
from orderdash.tui.screens.help import HelpScreen
from orderdash.tui.screens.link import LinkScreen
from orderdash.tui.widgets.keys_footer import KeysFooter
from orderdash.tui.widgets.order_detail import OrderDetail
from orderdash.tui.widgets.status_line import StatusLine
from orderdash.tui.widgets.transactions import TransactionsPane, TransactionsTable
from orderdash.tui.widgets.watch_list import WatchListPane, WatchTable
from support.scenes import scene, scene_app

SIZES = [(80, 24), (100, 30), (120, 40)]
OPEN, OTHER, PAID, EXPIRED = DEMO_TOKENS[0], DEMO_TOKENS[1], DEMO_TOKENS[2], DEMO_TOKENS[3]


def notices(app: OrderDashApp) -> list[str]:
    return [notification.message for notification in app._notifications]


def token_error(app: OrderDashApp) -> str:
    return str(app.dashboard.query_one("#token-error", Static).content)


def footer(app: OrderDashApp) -> str:
    return screen_text(app).splitlines()[-1]


def no_desktop(monkeypatch: pytest.MonkeyPatch, path: str = "") -> None:
    """No display, no browser, no clipboard tool on the PATH."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "SSH_CONNECTION", "SSH_TTY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", path)


@pytest.mark.parametrize("size", SIZES)
async def test_the_footer_shows_help_and_quit_at_every_width(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    app = list_app(sim_server, [OPEN, OTHER])
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        line = footer(app)
        assert "? Help" in line and "q Quit" in line, line
        assert line.rstrip().endswith("^p palette"), line
        app.dashboard.query_one(WatchTable).focus()  # other keys in focus: still both
        await pilot.pause()
        await pilot.pause()
        line = footer(app)
        assert "? Help" in line and "q Quit" in line, line
        # what the footer leaves out is in the command palette too
        assert "i Details" not in line
        await pilot.press("ctrl+p", *"Order details")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.dashboard.query_one(OrderDetail).details)


async def test_the_close_of_day_keeps_its_keys_and_its_longest_amount_whole_at_80x24() -> None:
    chosen = scene("close-day-80x24")  # the account's day, with an 18-decimal ETH sum
    with scene_app(chosen) as app:
        async with app.run_test(size=(80, 24)) as pilot:
            await chosen.settle(pilot)
            await pilot.pause()
            app.screen.query_one(KeysFooter)  # the footer that keeps `?` whole at any width
            line = footer(app)
            for key in ("? Help", "q Quit", "esc Back", "c Close day", "Day before", "Day after"):
                assert key in line, line
            assert line.rstrip().endswith("^p palette"), line
            received = app.screen.result.report["received"]  # type: ignore[attr-defined]
            assert screen_text(app).count("not closed yet") == 2, "in the title and the report"
            # the sales' headline comes first: the sums are further down the report
            report = app.screen.query_one("#close-lines", Static)
            rows = report.render_lines(Region(0, 0, report.size.width, report.size.height))
            top = next(i for i, row in enumerate(rows) if row.text.strip() == "Received in coin")
            app.screen.query_one("#close-report", VerticalScroll).scroll_to(y=top, animate=False)
            await pilot.pause()
            text = screen_text(app)
            lines = text.splitlines()
            longest = max((r["amount"] for k in received.values() for r in k.values()), key=len)
            assert len(longest.split(".")[1]) == 18 and longest in text, longest
            ends = set()  # every sum whole, right-aligned in one column
            for unit, row in [(u, r) for k in received.values() for u, r in k.items()]:
                amount = row["amount"]
                shown = next(li for li in lines if li.split()[:2] == [unit, amount])
                ends.add(shown.index(amount) + len(amount))
            assert len(ends) == 1, ends
            assert "Received in coin" in text and "Received in fiat" in text


async def test_a_click_on_a_footer_key_presses_it_and_the_mouse_over_it_explains_it(
    sim_server: SimulatorServer,
) -> None:
    app = list_app(sim_server, [OPEN])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        keys = app.dashboard.query_one(KeysFooter)
        line = footer(app)
        await pilot.hover(KeysFooter, offset=(line.index("q Quit") + 2, 0))
        assert keys.tooltip == "Quit orderdash"
        await pilot.click(KeysFooter, offset=(line.index("? Help") + 3, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))


@pytest.mark.parametrize("size", SIZES)
async def test_d_removes_the_highlighted_row_not_the_open_order_and_u_undoes(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    app = list_app(sim_server, [OPEN, OTHER, PAID])
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        table = app.dashboard.query_one(WatchTable)
        assert str(table.get_cell(OPEN, "alert")) == "\u25b6", "the open order is marked"
        assert str(table.get_cell(OTHER, "alert")) == ""
        await pilot.press("g")  # the documented key: the list, on the open order's row
        assert app.focused is table and app.dashboard.target_token() == OPEN
        rows = shown(app)
        await pilot.press("down" if rows.index(OPEN) < len(rows) - 1 else "up")
        highlighted = app.dashboard.target_token()
        assert highlighted not in (None, OPEN)
        await pilot.press("d")
        assert highlighted not in app.state.entries and OPEN in app.state.entries
        assert app.state.token == OPEN
        assert f"Removed {highlighted} \u00b7 u to undo" in notices(app)
        await pilot.press("u")
        assert highlighted in app.state.entries and highlighted in shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_d_outside_the_list_removes_the_open_order_and_leaves_no_countdown(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    app = list_app(sim_server, [OTHER, PAID], poll_interval=0.2)
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        await pilot.press("slash", *"no-such-order", "enter")  # the open order: an error
        status = app.dashboard.query_one(StatusLine)
        await wait_until(pilot, lambda: "retrying" in str(status.render()))
        # by token, the open order is not row one (newest first, a token with no answer is)
        app.dashboard.query_one(WatchListPane).sort_by("token")
        first_row = shown(app)[0]
        await pilot.press("d")  # the focus is on the panes: the open order goes, not row one
        assert "no-such-order" not in app.state.entries and first_row in app.state.entries
        assert "Removed no-such-order \u00b7 u to undo" in notices(app)
        await pilot.pause(0.5)
        assert "retrying" not in str(status.render()) and app.state.token is None
        assert "no order loaded" in str(status.render())


@pytest.mark.parametrize("size", SIZES)
async def test_a_token_not_found_is_not_saved_unless_the_operator_insists(
    sim_server: SimulatorServer, tmp_path: Path, size: tuple[int, int]
) -> None:
    path = tmp_path / "watchlist.json"
    app = list_app(
        sim_server, [OPEN], persist_watchlist=True, watchlist_file=str(path), poll_interval=0.2
    )

    def saved() -> list[str]:
        return json.loads(path.read_text())["tokens"] if path.exists() else []

    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_until(pilot, lambda: saved() == [OPEN])  # saved after its first answer
        await pilot.press("slash", *"demo-eth-uds", "enter")
        await wait_until(pilot, lambda: "demo-eth-uds" in app.state.not_found)
        assert "not saved: Enter again to keep it" in token_error(app)
        await pilot.pause(0.5)
        assert saved() == [OPEN], "a mistyped token is not saved"
        await pilot.press("slash", *OTHER, "enter")  # moving on drops it
        await wait_until(pilot, lambda: saved() == [OPEN, OTHER])
        assert "demo-eth-uds" not in app.state.entries
        assert "demo-eth-uds" not in app.watcher.tokens
        # the operator insists: given again, then Enter once more on it
        await pilot.press("slash", *"demo-eth-uds", "enter")
        await wait_until(pilot, lambda: "demo-eth-uds" in saved())
        await pilot.press("slash", *"typo-two", "enter")
        await wait_until(pilot, lambda: "typo-two" in app.state.not_found)
        await pilot.press("slash", "enter")
        await wait_until(pilot, lambda: "typo-two" in saved())


@pytest.mark.parametrize("size", SIZES)
async def test_a_pasted_payment_link_is_reduced_to_its_token(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    app = list_app(sim_server, [])
    async with app.run_test(size=size, notifications=True) as pilot:
        bar = app.dashboard.query_one("#token-input")
        bar.focus()
        bar.value = f"https://pay.example/order/{OTHER}"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.state.order is not None)
        assert app.state.token == OTHER and bar.value == OTHER
        bar.focus()
        bar.value = "https://pay.example/order/xyz!!"
        await pilot.press("enter")
        assert "'xyz!!' is not an order token" in token_error(app)
        assert list(app.state.entries) == [OTHER]
        app.session.add_from_text(f"https://pay.example/invoice?token={PAID}\nhttps://x.example/a")
        assert list(app.state.entries) == [OTHER, PAID]
        await pilot.pause()
        assert any("1 refused" in text for text in notices(app))


@pytest.mark.parametrize(
    ("given", "token"),
    [
        ("https://pay.example/order/token1", "token1"),
        ("https://pay.example/invoice?token=2334232323233232323", "2334232323233232323"),
        ("pay.example/order/demo-btc-eur/", "demo-btc-eur"),
        ("http://127.0.0.1:8765/orders/api/abc_1/rates", "abc_1"),
    ],
)
def test_links_give_their_token(given: str, token: str) -> None:
    assert operator_token(given) == token


@pytest.mark.parametrize(
    "given",
    ["https://pay.example/order/xyz!!", "https://pay.example/help", "a'b", "xyz!!"],
)
def test_what_is_no_token_is_refused_in_one_line(given: str) -> None:
    with pytest.raises(InvalidToken) as refused:
        operator_token(given)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("size", SIZES)
async def test_y_copies_the_sendable_figure_and_says_where_it_went(
    sim_server: SimulatorServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    token = sim_server.sim.create_order(
        token="till-43", coin="btc", amount="0.000128701234567890123456"
    )
    no_desktop(monkeypatch)
    app = list_app(sim_server, [token, OTHER])
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        await pilot.press("y")
        assert app.clipboard == "0.00012871", "the amount due rounded up to the satoshi"
        assert any("sent to the terminal's clipboard (OSC 52)" in n for n in notices(app))
        assert not any("copied" in n for n in notices(app))
        # the list's highlighted row: the other order's amount due, not the open one's
        await pilot.press("g", "down" if shown(app).index(token) == 0 else "up")
        other = app.state.entries[OTHER].payment
        assert other is not None and other.due_coin is not None
        await pilot.press("y")
        send = sendable(other.coin, other.due_coin)
        assert app.clipboard == (send.text if send else str(other.due_coin))
        assert app.clipboard != str(app.state.entries[OTHER].order.amount)

    # a clipboard tool here: it takes the text, and only then is it "copied"
    bin_dir, out = tmp_path / "bin", tmp_path / "clipboard.txt"
    bin_dir.mkdir()
    tool = bin_dir / "xclip"
    tool.write_text(f'#!/bin/sh\ncat > "{out}"\n')
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    no_desktop(monkeypatch, path=f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.setenv("DISPLAY", ":99")
    app = list_app(sim_server, [token])
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        await pilot.press("y")
        await wait_until(pilot, lambda: any("copied" in n for n in notices(app)))
        assert out.read_text() == "0.00012871"
        assert "Amount due copied: 0.00012871 BTC" in notices(app)[-1]


@pytest.mark.parametrize("size", SIZES)
async def test_c_on_a_final_order_asks_first(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    no_desktop(monkeypatch)
    app = list_app(sim_server, [EXPIRED, OPEN])
    address = sim_server.sim.order_wire(EXPIRED, with_qr=False)["address"]
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_until(pilot, lambda: all_loaded(app))
        await pilot.press("c")
        assert isinstance(app.screen, ConfirmScreen)
        assert "expired" in screen_text(app)
        await pilot.press("n")
        assert app.clipboard != address
        await pilot.press("c", "y")
        assert app.clipboard == address
        # an open order's address is copied at once
        await pilot.press("slash", *OPEN, "enter")
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("c")
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.clipboard == sim_server.sim.order_wire(OPEN, with_qr=False)["address"]


@pytest.mark.parametrize("size", SIZES)
async def test_o_without_a_browser_shows_the_link(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    no_desktop(monkeypatch)
    app = list_app(sim_server, [OPEN])
    url = sim_server.sim.order_wire(OPEN, with_qr=False)["transactions"][0]["hashUrl"]
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.dashboard.query_one(TransactionsTable).row_count)
        await pilot.press("o")
        assert isinstance(app.screen, LinkScreen) and app.screen.url == url
        await pilot.pause()
        assert str(app.screen.query_one("#link-url", Static).content) == url
        assert url[:40] in screen_text(app), "whole, wrapped in the dialog, never cut"
        await pilot.press("escape")
        # a browser is named, but none takes the link: shown as well
        monkeypatch.setenv("BROWSER", "no-such-browser")
        # (the opener, a Python of its own, says no browser took it)
        monkeypatch.setattr(desktop, "_OPEN_IN_BROWSER", "raise SystemExit(1)")
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, LinkScreen))


@pytest.mark.parametrize("size", SIZES)
async def test_the_transaction_line_starts_on_the_newest_payment(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    sim = sim_server.sim
    newest = sim.add_transaction(OPEN, "0.00001")["id"]
    assert len(sim.order_wire(OPEN, with_qr=False)["transactions"]) >= 2
    app = list_app(sim_server, [OPEN])
    async with app.run_test(size=size) as pilot:
        pane = app.dashboard.query_one(TransactionsPane)
        await wait_until(pilot, lambda: pane.table.row_count >= 2)
        assert pane.table.selected().id == newest
        assert f"#{newest}" in str(pane.query_one("#tx-detail", Static).content)


@pytest.mark.parametrize("size", SIZES)
async def test_the_order_pane_speaks_words_and_i_shows_the_raw_fields(
    sim_server: SimulatorServer, size: tuple[int, int]
) -> None:
    app = list_app(sim_server, [OPEN])
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        detail = app.dashboard.query_one(OrderDetail)

        def pane_text() -> str:
            return detail.text(200)

        for raw in ("expirationTime", "createdAtMiliseconds", "underPaid", "[IN_PROGRESS]"):
            assert raw not in pane_text(), raw
        assert "still due" in pane_text()
        await pilot.press("i")
        await wait_until(pilot, lambda: "createdAtMiliseconds" in pane_text())
        assert "expirationTime" in pane_text() and "details" in str(detail.border_title)
        await pilot.press("i")
        await wait_until(pilot, lambda: "expirationTime" not in pane_text())
