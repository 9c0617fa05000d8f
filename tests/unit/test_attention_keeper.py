"""The dashboard's keeper of the orders that need a human, without a UI: each answer classified
once, at most PER_TICK a tick, an unconfirmed order again as its wait crosses the threshold, a
resolved order out until it goes wrong again, a removed order out, the count told only when it
changes, the ledger asked again every minute in bounded chunks, a result for a replaced answer
dropped."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from orderdash.core.books import orders as book_orders
from orderdash.core.watching import attention as keeper_module
from orderdash.core.watching.attention import PER_TICK, AttentionKeeper

CREATED = 1_792_900_000_000
HOUR = 3_600_000
PAID_AT = CREATED + 600_000


def tx(tx_id: int, at_ms: int, base: str, over: str = "0") -> dict[str, Any]:
    return {
        "id": tx_id,
        "createdAtMiliseconds": at_ms,
        "hash": f"h{tx_id}",
        "amount": {"base": base, "total": base, "underPaid": "0", "overPaid": over},
        "amountFiat": {"base": "10.00", "total": "10.00", "underPaid": "0", "overPaid": "0"},
    }


def raw(token: str, code: str, *txs: dict[str, Any]) -> dict[str, Any]:
    return {
        "token": token,
        "id": 1,
        "createdAtMiliseconds": CREATED,
        "status": {"code": code, "label": code.title()},
        "companyName": "ACME",
        "coinBaseName": "btc",
        "currency": {"abbreviation": "EUR"},
        "amountFiat": "10.00",
        "amount": "0.0001",
        "expiresAt": CREATED + HOUR,
        "transactions": list(txs),
    }


def entry(data: dict[str, Any], was: Any = None) -> Any:
    return SimpleNamespace(fetched=SimpleNamespace(raw=data), was=was)


class State:
    def __init__(self) -> None:
        self.entries: dict[str, Any] = {}
        self.now = (PAID_AT + 600_000) / 1000

    def clock(self) -> float:
        return self.now


def keeper_of(state: State) -> tuple[AttentionKeeper, list[int]]:
    told: list[int] = []
    keeper = AttentionKeeper(state, changed=told.append, unconfirmed_after=3600)  # type: ignore[arg-type]
    return keeper, told


def test_each_answer_once_the_threshold_by_itself_resolved_and_removed_leave(
    monkeypatch: Any,
) -> None:
    state = State()
    over = raw("over", "OVERPAID", tx(1, PAID_AT, "0.00015", over="0.00005"))
    state.entries["over"] = entry(over)
    state.entries["paid"] = entry(raw("paid", "PAID", tx(1, PAID_AT, "0.0001")))
    state.entries["unconf"] = entry(raw("unconf", "UNCONFIRMED", tx(1, PAID_AT, "0.0001")))
    state.entries["loading"] = SimpleNamespace(fetched=None, was=None)
    keeper, told = keeper_of(state)
    reads: list[str] = []
    real = book_orders.read_order

    def counted(data: Any) -> Any:
        reads.append(data["token"])
        return real(data)

    monkeypatch.setattr(book_orders, "read_order", counted)
    keeper.update()
    assert [o.token for o in keeper.found] == ["over"] and told == [1]
    keeper.update()
    assert sorted(reads) == ["over", "paid", "unconf"] and told == [1]  # read once, told once
    state.now += 3600  # the unconfirmed payment waited an hour: by itself, no new answer
    keeper.update()
    assert {o.token for o in keeper.found} == {"over", "unconf"} and told == [1, 2]
    assert len(reads) == 3
    assert keeper.take().items == ()  # counted as unconfirmed: not classified again
    keeper.resolved = {"over": PAID_AT}  # resolved as of its payment
    keeper.update()
    assert [o.token for o in keeper.found] == ["unconf"] and told[-1] == 1
    del state.entries["unconf"]
    keeper.update()
    assert keeper.found == [] and told[-1] == 0
    # a token that names another order now
    state.entries["paid"] = entry(
        state.entries["paid"].fetched.raw, was=SimpleNamespace(id=9, created_at_ms=1)
    )
    keeper.update()
    assert keeper.found[0].kinds == ("identity_changed",)


def test_a_list_of_thousands_is_read_a_tick_at_a_time() -> None:
    state = State()
    for n in range(PER_TICK * 2 + 5):
        data = raw(f"o{n}", "OVERPAID", tx(1, PAID_AT, "0.00015", over="0.00005"))
        state.entries[f"o{n}"] = entry(data)
    keeper, told = keeper_of(state)
    keeper.update()
    assert len(keeper.found) == PER_TICK
    keeper.update()
    keeper.update()
    assert len(keeper.found) == PER_TICK * 2 + 5 and told == [
        PER_TICK,
        PER_TICK * 2,
        PER_TICK * 2 + 5,
    ]


def test_an_answer_the_books_cannot_read_is_left_out() -> None:
    state = State()
    state.entries["bad"] = entry({"token": "bad"})
    keeper, told = keeper_of(state)
    keeper.update()
    assert keeper.found == [] and told == []
    assert keeper_module.PER_TICK == PER_TICK


def test_a_payment_after_the_resolution_brings_it_back_and_the_owner_hears_again() -> None:
    state = State()
    data = raw("late", "EXPIRED", tx(1, PAID_AT, "0.00002"))
    state.entries["late"] = entry(data)
    keeper, told = keeper_of(state)
    asked: list[list[str]] = []
    heard: list[tuple[str, int]] = []
    keeper.asking = asked.append
    keeper.needs_human = lambda found: heard.append((found.token, found.newest_ms))
    keeper.update()
    assert asked == [["late"]] and told == [1] and heard == []  # the ledger has not answered
    keeper.answered(["late"], {})
    assert heard == [("late", PAID_AT)]
    resolved_at = PAID_AT + 60_000
    keeper.resolve({"late": resolved_at})
    assert keeper.found == [] and told[-1] == 0
    keeper.resolve({"late": PAID_AT - 1})  # an older resolution learned later: the latest kept
    assert keeper.resolved == {"late": resolved_at} and keeper.found == []
    # the customer pays again, after the resolution
    paid_again = dict(data, transactions=[*data["transactions"], tx(2, resolved_at + 1, "0.00001")])
    state.entries["late"] = entry(paid_again)
    keeper.update()
    assert [o.token for o in keeper.found] == ["late"] and told[-1] == 1
    assert heard[-1] == ("late", resolved_at + 1) and len(heard) == 2
    assert keeper.trouble("late") is not None


def test_the_ledger_is_asked_again_every_minute_about_every_order_found() -> None:
    state = State()
    for name in ("a", "b", "c"):
        data = raw(name, "OVERPAID", tx(1, PAID_AT, "0.00015", over="0.00005"))
        state.entries[name] = entry(data)
    keeper, told = keeper_of(state)
    asked: list[list[str]] = []
    keeper.asking = asked.append
    keeper.update()
    assert asked == [["a", "b", "c"]]
    keeper.answered(["a", "b", "c"], {"a": PAID_AT})
    assert told[-1] == 2
    state.now += 59
    keeper.update()
    assert len(asked) == 1  # not yet
    state.now += 1
    keeper.update()
    assert asked[-1] == ["a", "b", "c"]  # resolved or not: each may have been resolved again
    # another till resolved b meanwhile: it leaves at the answer
    keeper.answered(asked[-1], {"a": PAID_AT, "b": PAID_AT + 1})
    assert [o.token for o in keeper.found] == ["c"] and told[-1] == 1
    keeper.update()
    assert len(asked) == 2  # the minute starts again


def test_the_ledger_is_asked_in_bounded_chunks(monkeypatch: Any) -> None:
    monkeypatch.setattr(keeper_module, "ASK_CHUNK", 2)
    state = State()
    for n in range(5):
        data = raw(f"o{n}", "OVERPAID", tx(1, PAID_AT, "0.00015", over="0.00005"))
        state.entries[f"o{n}"] = entry(data)
    keeper, _ = keeper_of(state)
    asked: list[list[str]] = []
    keeper.asking = asked.append
    keeper.update()
    keeper.recheck()
    assert [len(chunk) for chunk in asked] == [2, 2, 1, 2, 2, 1]


def test_a_result_for_an_answer_replaced_meanwhile_is_dropped_and_taken_again() -> None:
    """`take` on the loop, `classify` anywhere, `apply` on the loop: a result whose order has
    another answer by then is not kept (the next tick takes the new one)."""
    state = State()
    state.entries["o"] = entry(raw("o", "PAID", tx(1, PAID_AT, "0.0001")))
    keeper, told = keeper_of(state)
    batch = keeper.take()
    assert [item.token for item in batch.items] == ["o"]
    results = keeper_module.classify(batch)
    over = raw("o", "OVERPAID", tx(1, PAID_AT, "0.00015", over="0.00005"))
    state.entries["o"] = entry(over)  # a new answer while it was classified
    keeper.apply(batch, results)
    assert keeper.found == [] and told == []
    batch = keeper.take()
    assert [item.fetched.raw for item in batch.items] == [over]
    keeper.apply(batch, keeper_module.classify(batch))
    assert [o.token for o in keeper.found] == ["o"] and told == [1]
    assert keeper.take().items == ()  # classified already
