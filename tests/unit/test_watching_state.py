"""The dashboard's state without any UI (core/watching): what the app owns and screens show."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from orderdash.core.model import jsontext
from orderdash.core.model.errors import ServiceError
from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import Order, OrderEnvelope
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.watcher import Change, Failure
from orderdash.core.watching.pending import PendingChanges
from orderdash.core.watching.state import MAX_UNDO, DashboardState

FIXTURES = Path(__file__).parents[1] / "fixtures"
NOW = 1_795_255_200.0


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def example(token: str = "tok-1", **fields: object) -> Order:
    data = jsontext.loads((FIXTURES / "get_order_example.json").read_bytes())["data"]
    data.update(token=token, **fields)
    return OrderEnvelope.model_validate({"status": 1, "data": data}).data


def fetched(order: Order, at: float = NOW) -> Fetched:
    return Fetched(order, {}, at, 0.01)


def new_state(monotonic: Clock | None = None) -> DashboardState:
    return DashboardState(
        store=None,
        bell=False,
        qr_content="auto",
        refresh_interval=60.0,
        rates_enabled=True,
        clock=lambda: NOW,
        monotonic=monotonic or Clock(),
    )


def test_the_state_loads_no_ui() -> None:
    code = (
        "import sys, orderdash.core.watching.state, orderdash.core.watching.pending\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


def test_watch_remove_and_undo_keep_the_entry() -> None:
    state = new_state()
    assert state.add(["a", "b", "a"]) == ["a", "b"]
    assert state.add(["b", "c"]) == ["c"]
    state.fetched("a", fetched(example("a")), Change(), looking=False)
    kept = state.entries["a"]
    assert state.remove("a") and "a" not in state.entries
    assert not state.remove("a")
    assert state.undo() is kept and state.entries["a"] is kept
    assert state.undo() is None


def test_the_undo_list_is_bounded() -> None:
    state = new_state()
    for n in range(MAX_UNDO + 5):
        state.add([f"t{n}"])
        state.remove(f"t{n}")
    assert len(state.removed) == MAX_UNDO
    assert state.undo().token == f"t{MAX_UNDO + 4}"  # type: ignore[union-attr]


def test_a_payment_raises_an_alert_and_marks_the_order_unless_looked_at() -> None:
    state = new_state()
    state.add(["a", "b"])
    order = example("a")
    tx = order.transactions[0].id
    entry, alert = state.fetched("a", fetched(order), Change((tx,)), looking=False)  # type: ignore[misc]
    assert alert is not None and alert.token == "a" and alert.text.startswith("Payment received")
    assert entry.unseen and state.alerts[-1] is alert
    assert state.mark_seen("a") is not None and not state.entries["a"].unseen
    assert state.mark_seen("a") is None, "nothing changed the second time"
    _, alert = state.fetched("b", fetched(example("b")), Change((tx,)), looking=True)  # type: ignore[misc]
    assert alert is not None and not state.entries["b"].unseen
    assert state.fetched("gone", fetched(example("gone")), Change(), looking=False) is None


def test_an_order_accepted_at_the_counter_marks_no_payment_new_again() -> None:
    state = new_state()
    state.add(["a"])
    state.focus("a")
    order = example("a")
    tx = order.transactions[0].id
    state.show(fetched(order), Kind.ORDER, new_ids=(tx,))
    assert state.shown is not None and state.shown.new_ids == (tx,)
    state.accept("a")
    assert "a" in state.accepted and state.shown is not None
    assert state.shown.new_ids == (), "the payment was marked new when it came, not now"


def test_freshness_follows_answers_and_failures_of_the_order_on_screen() -> None:
    monotonic = Clock()
    state = new_state(monotonic)
    state.add(["a", "b"])
    state.focus("a")
    assert state.freshness.loading and state.order is None
    monotonic.now = 100.0
    state.show(fetched(example("a")), Kind.RATES)
    assert not state.freshness.loading and state.freshness.last_update == NOW
    assert state.freshness.next_rate_at == 160.0
    failure = Failure(Kind.ORDER, ServiceError("the service failed (HTTP 503)", 503), retry_in=8.0)
    assert state.failed("b", failure) is not None, "the list shows another order's failure"
    assert not state.freshness.stale, "another order's failure does not make this one stale"
    before = state.freshness
    state.failed("a", failure)
    assert state.freshness.stale and state.freshness.retry_at[Kind.ORDER] == 108.0
    assert not before.stale, "a new value, the old one unchanged (the status line compares)"
    state.show(fetched(example("a")), Kind.ORDER)
    assert not state.freshness.stale and state.freshness.next_rate_at == 160.0


def test_focus_forgets_the_previous_order() -> None:
    state = new_state()
    state.add(["a", "b"])
    state.focus("a")
    state.show(fetched(example("a")), Kind.ORDER)
    state.focus("b")
    assert state.token == "b" and state.shown is None and state.direction is None


def test_an_answer_for_another_token_is_told_once_per_pair() -> None:
    state = new_state()
    state.focus("asked")
    assert state.token_mismatch(example("asked")) == (None, False)
    warning, first = state.token_mismatch(example("other"))
    assert warning and "'other', not 'asked'" in warning and first
    assert state.token_mismatch(example("other")) == (warning, False)


def test_pending_changes_are_taken_in_order_and_kept_out_of_what_the_file_says() -> None:
    pending = PendingChanges()
    assert pending.queue(added=["a", "b"]), "the first change starts a worker"
    assert not pending.queue(removed=["a"]), "one worker at a time"
    # another instance's file: it has x, not b; our own a (removed) and b (added) are on their way
    gone, new = pending.keep_local(["a", "x"], watched=["b", "c"])
    assert gone == ["c"] and new == ["x"]
    assert pending.take() == (["b"], {"a"})
    assert pending.flushing
    assert pending.take() is None and not pending.flushing


def test_keep_local_looks_at_each_token_a_bounded_number_of_times() -> None:
    """It runs on the UI's loop when another instance changed the file: linear in the tokens
    (it built the watched set again for each token of the file: 5,000 each way took ~1 s)."""
    looked = 0

    class Counted(str):
        __slots__ = ()

        def __hash__(self) -> int:
            nonlocal looked
            looked += 1
            return str.__hash__(self)

    watched = [Counted(f"w{i}") for i in range(300)]
    in_file = [f"f{i}" for i in range(300)] + watched[:150]
    gone, new = PendingChanges().keep_local(in_file, watched)
    assert gone == watched[150:] and new == in_file[:300]
    assert looked <= 4 * (len(watched) + len(in_file))


def test_failure_alarms_one_per_outage_and_not_found_only_for_orders_found_before() -> None:
    from orderdash.core.model.errors import CannotConnect, NotFound

    state = new_state()
    state.add(["a", "b", "typo"])
    state.fetched("a", fetched(example("a")), Change(), looking=False)
    state.fetched("b", fetched(example("b")), Change(), looking=False)
    down = CannotConnect("cannot connect to http://127.0.0.1:1")
    outage = [
        alarm
        for token in ("a", "b", "a", "b")
        for kind in (Kind.ORDER, Kind.RATES)
        for alarm in state.failure_alarms(token, Failure(kind, down, retry_in=1.0))
    ]
    assert [alarm.text for alarm in outage] == [f"Service unreachable: {down.message}"]
    assert outage[0].alarm and outage[0].token == ""
    # the service answers again, with a 404 for "a": the outage ends, "a" is no longer found
    gone = Failure(Kind.ORDER, NotFound("no order with token 'a' (HTTP 404)"), retry_in=60.0)
    texts = [alarm.text for alarm in state.failure_alarms("a", gone)]
    assert texts[0] == "Service reachable again: orders are read again"
    assert texts[1].startswith("Order no longer found") and "order id" in texts[1]
    assert state.failure_alarms("a", gone) == [], "one alarm per streak"
    never = Failure(Kind.ORDER, NotFound("no order with token 'typo'"), retry_in=60.0)
    assert state.failure_alarms("typo", never) == [], "never found: the list says so"
    assert state.reachable() is None, "no outage to end"
