"""Many orders needing a human at once (core/notify/digest.py): a URL gets at most a few
`attention` messages a minute; the rest come as one digest that names the first of them and
counts every one."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from importlib.util import find_spec

import pytest

from orderdash.core.notify import messages
from orderdash.core.notify.digest import LISTED, PER_MINUTE
from orderdash.core.notify.messages import Message
from orderdash.core.notify.rules import NotifyRule
from orderdash.core.notify.sender import Notifier
from support.notify_endpoint import Endpoint

DIGEST_TITLE = re.compile(r"orderdash: (\d+) orders? needs? attention")


def attention(number: int) -> Message:
    return messages.attention(f"tok-{number:04}", "overpaid", "refund the difference")


def rule(*urls: str) -> NotifyRule:
    return NotifyRule.model_validate({"events": ["attention"], "urls": list(urls)})


@pytest.mark.skipif(find_spec("apprise") is None, reason="Apprise is not installed")
def test_thousands_of_orders_needing_attention_are_a_few_messages_per_url() -> None:
    endpoint = Endpoint()
    notifier = Notifier([rule(endpoint.url("first"), endpoint.url("second"))])
    try:
        assert all(notifier.submit(attention(n)) for n in range(3000))
        notifier.close(5)  # as a command's end: the gathered digest goes out with the rest
    finally:
        endpoint.close()
    assert notifier.dropped == 0 and notifier.failed == {}
    for path in ("first", "second"):
        bodies = endpoint.at(path)
        alone = [str(b["message"]) for b in bodies if not DIGEST_TITLE.fullmatch(str(b["title"]))]
        (digest,) = [b for b in bodies if DIGEST_TITLE.fullmatch(str(b["title"]))]
        assert len(alone) == PER_MINUTE and len(bodies) == PER_MINUTE + 1
        counted = DIGEST_TITLE.fullmatch(str(digest["title"]))
        assert counted is not None and int(counted.group(1)) + len(alone) == 3000
        text = str(digest["message"]).splitlines()
        assert text[0] == f"{3000 - PER_MINUTE} orders need attention:"
        # the first ones gathered, by name, then the count of the rest
        assert text[1] == f"  Overpaid on order tok-{PER_MINUTE:04}"
        assert len(text) == 1 + LISTED + 1
        assert text[-1] == f"  \u2026 and {3000 - PER_MINUTE - LISTED} more"


@dataclass
class Clock:
    now: float

    def __call__(self) -> float:
        return self.now


class Recorded:
    def __init__(self) -> None:
        self.sent: list[Message] = []

    def send(self, url: str, message: Message) -> str | None:
        self.sent.append(message)
        return None


def settled(notifier: Notifier, delivery: Recorded, count: int) -> bool:
    """The sender's thread works meanwhile: wait until `count` went (or time is up)."""
    deadline = time.monotonic() + 5
    while len(delivery.sent) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return notifier.drain(5) and len(delivery.sent) == count


def test_the_digest_goes_when_the_minute_allows_then_orders_go_alone_again() -> None:
    clock, delivery = Clock(1000.0), Recorded()
    notifier = Notifier([rule("json://hook")], monotonic=clock, delivery=lambda: delivery)
    try:
        for n in range(PER_MINUTE + 2):
            assert notifier.submit(attention(n))
        assert settled(notifier, delivery, PER_MINUTE)
        clock.now += 59.0  # still within the minute of the first: the two wait
        notifier.wake()
        assert settled(notifier, delivery, PER_MINUTE)
        clock.now += 1.0
        notifier.wake()
        assert settled(notifier, delivery, PER_MINUTE + 1)
        digest = delivery.sent[-1]
        assert digest.title == "orderdash: 2 orders need attention"
        assert digest.body.splitlines()[1:] == [
            f"  Overpaid on order tok-{PER_MINUTE:04}",
            f"  Overpaid on order tok-{PER_MINUTE + 1:04}",
        ]
        # the digest is one of the minute's messages: the next orders go alone until it is full
        for n in range(100, 100 + PER_MINUTE):
            notifier.submit(attention(n))
        assert settled(notifier, delivery, 2 * PER_MINUTE)
        assert delivery.sent[-1].title.startswith("orderdash: Overpaid on order tok-")
    finally:
        notifier.close(2)
    # what the minute held at the end goes as a digest of one
    assert delivery.sent[-1].title == "orderdash: 1 order needs attention"
