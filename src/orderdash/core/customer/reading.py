"""The display's end of the local channel (`channel.py`): `Reader.poll()` stats the channel file
and reads it only when it changed; what it holds is untrusted (bounded, validated) and a
missing, ended, stale or invalid file reads as the idle screen. So does a file this user did
not write: one owned by another user, writable by group or others, or a symlink. A face that
does not hang together (the QR pays another address or amount than printed: `consistency.py`)
is shown as words alone, and logged.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orderdash.core.customer.channel import MAX_BYTES, STALE_AFTER
from orderdash.core.customer.consistency import inconsistency, withheld

if TYPE_CHECKING:
    from orderdash.core.customer.face import CustomerFace
    from orderdash.core.customer.published import Published


log = logging.getLogger(__name__)


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


@dataclass(frozen=True)
class Reading:
    """What the display should show: a face, or idle (`face` None) with the reason."""

    face: CustomerFace | None
    language: str | None = None
    heartbeat: float | None = None
    problem: str = ""


def parse(data: bytes) -> Published:
    from orderdash.core.customer.published import Published

    if len(data) > MAX_BYTES:
        raise ValueError("the channel file is too large")
    return Published.model_validate(json.loads(data.decode("utf-8")))


class Reader:
    """The display's end: `poll()` stats the file and reads it only when it changed."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock
        self._signature: tuple[int, int, int, int, int] | None = None
        self._published: Published | None = None
        self._problem = ""
        #: What was last logged: each problem once while it lasts, not at each heartbeat.
        self._logged = ""

    def poll(self) -> Reading:
        try:
            # the link itself, never what it points to
            info = os.lstat(self.path)
        except OSError:
            self._signature, self._published, self._problem = None, None, ""
            return Reading(None)
        signature = (info.st_ino, info.st_mtime_ns, info.st_size, info.st_mode, info.st_uid)
        if signature != self._signature:
            self._signature = signature
            self._published, self._problem = None, ""
            try:
                self._published = self._read(info)
            except UnsafeChannel as error:
                self._problem = f"channel file refused: {error}"
            # (pydantic's ValidationError is a ValueError)
            except (OSError, ValueError, RecursionError) as error:
                self._problem = f"unreadable channel file: {type(error).__name__}"
            self._log(self._problem)
        published = self._published
        if published is None:
            return Reading(None, problem=self._problem)
        age = self.clock() - published.heartbeat
        if not -STALE_AFTER <= age <= STALE_AFTER:
            # the dashboard stopped saying it is there: no stale QR
            return Reading(None, published.language, published.heartbeat, "dashboard gone")
        return Reading(published.face, published.language, published.heartbeat, self._problem)

    def _read(self, info: os.stat_result) -> Published:
        check_safe(info)
        if info.st_size > MAX_BYTES:
            raise ValueError("the channel file is too large")
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(self.path, flags)
        with os.fdopen(descriptor, "rb") as handle:
            check_safe(os.fstat(descriptor))  # the file opened is one of ours too
            published = parse(handle.read(MAX_BYTES + 1))
        face = published.face
        if face is not None:
            why = inconsistency(face)
            if why:
                self._problem = f"inconsistent channel file: {why}"
                return published.model_copy(update={"face": withheld(face)})
        return published

    def _log(self, problem: str) -> None:
        if problem and problem != self._logged:
            log.warning("customer display: %s (%s): not shown", problem, self.path)
        self._logged = problem
