"""Which orders are watched for a late payment, from when, and which payment is late: on the
simulator's answers at a fixed clock. And `late_window` in the settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from orderdash.core.domain.late_payment import (
    after_expiry,
    after_expiry_text,
    closed_unpaid_for,
    is_closed_unpaid,
    is_late,
)
from orderdash.core.model.wire import Order
from orderdash.core.settings.model import Settings
from orderdash.core.settings.sources import load_settings
from orderdash.simulator import Simulator

T0 = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def read(sim: Simulator, token: str) -> Order:
    return Order.model_validate(sim.order_wire(token, with_qr=False))


def test_an_expired_order_is_closed_unpaid_from_its_expiry_and_a_payment_into_it_is_late() -> None:
    clock = Clock()
    sim = Simulator(clock=clock, with_demo_orders=False)
    token = sim.create_order(token="t1", lifetime_s=600)
    order = read(sim, token)
    assert not is_closed_unpaid(order) and closed_unpaid_for(order, clock.now) is None
    clock.now += 600 + 3 * 3600
    expired = read(sim, token)
    assert expired.status.code == "EXPIRED" and is_closed_unpaid(expired)
    # closed for 3 hours, by its expiresAt: the window counts from the expiry
    assert closed_unpaid_for(expired, clock.now) == pytest.approx(3 * 3600)
    tx = sim.add_transaction(token)
    paid = read(sim, token)
    (payment,) = paid.transactions
    assert paid.status.code == "PAID" and not is_closed_unpaid(paid)
    # late by the order's state before it, and by the service's times alone
    assert is_late(payment, paid, was_closed_unpaid=True)
    assert is_late(payment, paid, was_closed_unpaid=False)
    assert after_expiry(payment, paid) == pytest.approx(3 * 3600, abs=1)
    assert after_expiry_text(after_expiry(payment, paid)).startswith("3:00:0")
    assert payment.id == tx["id"]


def test_a_payment_before_the_deadline_is_not_late_and_a_canceled_order_closes_when_seen() -> None:
    clock = Clock()
    sim = Simulator(clock=clock, with_demo_orders=False)
    token = sim.create_order(token="t2", lifetime_s=600)
    sim.add_transaction(token, "0.00001")
    order = read(sim, token)
    assert not is_late(order.transactions[0], order, was_closed_unpaid=False)
    sim.set_status(token, "CANCELED", "Canceled")
    canceled = read(sim, token)
    # canceled before its deadline: its window runs from when it is first seen so
    assert is_closed_unpaid(canceled) and closed_unpaid_for(canceled, clock.now) == 0.0
    # without an epoch expiresAt, no "how long after expiry"
    sim.set_fields(token, {"expiresAt": 17})
    odd = read(sim, token)
    assert after_expiry(odd.transactions[0], odd) is None
    assert after_expiry_text(None) == "after the order closed"
    assert after_expiry_text(-300) == "5:00 before expiry, after the order closed"


def test_late_window_takes_seconds_or_a_duration_from_file_and_environment(tmp_path: Path) -> None:
    assert Settings().late_window == 86400
    assert Settings(late_window="90m").late_window == 5400
    assert Settings(late_window=" 2d ").late_window == 172800
    assert Settings(late_window="3600").late_window == 3600
    assert Settings(late_window=0).late_window == 0
    for bad in ("1y", "-5", "31d", "nan", "inf", "24 hours"):
        with pytest.raises(ValidationError):
            Settings(late_window=bad)
    config = tmp_path / "c.toml"
    config.write_text('late_window = "12h"\n')
    settings, _ = load_settings({}, {"ORDERDASH_CONFIG": str(config)})
    assert settings.late_window == 12 * 3600
    env = {"ORDERDASH_CONFIG": str(config), "ORDERDASH_LATE_WINDOW": "45m"}
    assert load_settings({}, env)[0].late_window == 45 * 60
