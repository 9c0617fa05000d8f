"""The poll's back-off while the service's callbacks reach the book (core/polling/push.py):
the requests it saves, on the scheduler's own clock, and what it says, once."""

from __future__ import annotations

import random

from orderdash.core.polling.push import PushNews, PushPace
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.scheduler import Scheduler


def scheduler(orders: int) -> Scheduler:
    s = Scheduler(
        poll_interval=10.0,
        refresh_interval=60.0,
        rates_enabled=False,
        now=0.0,
        rng=random.Random(7),
    )
    for number in range(orders):
        s.add(f"tok-{number}", 0.0)
    return s


def reads(s: Scheduler, since: float, until: float) -> int:
    """getOrder requests the schedule starts in [since, until), each answered at once."""
    now, count = since, 0
    while now < until:
        for token, kind in s.due_requests(now):
            s.started(token, kind, now)
            s.succeeded(token, kind, now)
            s.note_result(token, now, activity=False, closed=False)
            count += kind is Kind.ORDER
        wakeup = s.next_wakeup(now)
        now = max(now + 0.01, wakeup if wakeup is not None else until)
    return count


def test_with_callbacks_flowing_the_poll_costs_at_most_half() -> None:
    for orders in (20, 500):
        alone, pushed = scheduler(orders), scheduler(orders)
        reads(alone, 0.0, 600.0)
        reads(pushed, 0.0, 600.0)  # both past their first reads
        pushed.fallback(60.0, 600.0)
        full = reads(alone, 600.0, 1800.0)
        backed_off = reads(pushed, 600.0, 1800.0)
        assert 0 < backed_off <= full / 2, (orders, backed_off, full)


def test_the_end_of_the_callbacks_brings_full_polling_back() -> None:
    s = scheduler(20)
    reads(s, 0.0, 600.0)
    s.fallback(60.0, 600.0)
    backed_off = reads(s, 600.0, 1800.0)
    s.fallback(0.0, 1800.0)
    full = reads(s, 1800.0, 3000.0)
    assert full >= 2 * backed_off * 0.9


def test_the_customer_order_keeps_its_pace_while_callbacks_flow() -> None:
    s = scheduler(5)
    s.focus({"tok-0"}, 0.0, pos={"tok-0"})
    s.fallback(60.0, 0.0)
    track = s.orders["tok-0"].policy.tracks[Kind.ORDER]
    assert track.interval <= 10.0
    assert s.orders["tok-1"].policy.tracks[Kind.ORDER].interval >= 60.0


def pace(told: list[PushNews]) -> PushPace:
    return PushPace(fallback=60.0, quiet=600.0, alarm=30.0, news=told.append)


def test_the_flow_begins_and_stops_each_said_once() -> None:
    told: list[PushNews] = []
    push = pace(told)
    assert push.heard("a", 0.0) is True
    assert push.heard("b", 5.0) is False
    assert push.check(300.0) is False
    assert push.check(604.0) is False  # 599 s after the last
    assert push.check(605.0) is True
    assert push.check(900.0) is False and not push.flowing
    assert [n.kind for n in told] == ["flowing", "stopped"]
    assert told[1].text == "No callback for 600 s: polling every order in full again."


def test_a_payment_no_callback_covered_raises_the_alarm_once() -> None:
    told: list[PushNews] = []
    push = pace(told)
    push.heard("other", 0.0)
    push.polled_paid("covered", 10.0)
    push.heard("covered", 12.0)  # its callback came a moment after the poll: no alarm
    push.polled_paid("lost", 10.0)
    assert push.check(39.0) is False
    assert push.check(40.0) is True
    assert not push.flowing
    push.polled_paid("lost", 50.0)  # polled paid again: the alarm is not raised again
    push.heard("other", 60.0)
    push.polled_paid("lost", 61.0)
    assert push.check(200.0) is False
    kinds = [(n.kind, n.token) for n in told]
    assert kinds == [("flowing", ""), ("no-callback", "lost"), ("flowing", "")]
    assert "Paid per the service, no callback in 30 s" in told[1].text


def test_an_announcement_just_before_the_poll_covers_its_payment() -> None:
    told: list[PushNews] = []
    push = pace(told)
    push.heard("tok", 0.0)
    push.polled_paid("tok", 20.0)
    assert push.check(100.0) is False
    assert [n.kind for n in told] == ["flowing"]
