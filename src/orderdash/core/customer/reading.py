"""The display's end of the local channel (`channel.py`): `Reader.poll()` stats the channel file
and reads it only when it changed; what it holds is untrusted (bounded, validated) and a
missing, ended, stale or invalid file reads as the idle screen. So does a file this user did
not write: one owned by another user, writable by group or others, or a symlink. A module grid
in a face is dropped unread: the display draws only codes it encodes itself, from `qr_text`.
A face that does not hang together (the QR pays another address or amount than printed:
`consistency.py`) is shown as words alone, and logged.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orderdash.core.customer.channel import MAX_BYTES, STALE_AFTER
from orderdash.core.customer.consistency import inconsistency, withheld
from orderdash.core.customer.private_files import UnsafeChannel, check_safe
from orderdash.core.customer.published import Published

if TYPE_CHECKING:
    from orderdash.core.customer.face import CustomerFace

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reading:
    """What the display should show: a face, or idle (`face` None) with the reason."""

    face: CustomerFace | None
    language: str | None = None
    heartbeat: float | None = None
    problem: str = ""
    #: Who published it: the dashboard's till and its holder id (`holding.py`).
    till: str = ""
    holder: str = ""


def parse(data: bytes) -> Published:
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
        face, problem = published.face, self._problem
        if not -STALE_AFTER <= age <= STALE_AFTER:
            # the dashboard stopped saying it is there: no stale QR
            face, problem = None, "dashboard gone"
        return Reading(
            face, published.language, published.heartbeat, problem, published.till,
            published.holder,
        )  # fmt: skip

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
        if face is not None and face.qr_modules:
            # a module grid is never drawn here, whoever wrote it (the dashboard publishes
            # none): the code is encoded from `qr_text`, checked below. Without the grid the
            # face must still hold together (a payable face needs its code).
            face = type(face).model_validate({**face.model_dump(), "qr_modules": ()})
            published = published.model_copy(update={"face": face})
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
