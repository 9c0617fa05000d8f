"""The operator's watch list: parsing pasted tokens, and keeping the list on disk safely.

The file is replaced atomically (write a temporary file in the same folder, fsync, rename), so a
crash mid-write leaves the previous list intact. A file that cannot be read is set aside under a
timestamped name, not overwritten, and the user is told.

Several dashboards may share one list. Every read-modify-write holds an exclusive `flock` on a
lock file beside the list; a save re-reads the file and applies only this instance's own
additions and removals (since it last read or wrote the list), so no instance loses another's
changes; `changed()` tells, by `stat` alone, that another instance wrote the file since.
Temporary files of a save that was killed are removed when the list is loaded (under the lock,
so never one that a live save is writing). A lock path that cannot be used (a directory, a
symlink, not ours) refuses every save, said once (`lock_problem`), since a save without the
lock could lose another instance's change; the list is still read, without the lock (a rename
replaces the file whole, so a reader never sees half of one). One cap, MAX_TOKENS, holds when
adding and loading, and a file too large to be a watch list is refused by its size before it is
read.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_data_path

from orderdash.core.model.errors import InvalidToken
from orderdash.core.service.tokens import MAX_TOKEN_LENGTH, normalize_token, operator_token

FORMAT_VERSION = 1
#: More tokens than any shift watches; a file beyond it is not a watch list, and adding beyond
#: it is refused (so what is saved can always be loaded).
MAX_TOKENS = 5000
#: The largest file that can hold MAX_TOKENS tokens as we write them (UTF-8, at most 4 bytes a
#: character, a few bytes of punctuation each), with room to spare; larger is refused by `stat`.
MAX_FILE_BYTES = 2 * MAX_TOKENS * (4 * MAX_TOKEN_LENGTH + 8) + 4096
_TEMPORARY_PREFIX = ".watchlist-"
_TEMPORARY_SUFFIX = ".tmp"


@dataclass(eq=False, repr=False)
class Parsed:
    """Pasted text sorted out: new tokens, ones already listed, and what is not a token."""

    tokens: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    #: (the text given, why it is not a token)
    invalid: list[tuple[str, str]] = field(default_factory=list)


def parse_tokens(
    text: str, known: Iterable[str] = (), *, check: Callable[[str], str] = operator_token
) -> Parsed:
    """Tokens from pasted text: one per line, or separated by spaces, commas or semicolons.
    A payment link is reduced to its token (`check`: the operator's rules; the saved file is
    read with the service's looser ones, so no token once saved is lost)."""
    result = Parsed()
    seen = set(known)
    for raw in text.replace(",", " ").replace(";", " ").split():
        try:
            token = check(raw)
        except InvalidToken as error:
            result.invalid.append((raw, error.message))
            continue
        if token in seen:
            result.duplicates.append(token)
            continue
        seen.add(token)
        result.tokens.append(token)
    return result


def first_token(tokens: Iterable[str]) -> str | None:
    """The order a dashboard given `tokens` (command-line arguments, links) opens with: the
    first that parses."""
    parsed = parse_tokens("\n".join(tokens)).tokens
    return parsed[0] if parsed else None


def default_path() -> Path:
    return user_data_path("orderdash") / "watchlist.json"


@dataclass(eq=False, repr=False)
class Saved:
    """What a save left in the file: the merged list, and what did not fit under the cap."""

    tokens: list[str]
    refused: list[str] = field(default_factory=list)
    #: Set when the file on disk was unusable and had to be set aside first.
    warning: str | None = None


class WatchListFile:
    """The list on disk, shared safely with other instances (see the module's docstring).

    Methods may be called from a worker thread; one instance serialises its own calls.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock_path = path.with_name(f".{path.name}.lock")
        #: The list as this instance last read or wrote it: what its own changes are relative to.
        self._known: list[str] = []
        #: The file's identity (inode, size, mtime) when this instance last read or wrote it.
        self._seen: tuple[int, int, int] | None = None
        self._mutex = threading.Lock()
        #: Why the lock file cannot be used, while it cannot (saves are refused meanwhile).
        self.lock_problem: str | None = None

    # -- public ------------------------------------------------------------------------------

    def load(self) -> tuple[list[str], str | None]:
        """The saved tokens, and a warning when the file was unusable (it is then set aside).

        Also removes the temporary files of saves that were killed. Costs at most
        MAX_FILE_BYTES of reading: a larger file is refused by its size.
        """
        with self._mutex, self._locked() as locked:
            if locked:
                self._remove_stale_temporaries()
            tokens, warning = self._read()
            self._known = list(tokens)
            return tokens, self._with_lock_problem(warning)

    def changed(self) -> bool:
        """True when the file is not what this instance last read or wrote (one `stat`)."""
        return self._signature() != self._seen

    def reload(self) -> tuple[list[str], str | None]:
        """Like `load`, without the clean-up: for picking up another instance's changes."""
        with self._mutex, self._locked():
            tokens, warning = self._read()
            self._known = list(tokens)
            return tokens, self._with_lock_problem(warning)

    def save(self, tokens: Iterable[str]) -> Saved:
        """Save this instance's whole list: its additions and removals since it last read or
        wrote the list are merged into the file (`apply`). The caller adopts `Saved.tokens`."""
        wanted = list(dict.fromkeys(tokens))
        with self._mutex:
            known = set(self._known)
            removed = known - set(wanted)
            added = [token for token in wanted if token not in known]
            return self._apply(added, removed)

    def apply(self, added: Iterable[str] = (), removed: Iterable[str] = ()) -> Saved:
        """Merge changes into the file: re-read it under the lock, remove `removed`, add `added`
        (in order, up to MAX_TOKENS; the rest is `Saved.refused`), replace it atomically.
        Raises OSError when the disk refuses."""
        with self._mutex:
            return self._apply(list(added), set(removed))

    def _apply(self, added: list[str], removed: set[str]) -> Saved:
        with self._locked(to_write=True):
            current, warning = self._read(for_save=True)
            if warning is not None:
                # the file was unusable and is set aside: this instance's list is the best left
                current = list(self._known)
            merged = [token for token in current if token not in removed]
            present = set(merged)
            refused: list[str] = []
            for token in added:
                if token in present or token in removed:
                    continue
                if len(merged) >= MAX_TOKENS:
                    refused.append(token)
                    continue
                merged.append(token)
                present.add(token)
            if merged != current or self._seen is None:
                self._write(merged)
            self._known = merged
        return Saved(merged, refused, warning)

    # -- under the lock ------------------------------------------------------------------------

    def _with_lock_problem(self, warning: str | None) -> str | None:
        if self.lock_problem is None:
            return warning
        return self.lock_problem if warning is None else f"{warning}\n{self.lock_problem}"

    @contextlib.contextmanager
    def _locked(self, *, to_write: bool = False) -> Iterator[bool]:
        """Hold the lock (yields True). When the lock file cannot be used, a write raises
        OSError and a read goes on without it (yields False). Never through a symlink: a
        dangling one would otherwise create its target."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
        try:
            descriptor = os.open(self.lock_path, flags, 0o600)
        except OSError as error:
            self.lock_problem = (
                f"the watch list's lock file {self.lock_path} cannot be used "
                f"({error.strerror or error}): changes stay on screen but are not saved"
            )
            if to_write:
                raise OSError(self.lock_problem) from None
            yield False
            return
        self.lock_problem = None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield True
        finally:
            os.close(descriptor)  # closing releases the lock

    def _signature(self) -> tuple[int, int, int] | None:
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return (info.st_ino, info.st_size, info.st_mtime_ns)

    def _read(self, *, for_save: bool = False) -> tuple[list[str], str | None]:
        """The tokens in the file and a warning (an unusable file is set aside). With
        `for_save`, a file that cannot be read raises OSError: writing over it would lose it."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            self._seen = None
            return [], None
        except OSError as error:
            if for_save:
                raise
            self._seen = None  # (not read again each second: `changed` compares with this)
            return [], f"cannot read the watch list {self.path}: {error}"
        if info.st_size > MAX_FILE_BYTES:
            return [], self._set_aside(
                f"{info.st_size} bytes, more than a list of {MAX_TOKENS} orders takes"
            )
        try:
            with open(self.path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as error:
            if for_save:
                raise
            self._seen = (info.st_ino, info.st_size, info.st_mtime_ns)  # read again once changed
            return [], f"cannot read the watch list {self.path}: {error}"
        try:
            if len(data) > MAX_FILE_BYTES:  # grew after the stat
                raise ValueError("too large")
            document = json.loads(data.decode("utf-8"))
            tokens = document["tokens"]
            if document.get("version") != FORMAT_VERSION or not isinstance(tokens, list):
                raise ValueError("unknown format")
            if len(tokens) > MAX_TOKENS:
                raise ValueError(f"{len(tokens)} orders, more than {MAX_TOKENS}")
            if not all(isinstance(t, str) for t in tokens):
                raise ValueError("not a list of tokens")
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
            return [], self._set_aside(str(error).splitlines()[0][:120] if str(error) else "")
        self._seen = (info.st_ino, info.st_size, info.st_mtime_ns)
        return parse_tokens("\n".join(tokens), check=normalize_token).tokens, None

    def _set_aside(self, why: str) -> str:
        """Move the unusable file to a name of its own (never over an earlier one)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path
        for attempt in range(100):
            suffix = f"-{attempt}" if attempt else ""
            candidate = self.path.with_name(f"{self.path.stem}.corrupt-{stamp}{suffix}.json")
            try:
                # a hard link fails when the name exists: no earlier copy is ever replaced
                os.link(self.path, candidate)
            except FileExistsError:
                continue
            except OSError:
                break
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            aside = candidate
            break
        self._seen = self._signature()
        return f"the watch list {self.path} was unreadable ({why}); kept as {aside.name}"

    def _write(self, tokens: list[str]) -> None:
        payload = json.dumps(
            {"version": FORMAT_VERSION, "tokens": tokens}, indent=1, ensure_ascii=False
        )
        descriptor, temporary = tempfile.mkstemp(
            prefix=_TEMPORARY_PREFIX, suffix=_TEMPORARY_SUFFIX, dir=self.path.parent
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
        self._seen = self._signature()

    def _remove_stale_temporaries(self) -> None:
        """Temporary files left by a save that was killed (none is live: we hold the lock)."""
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.path.parent):
                name = entry.name
                if name.startswith(_TEMPORARY_PREFIX) and name.endswith(_TEMPORARY_SUFFIX):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
