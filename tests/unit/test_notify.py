"""Notifications (core/notify): Apprise's `json://` URLs deliver to a JSON endpoint served here
on loopback, one per rule that names the event, none for an event no rule names, none while the
quiet hours hold; a failure is tried again; `notify --test` says per rule what happened; the
URLs' parts are never in the output or the logs."""

from __future__ import annotations

import io
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from importlib.util import find_spec
from pathlib import Path

import pytest

from conftest import run_cli, run_python
from orderdash.core.model.errors import ConfigError
from orderdash.core.notify import messages
from orderdash.core.notify.delivery import redact
from orderdash.core.notify.events import Notices
from orderdash.core.notify.messages import Message
from orderdash.core.notify.rules import NotifyRule, QuietHours
from orderdash.core.notify.sender import Notifier
from orderdash.core.settings.model import Settings
from orderdash.core.settings.sources import load_settings
from orderdash.core.watching.alert import Alert
from support.notify_endpoint import KEY, PASSWORD, USER, Endpoint

needs_apprise = pytest.mark.skipif(
    find_spec("apprise") is None,
    reason="Apprise is not installed (pip install 'orderdash[notify]')",
)


@pytest.fixture(scope="module")
def endpoint() -> Iterator[Endpoint]:
    served = Endpoint()
    yield served
    served.close()


@dataclass
class Clock:
    now: float

    def __call__(self) -> float:
        return self.now


def at_utc(hour: int, minute: int = 0) -> float:
    return datetime(2026, 11, 27, hour, minute, tzinfo=UTC).timestamp()


def rule(events: list[str], *urls: str) -> NotifyRule:
    return NotifyRule.model_validate({"events": events, "urls": list(urls)})


@pytest.fixture
def notifiers() -> Iterator[list[Notifier]]:
    made: list[Notifier] = []
    yield made
    for notifier in made:
        notifier.close(timeout=2)


def make_notifier(made: list[Notifier], rules: list[NotifyRule], **options: object) -> Notifier:
    options.setdefault("zone", UTC)
    options.setdefault("backoff", (0.01,))
    notifier = Notifier(rules, **options)  # type: ignore[arg-type]
    made.append(notifier)
    return notifier


PAYMENT = messages.payment(
    "tok-1", Decimal("0.000123456789012345678901"), "BTC", Decimal("12.50"), "EUR", state="paid"
)


# -- through Apprise, to the local endpoint -------------------------------------------------------


@needs_apprise
def test_one_message_per_rule_that_names_the_event(endpoint, notifiers) -> None:
    endpoint.clear()
    notifier = make_notifier(
        notifiers,
        [
            rule(["payment"], endpoint.url("a")),
            rule(["payment", "close"], endpoint.url("b")),
            rule(["outage"], endpoint.url("c")),
        ],
    )
    assert notifier.submit(PAYMENT)
    # no rule names "recovery": not even queued
    assert not notifier.submit(messages.recovery("10:02"))
    assert notifier.drain(10)
    assert len(endpoint.at("a")) == len(endpoint.at("b")) == 1
    assert endpoint.at("c") == []
    body = endpoint.at("a")[0]
    assert body["title"] == "orderdash: payment 0.000123456789012345678901 BTC"
    # the service's digits, every one of them, and the order's token
    assert "0.000123456789012345678901 BTC (12.50 EUR)" in str(body["message"])
    assert "tok-1" in str(body["message"])
    assert len(endpoint.received) == 2


@needs_apprise
def test_quiet_hours_hold_messages_then_one_summary_per_rule(endpoint, notifiers) -> None:
    endpoint.clear()
    clock = Clock(at_utc(23, 15))
    notifier = make_notifier(
        notifiers,
        [rule(["payment"], endpoint.url("q1")), rule(["outage"], endpoint.url("q2"))],
        quiet=QuietHours.parse("22:00-07:00"),
        clock=clock,
    )
    notifier.submit(PAYMENT)
    notifier.submit(PAYMENT)
    assert notifier.drain(10)
    assert endpoint.received == []  # nothing while quiet
    clock.now = at_utc(6, 59)
    notifier.wake()
    assert notifier.drain(10)
    assert endpoint.received == []
    clock.now = at_utc(7, 0)
    notifier.wake()
    assert notifier.drain(10)
    summaries = endpoint.at("q1")
    assert len(summaries) == 1 and endpoint.at("q2") == []  # q2's rule held nothing
    assert summaries[0]["title"] == "orderdash: 2 held during quiet hours"
    text = str(summaries[0]["message"])
    assert "While quiet (22:00-07:00)" in text
    # counted, not repeated one by one
    assert "2 messages were held: 2 payments." in text and "The first at 23:15" in text
    assert "0.000123456789012345678901" not in text


@needs_apprise
def test_a_failed_send_is_tried_again(endpoint, notifiers, caplog) -> None:
    endpoint.clear()
    caplog.set_level(logging.DEBUG)
    notifier = make_notifier(notifiers, [rule(["payment"], endpoint.url("flaky-1"))])
    notifier.submit(PAYMENT)
    assert notifier.drain(10)
    # a 500, then the same message again, delivered
    assert [body["title"] for body in endpoint.at("flaky-1")] == [PAYMENT.title] * 2
    assert notifier.failed == {}
    assert "notification sent: rule 0 (json), payment" in caplog.text


def until(predicate, timeout: float = 10.0) -> bool:  # noqa: ANN001 - any callable
    """Poll `predicate` (the sender's thread works meanwhile) until it holds or time is up."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def retried_until_done(notifier: Notifier, waits: Clock) -> bool:
    """Push the retries' clock past every wait, a step at a time (waking the sender), until
    everything was sent or given up."""
    deadline = time.monotonic() + 20
    while not notifier.drain(0):
        if time.monotonic() > deadline:
            return False
        waits.now += 60.0
        notifier.wake()
        notifier.drain(0.05)
    return True


@needs_apprise
def test_a_failing_url_does_not_hold_another_rules_messages(endpoint, notifiers) -> None:
    endpoint.clear()
    waits = Clock(0.0)  # the retries' clock: they are due only when the test says
    notifier = make_notifier(
        notifiers,
        [
            rule(["payment"], endpoint.url("fail-h")),
            rule(["payment", "outage"], endpoint.url("ok-h")),
        ],
        backoff=(2.0, 10.0, 30.0),
        monotonic=waits,
    )
    notifier.submit(PAYMENT)
    # the other rule's message comes right after the failing URL's first try, not its retries
    assert until(lambda: len(endpoint.at("ok-h")) == 1)
    assert len(endpoint.at("fail-h")) == 1
    notifier.submit(messages.outage("cannot connect", "10:02"))  # while a retry waits: at once too
    assert until(lambda: len(endpoint.at("ok-h")) == 2)
    assert len(endpoint.at("fail-h")) == 1
    assert retried_until_done(notifier, waits)
    assert notifier.failed == {0: 1}  # given up after its last try, once
    assert len(endpoint.at("fail-h")) == 4 and len(endpoint.at("ok-h")) == 2


@needs_apprise
def test_a_url_that_is_down_costs_a_try_per_wait_not_one_per_message(endpoint, notifiers) -> None:
    endpoint.clear()
    waits = Clock(0.0)
    notifier = make_notifier(
        notifiers,
        [rule(["payment"], endpoint.url("fail-d")), rule(["payment"], endpoint.url("ok-d"))],
        backoff=(2.0, 10.0, 30.0),
        monotonic=waits,
    )
    notifier.submit(PAYMENT)
    assert until(lambda: len(endpoint.at("ok-d")) == 1)
    notifier.submit(PAYMENT)
    notifier.submit(PAYMENT)
    assert until(lambda: len(endpoint.at("ok-d")) == 3)
    # the next two wait for the failing URL's retry: not tried at once
    assert len(endpoint.at("fail-d")) == 1
    assert retried_until_done(notifier, waits)
    # every message had its four tries, and each was given up once
    assert len(endpoint.at("fail-d")) == 12 and notifier.failed == {0: 3}
    assert len(endpoint.at("ok-d")) == 3


@needs_apprise
def test_a_retry_that_falls_in_the_quiet_hours_is_held(endpoint, notifiers) -> None:
    from orderdash.core.notify.sender import AppriseDelivery

    endpoint.clear()
    clock = Clock(at_utc(21, 59))

    class QuietAfterTheFirstTry(AppriseDelivery):
        def send(self, url: str, message: Message) -> str | None:
            reason = super().send(url, message)
            clock.now = at_utc(22, 0)  # the quiet hours begin while the retry waits
            return reason

    notifier = make_notifier(
        notifiers,
        [rule(["payment"], endpoint.url("flaky-q"))],
        quiet=QuietHours.parse("22:00-07:00"),
        clock=clock,
        delivery=QuietAfterTheFirstTry,
    )
    notifier.submit(PAYMENT)
    assert notifier.drain(10)
    assert len(endpoint.at("flaky-q")) == 1  # the first try's 500; the retry is held
    clock.now = at_utc(7, 0)
    notifier.wake()
    assert notifier.drain(10)
    first, summary = endpoint.at("flaky-q")
    assert first["title"] == PAYMENT.title
    assert summary["title"] == "orderdash: 1 held during quiet hours"
    assert "1 messages were held: 1 payment." in str(summary["message"])
    assert notifier.failed == {}


@needs_apprise
def test_the_send_timeout_is_apprises_unless_the_url_sets_its_own() -> None:
    from orderdash.core.notify.sender import AppriseDelivery

    delivery = AppriseDelivery(timeout=0.2)
    assert delivery.plugin("json://127.0.0.1:9/hook").request_timeout == (0.2, 0.2)
    assert delivery.plugin("json://127.0.0.1:9/hook?cto=3&rto=7").request_timeout == (3.0, 7.0)
    # a webhook that takes the connection and never answers: given up after the timeout, not
    # Apprise's own 4 s (the bound is loose: a tenth of a second against seconds)
    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        started = time.monotonic()
        reason = delivery.send(f"json://127.0.0.1:{port}/hook", PAYMENT)
        took = time.monotonic() - started
    assert reason is not None and str(port) not in reason
    assert took < 3.5


@needs_apprise
def test_a_url_never_reaches_the_logs(endpoint, notifiers, caplog, capfd) -> None:
    endpoint.clear()
    caplog.set_level(logging.DEBUG)
    closed_port = f"json://{USER}:{PASSWORD}@127.0.0.1:9/{KEY}"  # discard port: refused
    notifier = make_notifier(
        notifiers,
        [
            rule(["payment"], endpoint.url(f"fail-{KEY}", secret=True)),
            rule(["payment"], closed_port),
        ],
    )
    notifier.submit(PAYMENT)
    assert notifier.drain(20)
    assert notifier.failed == {0: 1, 1: 1}
    assert "notification failed: rule 0 (json), payment" in caplog.text
    out, err = capfd.readouterr()
    for text in (caplog.text, out, err):
        for part in (USER, PASSWORD, KEY, f"127.0.0.1:{endpoint.port}", "127.0.0.1"):
            assert part not in text
    # Apprise's own records stay with it (its failures name the host)
    assert not [r for r in caplog.records if r.name.startswith("apprise")]


@needs_apprise
def test_notify_test_says_per_rule_what_happened(endpoint, tmp_path: Path) -> None:
    """Per rule on stdout, per URL in the log file (`--log`); a URL that answers with a redirect
    failed, and its `Location` is never asked for."""
    endpoint.clear()
    config = tmp_path / "config.toml"
    redirected = endpoint.url("redirect-" + KEY, secret=True)
    config.write_text(
        f'[[notify]]\nevents = ["payment"]\nurls = ["{endpoint.url("t-ok", secret=True)}"]\n'
        f'[[notify]]\nevents = "close"\nurls = ["{endpoint.url("fail-" + KEY, secret=True)}"]\n'
        f'[[notify]]\nevents = "close"\nurls = ["{endpoint.url("t-ok2")}", "{redirected}"]\n'
    )
    log = tmp_path / "notify.log"
    done = run_cli("notify", "--test", "--log", str(log), env={"ORDERDASH_CONFIG": str(config)})
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "rule 0 (json): sent"
    assert lines[1].startswith("rule 1 (json): failed: ")
    assert "500" in lines[1]
    assert lines[2] == "rule 2 (json, json): failed: redirected: not delivered"
    assert len(endpoint.at("t-ok")) == 1
    assert endpoint.at("t-ok")[0]["title"] == "orderdash: test message"
    assert not [path for _, path in endpoint.requests if path.startswith("/moved")]
    logged = [line.split(": ", 1)[1] for line in log.read_text().splitlines()]
    assert logged[0] == "notification sent: rule 0 (json), test"
    assert logged[1].startswith("notification failed: rule 1 (json), test: ") and "500" in logged[1]
    assert logged[2:] == [
        "notification sent: rule 2, URL 0 (json), test",
        "notification failed: rule 2, URL 1 (json), test: redirected: not delivered",
    ]
    for text in (done.stdout, done.stderr, log.read_text() if log.exists() else ""):
        for part in (USER, PASSWORD, KEY, str(endpoint.port)):
            assert part not in text


def test_notify_test_without_rules_says_so() -> None:
    done = run_cli("notify", "--test")
    assert done.returncode == 2
    assert "no notification rules" in done.stderr


# -- without Apprise: the rules, the messages, what turns events into messages -------------------


class Recorded:
    """A delivery that records what it was given (no network, no Apprise)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Message]] = []

    def send(self, url: str, message: Message) -> str | None:
        self.sent.append((url, message))
        return None


def recording(made: list[Notifier], events: list[str]) -> tuple[Notifier, Recorded]:
    delivery = Recorded()
    notifier = make_notifier(made, [rule(events, "json://hook")], delivery=lambda: delivery)
    return notifier, delivery


def test_rules_refuse_unknown_events_and_never_repeat_a_url(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    secret = f"tgram://{KEY}/{PASSWORD}"
    config.write_text(f'[[notify]]\nevents = ["payment", "paid"]\nurls = ["{secret}"]\n')
    with pytest.raises(ConfigError, match=r"notify\.0\.events: unknown event 'paid'"):
        load_settings(env={"ORDERDASH_CONFIG": str(config)})
    config.write_text(f'[[notify]]\nevents = "payment"\nurls = ["{secret}", "no scheme {KEY}"]\n')
    with pytest.raises(ConfigError) as refused:
        load_settings(env={"ORDERDASH_CONFIG": str(config)})
    assert "notify.0.urls: URL 1 must be one line" in refused.value.message
    assert KEY not in refused.value.message
    with pytest.raises(ValueError) as direct:
        Settings(notify=[{"events": ["payment"], "urls": [f"bad {KEY}"]}])
    assert KEY not in str(direct.value)
    settings = Settings(notify=[{"events": "payment", "urls": secret}], quiet_hours="22:00-7:00")
    assert settings.quiet_hours == "22:00-07:00"
    assert settings.notify[0].schemes() == ["tgram"]
    for shown in (repr(settings), str(settings), repr(settings.notify)):
        assert KEY not in shown and PASSWORD not in shown


def test_the_urls_are_kept_from_child_processes() -> None:
    from orderdash.core.settings.sources import child_environment

    assert "ORDERDASH_NOTIFY" not in child_environment({"ORDERDASH_NOTIFY": "json://x"})


def test_quiet_hours_over_midnight_and_within_a_day() -> None:
    night, noon = QuietHours.parse("22:00-07:00"), QuietHours.parse("12:00-13:30")

    def at(hour: int, minute: int) -> datetime:
        return datetime(2026, 11, 27, hour, minute, tzinfo=UTC)

    assert night.holds(at(22, 0)) and night.holds(at(3, 0)) and night.holds(at(6, 59))
    assert not night.holds(at(7, 0)) and not night.holds(at(21, 59))
    assert noon.holds(at(13, 29)) and not noon.holds(at(13, 30)) and not noon.holds(at(11, 59))
    for bad in ("22-07", "24:00-01:00", "07:00-07:00", "7:00 to 9:00"):
        with pytest.raises(ValueError):
            QuietHours.parse(bad)


def test_redact_cuts_every_part_of_the_url() -> None:
    url = f"json://{USER}:{PASSWORD}@hooks.example:8443/{KEY}/x?token={KEY}2"
    text = f"Failed to reach hooks.example:8443 as {USER} ({PASSWORD}) at /{KEY}/x, {KEY}2"
    cleaned = redact(text, url)
    for part in (USER, PASSWORD, KEY, "hooks.example", "8443"):
        assert part not in cleaned


def test_the_close_digest_has_the_totals_exceptions_and_digest() -> None:
    report = {
        "period": {"from": "2026-11-26T00:00:00+01:00", "until": "2026-11-27T00:00:00+01:00"},
        "orders": {"total": 7},
        "received": {
            "coins": {"BTC": {"amount": "0.000123456789012345678901", "payments": 2}},
            "fiat": {"EUR": {"amount": "25.10", "payments": 2}},
        },
        "exceptions": [{"kind": "underpaid"}, {"kind": "overpaid"}],
        "digest": "ab" * 32,
    }
    digest = messages.close_digest(report)
    assert digest.event == "close"
    assert digest.title == "orderdash: close of day 2026-11-26"
    assert "BTC 0.000123456789012345678901 (2 payments)" in digest.body
    assert "EUR 25.10 (2 payments)" in digest.body
    assert "Exceptions: 2" in digest.body
    assert f"Digest: {'ab' * 32}\n" in digest.body  # whole, to compare with the ledger's


def test_the_close_digest_keeps_the_whole_digest_when_the_body_is_cut() -> None:
    many = {f"C{n:04}": {"amount": "1." + "1" * 40, "payments": 1} for n in range(200)}
    report = {
        "period": {"from": "2026-11-26T00:00:00+01:00", "until": "2026-11-27T00:00:00+01:00"},
        "orders": {"total": 200},
        "received": {"coins": many, "fiat": {}},
        "exceptions": [],
        "digest": "cd" * 32,
    }
    body = messages.close_digest(report).body
    assert len(body) == messages.MAX_BODY and body.endswith("\u2026")
    assert f"Digest: {'cd' * 32}\n" in body


def test_text_from_the_service_is_one_clean_line() -> None:
    hostile = messages.payment(
        "tok\x1b[2J", Decimal("1"), "BTC", None, "EUR", company="ACME [/] \x1b]8;;x\x07Corp\nnext"
    )
    assert "\x1b" not in hostile.body and "\x07" not in hostile.body
    assert hostile.body.count("\n") == 1  # the message's own two lines only


@dataclass(frozen=True)
class KindedAlert:
    """An alert that carries its kind by name, as new kinds do."""

    at: float
    token: str
    company: str
    text: str
    alarm: bool = True
    kind: str = "late-payment"


def test_alerts_map_to_events_by_kind_and_by_what_the_state_knows(notifiers) -> None:
    from orderdash.core.domain.payment import Phase

    notifier, delivery = recording(
        notifiers, ["late-payment", "outage", "recovery", "attention", "payment"]
    )
    waits = Clock(0.0)
    notices = Notices(notifier, monotonic=waits, clock=lambda: at_utc(10, 2), zone=UTC)
    notices.alert(
        KindedAlert(0, "tok-9", "", "Paid 3 h after expiry"), order=None, phase=None, outage=False
    )
    down = Alert(0, "", "", "Service unreachable: cannot connect", alarm=True)
    notices.alert(down, order=None, phase=None, outage=True)  # the alarm itself tells nothing
    for _ in range(3):  # the failed reads do, once the outage has lasted
        notices.outage("cannot connect")
        waits.now += 15.0
    notices.outage("cannot connect")  # one outage, one message
    notices.alert(
        Alert(0, "", "", "Service reachable again", alarm=True),
        order=None,
        phase=None,
        outage=False,
    )
    assert notices.attention("tok-2", Phase.UNDERPAID.value, "ask for the rest")
    assert not notices.attention("tok-2", Phase.UNDERPAID.value, "ask for the rest")  # told once
    # the caller that knows it came back (after its resolution) tells it again, as a new state
    assert notices.attention(
        "tok-2", Phase.UNDERPAID.value, "ask for the rest", state="underpaid after 1"
    )
    assert notifier.drain(5)
    sent = [(m.event, m.title) for _, m in delivery.sent]
    assert sent == [
        ("late-payment", "orderdash: Late payment on order tok-9"),
        ("outage", "orderdash: Service unreachable since 10:02"),
        ("recovery", "orderdash: Service reachable again"),
        ("attention", "orderdash: Underpaid on order tok-2"),
        ("attention", "orderdash: Underpaid on order tok-2"),
    ]
    assert (
        "tok-9" in delivery.sent[0][1].body and "Paid 3 h after expiry" in delivery.sent[0][1].body
    )
    assert "cannot connect" in delivery.sent[1][1].body


def test_watch_jsonl_lines_are_heard_by_name(notifiers) -> None:
    from orderdash.headless import JsonLinesEvents

    notifier, delivery = recording(notifiers, ["payment", "late-payment", "attention"])
    lines = JsonLinesEvents(io.StringIO(), lambda: at_utc(12), Notices(notifier))
    lines.emit(
        "transaction",
        "tok-3",
        amount=Decimal("0.10000000"),
        amountFiat=Decimal("9.99"),
        coin="btc",
        currency="EUR",
        state="underpaid",
    )
    lines.emit("late-payment", "tok-4", amount=Decimal("0.5"), coin="LTC")
    lines.emit("status", "tok-5", previous="new", code="paid", state="paid")  # no rule: nothing
    assert notifier.drain(5)
    events = [m.event for _, m in delivery.sent]
    assert events == ["payment", "attention", "late-payment"]
    assert "0.10000000 BTC (9.99 EUR)" in delivery.sent[0][1].body
    assert "amount: 0.5" in delivery.sent[2][1].body


def test_a_full_queue_drops_and_never_blocks(notifiers) -> None:
    gate = threading.Event()

    class Stuck(Recorded):
        def send(self, url: str, message: Message) -> str | None:
            gate.wait(5)
            return super().send(url, message)

    stuck = Stuck()
    notifier = make_notifier(
        notifiers, [rule(["payment"], "json://hook")], delivery=lambda: stuck, max_queue=2
    )
    accepted = [notifier.submit(PAYMENT) for _ in range(6)]
    assert accepted.count(False) >= 3 and notifier.dropped == accepted.count(False)
    gate.set()
    assert notifier.drain(5)


def test_no_rules_load_nothing_and_rules_do_not_load_apprise_at_start() -> None:
    done = run_python(
        "import sys\n"
        "from orderdash.core.settings.model import Settings\n"
        "from orderdash.core.notify.events import notices_for\n"
        "assert notices_for(Settings()) is None\n"
        "n = notices_for(Settings(notify=[{'events': 'payment', 'urls': 'json://127.0.0.1:9/'}]))\n"
        "print('apprise' in sys.modules, 'orderdash.core.notify.sender' in sys.modules)\n"
        "n.notifier.close(1)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


def test_watch_jsonl_says_an_outage_once_and_its_end(notifiers) -> None:
    from orderdash.core.model.errors import NetworkError, NotFound
    from orderdash.core.polling.refresh import Kind
    from orderdash.core.polling.watcher import Failure
    from orderdash.headless import JsonLinesEvents

    notifier, delivery = recording(notifiers, ["outage", "recovery"])
    out = io.StringIO()
    waits = Clock(0.0)
    lines = JsonLinesEvents(out, lambda: at_utc(12), Notices(notifier, monotonic=waits))
    down = NetworkError("cannot connect to the service")
    for token in ("tok-1", "tok-2", "tok-1"):  # every order fails: one outage, once it lasted
        lines.on_failure(token, Failure(Kind.ORDER, down, 1.0))
        waits.now += 15.0
    lines.on_failure("tok-3", Failure(Kind.ORDER, NotFound("no such order"), 1.0))
    assert notifier.drain(5)
    assert [m.event for _, m in delivery.sent] == ["outage"]
    assert "cannot connect to the service" in delivery.sent[0][1].body
    # the JSON lines are what they were: notifications add none
    assert [json.loads(line)["event"] for line in out.getvalue().splitlines()] == ["error"] * 3


def test_a_config_file_with_urls_readable_by_others_is_warned_about(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[[notify]]\nevents = "payment"\nurls = "tgram://{KEY}/1"\n')
    config.chmod(0o644)
    _, warnings = load_settings(env={"ORDERDASH_CONFIG": str(config)})
    assert any("holds notification URLs" in w and "chmod 600" in w for w in warnings)
    assert not any(KEY in w for w in warnings)
    config.chmod(0o600)
    assert load_settings(env={"ORDERDASH_CONFIG": str(config)})[1] == []


def test_the_demo_tells_the_owner_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`orderdash demo` reads the user's config file, but its simulated payments are nobody's
    news: its rules are left out."""
    from orderdash import cli
    from orderdash.tui import run

    config = tmp_path / "orderdash" / "config.toml"
    config.parent.mkdir()
    config.write_text('[[notify]]\nevents = "payment"\nurls = "json://127.0.0.1:9/"\n')
    config.chmod(0o600)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    seen = {}
    monkeypatch.setattr(
        run, "run_dashboard", lambda settings, *_, **__: seen.setdefault("s", settings) and 0
    )
    assert cli.main(["demo", "--customer-interval", "0"]) == 0
    assert seen["s"].notify == ()


# -- a late payment: its own event, in the dashboard and in `watch --jsonl` alike ----------------


class ByUrl(Recorded):
    def titles(self, url: str) -> list[str]:
        return [m.title for at, m in self.sent if at == url]


def paid_in_time_then_late() -> tuple[list[object], list[dict[str, object]]]:
    """An order read four times from the simulator: paid in part in time, then paid after its
    expiry (A), then once more late (C) and once more (D) in the same read. The reads, and the
    four payments as the service sent them."""
    from orderdash.core.model.wire import Order
    from orderdash.simulator import Simulator

    clock = Clock(at_utc(12))
    sim = Simulator(clock=clock, with_demo_orders=False)
    token = sim.create_order(token="late-9", lifetime_s=600)

    def read() -> Order:
        return Order.model_validate(sim.order_wire(token, with_qr=False))

    payments = [sim.add_transaction(token, "0.00001")]
    reads = [read()]
    clock.now += 3 * 3600
    payments.append(sim.add_transaction(token, "0.00002"))
    reads.append(read())
    payments += [sim.add_transaction(token, "0.00003"), sim.add_transaction(token, "0.00004")]
    reads.append(read())
    return reads, payments


def late_rules(made: list[Notifier]) -> tuple[Notifier, ByUrl]:
    delivery = ByUrl()
    notifier = make_notifier(
        made,
        [rule(["payment"], "json://paid"), rule(["late-payment"], "json://late")],
        delivery=lambda: delivery,
    )
    return notifier, delivery


def test_a_late_payment_is_its_own_event_and_told_in_the_dashboard(notifiers) -> None:
    from orderdash.core.watching.alert import LATE_PAYMENT

    (first, second, third), (p0, a, c, d) = paid_in_time_then_late()
    notifier, delivery = late_rules(notifiers)
    notices = Notices(notifier)
    notices.alert(
        Alert(0, "late-9", "", "Payment received: P0"), order=first, phase=None, outage=False
    )
    late = Alert(0, "late-9", "", "Late payment into a closed order: A", alarm=True,
                 kind=LATE_PAYMENT, late_ids=(a["id"],))  # fmt: skip
    notices.alert(late, order=second, phase=None, outage=False)
    # C late and D in time in one read (as a read across the deadline makes them)
    mixed = Alert(0, "late-9", "", "Late payment into a closed order: C; Payment received: D",
                  alarm=True, kind=LATE_PAYMENT, late_ids=(c["id"],))  # fmt: skip
    notices.alert(mixed, order=third, phase=None, outage=False)
    assert notifier.drain(5)
    # a rule naming only `payment` hears of the payments in time, never of A or C, and A is
    # not told later as a payment with the next one
    assert delivery.titles("json://paid") == [
        f"orderdash: payment {p0['amount']['base']} BTC",
        f"orderdash: payment {d['amount']['base']} BTC",
    ]
    assert delivery.titles("json://late") == ["orderdash: Late payment on order late-9"] * 2


def test_a_late_payment_is_its_own_event_in_watch_jsonl(notifiers) -> None:
    from orderdash.core.model.results import Fetched
    from orderdash.core.polling.refresh import Kind
    from orderdash.core.polling.watcher import Change
    from orderdash.headless import JsonLinesEvents

    (first, second, third), (p0, a, c, d) = paid_in_time_then_late()
    notifier, delivery = late_rules(notifiers)
    out = io.StringIO()
    lines = JsonLinesEvents(out, lambda: at_utc(12), Notices(notifier))
    reads = [
        (first, Change()),
        (first, Change(new_transaction_ids=(p0["id"],))),  # as if first seen unpaid
        (second, Change(new_transaction_ids=(a["id"],), late_ids=(a["id"],))),
        (third, Change(new_transaction_ids=(c["id"], d["id"]), late_ids=(c["id"],))),
    ]
    for order, change in reads:
        lines.on_fetched("late-9", Kind.ORDER, Fetched(order, {}, at_utc(12), 0.0), change)
    assert notifier.drain(5)
    written = [json.loads(line)["event"] for line in out.getvalue().splitlines()]
    # the JSON lines are what they were: a late payment's `transaction` line, then its own
    assert written == ["state", "transaction", "transaction", "late-payment", "transaction",
                       "late-payment", "transaction"]  # fmt: skip
    assert delivery.titles("json://paid") == [
        f"orderdash: payment {p0['amount']['base']} BTC",
        f"orderdash: payment {d['amount']['base']} BTC",
    ]
    assert delivery.titles("json://late") == ["orderdash: Late payment on order late-9"] * 2
