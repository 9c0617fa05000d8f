"""The customer display's files in the user runtime directory (the channel, its lock, a request
to take it over: `channel.py`, `holding.py`): a private directory, a file replaced whole, and
the check that a file read there is one of this user's that nobody else could write.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def ensure_directory(directory: Path) -> None:
    """`directory` and the folders above it that are missing, made 700; refused when it
    belongs to another user."""
    missing = [d for d in (directory, *directory.parents) if not d.exists()]
    for made in reversed(missing):
        made.mkdir(mode=0o700, exist_ok=True)
        os.chmod(made, 0o700)  # the umask may have taken bits off
    if hasattr(os, "getuid") and directory.stat().st_uid != os.getuid():
        raise PermissionError(f"{directory} belongs to another user")


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file and a rename: a reader sees the old file
    or the new one, never half of one. The file is 600, its directory 700 when made here."""
    directory = path.parent
    ensure_directory(directory)
    temporary = directory / f".{path.name}.{os.getpid()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(temporary, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


class UnsafeChannel(ValueError):
    """A channel file this user did not write, or one anybody else could."""


def check_safe(info: os.stat_result) -> None:
    """The channel file is a regular file of this user's, writable by nobody else."""
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeChannel("not a regular file")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise UnsafeChannel(f"owned by uid {info.st_uid}, not by this user")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeChannel(f"writable by others (mode {stat.S_IMODE(info.st_mode):o})")
