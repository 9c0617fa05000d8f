"""The bearer token the simulator accepts, kept in a file so it never appears in argv or output."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from platformdirs import user_state_path


def default_token_path() -> Path:
    return user_state_path("orderdash") / "simulator-token"


def simulator_token(path: str | os.PathLike[str] | None) -> tuple[str, Path]:
    """Read the token from `path`, creating the file with a random token (mode 600) if missing."""
    file = Path(path).expanduser() if path else default_token_path()
    try:
        token = file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if token:
        return token, file
    token = secrets.token_urlsafe(24)
    file.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token, file
