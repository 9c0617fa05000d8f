"""Order tokens as the user types them, and as one URL path segment."""

from __future__ import annotations

from urllib.parse import quote

from orderdash.core.safetext import clean
from orderdash.core.service.errors import InvalidToken

MAX_TOKEN_LENGTH = 200


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


def token_segment(token: str) -> str:
    """Percent-encode everything but unreserved characters, '/' included: one segment, always."""
    return quote(normalize_token(token), safe="")
