"""The watcher without Textual: a scripted client, real (short) asyncio time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from orderdash.core.model.errors import ServiceError
from orderdash.core.model.results import Fetched
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.watcher import Change, OrderWatcher
from support.scripted_client import EXAMPLE, Recorder, ScriptedClient, with_transactions


def watching(client: ScriptedClient, events: Recorder, **intervals: float) -> OrderWatcher:
    """A watcher with the one order "t" on screen, polled as fast as asked (no hourly pace)."""
    watcher = OrderWatcher(
        client,
        events,
        budget_per_minute=100_000,
        budget_per_hour=10_000_000,
        **intervals,  # type: ignore[arg-type]
    )
    watcher.add("t")
    watcher.focus({"t"})
    return watcher


async def run_for(
    watcher: OrderWatcher, seconds: float, until: Callable[[], bool] | None = None
) -> None:
    """Run `watcher` for `seconds`, or (`until`) until that holds, within `seconds`: a starved
    machine reads less often than the interval says."""
    task = asyncio.create_task(watcher.run())
    if until is None:
        await asyncio.sleep(seconds)
    else:
        deadline = asyncio.get_running_loop().time() + seconds
        while not until() and asyncio.get_running_loop().time() < deadline:  # noqa: ASYNC110 - the recorder has no event to wait on
            await asyncio.sleep(0.01)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    assert task.cancelled()


async def test_first_answer_is_the_baseline_and_new_ids_are_reported_once() -> None:
    client = ScriptedClient([with_transactions(1), with_transactions(1), with_transactions(3)])
    events = Recorder()
    watcher = watching(client, events, poll_interval=0.05, refresh_interval=60)
    await run_for(watcher, 0.4)
    reported = [ids for _, ids in events.fetched if ids]
    assert reported == [(1001, 1002)]
    # the rate call at load, and one more right after the new transactions
    assert client.calls[Kind.RATES] == 2


async def test_a_bug_in_the_client_becomes_a_failure_and_the_loop_goes_on() -> None:
    client = ScriptedClient([ZeroDivisionError("boom"), with_transactions(1)], rates=False)
    events = Recorder()
    watcher = watching(client, events, poll_interval=0.05, refresh_interval=60)
    await run_for(watcher, 1.2)
    assert (
        events.failures
        and "internal error: ZeroDivisionError: boom" in events.failures[0].error.message
    )
    assert any(kind is Kind.ORDER for kind, _ in events.fetched), "recovered after the failure"
    assert client.calls[Kind.RATES] == 0, "no rate calls without a token"


async def test_retry_after_spaces_the_retries() -> None:
    error = ServiceError("the service failed (HTTP 503)", 503, retry_after=0.5)
    client = ScriptedClient([error], rates=False)
    events = Recorder()
    watcher = watching(client, events, poll_interval=0.01, refresh_interval=60)
    await run_for(watcher, 1.2)
    assert 2 <= client.calls[Kind.ORDER] <= 3, "one try per Retry-After, not a storm"
    assert all(f.retry_in >= 0.5 for f in events.failures)


async def test_refresh_now_wakes_the_loop() -> None:
    client = ScriptedClient([with_transactions(1)])
    events = Recorder()
    watcher = watching(client, events, poll_interval=30, refresh_interval=60)
    task = asyncio.create_task(watcher.run())
    await asyncio.sleep(0.1)
    assert client.calls == {Kind.ORDER: 1, Kind.RATES: 1}
    watcher.refresh_now("t")
    await asyncio.sleep(0.1)
    assert client.calls == {Kind.ORDER: 2, Kind.RATES: 2}
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_status_changes_are_reported_as_changes() -> None:
    paid = with_transactions(1).model_copy(
        update={"status": EXAMPLE.status.model_copy(update={"code": "PAID", "label": "Paid"})}
    )
    client = ScriptedClient([with_transactions(1), paid], rates=False)
    events = Recorder()
    watcher = watching(client, events, poll_interval=0.05, refresh_interval=60)
    await run_for(watcher, 0.3)
    changes = [c for c in events.changes if c]
    assert changes == [Change((), ("IN_PROGRESS", "PAID"))]


async def test_orders_added_later_are_read_and_removed_ones_are_not() -> None:
    client = ScriptedClient([with_transactions(1)], rates=False)
    events = Recorder()
    watcher = watching(client, events, poll_interval=0.05, refresh_interval=60)
    task = asyncio.create_task(watcher.run())
    await asyncio.sleep(0.1)
    assert watcher.add("second") and not watcher.add("second")
    await asyncio.sleep(0.4)
    watcher.remove("t")
    calls = client.calls[Kind.ORDER]
    assert calls >= 3
    assert watcher.tokens == ["second"]
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_a_failing_event_handler_does_not_stop_the_refresh() -> None:
    class Broken(Recorder):
        def on_fetched(self, token: str, kind: Kind, fetched: Fetched, change: Change) -> None:
            super().on_fetched(token, kind, fetched, change)
            raise RuntimeError("handler bug")

    client = ScriptedClient([with_transactions(1)], rates=False)
    events = Broken()
    watcher = watching(client, events, poll_interval=0.05, refresh_interval=60)
    await run_for(watcher, 10, until=lambda: len(events.fetched) >= 4)
    assert len(events.fetched) >= 4, "reads go on after the handler raised"
