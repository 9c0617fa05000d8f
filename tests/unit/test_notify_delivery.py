"""One send through Apprise (core/notify/delivery.py): a URL that answers with a redirect is a
failure and its `Location` is never asked for (the redirect would turn the POST into a
body-less GET carrying the same credentials); and what a command says at its end of what
became of its notifications (cli/notify.py). `notify --test`'s outcomes, on stdout and in its
log: tests/unit/test_notify.py."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from importlib.util import find_spec

import pytest

from orderdash.core.notify import messages
from orderdash.core.notify.rules import NotifyRule
from orderdash.core.notify.sender import Notifier
from support.notify_endpoint import KEY, PASSWORD, USER, Endpoint

pytestmark = pytest.mark.skipif(
    find_spec("apprise") is None,
    reason="Apprise is not installed (pip install 'orderdash[notify]')",
)

PAYMENT = messages.payment("tok-r", Decimal("0.001"), "BTC", Decimal("12.50"), "EUR")


@pytest.fixture(scope="module")
def endpoint() -> Iterator[Endpoint]:
    served = Endpoint()
    yield served
    served.close()


def moved(endpoint: Endpoint) -> list[tuple[str, str]]:
    return [(method, path) for method, path in endpoint.requests if path.startswith("/moved")]


def test_a_redirect_is_not_followed_and_not_sent(endpoint: Endpoint) -> None:
    from orderdash.core.notify.delivery import REDIRECTED, AppriseDelivery

    endpoint.clear()
    delivery = AppriseDelivery(timeout=2.0)
    plain = endpoint.url(f"redirect-{KEY}", secret=True)
    assert delivery.send(plain, PAYMENT) == REDIRECTED == "redirected: not delivered"
    # the URL asking Apprise to follow redirects is not heard either
    assert delivery.send(f"{plain}?redirect=yes", PAYMENT) == REDIRECTED
    assert endpoint.requests == [("POST", f"/redirect-{KEY}")] * 2
    assert moved(endpoint) == []


def test_the_sender_counts_a_redirect_as_failed(
    endpoint: Endpoint, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint.clear()
    url = endpoint.url(f"redirect-s-{KEY}", secret=True)
    rule = NotifyRule.model_validate({"events": ["payment"], "urls": [url]})
    notifier = Notifier([rule], backoff=(0.01,))
    try:
        assert notifier.submit(PAYMENT)
        assert notifier.drain(10)
    finally:
        notifier.close(2)
    assert notifier.failed == {0: 1}
    failed = "notification failed: rule 0 (json), payment: redirected: not delivered"
    assert [r.getMessage() for r in caplog.records if "notification" in r.getMessage()] == [failed]
    (outcome,) = notifier.told().outcomes
    assert (outcome.place, outcome.event) == ("rule 0 (json)", "payment")
    assert outcome.reason == "redirected: not delivered"
    assert len(endpoint.at(f"redirect-s-{KEY}")) == 2  # its first try and its one retry
    assert moved(endpoint) == []


def test_a_command_says_on_stderr_why_its_notification_did_not_go(
    endpoint: Endpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    from orderdash.cli.notify import wait_for_notifications
    from orderdash.core.notify.events import made, notices_for
    from orderdash.core.settings.model import Settings

    endpoint.clear()
    before = made()  # senders of other tests in this process are not this command's
    urls = [endpoint.url(f"fail-{KEY}", secret=True), endpoint.url(f"ok-c-{KEY}", secret=True)]
    notices = notices_for(Settings(notify=[{"events": ["close"], "urls": urls}]))
    assert notices is not None
    report = {"period": {"from": "2026-10-25T00:00:00+02:00"}, "digest": "ab" * 32}
    assert notices.closed(report) and notices.closed(report)
    wait_for_notifications(tell=True, since=before)  # as a one-shot command's end
    err = capsys.readouterr().err.splitlines()
    assert "orderdash: notification sent: rule 0, URL 1 (json), close (2 messages)" in err
    # the failing URL's first message: its reason; the second waited for that URL's retry
    failed = "orderdash: notification not sent: rule 0, URL 0 (json), close: "
    (first,) = [line for line in err if line.startswith(failed) and "500" in line]
    assert first.endswith("; not sent before the exit")
    assert f"{failed}not sent before the exit" in err
    assert len(err) == 3
    assert len(endpoint.at(f"ok-c-{KEY}")) == 2
    for part in (USER, PASSWORD, KEY, str(endpoint.port)):
        assert part not in "\n".join(err)
