"""Colours that mean the same on every screen: the tone of an order's status."""

from __future__ import annotations

from orderdash.core.domain.status import Tone

TONE_STYLES = {
    Tone.OPEN: "bold black on #f0c674",
    Tone.PROGRESS: "bold black on #81a2be",
    Tone.GOOD: "bold black on #8fd18f",
    Tone.WARN: "bold black on #de935f",
    Tone.BAD: "bold white on #a54242",
    Tone.UNKNOWN: "bold black on #b0b0b0",
}
