"""Order tokens as the user types or pastes them, and as one URL path segment."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, unquote, urlsplit

from orderdash.core.model.errors import InvalidToken
from orderdash.core.safetext import clean

MAX_TOKEN_LENGTH = 200
#: What an order token the operator gives may hold besides letters and digits: the URL's
#: unreserved characters. The service's tokens are plain words (`token1`, a run of digits,
#: `demo-btc-eur`); a `!`, a space or a quote means a mistyped or mis-pasted token.
TOKEN_PUNCTUATION = frozenset("-_.~")
#: Where a payment link carries the token (the forms the service's `payment_url` takes, and
#: the API's own paths): `…/order/<token>/`, `…/orders/api/<token>/rates`, `…?token=<token>`.
LINK_FORMS = "\u2026/order/<token> or \u2026?token=<token>"


def normalize_token(raw: str) -> str:
    """The token with surrounding whitespace trimmed, or InvalidToken with the reason."""
    token = raw.strip()
    if not token:
        raise InvalidToken("the order token is empty")
    if token in {".", ".."}:
        raise InvalidToken(f"{token!r} is not an order token")
    if len(token) > MAX_TOKEN_LENGTH:
        raise InvalidToken(
            f"the order token is too long ({len(token)} characters, at most {MAX_TOKEN_LENGTH})"
        )
    if not token.isprintable():
        raise InvalidToken(f"the order token contains control characters: {clean(token, limit=40)}")
    return token


def operator_token(raw: str) -> str:
    """The token in what the operator typed or pasted: a token, or a payment link reduced to
    its token. Refused (InvalidToken, one line) when it holds what no order token holds."""
    text = raw.strip()
    if text and ("/" in text or "?" in text or "://" in text):
        text = token_in_link(text)
    token = normalize_token(text)
    for character in token:
        # ASCII only: a Cyrillic 'а' or a fullwidth '１' looks like the token and is not it
        if not (character.isascii() and (character.isalnum() or character in TOKEN_PUNCTUATION)):
            raise InvalidToken(
                f"{clean(token, limit=40)!r} is not an order token: it holds "
                f"{clean(character)!r} (a token is ASCII letters, digits and - _ . ~)"
            )
    return token


def token_in_link(link: str) -> str:
    """The order token in a payment link, or InvalidToken saying which links are understood."""
    if not link.isprintable():
        raise InvalidToken(f"the link contains control characters: {clean(link, limit=40)}")
    parts = urlsplit(link if "://" in link else f"https://{link}")
    found = parse_qs(parts.query).get("token")
    if found:
        return _decoded(found[0], link)
    segments = [_decoded(unquote(segment), link) for segment in parts.path.split("/") if segment]
    for at, segment in enumerate(segments[:-1]):
        if segment == "order":
            return segments[at + 1]
        if segment == "orders" and segments[at + 1 : at + 2] == ["api"] and at + 2 < len(segments):
            return segments[at + 2]
    raise InvalidToken(
        f"{clean(link, limit=60)!r} is not a payment link this dashboard reads ({LINK_FORMS})"
    )


def _decoded(part: str, link: str) -> str:
    """A link's part once percent-decoded: refused when that hides control characters (a
    `%0d%0aX` is not the token `X` with blanks around it)."""
    if not part.isprintable():
        raise InvalidToken(f"the link holds encoded control characters: {clean(link, limit=60)!r}")
    return part


def token_segment(token: str) -> str:
    """Percent-encode everything but unreserved characters, '/' included: one segment, always."""
    return quote(normalize_token(token), safe="")
