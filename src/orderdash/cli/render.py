"""What the one-shot commands print, in one place: each command's body returns a result (the
data it read or made), and `render` prints it as text for a person or, with `--json`, as JSON
for a script (the service's digits exact). The results are in `render_order` (get, rates),
`render_account` (orders, charge, charges) and `render_books` (close, export, attention).

The order is always the same: diagnostics on stderr first, then the answer on stdout. Text
from the service is cleaned (`safetext.clean`) before it reaches the terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Protocol

from orderdash.core.jsontypes import JSONValue
from orderdash.core.model import jsontext


class Result(Protocol):
    """A command's answer: what it says on stderr, its JSON and text forms, its exit code."""

    @property
    def exit_code(self) -> int: ...

    def notes(self) -> list[str]: ...

    def json(self) -> JSONValue: ...

    def text(self) -> list[str]: ...

    def empty(self) -> str | None: ...


def render(result: Result, *, as_json: bool) -> int:
    """Print `result` (as JSON or as text) and give the command's exit code."""
    for note in result.notes():
        print(note, file=sys.stderr)
    if as_json:
        print(jsontext.dumps(result.json(), indent=2))
        return result.exit_code
    lines = result.text()
    if lines:
        print("\n".join(lines))
    elif (nothing := result.empty()) is not None:
        print(nothing, file=sys.stderr)
    return result.exit_code


def warnings_said(warnings: Sequence[str]) -> list[str]:
    """Each warning as the command says it on stderr."""
    return [f"orderdash: warning: {warning}" for warning in warnings]
