"""The books in the dashboard, driven by Pilot against the simulator over loopback: `Z` shows a
day's report (the simulator's 25-hour day in Berlin, every exception kind, sums checked against
the test's own), closes it only after a yes and then shows the digest `orderdash close` gives
back; without a book it shows the dry run and says so; a failed read closes nothing. `e`
writes exactly the list's rows as shown, a formula-like company name neutralised."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
import os
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import NoReturn

import pytest
from pydantic import SecretStr
from textual.worker import WorkerState

from conftest import make_settings, screen_text, wait_until
from orderdash.cli import main
from orderdash.core.books.export import ORDER_COLUMNS
from orderdash.core.model.errors import ConfigError
from orderdash.core.polling.refresh import Kind
from orderdash.core.usecases.reads import BookOpener
from orderdash.simulator import Fault, Simulator, SimulatorServer
from orderdash.tui import export as tui_export
from orderdash.tui.app import OrderDashApp
from orderdash.tui.factory import make_app
from orderdash.tui.screens.close_day import CloseDayScreen
from orderdash.tui.screens.confirm import ConfirmScreen
from orderdash.tui.widgets.watch_list import WatchListPane
from support.books_scene import ACCESS, BERLIN, NOW, own_sums
from support.books_scene import scene as _scene
from support.ledger_file import LedgerFile

SIZE = (120, 50)


@pytest.fixture(scope="module")
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=11, clock=lambda: NOW, with_demo_orders=False)
    sim.scene = _scene(sim)  # type: ignore[attr-defined]
    with SimulatorServer(sim, access_token=ACCESS, history_page_cap=7) as server:
        yield server


@pytest.fixture
def book(tmp_path: Path) -> LedgerFile:
    return LedgerFile(tmp_path / "ledger.sqlite3")


def books_app(
    server: SimulatorServer, open_book: BookOpener, tokens: tuple[str, ...] = ()
) -> OrderDashApp:
    settings = make_settings(
        server.base_url,
        bearer=None,
        access_token=SecretStr(ACCESS),
        customer_id="4711",
        timezone="Europe/Berlin",
        poll_interval=30.0,
        refresh_interval=60.0,
    )
    return make_app(settings, tokens=tokens, clock=lambda: NOW, open_book=open_book)


async def open_day_before(app: OrderDashApp, pilot) -> CloseDayScreen:  # noqa: ANN001 - Pilot
    """`Z`, today's dry run, then the day before (2026-10-25): shown, not closed."""
    await pilot.press("escape", "Z")  # (from the table: the empty token input would take the Z)
    await wait_until(pilot, lambda: isinstance(app.screen, CloseDayScreen))
    screen = app.screen
    assert isinstance(screen, CloseDayScreen)
    await wait_until(pilot, lambda: screen.result is not None, timeout=10)
    assert screen.day.isoformat() == "2026-10-26"  # the store's today (10:00 in Berlin)
    assert screen.check_action("day", (1,)) is None  # no day after today: dimmed, inert
    await pilot.press("right")
    assert screen.day.isoformat() == "2026-10-26" and not screen.reading
    await pilot.press("left")
    await wait_until(
        pilot,
        lambda: (
            screen.result is not None
            and screen.result.report["period"]["from"].startswith("2026-10-25")
        ),
        timeout=10,
    )
    assert screen.check_action("day", (1,)) is True
    return screen


async def test_z_shows_the_days_report_and_closes_it_after_a_yes_as_the_command_does(
    server: SimulatorServer, book: LedgerFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    sim, scene = server.sim, server.sim.scene  # type: ignore[attr-defined]
    app = books_app(server, book.open)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_day_before(app, pilot)
        report = screen.result.report
        assert not screen.closed and not book.saved()
        # every getOrder so far, the watcher's and the close's, in the dashboard's one budget
        order_budget = app.watcher.scheduler.budgets[Kind.ORDER]
        reads = [r for r in sim.requests if r["endpoint"] == "order"]
        assert len(reads) >= 10 and order_budget.count(time.monotonic(), 3600) >= len(reads)
        received = {
            kind: {unit: Decimal(row["amount"]) for unit, row in report["received"][kind].items()}
            for kind in ("coins", "fiat")
        }
        assert received == own_sums(sim, BERLIN, "2026-10-25")
        text = screen_text(app)
        assert "2026-10-25" in text and "not closed yet" in text and "Digest" not in text
        for kind in ("coins", "fiat"):
            for unit, row in report["received"][kind].items():
                assert f"{unit}" in text and row["amount"] in text  # whole, as the report says
        assert {(e["kind"], e["order"]) for e in report["exceptions"]} == {
            ("underpaid", scene["under"]),
            ("overpaid", scene["over"]),
            ("paid_after_expiry", scene["late"]),
            ("expired_with_payment", scene["exp_paid"]),
            ("unconfirmed", scene["unconf"]),
        }
        for words in ("underpaid", "overpaid", "paid after expiry", "shortfall", "excess"):
            assert words in text
        # no: nothing closed
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen)
        await pilot.pause()
        assert not book.saved() and "Not closed." in screen_text(app)
        # yes: closed, frozen, its digest on screen
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: screen.closed and not screen.reading, timeout=10)
        assert len(book.saved()) == 1
        closed = screen.result.report
        assert f"Digest: {closed['digest']}" in screen_text(app)
        assert received == own_sums(sim, BERLIN, "2026-10-25")
        # `c` again: closed already, nothing new
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen) and len(book.saved()) == 1
        # the day after and back: the closed day comes from the book as it was closed
        await pilot.press("right")
        await wait_until(pilot, lambda: screen.day.isoformat() == "2026-10-26" and screen.result)
        await pilot.press("left")
        await wait_until(pilot, lambda: screen.closed and not screen.reading, timeout=10)
        assert screen.result.report == closed and "Closed earlier" in screen_text(app)
    # the command's close of the same period and book gives back the same report and digest
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    code = await asyncio.to_thread(
        main,
        ["close", "--day", "2026-10-25", "--tz", "Europe/Berlin", "--json"],
        open_book=book.open,
    )
    assert code == 0
    assert json.loads(out.getvalue()) == closed


async def test_without_a_book_the_dry_run_shows_and_says_so(
    server: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_book(settings: object) -> NoReturn:
        raise ConfigError("this orderdash has no ledger storage to keep the books in")

    app = books_app(server, no_book)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_day_before(app, pilot)
        text = screen_text(app)
        assert "No book: this orderdash has no ledger storage" in text
        assert "not closed yet" in text and "Orders: 10" in text
        for kind in ("coins", "fiat"):  # at 80x24 too, every figure whole
            for row in screen.result.report["received"][kind].values():
                assert row["amount"] in text
        await pilot.press("c")
        await pilot.pause()
        assert app.screen is screen and not screen.closed
        assert "Nothing can be closed without the book" in screen_text(app)


async def test_while_it_reads_one_line_says_how_far(
    server: SimulatorServer, book: LedgerFile
) -> None:
    sim = server.sim
    app = books_app(server, book.open)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        sim.add_fault(Fault(endpoint="order", delay=0.3))  # slow reads: the line is seen
        try:
            await pilot.press("Z")
            await wait_until(pilot, lambda: isinstance(app.screen, CloseDayScreen))
            await wait_until(pilot, lambda: "orders\u2026" in screen_text(app), timeout=10)
            line = next(li for li in screen_text(app).splitlines() if "orders\u2026" in li)
            assert line.split()[0] == "Reading" and line.split()[2] == "of", line
        finally:
            sim.clear_faults()
        screen = app.screen
        assert isinstance(screen, CloseDayScreen)
        await wait_until(pilot, lambda: screen.result is not None, timeout=10)
        assert "orders\u2026" not in screen_text(app)


async def test_leaving_z_while_it_reads_cancels_the_read_quietly(
    server: SimulatorServer, book: LedgerFile, caplog: pytest.LogCaptureFixture
) -> None:
    sim = server.sim
    app = books_app(server, book.open)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("escape")
        sim.add_fault(Fault(endpoint="order", delay=0.5))  # the reads are in flight when left
        try:
            with caplog.at_level(logging.WARNING, logger="orderdash"):
                await pilot.press("Z")
                await wait_until(pilot, lambda: isinstance(app.screen, CloseDayScreen))
                screen = app.screen
                await wait_until(pilot, lambda: "orders\u2026" in screen_text(app), timeout=10)
                (worker,) = [w for w in app.workers if w.group == "close-day"]
                await pilot.press("escape")
                await wait_until(pilot, lambda: not isinstance(app.screen, CloseDayScreen))
                await wait_until(pilot, lambda: worker.is_finished, timeout=5)
                await pilot.pause(0.2)
        finally:
            sim.clear_faults()
        assert worker.state == WorkerState.CANCELLED
        assert isinstance(worker.error, asyncio.CancelledError)  # cancelled, nothing else
        assert not screen.is_attached
        assert not [n for n in app._notifications if n.severity == "error"]
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING], [
            r.getMessage() for r in caplog.records
        ]


async def test_a_close_under_way_is_seen_through_before_leaving_or_moving(
    server: SimulatorServer, book: LedgerFile
) -> None:
    sim = server.sim
    app = books_app(server, book.open)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_day_before(app, pilot)
        # the orders still moving are read again by the close: slowly enough to be seen
        # under way on a busy machine
        sim.add_fault(Fault(endpoint="order", delay=1.5))
        try:
            await pilot.press("c")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await wait_until(pilot, lambda: screen.reading)
            await pilot.press("escape", "right", "r")
            assert app.screen is screen and screen.day.isoformat() == "2026-10-25"
            assert "Closing the day: its outcome first." in screen_text(app)
        finally:
            sim.clear_faults()
        await wait_until(pilot, lambda: screen.closed and not screen.reading, timeout=10)
        assert len(book.saved()) == 1


async def test_a_failed_read_is_one_line_and_closes_nothing(
    server: SimulatorServer, book: LedgerFile
) -> None:
    sim, scene = server.sim, server.sim.scene  # type: ignore[attr-defined]
    app = books_app(server, book.open)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_day_before(app, pilot)
        # the order still moving (paid, unconfirmed) is read again by the close: it fails
        sim.add_fault(Fault(endpoint="order", token=scene["unconf"], status=404))
        try:
            await pilot.press("c")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await wait_until(
                pilot, lambda: "Failed, nothing closed" in screen_text(app), timeout=10
            )
        finally:
            sim.clear_faults()
        assert not book.saved() and not screen.closed
        status = [line for line in screen_text(app).splitlines() if "Failed" in line]
        assert len(status) == 1


async def test_e_writes_exactly_the_rows_shown_and_neutralises_a_formula(
    server: SimulatorServer, book: LedgerFile, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    scene = server.sim.scene  # type: ignore[attr-defined]
    monkeypatch.setattr(tui_export, "export_directory", lambda: tmp_path)
    tokens = tuple(scene.values())
    app = books_app(server, book.open, tokens=tokens)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(
            pilot,
            lambda: (
                set(tokens) <= set(app.state.entries)
                and all(app.state.entries[t].fetched for t in tokens)
            ),
            timeout=10,
        )
        await pilot.press("g", "f", *"ex", "enter")  # a filter: the orders with "ex" in them
        pane = app.screen.query_one(WatchListPane)
        await wait_until(pilot, lambda: pane.text_filter == "ex")
        pane.sort_by("token")  # (the list opens newest first)
        await pilot.press("S")  # reversed: not the order the entries are kept in
        await pilot.pause()
        shown = [str(row.key.value) for row in pane.table.ordered_rows]
        assert pane.shown_tokens() == shown  # what `e` writes: the rows in the order shown
        passing = {t for t, e in app.state.entries.items() if e.in_filter("all", "ex")}
        assert set(shown) == passing and 1 < len(shown) < len(app.state.entries)
        assert scene["hostile"] in shown and shown == sorted(shown, reverse=True)
        await pilot.press("e")
        await wait_until(pilot, lambda: len(list(tmp_path.iterdir())) == 1)
        await wait_until(pilot, lambda: "Exported" in screen_text(app))
        await pilot.press("e")  # again, the same second: a new file beside, nothing overwritten
        await wait_until(pilot, lambda: len(list(tmp_path.iterdir())) == 2)
    check_files(tmp_path, shown, scene["hostile"])


def check_files(directory: Path, shown: list[str], hostile: str) -> None:
    """Two files, the second named with a suffix, each the rows shown with the formula
    neutralised."""
    first, second = sorted(directory.iterdir(), key=lambda p: len(p.name))
    assert first.name.endswith(".csv") and second.name == first.name.replace(".csv", "-2.csv")
    assert first.read_bytes() == second.read_bytes()
    rows = list(csv.reader(io.StringIO(first.read_text(encoding="utf-8"), newline="")))
    assert tuple(rows[0]) == ORDER_COLUMNS
    token = ORDER_COLUMNS.index("token")
    assert [r[token] for r in rows[1:]] == shown  # the same rows, in the order shown
    company = dict(zip(ORDER_COLUMNS, next(r for r in rows if r[token] == hostile), strict=True))
    assert company["company"].startswith("'=HYPERLINK(") and "\x1b" not in company["company"]
    assert company["created_at"] == "2026-10-25T17:00:00+01:00"  # the store's zone


async def test_z_and_e_are_hidden_and_inert_on_the_customers_screen(
    server: SimulatorServer, book: LedgerFile, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from orderdash.tui.screens.pos import PosScreen

    monkeypatch.setattr(tui_export, "export_directory", lambda: tmp_path)
    token = server.sim.scene["paid"]  # type: ignore[attr-defined]
    app = books_app(server, book.open, tokens=(token,))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PosScreen))
        await pilot.pause(0.2)
        footer = screen_text(app).splitlines()[-1]
        assert "Close day" not in footer and "Export" not in footer
        assert not app.check_action("close_day", ()) and not app.check_action("export_list", ())
        await pilot.press("Z", "e")
        await pilot.pause(0.2)
        assert isinstance(app.screen, PosScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.dashboard)
        assert app.check_action("close_day", ()) is not False
    assert not files_in(tmp_path)


def files_in(directory: Path) -> list[Path]:
    return list(directory.iterdir())


async def test_a_payment_after_the_dry_run_is_in_the_close_and_said_so(
    server: SimulatorServer, book: LedgerFile
) -> None:
    from support.books_scene import berlin

    sim, scene = server.sim, server.sim.scene  # type: ignore[attr-defined]
    app = books_app(server, book.open)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_day_before(app, pilot)
        confirmed = screen.result.report
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        # while the person reads the question, a payment of that evening arrives (the order
        # still moving is read again by the close)
        tx = sim.add_transaction(scene["unconf"], "0.0001", age_s=berlin("2026-10-25T18:00"))
        try:
            await pilot.press("y")
            await wait_until(pilot, lambda: screen.closed and not screen.reading, timeout=10)
        finally:
            order = sim._orders[scene["unconf"]]  # the module's scene as it was
            order.transactions[:] = [t for t in order.transactions if t["id"] != tx["id"]]
        frozen = screen.result.report
        assert len(frozen["payments"]) == len(confirmed["payments"]) + 1
        assert book.saved()[0].digest == frozen["digest"]
        text = screen_text(app)
        assert "Closed, but 1 payment arrived since the dry run: the close shows them." in text
        assert f"Digest: {frozen['digest']}" in text


async def test_a_damaged_close_in_the_book_is_one_line_in_z(
    server: SimulatorServer, book: LedgerFile
) -> None:
    from datetime import UTC, datetime

    from orderdash.core.books.period import day_period
    from orderdash.core.ledger import CloseRecord

    day = day_period("2026-10-25", BERLIN)
    writer = book.open()
    writer.save_close(
        CloseRecord("*", day.start, day.end, datetime.now(UTC), '{"version": 1}', "0" * 64)
    )
    writer.close_connection()
    app = books_app(server, book.open)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "Z")
        await wait_until(pilot, lambda: isinstance(app.screen, CloseDayScreen))
        screen = app.screen
        assert isinstance(screen, CloseDayScreen)
        await wait_until(pilot, lambda: screen.result is not None, timeout=10)
        await pilot.press("left")
        await wait_until(pilot, lambda: "cannot be read" in screen_text(app), timeout=10)
        failed = [line for line in screen_text(app).splitlines() if "cannot be read" in line]
        assert len(failed) == 1 and failed[0].lstrip().startswith("Failed, nothing closed")
        assert not screen.closed and "Digest" not in screen_text(app)
        assert "2026-10-25 \u00b7 Europe/Berlin \u00b7 not closed yet" in screen_text(app)


async def test_a_day_another_till_closed_meanwhile_is_closed_already_not_ours(
    server: SimulatorServer, book: LedgerFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shop's day closed by `orderdash close` (another till) while the person reads the
    question: `y` shows that close, says "Closed already", and claims no close of its own."""
    from support.books_scene import berlin

    sim, scene = server.sim, server.sim.scene  # type: ignore[attr-defined]
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    monkeypatch.setenv("ORDERDASH_CONFIG", os.devnull)
    app = books_app(server, book.open)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_day_before(app, pilot)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        tx = sim.add_transaction(scene["unconf"], "0.0001", age_s=berlin("2026-10-25T18:00"))
        try:
            day = ["close", "--day", "2026-10-25", "--tz", "Europe/Berlin", "--all-tills"]
            assert await asyncio.to_thread(main, day, open_book=book.open) == 0
            (theirs,) = book.saved()
            await pilot.press("y")
            await wait_until(pilot, lambda: screen.closed and not screen.reading, timeout=10)
        finally:
            order = sim._orders[scene["unconf"]]  # the module's scene as it was
            order.transactions[:] = [t for t in order.transactions if t["id"] != tx["id"]]
        assert screen.result.report["digest"] == theirs.digest and len(book.saved()) == 1
        text = screen_text(app)
        assert "Closed already." in text and "Closed, but" not in text


async def test_e_without_a_downloads_directory_writes_to_the_data_directory_and_names_it(
    server: SimulatorServer, book: LedgerFile, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home, here = tmp_path / "home-with-a-long-name-for-the-notice-to-shorten", tmp_path / "here"
    home.mkdir()
    here.mkdir()
    for name in ("XDG_DOWNLOAD_DIR", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data" / ("deep" * 12)))
    monkeypatch.chdir(here)  # not where the file goes: this may be a project's checkout
    token = server.sim.scene["paid"]  # type: ignore[attr-defined]
    app = books_app(server, book.open, tokens=(token,))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_until(pilot, lambda: app.state.order is not None)
        await pilot.press("escape", "e")
        await wait_until(pilot, lambda: any("Exported" in n.message for n in app._notifications))
        text = next(n.message for n in app._notifications if "Exported" in n.message)
    written = list((home / "data" / ("deep" * 12) / "orderdash").glob("orderdash-list-*.csv"))
    assert len(written) == 1 and not list(here.iterdir())
    path = str(written[0])
    shown = text.split(" to ", 1)[1].split(";")[0]
    assert len(path) > tui_export.PATH_SHOWN and len(shown) == tui_export.PATH_SHOWN
    head, tail = shown.split("\u2026")  # the directory cut in its middle, the name whole
    assert path.startswith(head) and path.endswith(tail) and tail.endswith(written[0].name)
