"""Many objects made at once (core/runtime/bulk.py): the collector paused for the block, and
nothing kept out of later collections afterwards (a cycle that was alive as a huge page was
read is still collected once dropped); a large getOrder answer is read so."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest

from conftest import make_client, make_settings
from orderdash.core.model import jsontext
from orderdash.core.runtime.bulk import bulk_objects
from orderdash.core.service.answers import LARGE_BODY_BYTES, Answers
from orderdash.simulator import Fault, SimulatorServer
from support.example_order import FIXTURE


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


def test_the_collector_is_paused_in_the_block_and_on_after_it() -> None:
    assert gc.isenabled()
    with bulk_objects():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_cycle_alive_during_the_block_is_collected_once_dropped() -> None:
    node = Node()
    gone = weakref.ref(node)
    with bulk_objects():
        items = [{"token": str(n)} for n in range(10_000)]
    assert gc.get_freeze_count() == 0  # nothing stays out of the collections
    del node, items
    gc.collect()
    assert gone() is None


def order_answer(transactions: int) -> str:
    """The service's example getOrder answer with `transactions` transactions."""
    document = jsontext.loads(FIXTURE.read_bytes())
    first = document["data"]["transactions"][0]
    document["data"]["transactions"] = [
        {**first, "id": n, "hash": f"{n:064x}", "hashUrl": None} for n in range(1, transactions + 1)
    ]
    return jsontext.dumps(document)


async def test_a_large_order_answer_is_read_with_the_collector_paused(
    sim_server: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer of thousands of transactions makes hundreds of thousands of objects in its
    worker thread: read with the collector paused (its full collections walked all of them as
    they piled up: half the CPU of an order of 100,000), on again after; a small answer with it
    on."""
    collector_on: list[bool] = []
    validate = Answers._validate

    def recording(self: Answers, *args: Any, **kwargs: Any) -> Any:
        collector_on.append(gc.isenabled())
        return validate(self, *args, **kwargs)

    monkeypatch.setattr(Answers, "_validate", recording)
    large, small = order_answer(1_000), order_answer(2)
    assert len(large) >= LARGE_BODY_BYTES > len(small)
    for token, body in (("bulk-large", large), ("bulk-small", small)):
        sim_server.sim.create_order(token=token)
        sim_server.sim.add_fault(Fault(endpoint="order", token=token, body=body))
    async with make_client(make_settings(sim_server.base_url)) as client:
        assert len((await client.get_order("bulk-large")).order.transactions) == 1_000
        assert len((await client.get_order("bulk-small")).order.transactions) == 2
    assert collector_on == [False, True]
    assert gc.isenabled()
