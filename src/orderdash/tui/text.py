"""Server text to Rich `Text`: literal (never markup) and free of control characters.

Widgets take `Text` built here, never a raw `str` from the service, because a `str` given to
Static, Label, notify or a DataTable cell is parsed as markup.
"""

from __future__ import annotations

from rich.text import Text

from orderdash.core.safetext import clean


def literal(value: object, style: str = "", *, limit: int | None = None) -> Text:
    return Text(clean(value, limit=limit), style=style, no_wrap=False)


def one_line(value: object, style: str = "", *, limit: int = 300) -> Text:
    """One line, cut at the widget's edge with "\u2026" (never silently)."""
    return Text(clean(value, limit=limit), style, no_wrap=True, overflow="ellipsis", end="")


def joined(*parts: Text | str, separator: str = "") -> Text:
    """Our own constant strings and server `Text` pieces in one Text (constants are not markup)."""
    return Text(separator).join(Text(part) if isinstance(part, str) else part for part in parts)


def text_key(text: Text) -> tuple[object, ...]:
    """What a Text shows: its characters, base style and styled spans (Text's own == ignores
    the base style)."""
    return (text.plain, str(text.style), tuple(text.spans))


def text_shape(text: Text) -> str:
    """The characters of `text` with every digit as 0: two texts of the same shape take the same
    cells, so a countdown that only changes digits needs no new layout."""
    return text.plain.translate(_DIGITS_AS_ZERO)


_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")
