"""The service's example order (tests/fixtures/get_order_example.json) at a fixed instant."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orderdash.core.model import jsontext
from orderdash.core.model.wire import OrderEnvelope

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "get_order_example.json"
NOW = 1_795_255_200.0


def example_order() -> Any:
    order = OrderEnvelope.model_validate(jsontext.loads(FIXTURE.read_bytes())).data
    # created a minute before NOW: a countdown is only shown for an order that fits its creation
    return order.model_copy(update={"created_at_ms": int(NOW * 1000) - 60_000})
