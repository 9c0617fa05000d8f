"""The dashboard's keeper of the orders that need a human, without a UI: each answer classified
once, at most PER_TICK a tick, an unconfirmed order again as its wait crosses the threshold, a
resolved order out, a removed order out, and the count told only when it changes."""

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
