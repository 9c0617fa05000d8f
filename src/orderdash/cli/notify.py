"""`orderdash notify --test`: one test message through each notification rule, now; and the
end of any command that notified: it waits for its messages (within the sender's bound) and
says what became of them.

Each rule is named by its index and its URLs' schemes, never by a URL (they are secrets).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from orderdash.cli.options import _load_settings
from orderdash.core.model.errors import EXIT_USAGE

if TYPE_CHECKING:
    from orderdash.core.notify.sender import Told

#: Some rule's test message did not go out.
EXIT_NOT_SENT = 1


def _run_notify_test(args: argparse.Namespace) -> int:
    settings, _ = _load_settings(args)
    if not settings.notify:
        print("orderdash: no notification rules (the notify setting)", file=sys.stderr)
        return EXIT_USAGE
    from orderdash.core.notify.delivery import AppriseDelivery, send_test

    try:
        delivery = AppriseDelivery()
    except ImportError:
        print(
            "orderdash: notifications need the notify extra: pip install 'orderdash[notify]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    failed = 0
    for index, schemes, reason in send_test(settings.notify, delivery):
        outcome = "sent" if reason is None else f"failed: {reason}"
        failed += reason is not None
        print(f"rule {index} ({schemes}): {outcome}", flush=True)
    return EXIT_NOT_SENT if failed else 0


def wait_for_notifications(*, tell: bool, since: int = 0) -> None:
    """The command ends: its notifications (of the senders made after the first `since`) go
    out within the sender's bounded wait, then (when `tell`: a one-shot command) one line on
    stderr per URL and event says what became of them."""
    from orderdash.core.notify.events import close_all

    told = close_all(since=since)
    if tell:
        for line in told_lines(told):
            print(f"orderdash: {line}", file=sys.stderr, flush=True)


def told_lines(told: Told) -> list[str]:
    """Per URL and event: "notification sent: rule 0 (json), close", or why not; messages with
    the same outcome counted on one line."""
    from orderdash.core.notify.sender import CLOSE_WAIT

    counts: dict[tuple[str, str, str | None], int] = {}
    for outcome in told.outcomes:
        key = (outcome.place, outcome.event, outcome.reason)
        counts[key] = counts.get(key, 0) + 1
    lines = []
    for (place, event, reason), count in counts.items():
        many = f" ({count} messages)" if count > 1 else ""
        if reason is None:
            lines.append(f"notification sent: {place}, {event}{many}")
        else:
            lines.append(f"notification not sent: {place}, {event}{many}: {reason}")
    if told.dropped:
        lines.append(f"{told.dropped} notifications dropped: the queue was full")
    if told.unfinished:
        lines.append(
            f"notifications still on their way when the wait ended ({CLOSE_WAIT:g} s): "
            "not known to have gone"
        )
    return lines
