"""`orderdash close --verify [--till NAME]`: every close of the till in the ledger checked, each
against its own digest and against the digest the close after it covers (`core/books/chain.py`,
through the close's use case). Nothing is read from the service, nothing written; exit 7 when a
close does not match."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import datetime, tzinfo

from orderdash.cli.settings import settings_from_args
from orderdash.core.jsontypes import JSONObject
from orderdash.core.model.errors import EXIT_OK, UsageError
from orderdash.core.safetext import clean
from orderdash.core.usecases.close import (
    ALL_TILLS,
    EXIT_CHAIN_BROKEN,
    CloseCheck,
    first_mismatch,
    verify_closes,
)
from orderdash.core.usecases.reads import BookOpener, iso, ledger_book, zone_named


@dataclass(frozen=True, slots=True)
class ChainShown:
    """The closes of one till as checked: a line each (its digest whole, to compare with the
    `close` notifications), or one JSON object."""

    till: str
    checks: list[CloseCheck]
    zone: tzinfo

    @property
    def exit_code(self) -> int:
        return EXIT_OK if first_mismatch(self.checks) is None else EXIT_CHAIN_BROKEN

    def _when(self, value: datetime) -> str:
        return iso(value.astimezone(self.zone))

    def _named(self) -> str:
        return "the shop (all tills)" if self.till == "*" else f"till {clean(self.till, limit=64)}"

    def notes(self) -> list[str]:
        bad = first_mismatch(self.checks)
        if bad is None:
            return []
        return [
            f"orderdash: the close from {self._when(bad.period_from)} to "
            f"{self._when(bad.period_until)} does not match: {bad.problem}"
        ]

    def json(self) -> JSONObject:
        bad = first_mismatch(self.checks)
        return {
            "till": self.till,
            "ok": bad is None,
            "first_mismatch": None
            if bad is None
            else {"from": self._when(bad.period_from), "until": self._when(bad.period_until)},
            "closes": [
                {
                    "from": self._when(check.period_from),
                    "until": self._when(check.period_until),
                    "closed_at": self._when(check.closed_at),
                    "version": check.version,
                    "digest": check.digest,
                    "follows": check.follows,
                    "problem": check.problem or None,
                }
                for check in self.checks
            ],
        }

    def text(self) -> list[str]:
        if not self.checks:
            return []
        lines = [f"Closes of {self._named()}, oldest saved first:"]
        for check in self.checks:
            mark = "NO MATCH" if check.problem else "ok"
            version = "?" if check.version is None else str(check.version)
            lines.append(
                f"  {mark:<8}  {self._when(check.period_from)} to "
                f"{self._when(check.period_until)}  version {version}  digest {check.digest}"
            )
            if check.problem:
                lines.append(f"            {check.problem}")
        return lines

    def empty(self) -> str | None:
        return f"orderdash: no close of {self._named()} in the ledger"


def run_verify(args: argparse.Namespace, open_book: BookOpener | None = None) -> ChainShown:
    settings, _ = settings_from_args(args)
    for option, given in (
        ("--day", args.day),
        ("--since", args.since),
        ("--until", args.until),
        ("--dry-run", args.dry_run),
        ("--csv", args.csv),
    ):
        if given:
            raise UsageError(f"--verify checks every close of the till: not with {option}")
    zone = zone_named(args.tz or settings.timezone)
    till = args.till or ALL_TILLS
    book = (open_book or ledger_book)(settings)
    try:
        checks = verify_closes(book, till, zone)
    finally:
        book.close_connection()
    return ChainShown(till, checks, zone)
