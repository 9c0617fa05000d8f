"""The local channel between a dashboard and `orderdash display`: one JSON file per channel
name in the user runtime directory (`$XDG_RUNTIME_DIR/orderdash/display-NAME.json`), mode 600
in a 700 directory, replaced atomically, carrying a heartbeat.

The dashboard writes it (`Publisher`) about once a second while something is on the customer
display and removes it when it clears the display or exits; the display reads it (`read`)
after a cheap `stat` says it changed. The display treats it as untrusted input: bounded size,
validated fields; a missing, ended, stale (heartbeat older than `STALE_AFTER`) or invalid file
is the idle screen, never a stale QR. The display's end is `reading.py` (a dashboard does not
load it).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from orderdash.core.customer.catalogue import DEFAULT_LANGUAGE

if TYPE_CHECKING:
    from orderdash.core.customer.face import CustomerFace

DEFAULT_CHANNEL = "default"
CHANNEL_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")
#: Seconds between heartbeats, and the age after which the dashboard counts as gone.
HEARTBEAT = 1.0
STALE_AFTER = 5.0
#: The largest file read: a face with the biggest server QR is about 40 KB.
MAX_BYTES = 128 * 1024


class ChannelError(ValueError):
    """A channel name that cannot name a file."""


def channel_dir() -> Path:
    """The user runtime directory for orderdash (not created here: `publish` makes it)."""
    import warnings

    from platformdirs import user_runtime_path

    with warnings.catch_warnings():
        # without XDG_RUNTIME_DIR platformdirs falls back to /tmp/runtime-UID and says so
        warnings.simplefilter("ignore")
        return user_runtime_path("orderdash")


def runtime_problem(error: OSError) -> str:
    """What is wrong with the runtime directory, in a few words (platformdirs' own advice left
    to the caller)."""
    return str(error.strerror or error).removesuffix("; set XDG_RUNTIME_DIR instead")


def channel_unusable(error: OSError) -> str:
    """One line for the operator: the customer display is off, and how to turn it on."""
    return (
        f"Customer display off: no usable runtime directory ({runtime_problem(error)}); "
        "set XDG_RUNTIME_DIR to a directory of your own (mode 700) to use it."
    )


def channel_path(name: str = DEFAULT_CHANNEL, directory: Path | None = None) -> Path:
    if not CHANNEL_NAME.fullmatch(name):
        raise ChannelError(
            "a channel name is 1 to 40 letters, digits, '-' or '_' "
            f"(got {name[:40].encode('unicode_escape').decode()!r})"
        )
    return (directory or channel_dir()) / f"display-{name}.json"


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file and a rename: a reader sees the old file
    or the new one, never half of one. The file is 600, its directory 700 when made here."""
    directory = path.parent
    missing = [d for d in (directory, *directory.parents) if not d.exists()]
    for made in reversed(missing):
        made.mkdir(mode=0o700, exist_ok=True)
        os.chmod(made, 0o700)  # the umask may have taken bits off
    if hasattr(os, "getuid") and directory.stat().st_uid != os.getuid():
        raise PermissionError(f"{directory} belongs to another user")
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


class Publisher:
    """The dashboard's end: what the customer display shows, said again every heartbeat."""

    def __init__(
        self,
        path: Path,
        *,
        language: str = DEFAULT_LANGUAGE,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self.language = language
        self.clock = clock
        self.active = False
        self._last: tuple[str, float] | None = None

    def publish(self, face: CustomerFace | None) -> str | None:
        """Put `face` on the display (None: idle); returns what went wrong, if anything.
        Writes when the face changed or a heartbeat is due."""
        now = self.clock()
        body = "" if face is None else face.model_dump_json()
        if self._last is not None and self._last[0] == body and now - self._last[1] < HEARTBEAT:
            return None
        from orderdash.core.customer.published import Published  # with the first face

        published = Published(heartbeat=now, language=self.language, face=face)
        try:
            write_atomic(self.path, published.model_dump_json().encode())
        except OSError as error:
            return f"The customer display could not be updated: {error.strerror or error}"
        self.active = True
        self._last = (body, now)
        return None

    def end(self) -> None:
        """Nothing on the display any more (the dashboard clears it, or exits)."""
        self._last = None
        if self.active:
            self.active = False
            with contextlib.suppress(OSError):
                self.path.unlink()


def end_on_signals(publisher: Publisher, signals: tuple[int, ...] | None = None) -> None:
    """A dashboard killed by SIGTERM or SIGHUP (its terminal closed) removes its channel file
    first, then dies of the signal as before: the display goes idle at once rather than after
    the heartbeat's grace period."""
    import signal

    if signals is None:
        signals = tuple(
            getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
        )

    def handler(signum: int, frame: object) -> None:
        publisher.end()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for signum in signals:
        if signal.getsignal(signum) in (signal.SIG_DFL, None):
            signal.signal(signum, handler)
