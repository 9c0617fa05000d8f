"""What an order's status code means for colour and urgency. Unknown codes stay neutral."""

from __future__ import annotations

from enum import Enum


class Tone(Enum):
    OPEN = "open"  # waiting for the customer
    PROGRESS = "progress"  # paid, waiting for confirmations
    GOOD = "good"  # done, money in
    WARN = "warn"  # closed with the wrong amount
    BAD = "bad"  # expired, canceled
    UNKNOWN = "unknown"


# The service publishes only IN_PROGRESS; the rest are the labels of its documented states
# (service-notes.md) written as codes, in the spellings a server may plausibly use.
_TONES = {
    "IN_PROGRESS": Tone.OPEN,
    "NEW": Tone.OPEN,
    "PAID": Tone.PROGRESS,
    "UNCONFIRMED": Tone.PROGRESS,
    "PAID_UNCONFIRMED": Tone.PROGRESS,
    "CONFIRMED": Tone.GOOD,
    "COMPLETED": Tone.GOOD,
    "UNDERPAID": Tone.WARN,
    "OVERPAID": Tone.WARN,
    "EXPIRED": Tone.BAD,
    "CANCELED": Tone.BAD,
    "CANCELLED": Tone.BAD,
}


def tone_of(code: str) -> Tone:
    return _TONES.get(code.strip().upper().replace("-", "_").replace(" ", "_"), Tone.UNKNOWN)
