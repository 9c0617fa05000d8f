"""`orderdash notify --test`: one test message through each notification rule, now.

Each rule is named by its index and its URLs' schemes, never by a URL (they are secrets).
"""

from __future__ import annotations

import argparse
import sys

from orderdash.cli.options import _load_settings
from orderdash.core.service.errors import EXIT_USAGE

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
