"""The refresh policy with a fake clock: no real time passes in these tests."""

from __future__ import annotations

import random

from orderdash.core.polling.refresh import MIN_BACKOFF, Kind, RefreshPolicy


def policy(*, rates: bool = True, now: float = 1000.0) -> RefreshPolicy:
    return RefreshPolicy(
        poll_interval=10, refresh_interval=60, rates_enabled=rates, now=now, rng=random.Random(1)
    )


def run(p: RefreshPolicy, now: float) -> list[Kind]:
    """Start whatever is due at `now` and let it succeed at once."""
    kinds = p.due(now)
    for kind in kinds:
        p.started(kind, now)
        p.succeeded(kind, now)
    return kinds


def test_on_load_both_reads_are_due() -> None:
    assert set(policy().due(1000.0)) == {Kind.ORDER, Kind.RATES}


def test_without_a_token_only_the_order_is_polled() -> None:
    p = policy(rates=False)
    assert p.due(1000.0) == [Kind.ORDER]
    p.request_now(Kind.RATES, 1000.0)
    assert Kind.RATES not in p.due(1000.0)


def test_intervals_over_a_simulated_hour() -> None:
    p = policy()
    counts = {Kind.ORDER: 0, Kind.RATES: 0}
    now = 1000.0
    while now < 1000.0 + 3600:
        for kind in run(p, now):
            counts[kind] += 1
        now += 0.5
    assert counts == {Kind.ORDER: 360, Kind.RATES: 60}


def test_never_two_requests_of_one_kind_in_flight() -> None:
    p = policy()
    p.started(Kind.ORDER, 1000.0)
    assert Kind.ORDER not in p.due(1000.0)
    assert Kind.ORDER not in p.due(5000.0)
    p.request_now(Kind.ORDER, 1001.0)
    assert Kind.ORDER not in p.due(1001.0)
    # the request asked for meanwhile runs right after the one in flight ends
    p.succeeded(Kind.ORDER, 1002.0)
    assert Kind.ORDER in p.due(1002.0)


def test_new_transaction_makes_the_rate_due_at_once() -> None:
    p = policy()
    run(p, 1000.0)
    assert p.due(1010.0) == [Kind.ORDER]
    p.request_now(Kind.RATES, 1010.0)
    assert Kind.RATES in p.due(1010.0)


def test_backoff_grows_with_jitter_to_twice_the_interval() -> None:
    p = policy()
    delays = []
    now = 1000.0
    for _ in range(12):
        p.started(Kind.ORDER, now)
        delay = p.failed(Kind.ORDER, now)
        delays.append(delay)
        now += delay
        assert p.due(now - 0.001) == [] or Kind.ORDER not in p.due(now - 0.001)
        assert Kind.ORDER in p.due(now)
    assert all(MIN_BACKOFF * 0.5 <= d <= 20 for d in delays)
    assert delays[0] <= 1.0  # a blip heals fast
    # from the 5th try (step 16 s >= the 10 s interval) never faster than healthy polling, and
    # in a long outage between one and two intervals apart
    assert all(d >= 10 for d in delays[4:]), delays
    assert max(delays[6:]) > 10, delays
    assert len(set(delays[6:])) == len(delays[6:])  # jittered


def test_retry_after_is_honoured_even_beyond_the_interval() -> None:
    p = policy()
    p.started(Kind.ORDER, 1000.0)
    assert p.failed(Kind.ORDER, 1000.0, retry_after=30.0) == 30.0
    assert Kind.ORDER not in p.due(1029.9)
    assert Kind.ORDER in p.due(1030.0)


def test_persistent_failures_wait_a_full_interval() -> None:
    p = policy()
    p.started(Kind.RATES, 1000.0)
    assert p.failed(Kind.RATES, 1000.0, persistent=True) == 60


def test_success_resets_the_backoff() -> None:
    p = policy()
    for now in (1000.0, 1001.0, 1003.0):
        p.started(Kind.ORDER, now)
        p.failed(Kind.ORDER, now)
    p.started(Kind.ORDER, 1010.0)
    p.succeeded(Kind.ORDER, 1010.0)
    assert p.status(1010.0)[Kind.ORDER].failures == 0
    assert p.status(1010.0)[Kind.ORDER].next_in == 10


def test_manual_refresh_during_an_outage_is_throttled() -> None:
    p = policy()
    now = 1000.0
    for _ in range(6):  # long outage: backoff near the interval
        p.started(Kind.ORDER, now)
        now += p.failed(Kind.ORDER, now)
    p.started(Kind.ORDER, now)
    p.failed(Kind.ORDER, now)
    # the user hammers 'r' right after a failed try: one retry, no sooner than MIN_BACKOFF
    for offset in (0.1, 0.2, 0.3):
        p.request_now(Kind.ORDER, now + offset)
        assert Kind.ORDER not in p.due(now + offset)
    assert Kind.ORDER in p.due(now + MIN_BACKOFF)


def test_status_reports_countdowns() -> None:
    p = policy()
    run(p, 1000.0)
    status = p.status(1004.0)
    assert status[Kind.ORDER].next_in == 6
    assert status[Kind.RATES].next_in == 56
    assert p.next_wakeup() == 1010.0
