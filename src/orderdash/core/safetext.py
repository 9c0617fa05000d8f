"""The one place where text from the service becomes text fit to show.

Textual and Rich strip only a few C0 controls; ESC, C1, NUL and bidi overrides reach the
terminal. Every character that is not printable is replaced by a visible placeholder so the
user can still see that something odd was sent, and nothing is executed by the terminal.
"""

from __future__ import annotations

import unicodedata

REPLACEMENT = "\ufffd"
REDACTED = "[redacted]"
_ELLIPSIS = "\u2026"


def clean(value: object, *, limit: int | None = None) -> str:
    """Printable single-line text for any server value; `limit` caps its length with an ellipsis."""
    text = "" if value is None else str(value)
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else REPLACEMENT for ch in text)
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 1, 0)] + _ELLIPSIS
    return text


def shorten_middle(text: str, width: int) -> str:
    """'abcdef…uvwxyz': keeps both ends, which is how people compare hashes and addresses."""
    if len(text) <= width:
        return text
    if width < 3:
        return text[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return text[:head] + _ELLIPSIS + text[-tail:]


def _invisible(ch: str) -> bool:
    """A format character (U+00AD, U+200B, bidi marks...) or the placeholder `clean` made of one."""
    return ch == REPLACEMENT or unicodedata.category(ch) == "Cf"


def without_secret(text: str, secret: str | None, replacement: str = REDACTED) -> str:
    """`text` with every occurrence of `secret` replaced, also where invisible format characters
    (Unicode category Cf, or the placeholder they became) were put inside it: a terminal shows
    `tok\u00aden` as `token`. The secret's own characters are never such characters."""
    if not secret or not text:
        return text
    if secret in text:
        text = text.replace(secret, replacement)
    if text.isascii():
        return text
    visible = "".join(ch for ch in text if not _invisible(ch))
    if len(visible) != len(text) and secret in visible:
        return visible.replace(secret, replacement)
    return text
