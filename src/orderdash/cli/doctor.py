"""`orderdash doctor`: the use case's checks (`core/usecases/doctor.py`), one line each (a
mark, the check's name, what it found), or one JSON object with `--json`; then what to paste
into the service's cabinet. Exit 1 when a check failed."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from orderdash.cli.settings import settings_from_args
from orderdash.core.doctor.result import FAIL, OK, DoctorReport
from orderdash.core.safetext import clean
from orderdash.core.usecases.doctor import run_doctor as doctor

#: `doctor`'s exit code when a check failed (docs/commands.md#exit-codes).
EXIT_CHECK_FAILED = 1
_MARKS: dict[str, str] = {OK: "✓", "warn": "!", FAIL: "✗"}
_PLAIN_MARKS: dict[str, str] = {OK: "+", "warn": "!", FAIL: "x"}


def run_doctor(args: argparse.Namespace) -> int:
    settings, _ = settings_from_args(args)
    report = asyncio.run(doctor(settings))
    print(as_json(report) if args.json else as_text(report, _marks()))
    return EXIT_CHECK_FAILED if report.failed else 0


def _marks() -> dict[str, str]:
    encoding = (getattr(sys.stdout, "encoding", None) or "ascii").lower()
    return _MARKS if encoding.replace("-", "") in ("utf8", "utf16", "utf32") else _PLAIN_MARKS


def as_text(report: DoctorReport, marks: dict[str, str]) -> str:
    width = max(len(check.name) for check in report.checks)
    lines = [
        f"{marks[check.status]} {check.name.ljust(width)}  {clean(check.message, limit=300)}"
        for check in report.checks
    ]
    if report.paste:
        lines += ["", "In the service's cabinet (the access token's settings):"]
        lines += [f"  {what}: {clean(value, limit=300)}" for what, value in report.paste]
    return "\n".join(lines)


def as_json(report: DoctorReport) -> str:
    return json.dumps(
        {
            "ok": not report.failed,
            "checks": [
                {"name": c.name, "status": c.status, "message": c.message} for c in report.checks
            ],
            "paste": {what: value for what, value in report.paste},
        },
        ensure_ascii=False,
    )
