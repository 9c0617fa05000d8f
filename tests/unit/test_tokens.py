from __future__ import annotations

import pytest

from orderdash.core.model.errors import InvalidToken
from orderdash.core.service.tokens import MAX_TOKEN_LENGTH, normalize_token, token_segment


@pytest.mark.parametrize(
    ("token", "segment"),
    [
        ("ordertoken", "ordertoken"),
        ("a/b", "a%2Fb"),
        ("a b", "a%20b"),
        ("  padded\t", "padded"),
        ("ünï-cødé", "%C3%BCn%C3%AF-c%C3%B8d%C3%A9"),
        ("a?b#c%d", "a%3Fb%23c%25d"),
        ("...", "..."),
        ("~tilde_.-", "~tilde_.-"),
    ],
)
def test_token_is_one_percent_encoded_segment(token: str, segment: str) -> None:
    assert token_segment(token) == segment
    assert "/" not in token_segment(token)


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (".", "not an order token"),
        ("..", "not an order token"),
        ("x" * (MAX_TOKEN_LENGTH + 1), "too long"),
        ("ab\x1b[2Jcd", "control characters"),
        ("a\nb", "control characters"),
    ],
)
def test_bad_tokens_are_refused_with_a_reason(token: str, reason: str) -> None:
    with pytest.raises(InvalidToken) as caught:
        normalize_token(token)
    assert reason in str(caught.value)
    assert "\x1b" not in str(caught.value) and "\n" not in str(caught.value)


def test_longest_allowed_token_passes() -> None:
    assert normalize_token("x" * MAX_TOKEN_LENGTH) == "x" * MAX_TOKEN_LENGTH
