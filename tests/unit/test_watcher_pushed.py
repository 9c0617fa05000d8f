"""The watcher given answers announced on the book (`OrderWatcher.pushed`) and backing off
while they flow: a scripted client counts every request, the schedule's clock is the test's."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import Order
from orderdash.core.polling.push import PushNews, PushPace
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.watcher import OrderWatcher
from support.scripted_client import Recorder, ScriptedClient, with_transactions


async def run_for(watcher: OrderWatcher, seconds: float, until: Callable[[], bool]) -> None:
    """Run `watcher` until `until` holds, within `seconds`."""
    task = asyncio.create_task(watcher.run())
    deadline = asyncio.get_running_loop().time() + seconds
    while not until() and asyncio.get_running_loop().time() < deadline:  # noqa: ASYNC110 - the recorder has no event to wait on
        await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def pushed(order: Order, received_at: float | None = None) -> Fetched:
    at = time.time() if received_at is None else received_at
    return Fetched(order=order, raw={}, received_at=at, elapsed=0.0)


def watching(client: ScriptedClient, events: Recorder, clock: Clock) -> OrderWatcher:
    watcher = OrderWatcher(
        client,
        events,
        poll_interval=5.0,
        refresh_interval=60.0,
        budget_per_minute=100_000,
        budget_per_hour=10_000_000,
        monotonic=clock,
    )
    watcher.add("t")
    watcher.focus({"t"})
    return watcher


async def test_an_announced_answer_is_reported_as_a_poll_would_be_without_a_request() -> None:
    client = ScriptedClient([with_transactions(1)], rates=False)
    events, clock = Recorder(), Clock()
    watcher = watching(client, events, clock)
    await run_for(watcher, 2.0, until=lambda: bool(events.fetched))
    calls = client.calls[Kind.ORDER]
    assert watcher.pushed("t", pushed(with_transactions(3))) is True
    assert events.fetched[-1] == (Kind.ORDER, (1001, 1002))
    assert client.calls[Kind.ORDER] == calls
    # an older read written to the book after a newer one: it takes no payment back
    assert watcher.pushed("t", pushed(with_transactions(1))) is False
    # nor does a read received before the last answer applied, showing nothing new
    assert watcher.pushed("t", pushed(with_transactions(3), received_at=1.0)) is False
    assert watcher.pushed("other", pushed(with_transactions(4))) is False
    assert [ids for _, ids in events.fetched if ids] == [(1001, 1002)]


async def test_a_pushed_payment_is_applied_whatever_the_receivers_clock_says() -> None:
    """The read's time is the receiver's clock, the last answer's this till's: a receiver whose
    clock is behind still brings a payment this till has not seen."""
    client = ScriptedClient([with_transactions(3)], rates=False)
    events, clock = Recorder(), Clock()
    watcher = watching(client, events, clock)
    await run_for(watcher, 2.0, until=lambda: bool(events.fetched))
    calls = client.calls[Kind.ORDER]
    assert watcher.pushed("t", pushed(with_transactions(4), received_at=1.0)) is True
    assert events.fetched[-1] == (Kind.ORDER, (1003,))  # the new payment, reported once
    assert client.calls[Kind.ORDER] == calls


async def test_a_payment_the_poll_finds_without_a_callback_raises_the_alarm_once() -> None:
    client = ScriptedClient([with_transactions(1), with_transactions(2)], rates=False)
    events, clock = Recorder(), Clock()
    told: list[PushNews] = []
    watcher = watching(client, events, clock)
    watcher.push = PushPace(fallback=60.0, quiet=600.0, alarm=30.0, news=told.append)
    await run_for(watcher, 2.0, until=lambda: bool(events.fetched))
    polled = watcher.scheduler.orders["t"].policy.tracks[Kind.ORDER]
    assert polled.interval == 5.0
    watcher.heard(["another-order"])  # the callbacks flow
    assert polled.interval == 60.0
    watcher.refresh_now("t")
    await run_for(watcher, 2.0, until=lambda: any(ids for _, ids in events.fetched))
    assert events.fetched[-1] == (Kind.ORDER, (1001,))  # the poll found the payment
    clock.now += 29.0
    watcher.check_push()
    assert [n.kind for n in told] == ["flowing"]
    clock.now += 1.0
    watcher.check_push()
    clock.now += 100.0
    watcher.check_push()
    assert [(n.kind, n.token) for n in told] == [("flowing", ""), ("no-callback", "t")]
    assert polled.interval == 5.0, "full polling again"


async def test_the_end_of_the_callbacks_is_said_once_and_brings_full_polling_back() -> None:
    client = ScriptedClient([with_transactions(1)], rates=False)
    events, clock = Recorder(), Clock()
    told: list[PushNews] = []
    watcher = watching(client, events, clock)
    watcher.push = PushPace(fallback=60.0, quiet=600.0, alarm=30.0, news=told.append)
    watcher.heard(["t"])
    polled = watcher.scheduler.orders["t"].policy.tracks[Kind.ORDER]
    assert polled.interval == 60.0
    for _ in range(3):
        clock.now += 400.0
        watcher.check_push()
    assert [n.kind for n in told] == ["flowing", "stopped"]
    assert polled.interval == 5.0


def test_the_books_read_is_validated_as_a_getorder_answer(tmp_path) -> None:  # noqa: ANN001
    from datetime import UTC, datetime

    from orderdash.core.ledger.open import open_book
    from orderdash.core.model import jsontext
    from orderdash.core.settings.model import Settings
    from orderdash.core.usecases.told import read_told
    from support.scripted_client import FIXTURES

    data = jsontext.loads((FIXTURES / "get_order_example.json").read_bytes())["data"]
    good = data["token"]
    book = open_book(Settings(ledger=str(tmp_path / "ledger.sqlite3")))
    try:
        at = datetime(2026, 11, 29, 4, 0, tzinfo=UTC)
        book.order_seen(good, "receiver", at, jsontext.dumps(data))
        book.order_seen("not-json", "receiver", at, "{not json")
        book.order_seen("not-an-order", "receiver", at, '{"token": "not-an-order"}')
        book.order_seen("another", "receiver", at, jsontext.dumps(data))  # filed wrongly
        book.order_seen("long", "receiver", at, '"' + "x" * (1 << 20) + '"')
        told = read_told(book, [good, "not-json", "not-an-order", "another", "long", "never"])
    finally:
        book.close_connection()
    assert [token for token, _ in told] == [good]
    ((token, fetched),) = told
    assert fetched.order.token == good and fetched.raw == data
    assert fetched.received_at == at.timestamp()
