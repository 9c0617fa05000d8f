"""The display's end of the local channel (`channel.py`): `Reader.poll()` stats the channel file
and reads it only when it changed; what it holds is untrusted (bounded, validated) and a
missing, ended, stale or invalid file reads as the idle screen.
"""

from __future__ import annotations

import json
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orderdash.core.customer.channel import MAX_BYTES, STALE_AFTER

if TYPE_CHECKING:
    from orderdash.core.customer.face import CustomerFace
    from orderdash.core.customer.published import Published


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
        self._signature: tuple[int, int, int] | None = None
        self._published: Published | None = None
        self._problem = ""

    def poll(self) -> Reading:
        try:
            info = self.path.stat()
        except OSError:
            self._signature, self._published, self._problem = None, None, ""
            return Reading(None)
        signature = (info.st_ino, info.st_mtime_ns, info.st_size)
        if signature != self._signature:
            self._signature = signature
            self._published, self._problem = None, ""
            try:
                if not stat.S_ISREG(info.st_mode):
                    raise ValueError("the channel is not a regular file")
                if info.st_size > MAX_BYTES:
                    raise ValueError("the channel file is too large")
                with self.path.open("rb") as handle:
                    self._published = parse(handle.read(MAX_BYTES + 1))
            # (pydantic's ValidationError is a ValueError)
            except (OSError, ValueError, RecursionError) as error:
                self._problem = f"unreadable channel file: {type(error).__name__}"
        published = self._published
        if published is None:
            return Reading(None, problem=self._problem)
        age = self.clock() - published.heartbeat
        if not -STALE_AFTER <= age <= STALE_AFTER:
            # the dashboard stopped saying it is there: no stale QR
            return Reading(None, published.language, published.heartbeat, "dashboard gone")
        return Reading(published.face, published.language, published.heartbeat)
