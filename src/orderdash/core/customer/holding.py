"""One publisher per channel: who may write the customer display's channel file, and how
another process takes the display over.

The live publisher holds an exclusive `flock` on a lock file beside the channel file
(`display-NAME.lock`, mode 600, never opened through a symlink) for as long as something of
its is on the display; the OS drops the lock when the process dies, however it dies. Only the
holder writes the channel file, so a display never alternates between two dashboards.

Another process that wants the display asks its operator first, from what the channel file
shows (`handover.shown_question`). On a yes it leaves a request beside the file
(`display-NAME.takeover`: the holder it asks, by its id in the channel file, and when)
and waits for the lock (`Takeover.poll`). The holder reads the request at its next heartbeat,
stops publishing and lets go (`Publisher.yield_if_asked`); the asker takes the lock and
publishes. The lock decides, not the request: two processes never hold it at once, so never
both write. A request for a holder that is gone, or older than `TAKEOVER_WAIT`, is ignored.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from orderdash.core.customer.private_files import (
    UnsafeChannel,
    check_safe,
    ensure_directory,
    write_atomic,
)

#: The largest takeover request read: two ids and a time.
MAX_REQUEST_BYTES = 512
#: Seconds to wait for a holder to let go, and for which a request stands: the holder looks at
#: each heartbeat (every second); one that has not looked in five has stopped beating (its
#: display has gone back to the welcome screen: `channel.STALE_AFTER`).
TAKEOVER_WAIT = 5.0

Outcome = Literal["waiting", "taken", "refused"]


def new_holder() -> str:
    """A publisher's id: unguessable enough that no other publisher has the same."""
    return os.urandom(8).hex()


def lock_path(channel: Path) -> Path:
    return channel.with_name(channel.name.removesuffix(".json") + ".lock")


def request_path(channel: Path) -> Path:
    return channel.with_name(channel.name.removesuffix(".json") + ".takeover")


class ChannelLock:
    """The channel's lock, held by this process's open file (a second open of the same file,
    in this process or another, is refused while it is held)."""

    def __init__(self, channel: Path) -> None:
        self.path = lock_path(channel)
        self._descriptor: int | None = None

    @property
    def held(self) -> bool:
        return self._descriptor is not None

    def acquire(self) -> bool:
        """Take the lock if it is free (True; also when already held here); False while another
        holds it. Raises OSError when the lock file cannot be used (a symlink, not a regular
        file of this user's, a directory not ours)."""
        if self._descriptor is not None:
            return True
        ensure_directory(self.path.parent)
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(self.path, flags, 0o600)
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
                raise PermissionError(f"{self.path} is not a regular file of this user's")
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            return False
        except BaseException:
            os.close(descriptor)
            raise
        self._descriptor = descriptor
        return True

    def release(self) -> None:
        if self._descriptor is not None:
            descriptor, self._descriptor = self._descriptor, None
            os.close(descriptor)  # closing lets go of the lock


def ask_to_yield(channel: Path, holder: str, by: str, now: float) -> None:
    """Leave the request for `holder` (its id; "" for whoever holds the channel when the file
    named nobody) to let go, from `by`."""
    body = json.dumps({"holder": holder, "by": by, "at": now}).encode()
    write_atomic(request_path(channel), body)


def _request(channel: Path) -> dict[str, object] | None:
    """The takeover request, if there is one this user wrote (untrusted: bounded, checked)."""
    path = request_path(channel)
    try:
        info = os.lstat(path)
    except OSError:
        return None
    try:
        check_safe(info)
        if info.st_size > MAX_REQUEST_BYTES:
            return None
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(path, flags)
        with os.fdopen(descriptor, "rb") as handle:
            check_safe(os.fstat(descriptor))
            document = json.loads(handle.read(MAX_REQUEST_BYTES + 1).decode("utf-8"))
    except (OSError, ValueError, UnsafeChannel, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def asked_to_yield(channel: Path, holder: str, now: float) -> bool:
    """A request names `holder` (or whoever holds the channel), made within `TAKEOVER_WAIT`."""
    request = _request(channel)
    if request is None or request.get("holder") not in (holder, ""):
        return False
    if request.get("by") == holder:  # its own, not yet withdrawn
        return False
    at = request.get("at")
    return isinstance(at, int | float) and abs(now - at) <= TAKEOVER_WAIT


def withdraw(channel: Path, by: str) -> None:
    """Remove `by`'s request (not another asker's that replaced it)."""
    request = _request(channel)
    if request is not None and request.get("by") == by:
        with contextlib.suppress(OSError):
            request_path(channel).unlink()


class Takeover:
    """Taking the channel from its holder after the operator's yes: the request is left at
    once; `poll()` (every tenth of a second or so) says "taken" once the lock is this
    publisher's, "refused" when the holder has not let go within `TAKEOVER_WAIT`."""

    def __init__(
        self,
        lock: ChannelLock,
        channel: Path,
        *,
        holder: str,
        by: str,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._lock, self._channel, self._by = lock, channel, by
        self._monotonic = monotonic
        self._deadline = monotonic() + TAKEOVER_WAIT
        ask_to_yield(channel, holder, by, clock())

    def poll(self) -> Outcome:
        try:
            taken = self._lock.acquire()
        except OSError:
            taken = False
        if taken or self._monotonic() >= self._deadline:
            withdraw(self._channel, self._by)
            return "taken" if taken else "refused"
        return "waiting"
