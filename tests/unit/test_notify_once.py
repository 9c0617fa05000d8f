"""Each notification once per shop: claimed in the ledger before it is sent (SQLite and
PostgreSQL), so that every process and till on one book sends it once and a restart sends
nothing again; an outage told only once it has lasted; a part payment into an open order told
only once the order closes short; people's words in the titles."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from pydantic import SecretStr

from orderdash.core.domain.payment import Phase
from orderdash.core.ledger import LedgerError
from orderdash.core.ledger.open import open_book, writer_for
from orderdash.core.ledger.store import SqlBook
from orderdash.core.ledger.writer import BookWriter
from orderdash.core.notify import messages
from orderdash.core.notify.claims import LedgerClaims
from orderdash.core.notify.events import OUTAGE_SECONDS, Notices
from orderdash.core.notify.messages import Message
from orderdash.core.notify.rules import NotifyRule
from orderdash.core.notify.sender import Notifier
from orderdash.core.settings.model import Settings
from orderdash.core.watching.alert import Alert

EVERY = ["payment", "attention", "late-payment", "outage", "recovery"]
T0 = datetime(2026, 11, 27, 10, 2, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    """The settings of one book, on either engine."""
    if request.param == "sqlite":
        return Settings(ledger=str(tmp_path / "ledger.sqlite3"))
    server: Any = request.getfixturevalue("pg_server")
    return Settings(ledger_url=SecretStr(server.schema_url()))


class Recorded:
    def __init__(self) -> None:
        self.sent: list[Message] = []
        self._lock = threading.Lock()

    def send(self, url: str, message: Message) -> str | None:
        with self._lock:
            self.sent.append(message)
        return None


class Clock:
    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Process:
    """One process on the book: its own sender, its own ledger writer, its own notices."""

    def __init__(self, settings: Settings, delivery: Recorded, clock: Clock) -> None:
        rule = NotifyRule.model_validate({"events": EVERY, "urls": ["json://hook"]})
        self.notifier = Notifier([rule], delivery=lambda: delivery, backoff=(0.01,))
        self.writer: BookWriter = writer_for(settings)
        self.writer.later(lambda book: None).result(10)  # open, as a running app's book is
        self.notices = Notices(self.notifier, monotonic=clock, clock=lambda: T0.timestamp())
        self.notices.claims = LedgerClaims(self.writer)

    def hear_a_shop(self, clock: Clock) -> None:
        """What `watch --jsonl` hears in a busy quarter hour: payments, a late one, an order
        closed short, an outage that lasted and its end."""
        for n in range(3):
            self.notices.line("transaction", f"tok-{n}", {"id": 100 + n, "amount": "0.1",
                              "coin": "btc", "amountFiat": "9.99", "currency": "EUR",
                              "state": "paid, confirming"})  # fmt: skip
        self.notices.line("late-payment", "tok-late", {"id": 7, "amount": "0.5"})
        self.notices.line("status", "tok-short", {"state": "underpaid", "code": "expired"})
        start = clock.now
        while clock.now - start <= OUTAGE_SECONDS:
            self.notices.outage("cannot connect")
            clock.now += 10.0
        self.notices.recovered()

    def close(self) -> None:
        assert self.writer.close(10) == ""  # every claim made
        assert self.notifier.drain(10)
        self.notifier.close(1)


def test_two_claimers_one_wins_on_both_engines(ledger: Settings) -> None:
    first, second = open_book(ledger), open_book(ledger)
    try:
        won: dict[str, list[bool]] = {"a": [], "b": []}

        def claim(book: SqlBook, who: str) -> None:
            for n in range(20):
                won[who].append(book.claim_notice(f"tok-{n}", "attention", "underpaid", who, T0))

        threads = [threading.Thread(target=claim, args=pair) for pair in
                   ((first, "a"), (second, "b"))]  # fmt: skip
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        # every notification claimed by exactly one of them
        assert [a + b for a, b in zip(won["a"], won["b"], strict=True)] == [1] * 20
        # a claim made again by its winner (a commit whose answer was lost) is still its own
        winner = "a" if won["a"][0] else "b"
        assert first.claim_notice("tok-0", "attention", "underpaid", winner, T0)
        assert not first.claim_notice("tok-0", "attention", "underpaid", "c", T0)
        # another state of the same order is a new thing to tell
        assert second.claim_notice("tok-0", "attention", "underpaid after 5", "c", T0)

        # an outage: the first to claim tells it, the other joins the same episode
        began = T0 - timedelta(seconds=30)
        episode, told = first.claim_outage("a", T0, began)
        assert told and second.claim_outage("b", T0, began) == (episode, False)
        assert second.claim_notice("", "recovery", episode, "b", T0)
        assert not first.claim_notice("", "recovery", episode, "a", T0)
        # the same outage seen late, by a process whose reads failed before the recovery
        assert first.claim_outage("c", T0, began + timedelta(seconds=25)) == (episode, False)
        # one that began after the recovery is a new one, told again
        later, told = second.claim_outage("b", T0, T0 + timedelta(minutes=5))
        assert told and later != episode
    finally:
        first.close_connection()
        second.close_connection()


def test_processes_on_one_book_send_each_notification_once_and_a_restart_none(
    ledger: Settings,
) -> None:
    delivery, clock = Recorded(), Clock()
    processes = [Process(ledger, delivery, clock) for _ in range(3)]
    for process in processes:
        process.hear_a_shop(clock)
    for process in processes:
        process.close()
    sent = sorted((m.event, m.title) for m in delivery.sent)
    assert sent == sorted(
        [("payment", "orderdash: payment 0.1 BTC")] * 3
        + [
            ("late-payment", "orderdash: Late payment on order tok-late"),
            ("attention", "orderdash: Underpaid on order tok-short"),
            ("outage", "orderdash: Service unreachable since 10:02"),
            ("recovery", "orderdash: Service reachable again"),
        ]
    )
    # a restart: every order's news heard again, none sent again
    delivery.sent.clear()
    again = Process(ledger, delivery, clock)
    for n in range(3):
        again.notices.line("transaction", f"tok-{n}", {"id": 100 + n, "amount": "0.1"})
    again.notices.line("late-payment", "tok-late", {"id": 7, "amount": "0.5"})
    again.notices.line("status", "tok-short", {"state": "underpaid", "code": "expired"})
    again.close()
    assert delivery.sent == []


def test_a_blip_of_two_failed_reads_is_no_outage() -> None:
    delivery, clock = Recorded(), Clock()
    rule = NotifyRule.model_validate({"events": EVERY, "urls": ["json://hook"]})
    notifier = Notifier([rule], delivery=lambda: delivery, backoff=(0.01,))
    notices = Notices(notifier, monotonic=clock)
    try:
        notices.outage("503")
        clock.now += 1.0
        notices.outage("503")
        notices.recovered()  # the next read answers: neither the outage nor its end is told
        for _ in range(5):  # many failed reads within a few seconds: not yet an outage
            notices.outage("503")
            clock.now += 1.0
        notices.recovered()
        assert notifier.drain(5)
        assert delivery.sent == []
    finally:
        notifier.close(1)


def _order(token: str) -> Any:
    return SimpleNamespace(token=token, transactions=[])


def test_a_part_payment_into_an_open_order_is_told_only_once_it_closes_short() -> None:
    delivery = Recorded()
    rule = NotifyRule.model_validate({"events": ["attention"], "urls": ["json://hook"]})
    notifier = Notifier([rule], delivery=lambda: delivery, backoff=(0.01,))
    notices = Notices(notifier)
    notices.attention_from_phases = False  # the keeper tells, as in the dashboard
    status = Alert(0, "", "", "Status: expired")
    try:
        # still paying: no alarm while the customer may pay the rest
        step = "ask the customer for the shortfall"
        paying = notices.attention("tok-a", "underpaid", step, phase=Phase.PARTLY_PAID,
                                   amount=Decimal("2.00"), currency="EUR")  # fmt: skip
        assert not paying
        assert not notices.attention("tok-b", "underpaid", step, phase=Phase.PARTLY_PAID)
        assert notifier.drain(5) and delivery.sent == []
        # tok-b pays the rest: never told; tok-a expires short: told now, once
        notices.alert(status, order=_order("tok-b"), phase=Phase.CONFIRMING, outage=False)
        notices.alert(status, order=_order("tok-a"), phase=Phase.UNDERPAID, outage=False)
        notices.alert(status, order=_order("tok-a"), phase=Phase.UNDERPAID, outage=False)
        assert notifier.drain(5)
        assert [m.title for m in delivery.sent] == ["orderdash: Underpaid: 2.00 EUR on order tok-a"]
    finally:
        notifier.close(1)


def test_a_ledger_that_cannot_be_written_is_said_once_and_every_message_sent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken() -> Any:
        raise LedgerError("the ledger /nowhere cannot be opened")

    delivery = Recorded()
    rule = NotifyRule.model_validate({"events": ["payment"], "urls": ["json://hook"]})
    notifier = Notifier([rule], delivery=lambda: delivery, backoff=(0.01,))
    writer = BookWriter(broken, "front")
    notices = Notices(notifier)
    notices.claims = LedgerClaims(writer)
    try:
        with caplog.at_level(logging.WARNING, logger="orderdash.core.notify.claims"):
            for n in range(3):
                notices.line("transaction", f"tok-{n}", {"id": n, "amount": "1"})
            writer.close(5)
            notices.line("transaction", "tok-9", {"id": 9, "amount": "1"})  # closed: sent too
            assert notifier.drain(5)
        assert len(delivery.sent) == 4
        said = [r for r in caplog.records if "not claimed in the ledger" in r.getMessage()]
        assert len(said) == 1
    finally:
        notifier.close(1)


def test_titles_are_peoples_words() -> None:
    late = messages.attention("tok-1", "paid_after_expiry", "deliver or refund",
                              amount=Decimal("18.00"), currency="EUR")  # fmt: skip
    assert late.title == "orderdash: Paid after expiry: 18.00 EUR on order tok-1"
    assert late.body.startswith("Paid after expiry: 18.00 EUR on order tok-1\n")
    for kind in messages.WORDS:
        title = messages.attention("tok-1", kind).title
        assert "_" not in title and title.split(": ", 1)[1][0].isupper()
    assert messages.outage("503", "10:02").title == "orderdash: Service unreachable since 10:02"


def test_a_readonly_dashboard_sends_nothing_unless_told_to() -> None:
    from orderdash.core.notify.events import close_all, made
    from orderdash.tui.alarms import Alarms

    rules = [{"events": ["payment"], "urls": ["json://127.0.0.1:9/"]}]
    app, state = cast(Any, None), cast(Any, None)
    since = made()
    try:
        readonly = Settings.model_validate({"notify": rules, "readonly": True})
        assert Alarms(app, state, readonly).notices is None
        allowed = readonly.model_copy(update={"notify_readonly": True})
        assert Alarms(app, state, allowed).notices is not None
        till = Settings.model_validate({"notify": rules})
        assert Alarms(app, state, till).notices is not None
    finally:
        close_all(1, since=since)


def test_an_outage_told_without_the_ledger_has_its_recovery_told_too() -> None:
    """Better twice than never, for the end of an outage as for the outage: a ledger that
    cannot be written leaves no episode to claim the recovery under, and it is sent all the
    same."""

    class Unwritable:
        def claim_outage(self, by: str, at: datetime, began: datetime) -> tuple[str, bool]:
            raise LedgerError("the ledger /nowhere: disk I/O error")

        def claim_notice(self, token: str, event: str, state: str, by: str, at: datetime) -> bool:
            raise LedgerError("the ledger /nowhere: disk I/O error")

    class Writer:
        def later(self, fn: Any) -> Any:
            from concurrent.futures import Future

            done: Future[None] = Future()
            fn(Unwritable())
            done.set_result(None)
            return done

    delivery, clock = Recorded(), Clock()
    rule = NotifyRule.model_validate({"events": EVERY, "urls": ["json://hook"]})
    notifier = Notifier([rule], delivery=lambda: delivery, backoff=(0.01,))
    notices = Notices(notifier, monotonic=clock, clock=lambda: T0.timestamp())
    notices.claims = LedgerClaims(cast(Any, Writer()))
    try:
        while clock.now <= OUTAGE_SECONDS + 10:
            notices.outage("cannot connect")
            clock.now += 10.0
        notices.recovered()
        assert notifier.drain(5)
        assert [m.event for m in delivery.sent] == ["outage", "recovery"]
    finally:
        notifier.close(1)
