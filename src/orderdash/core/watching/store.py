"""The operator's watch list: parsing pasted tokens, and keeping the list on disk safely.

The file is replaced atomically (write a temporary file in the same folder, fsync, rename), so a
crash mid-write leaves the previous list intact. A file that cannot be read is set aside, not
overwritten, and the user is told.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from orderdash.core.service.errors import InvalidToken
from orderdash.core.service.tokens import normalize_token

FORMAT_VERSION = 1
#: More tokens than any shift watches; a file beyond it is not a watch list.
MAX_TOKENS = 5000


@dataclass
class Parsed:
    tokens: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    #: (the text given, why it is not a token)
    invalid: list[tuple[str, str]] = field(default_factory=list)


def parse_tokens(text: str, known: Iterable[str] = ()) -> Parsed:
    """Tokens from pasted text: one per line, or separated by spaces, commas or semicolons."""
    result = Parsed()
    seen = set(known)
    for raw in text.replace(",", " ").replace(";", " ").split():
        try:
            token = normalize_token(raw)
        except InvalidToken as error:
            result.invalid.append((raw, error.message))
            continue
        if token in seen:
            result.duplicates.append(token)
            continue
        seen.add(token)
        result.tokens.append(token)
    return result


def default_path() -> Path:
    from platformdirs import user_data_path

    return user_data_path("orderdash") / "watchlist.json"


class WatchListFile:
    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> tuple[list[str], str | None]:
        """The saved tokens, and a warning when the file was unusable (it is then set aside)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return [], None
        except (OSError, UnicodeDecodeError) as error:
            return [], f"cannot read the watch list {self.path}: {error}"
        try:
            document = json.loads(text)
            tokens = document["tokens"]
            if document.get("version") != FORMAT_VERSION or not isinstance(tokens, list):
                raise ValueError("unknown format")
            if len(tokens) > MAX_TOKENS or not all(isinstance(t, str) for t in tokens):
                raise ValueError("not a list of tokens")
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            aside = self.path.with_suffix(".corrupt.json")
            try:
                os.replace(self.path, aside)
            except OSError:
                aside = self.path
            return [], f"the watch list {self.path} was unreadable ({error}); kept as {aside.name}"
        parsed = parse_tokens("\n".join(tokens))
        return parsed.tokens, None

    def save(self, tokens: Iterable[str]) -> None:
        """Replace the file atomically; raises OSError when the disk refuses."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"version": FORMAT_VERSION, "tokens": list(tokens)}, indent=1)
        descriptor, temporary = tempfile.mkstemp(
            prefix=".watchlist-", suffix=".tmp", dir=self.path.parent
        )
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
