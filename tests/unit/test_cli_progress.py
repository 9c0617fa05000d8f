"""How far a long books command is, on stderr (`cli/progress.py`): the words of a plain line
(done, left, an estimate at the budget's pace), a line every interval when stderr is not a
terminal and one more at the end, nothing from a command over before the first, and a bar on
a terminal that leaves no trace."""

from __future__ import annotations

import asyncio
import io
import time

import pytest

from orderdash.cli.progress import Progress, duration


async def until(condition: object, limit: float = 5.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "not reached in time"
        await asyncio.sleep(0.01)


def test_an_estimate_is_in_a_persons_words() -> None:
    assert [duration(s) for s in (0, 0.4, 40, 59.5, 240, 7_578, 7_200)] == [
        "0 s",
        "1 s",
        "40 s",
        "60 s",
        "4 min",
        "2 h 6 min",
        "2 h 0 min",
    ]


def test_a_line_says_what_is_done_what_is_left_and_how_long_at_the_budgets_pace() -> None:
    # the default getOrder budget's pace: 10,000 an hour, 5 % of it a burst
    shown = Progress("export", seconds_per_read=3600 / 9500, interval=10, stream=io.StringIO())
    shown.pages(3)
    assert shown.line() == "orderdash: export: reading the order history, page 3"
    shown.orders(1_200, 20_000)
    assert shown.line() == (
        "orderdash: export: 1,200 of 20,000 orders read, 18,800 left, about 1 h 59 min at the "
        "budget's pace"
    )


async def test_once_every_order_is_read_no_line_says_none_left_before_the_last() -> None:
    """Between the last read and the command's end (the rows still being written), the tick
    says nothing: the last line tells the reads are done, once."""
    stream = io.StringIO()
    shown = Progress("export", seconds_per_read=0.5, interval=0.01, stream=stream, tty=False)
    async with shown:
        shown.orders(1, 2)
        await until(lambda: "1 of 2 orders read" in stream.getvalue())
        shown.orders(2, 2)
        await asyncio.sleep(0.1)  # ten intervals with every order read
    lines = stream.getvalue().splitlines()
    assert [line for line in lines if "2 of 2" in line] == [lines[-1]]
    assert lines[-1].startswith("orderdash: export: 2 of 2 orders read in ")


async def test_off_a_terminal_a_line_comes_every_interval_and_one_at_the_end() -> None:
    stream = io.StringIO()
    shown = Progress("attention", seconds_per_read=0.5, interval=0.01, stream=stream, tty=False)
    async with shown:
        shown.pages(1)
        await until(lambda: "page 1" in stream.getvalue())
        shown.orders(0, 4)
        shown.orders(1, 4)
        await until(lambda: "1 of 4 orders read, 3 left, about 2 s" in stream.getvalue())
        shown.orders(4, 4)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "orderdash: attention: reading the order history, page 1"
    assert lines[-1].startswith("orderdash: attention: 4 of 4 orders read in ")
    assert all(line.startswith("orderdash: attention: ") for line in lines)


async def test_a_command_over_before_the_first_line_says_nothing() -> None:
    stream = io.StringIO()
    shown = Progress("close", seconds_per_read=0.5, interval=10, stream=stream, tty=False)
    async with shown:
        shown.orders(0, 2)
        shown.orders(2, 2)
    assert stream.getvalue() == "" and shown.shown == 0


async def test_on_a_terminal_a_bar_shows_done_and_left_and_leaves_no_trace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    stream = io.StringIO()
    shown = Progress("close", seconds_per_read=0.36, interval=0.01, stream=stream, tty=True)
    async with shown:
        shown.orders(0, 20_000)
        shown.orders(1_200, 20_000)
        await until(lambda: "18,800 left" in stream.getvalue())
    out = stream.getvalue()
    assert "close: orders read" in out and "1200/20000" in out
    assert "18,800 left, about 1 h 53 min at the budget's pace" in out
    assert "orderdash: close" not in out  # no plain line beside the bar
    # the cursor given back, and the bar's line erased (transient)
    assert "\x1b[?25h" in out and out.endswith("\x1b[2K")
