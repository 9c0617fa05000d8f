"""The log file's handler: rotated like `logging.handlers.RotatingFileHandler`, each file mode
0600 and never opened through a symbolic link (what goes into it: logs.py)."""

from __future__ import annotations

import contextlib
import errno
import io
import logging.handlers
import os
import stat

FILE_MODE = 0o600


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A RotatingFileHandler whose files (the first, and each one after a rollover) are 0600."""

    def _open(self) -> io.TextIOWrapper:
        # O_NOFOLLOW: a symlink planted at the path (even a dangling one) is refused, never
        # followed to append to, create or chmod whatever it points at
        flags = (
            os.O_WRONLY
            | os.O_APPEND
            | os.O_CREAT
            | getattr(os, "O_CLOEXEC", 0)
            | getattr(os, "O_NOFOLLOW", 0)
        )
        try:
            fd = os.open(self.baseFilename, flags, FILE_MODE)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OSError(exc.errno, "it is a symbolic link", exc.filename) from None
            raise
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "it is not a regular file", self.baseFilename)
            # an existing file keeps its mode through O_CREAT: narrow it, if it is ours (one we
            # just created is); another user's file is written to as it is, never re-moded
            if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) != FILE_MODE:
                with contextlib.suppress(OSError):
                    os.fchmod(fd, FILE_MODE)
        except BaseException:
            os.close(fd)
            raise
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)
