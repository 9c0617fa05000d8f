"""What an order's status means for colour and urgency. Unknown states stay neutral.

The service publishes one machine code (`IN_PROGRESS`) and the labels of its documented states:
In-progress, Paid / Unconfirmed, Confirmed, Underpaid, Overpaid, Expired, Canceled. Codes and
labels are matched loosely (case, spaces, `-`, `/`, `_` ignored), the code first, then the label
when the code is not one we know.
"""

from __future__ import annotations

import re
from enum import Enum


class Tone(Enum):
    OPEN = "open"  # waiting for the customer
    PROGRESS = "progress"  # paid, waiting for confirmations
    GOOD = "good"  # done, money in
    WARN = "warn"  # closed with the wrong amount
    BAD = "bad"  # expired, canceled
    UNKNOWN = "unknown"


#: The documented states, by loose key, in the spellings a server may plausibly use.
TONES = {
    "INPROGRESS": Tone.OPEN,
    "NEW": Tone.OPEN,
    "PAID": Tone.PROGRESS,
    "UNCONFIRMED": Tone.PROGRESS,
    "PAIDUNCONFIRMED": Tone.PROGRESS,
    "CONFIRMED": Tone.GOOD,
    "COMPLETED": Tone.GOOD,
    "UNDERPAID": Tone.WARN,
    "OVERPAID": Tone.WARN,
    "EXPIRED": Tone.BAD,
    "CANCELED": Tone.BAD,
    "CANCELLED": Tone.BAD,
}

_SEPARATORS = re.compile(r"[\s\-/_]+")


def loose_key(text: str) -> str:
    """`Paid / Unconfirmed`, `PAID_UNCONFIRMED` and `paid-unconfirmed` all give PAIDUNCONFIRMED."""
    return _SEPARATORS.sub("", text).upper()


def state_key(code: str, label: str | None = None) -> str | None:
    """The documented state an order is in (a key of `TONES`), or None when neither its code nor
    its label names one."""
    for text in (code, label):
        if text is not None and (key := loose_key(text)) in TONES:
            return key
    return None


def tone_of(code: str, label: str | None = None) -> Tone:
    key = state_key(code, label)
    return Tone.UNKNOWN if key is None else TONES[key]


def is_open(code: str, label: str | None = None) -> bool:
    """Still moving: In-progress, Paid / Unconfirmed, and any state we do not know
    (docs/service-api.md#states: treat an unknown code as open)."""
    return tone_of(code, label) in (Tone.OPEN, Tone.PROGRESS, Tone.UNKNOWN)
