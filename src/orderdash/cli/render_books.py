"""What the books' commands print: `orderdash close` (the report as text, JSON or CSV),
`orderdash export` (its lines as they come) and `orderdash attention`."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from orderdash.cli.render import warnings_said
from orderdash.core.domain.status import STATES
from orderdash.core.jsontypes import JSONObject, JSONValue
from orderdash.core.model.errors import EXIT_OK, EXIT_SERVICE, UsageError
from orderdash.core.safetext import clean
from orderdash.core.usecases.attention import (
    EXIT_NEEDS_ATTENTION,
    OrderAttention,
    as_json,
    attention_lines,
    counts_text,
)
from orderdash.core.usecases.close import (
    PARTS,
    CloseResult,
    currencies,
    figure_of,
    report_lines,
)
from orderdash.core.usecases.export import write_csv


@dataclass(frozen=True, slots=True)
class CloseShown:
    """A close of day (`orderdash close`): the report, as text, JSON or CSV (`fmt`)."""

    result: CloseResult
    fmt: str = "text"

    @property
    def exit_code(self) -> int:
        # a dry run that could not read every order shows what it has, and says so
        return EXIT_SERVICE if self.result.missing else EXIT_OK

    def notes(self) -> list[str]:
        notes = warnings_said(self.result.report.get("warnings", []))
        if self.result.frozen:
            notes.append(
                "orderdash: this period was closed already: the report as it was closed "
                "(what arrived since is in the next period's adjustments)"
            )
        if self.result.dry_run:
            notes.append("orderdash: dry run: shown, not closed")
        return notes

    def json(self) -> JSONValue:
        # the report's typed shape (CloseReport) is a JSON object's
        report = cast("JSONObject", self.result.report)
        if self.result.dry_run:  # not closed: no digest to note down or compare with
            return {**report, "digest": None}
        return report

    def empty(self) -> str | None:
        return None

    def text(self) -> list[str]:
        if self.fmt == "csv":
            return _close_csv(self.result)
        # a dry run says so in its header, with no digest nor time of close
        return report_lines(self.result.report, closed=not self.result.dry_run)


def _close_csv(result: CloseResult) -> list[str]:
    """section,name,order,unit,amount,count: the sums, sales against received, the states, the
    exceptions and the adjustments (docs/books.md), text cells made spreadsheet-safe."""
    report = result.report

    columns = ("section", "name", "order", "unit", "amount", "count")
    rows: list[dict[str, object]] = []

    def add(section: str, name: str, order: str, unit: str, amount: str, count: object) -> None:
        rows.append(dict(zip(columns, (section, name, order, unit, amount, count), strict=True)))

    for kind in ("coins", "fiat"):
        for unit, row in sorted(report["received"][kind].items()):
            add("received", kind, "", unit, row["amount"], row["payments"])
    sales = report.get("sales")  # version 4 on
    if sales is not None:
        for unit in currencies(sales):
            line = sales["fiat"][unit]
            add("sales", "sales", "", unit, line["sales"], line["orders"])
            add("sales", "received", "", unit, line["received"], line["payments"])
            add("sales", "difference", "", unit, line["difference"], "")
            known_parts = [part for part in PARTS if part in line["parts"]]
            for part in known_parts + sorted(set(line["parts"]) - set(known_parts)):
                share = line["parts"][part]
                add("sales", part, "", unit, share["amount"], share["orders"])
        add("sales", "tolerance", "", "%", sales["tolerance"], "")
    # in the states' own order, as the text report: a report read back has its keys sorted
    by_state = report["orders"]["by_state"]
    known = [state for state in STATES if state in by_state]
    for state in known + sorted(set(by_state) - set(known)):
        add("orders", state, "", "", "", by_state[state])
    for exception in report["exceptions"]:
        name, figure = figure_of(exception)
        what = f"{exception['kind']} {name}"
        add("exception", what, exception["order"], exception["coin"], figure["coin"], "")
        add("exception", what, exception["order"], exception["currency"], figure["fiat"], "")
    for made in report["adjustments"]:
        add("adjustment", str(made["id"]), made["order"], made["coin"], made["amount"], "")
        add("adjustment", str(made["id"]), made["order"], made["currency"], made["fiat"], "")
    return "".join(write_csv(rows, columns)).splitlines()


@dataclass(frozen=True, slots=True)
class ExportLines:
    """An export's lines (already formatted), printed as they come, or written to a new file
    `output`; `header`: a CSV settlement's header line, written to the new file `side` (or,
    without one, said on stderr)."""

    lines: Iterable[str]
    warnings: Sequence[str] = ()
    missing: int = 0
    output: Path | None = None
    header: str | None = None
    side: Path | None = None

    def print(self) -> int:
        for warning in warnings_said(self.warnings):
            print(warning, file=sys.stderr)
        if self.missing:
            print(
                f"orderdash: {self.missing} of the period's orders could not be read: "
                "the export is incomplete",
                file=sys.stderr,
            )
        if self.header is not None and self.side is None:
            print(f"orderdash: settlement: {self.header}", end="", file=sys.stderr)
        if self.output is None:
            out = sys.stdout
            for line in self.lines:
                out.write(line)
            out.flush()
        else:
            _write_new(self.output, self.lines)
            if self.header is not None and self.side is not None:
                _write_new(self.side, [self.header])
        return EXIT_SERVICE if self.missing else EXIT_OK


def _write_new(path: Path, lines: Iterable[str]) -> None:
    """`lines` to a file made now ("x": never over one made meanwhile)."""
    try:
        with path.open("x", encoding="utf-8", newline="") as file:
            file.writelines(lines)
    except OSError as error:
        raise UsageError(f"{clean(str(path), limit=200)}: {error.strerror}") from None


@dataclass(frozen=True, slots=True)
class AttentionShown:
    """The orders that need a human (`orderdash attention`), as aligned text or JSON."""

    found: list[OrderAttention]
    now_ms: int
    warnings: Sequence[str] = ()
    missing: int = 0
    #: The period read: the orders created in the last `days` days.
    days: int = 7

    @property
    def exit_code(self) -> int:

        if self.missing:
            return EXIT_SERVICE
        return EXIT_NEEDS_ATTENTION if self.found else EXIT_OK

    def notes(self) -> list[str]:
        return warnings_said(self.warnings)

    def json(self) -> JSONValue:
        return as_json(self.found, now_ms=self.now_ms)

    def text(self) -> list[str]:
        if not self.found:
            return []
        n = len(self.found)
        summary = (
            f"{n} of the orders created in the last {self._days} need"
            f"{'s' if n == 1 else ''} attention: {counts_text(self.found)}"
        )
        return [*attention_lines(self.found, now_ms=self.now_ms), summary]

    @property
    def _days(self) -> str:
        return "day" if self.days == 1 else f"{self.days} days"

    def empty(self) -> str | None:
        return "orderdash: no order needs attention"
