"""The local channel between a dashboard and `orderdash display`: one JSON file per channel
name in the user runtime directory (`$XDG_RUNTIME_DIR/orderdash/display-NAME.json`), mode 600
in a 700 directory, replaced atomically, carrying a heartbeat.

The dashboard writes it (`Publisher`) about once a second while something is on the customer
display and removes it when it clears the display or exits; the display reads it (`read`)
after a cheap `stat` says it changed. One publisher at a time: only the process that holds the
channel's lock writes it, and another asks its operator before it takes the channel over
(`holding.py`). The display treats it as untrusted input: bounded size, validated fields; a
missing, ended, stale (heartbeat older than `STALE_AFTER`) or invalid file is the idle
screen, never a stale QR. The display's end is `reading.py` (a dashboard does not
load it).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from platformdirs import user_runtime_path

from orderdash.core.customer.catalogue import DEFAULT_LANGUAGE
from orderdash.core.customer.holding import ChannelLock, asked_to_yield, new_holder
from orderdash.core.customer.private_files import write_atomic

if TYPE_CHECKING:
    from orderdash.core.customer.face import CustomerFace

DEFAULT_CHANNEL = "default"
CHANNEL_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")
#: Seconds between heartbeats, and the age after which the dashboard counts as gone.
HEARTBEAT = 1.0
STALE_AFTER = 5.0
#: The largest file read: a face is a few KB (one with the largest module grid the face's model
#: takes, which the display drops unread, about 40 KB).
MAX_BYTES = 128 * 1024


class ChannelError(ValueError):
    """A channel name that cannot name a file."""


def channel_dir() -> Path:
    """The user runtime directory for orderdash (not created here: `publish` makes it)."""
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


class Publisher:
    """The dashboard's end: what the customer display shows, said again every heartbeat, by
    the holder of the channel's lock alone (`holding.py`).

    The lock is taken with the first thing shown (`claim`, or `publish` on a free channel) and
    let go when the display is cleared (`end`), the process exits or dies, or another process
    asks for the channel and this one is told so at its heartbeat (`yield_if_asked`)."""

    def __init__(
        self,
        path: Path,
        *,
        language: str = DEFAULT_LANGUAGE,
        till: str = "",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self.language = language
        #: Named in the channel file: the till another dashboard's question names.
        self.till = till
        #: This publisher in the channel file: a request to let go names it.
        self.holder = new_holder()
        self.clock = clock
        self.lock = ChannelLock(path)
        self.active = False
        self._last: tuple[str, float] | None = None

    @property
    def holds(self) -> bool:
        """This publisher holds the channel: it alone may write it."""
        return self.lock.held

    def claim(self) -> bool:
        """Hold the channel: True when this publisher holds it (already, or it was free and is
        taken now), False while another live process does. Raises OSError when the lock file
        cannot be used."""
        return self.lock.acquire()

    def publish(self, face: CustomerFace | None) -> str | None:
        """Put `face` on the display (None: idle); returns what went wrong, if anything.
        Writes when the face changed or a heartbeat is due, and only while holding the channel
        (taken here when free; never from another live process). The display is handed no
        module grid (`for_display`): it draws only codes it encodes itself."""
        now = self.clock()
        if face is not None and face.qr_modules:
            # the face's module: with the first face, not before the first paint
            from orderdash.core.customer.face import for_display

            face = for_display(face)
        body = "" if face is None else face.model_dump_json()
        if self._last is not None and self._last[0] == body and now - self._last[1] < HEARTBEAT:
            return None
        from orderdash.core.customer.published import Published  # with the first face

        try:
            if not self.claim():
                return "The customer display was not updated: another till has it"
            published = Published(
                heartbeat=now, language=self.language, till=self.till, holder=self.holder,
                face=face,
            )  # fmt: skip
            write_atomic(self.path, published.model_dump_json().encode())
        except OSError as error:
            return f"The customer display could not be updated: {error.strerror or error}"
        self.active = True
        self._last = (body, now)
        return None

    def yield_if_asked(self) -> bool:
        """Another process asked for the channel (`holding.ask_to_yield`, naming this one):
        stop publishing and let go of the lock, leaving the file to the one who asked (it
        writes next). True when this publisher let go."""
        if not self.lock.held or not asked_to_yield(self.path, self.holder, self.clock()):
            return False
        self._last = None
        self.active = False
        self.lock.release()
        return True

    def end(self) -> None:
        """Nothing on the display any more (the dashboard clears it, or exits): the file goes
        and the channel is free. A publisher that let go touches nothing (the file is
        another's now)."""
        self._last = None
        if self.lock.held:
            if self.active:
                with contextlib.suppress(OSError):
                    self.path.unlink()
            self.lock.release()
        self.active = False


def end_on_signals(publisher: Publisher, signals: tuple[int, ...] | None = None) -> None:
    """A dashboard killed by SIGTERM or SIGHUP (its terminal closed) removes its channel file
    first, then dies of the signal as before: the display goes idle at once rather than after
    the heartbeat's grace period."""
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
