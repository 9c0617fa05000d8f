"""What an order's status means for colour and urgency. Unknown states stay neutral.

The service publishes one machine code (`IN_PROGRESS`) and the labels of its documented states:
In-progress, Paid / Unconfirmed, Confirmed, Underpaid, Overpaid, Expired, Canceled. Codes and
labels are matched loosely (case, spaces, `-`, `/`, `_` ignored), the code first, then the label
when the code is not one we know.

The states an order is counted in (the books, the account's list; docs/books.md "How states are
classified"), from `status.code` then `status.label`:

  in_progress  In-progress, NEW
  unconfirmed  Paid / Unconfirmed, UNCONFIRMED (paid, confirmations missing)
  paid         PAID alone: paid in full (the code the simulator and shop plugins send)
  confirmed    Confirmed, COMPLETED
  underpaid, overpaid, expired, canceled (CANCELLED too)
  other        anything else (counted, never an error)
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


STATES = (
    "in_progress",
    "unconfirmed",
    "paid",
    "confirmed",
    "underpaid",
    "overpaid",
    "expired",
    "canceled",
    "other",
)
_BUCKETS = {
    "INPROGRESS": "in_progress",
    "NEW": "in_progress",
    "UNCONFIRMED": "unconfirmed",
    "PAIDUNCONFIRMED": "unconfirmed",
    "PAID": "paid",
    "CONFIRMED": "confirmed",
    "COMPLETED": "confirmed",
    "UNDERPAID": "underpaid",
    "OVERPAID": "overpaid",
    "EXPIRED": "expired",
    "CANCELED": "canceled",
    "CANCELLED": "canceled",
}
#: States after which the books need no new read unless the history shows another state.
SETTLED = frozenset({"paid", "confirmed", "underpaid", "overpaid", "expired", "canceled"})


def state_of(code: object, label: object) -> str:
    """The state (`STATES`) of an order with this status code and label, untrusted: a code or
    label that is not text counts as missing."""
    code_text = code if isinstance(code, str) else ""
    label_text = label if isinstance(label, str) else None
    key = state_key(code_text, label_text)
    if key is None:
        return "other"
    # PAID alone is paid; the documented Paid / Unconfirmed (any spelling) is still unconfirmed
    if key == "PAID" and label_text is not None and loose_key(label_text) == "PAIDUNCONFIRMED":
        return "unconfirmed"
    return _BUCKETS[key]
