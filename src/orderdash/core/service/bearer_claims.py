"""What a bearer's JWT says of itself: when it expires (its `exp` claim), read without checking
the signature (only the service can): a hint to show, never a reason to trust the token."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

#: A payload past this is not read (a bearer is at most 4 KiB anyway: `auth.MAX_BEARER_BYTES`).
_MAX_PAYLOAD = 4096


def expires_at(bearer: str) -> datetime | None:
    """The `exp` claim of a compact JWT as a UTC time; None when there is none or it cannot be
    read."""
    parts = bearer.split(".")
    if len(parts) != 3 or len(parts[1]) > _MAX_PAYLOAD:
        return None
    try:
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, UnicodeDecodeError):
        return None
    exp = payload.get("exp") if isinstance(payload, dict) else None
    if type(exp) is not int or not 0 < exp < 10**11:
        return None
    return datetime.fromtimestamp(exp, UTC)
