"""What a check of `orderdash doctor` finds: ok, a warning or a failure, in one line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: A check's outcome: `fail` makes `doctor` exit non-zero, `warn` does not.
Status = Literal["ok", "warn", "fail"]
OK: Status = "ok"
WARN: Status = "warn"
FAIL: Status = "fail"


@dataclass(frozen=True)
class Check:
    """One check: its name (a few words, stable: scripts pick checks by it) and what it found,
    one line that never holds a secret."""

    name: str
    status: Status
    message: str


@dataclass(frozen=True)
class DoctorReport:
    """Every check in the order run, and what to paste into the service's cabinet."""

    checks: tuple[Check, ...]
    #: (what, value) pairs for the cabinet: the callback URL, the address to allow.
    paste: tuple[tuple[str, str], ...] = field(default=())

    @property
    def failed(self) -> bool:
        return any(check.status == FAIL for check in self.checks)
