"""What the one-shot commands print, in one place: each command's body returns a result (the
data it read or made), and `render` prints it as text for a person or, with `--json`, as JSON
for a script (the service's digits exact).

The order is always the same: diagnostics on stderr first, then the answer on stdout. Text
from the service is cleaned (`safetext.clean`) before it reaches the terminal. The modules
that format are imported by the format that needs them: `get --json` loads no summary code.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any, Protocol


class Result(Protocol):
    """A command's answer: what it says on stderr, its JSON and text forms, its exit code."""

    @property
    def exit_code(self) -> int: ...

    def notes(self) -> list[str]: ...

    def json(self) -> Any: ...

    def text(self) -> list[str]: ...

    def empty(self) -> str | None: ...


def render(result: Result, *, as_json: bool) -> int:
    """Print `result` (as JSON or as text) and give the command's exit code."""
    for note in result.notes():
        print(note, file=sys.stderr)
    if as_json:
        from orderdash.core.model import jsontext

        print(jsontext.dumps(result.json(), indent=2))
        return result.exit_code
    lines = result.text()
    if lines:
        print("\n".join(lines))
    elif (nothing := result.empty()) is not None:
        print(nothing, file=sys.stderr)
    return result.exit_code


def _warnings(warnings: Sequence[str]) -> list[str]:
    return [f"orderdash: warning: {warning}" for warning in warnings]


@dataclass(frozen=True, slots=True)
class OrderRead:
    """One order as read (`get`, `rates`), and the token the command line asked for."""

    fetched: Any
    asked: str
    exit_code: int = 0

    def notes(self) -> list[str]:
        answered = self.fetched.order.token
        if answered == self.asked:
            return []
        # the service may normalise tokens, so this is not refused; but it must not pass unseen
        from orderdash.core.safetext import clean

        return _warnings(
            [
                f"the service answered for order token {clean(answered, limit=80)!r}, "
                f"not {clean(self.asked, limit=80)!r} as asked"
            ]
        )

    def json(self) -> Any:
        return self.fetched.raw

    def text(self) -> list[str]:
        from orderdash.core.domain.summary import order_summary

        return order_summary(self.fetched.order, self.fetched.received_at)

    def empty(self) -> str | None:
        return None


@dataclass(frozen=True, slots=True)
class OrderList:
    """The account's orders (`orders`): the chosen history items with their raw objects, and
    what the history's reading warned of."""

    chosen: list[tuple[Any, Any]]
    warnings: list[str]
    open_only: bool
    exit_code: int = 0

    def notes(self) -> list[str]:
        return _warnings(self.warnings)

    def json(self) -> Any:
        return [raw for _, raw in self.chosen]

    def text(self) -> list[str]:
        if not self.chosen:
            return []
        from orderdash.core.domain.history import history_rows

        return history_rows([item for item, _ in self.chosen])

    def empty(self) -> str | None:
        return "no open orders" if self.open_only else "no orders"


def charge_fields(made: Any) -> dict[str, Any]:
    """A made charge's JSON object: token, payment_url, and with a coin address, amount, uri."""
    from orderdash.core.domain.text import amount_text
    from orderdash.core.qr.payload import payment_uri

    fields: dict[str, Any] = {"token": made.token, "payment_url": made.payment_url}
    if made.currency is not None:
        fields["currency"] = made.currency
    if made.order is not None:
        order = made.order.order
        fields["address"] = order.address
        fields["amount"] = amount_text(order.amount) if order.amount is not None else None
        fields["uri"] = payment_uri(
            order.coin_base_name, order.address, order.amount, coin_name=order.coin
        )
    return fields


@dataclass(frozen=True, slots=True)
class Charged:
    """An order made by `charge` (and its coin, when one was chosen)."""

    made: Any
    exit_code: int = 0

    def notes(self) -> list[str]:
        return _warnings([self.made.link_refused] if self.made.link_refused else [])

    def json(self) -> Any:
        return charge_fields(self.made)

    def text(self) -> list[str]:
        from orderdash.core.safetext import clean

        made = self.made
        fields = charge_fields(made)
        lines = [f"order {clean(made.token, limit=80)}"]
        if made.payment_url:
            lines.append(f"checkout: {clean(made.payment_url, limit=200)}")
        if made.order is not None:
            from orderdash.core.domain.units import sendable

            order = made.order.order
            coin = clean(order.coin_base_name or "", limit=12).upper()
            # what a wallet can send: the exact figure rounded up, never down (an underpayment)
            due = sendable(order.coin_base_name, order.amount)
            to_send = due.text if due is not None else fields["amount"]
            lines.append(f"send {to_send} {coin} to {clean(fields['address'], limit=120)}")
            if due is not None and due.rounded:
                lines.append(f"  ({due.note})")
            if fields["uri"]:
                lines.append(f"wallet request: {clean(fields['uri'], limit=300)}")
        return lines

    def empty(self) -> str | None:
        return None


@dataclass(frozen=True, slots=True)
class ChargeList:
    """Charges from the ledger (`charges`), and the earlier ones just resolved (`notes`)."""

    charges: list[Any]
    #: One line each: this till's earlier charges, looked up.
    resolved: list[str]
    exit_code: int = 0
    #: The zone the day is counted in (the `timezone` setting); each time is shown in it, with
    #: its offset. None: the machine's.
    zone: tzinfo | None = None
    #: The state of each made charge's order, by token (`core/ledger/charges.py` OrderState):
    #: from the ledger's orders seen, or looked up now.
    states: dict[str, Any] = field(default_factory=dict)

    def notes(self) -> list[str]:
        return [f"orderdash: an earlier charge: {line}" for line in self.resolved]

    def json(self) -> Any:
        from orderdash.core.domain.fiat import in_minor_digits

        rows = []
        for c in self.charges:
            state = self.states.get(c.token)
            rows.append(
                {
                    "token": c.token,
                    "amount": in_minor_digits(c.amount, c.currency) if c.currency else c.amount,
                    "currency": c.currency,
                    "till": c.till,
                    "started_at": c.started_at.isoformat(),
                    "outcome": c.outcome,
                    "detail": c.detail,
                    "ended_at": c.ended_at.isoformat() if c.ended_at else None,
                    "order_state": state.word if state else None,
                    "order_state_from": state.source if state else None,
                    "order_state_read_at": state.read_at.isoformat() if state else None,
                }
            )
        return rows

    def _state_text(self, charge: Any) -> str:
        """'paid (ledger, 10:41)', 'partly paid (service, now)': the order's state and where
        it was read; '-' for a charge that made no order."""
        from orderdash.core.ledger.charges import HAS_ORDER, LEDGER

        state = self.states.get(charge.token)
        if state is None:
            return "state not known" if charge.outcome in HAS_ORDER else "-"
        if state.source == LEDGER:
            return f"{state.word} (ledger, {state.read_at.astimezone(self.zone):%H:%M})"
        return f"{state.word} (service, now)"

    def text(self) -> list[str]:
        from orderdash.core.ledger.charges import charge_money
        from orderdash.core.safetext import clean

        states = [self._state_text(c) for c in self.charges]
        width = max((len(state) for state in states), default=0)
        lines = []
        for c, state in zip(self.charges, states, strict=True):
            money = charge_money(c) if c.currency else clean(c.amount)
            when = c.started_at.astimezone(self.zone).strftime("%H:%M %z")
            outcome = c.outcome.replace("_", " ")
            line = f"{when}  {money:>14}  {outcome:<8}  {state:<{width}}  "
            line += f"{clean(c.till, limit=20)}  {clean(c.token, limit=80)}"
            if c.detail:
                line += f"  {clean(c.detail, limit=120)}"
            lines.append(line)
        return lines

    def empty(self) -> str | None:
        return "no charges today"


@dataclass(frozen=True, slots=True)
class ChargeUnknownResult:
    """Nobody can say whether the order was made: its token, and the command that looks it
    up (`check`)."""

    unknown: Any
    check: str
    #: The command's exit code when not the error's own (130: interrupted by Ctrl-C).
    exit_code_given: int | None = None

    @property
    def exit_code(self) -> int:
        if self.exit_code_given is not None:
            return self.exit_code_given
        return self.unknown.exit_code

    def notes(self) -> list[str]:
        from orderdash.core.safetext import clean

        return [
            f"orderdash: {self.unknown.message}",
            f"orderdash: check it before charging again: {clean(self.check, limit=300)}",
        ]

    def json(self) -> Any:
        unknown = self.unknown
        answer = {"token": unknown.token, "outcome": "unknown", "reason": unknown.reason}
        return {**answer, "check": self.check}

    def text(self) -> list[str]:
        return []  # said on stderr: nothing a script could take for a made order

    def empty(self) -> str | None:
        return None


@dataclass(frozen=True, slots=True)
class ChargeStoppedResult:
    """The order was made, then the charge stopped: the order is named, never orphaned."""

    stopped: Any

    @property
    def exit_code(self) -> int:
        return self.stopped.exit_code

    def notes(self) -> list[str]:
        return [f"orderdash: {self.stopped.message}"]

    def json(self) -> Any:
        stopped = self.stopped
        answer = {"token": stopped.token, "payment_url": stopped.payment_url}
        return {**answer, "stopped": stopped.message}

    def text(self) -> list[str]:
        from orderdash.core.safetext import clean

        lines = [f"order {clean(self.stopped.token, limit=80)}"]
        if self.stopped.payment_url:
            lines.append(f"checkout: {clean(self.stopped.payment_url, limit=200)}")
        return lines

    def empty(self) -> str | None:
        return None


@dataclass(frozen=True, slots=True)
class CloseShown:
    """A close of day (`orderdash close`): the report, as text, JSON or CSV (`fmt`)."""

    result: Any
    fmt: str = "text"

    @property
    def exit_code(self) -> int:
        from orderdash.core.model.errors import EXIT_OK, EXIT_SERVICE

        # a dry run that could not read every order shows what it has, and says so
        return EXIT_SERVICE if self.result.missing else EXIT_OK

    def notes(self) -> list[str]:
        notes = _warnings(self.result.report.get("warnings", []))
        if self.result.frozen:
            notes.append(
                "orderdash: this period was closed already: the report as it was closed "
                "(what arrived since is in the next period's adjustments)"
            )
        if self.result.dry_run:
            notes.append("orderdash: dry run: shown, not closed")
        return notes

    def json(self) -> Any:
        if self.result.dry_run:  # not closed: no digest to note down or compare with
            return {**self.result.report, "digest": None}
        return self.result.report

    def empty(self) -> str | None:
        return None

    def text(self) -> list[str]:
        if self.fmt == "csv":
            return _close_csv(self.result.report)
        from orderdash.core.books.report import report_lines

        # a dry run says so in its header, with no digest nor time of close
        return report_lines(self.result.report, closed=not self.result.dry_run)


def _close_csv(report: dict[str, Any]) -> list[str]:
    """section,name,order,unit,amount,count: the sums, sales against received, the states, the
    exceptions and the adjustments (docs/books.md), text cells made spreadsheet-safe."""
    from orderdash.core.books.export import write_csv
    from orderdash.core.books.report import figure_of
    from orderdash.core.domain.status import STATES

    columns = ("section", "name", "order", "unit", "amount", "count")
    rows: list[dict[str, Any]] = []

    def add(section: str, name: str, order: str, unit: str, amount: str, count: Any) -> None:
        rows.append(dict(zip(columns, (section, name, order, unit, amount, count), strict=True)))

    for kind in ("coins", "fiat"):
        for unit, row in sorted(report["received"][kind].items()):
            add("received", kind, "", unit, row["amount"], row["payments"])
    sales = report.get("sales")  # version 4 on
    if sales is not None:
        from orderdash.core.books.sales import PARTS, currencies

        for unit in currencies(sales):
            row = sales["fiat"][unit]
            add("sales", "sales", "", unit, row["sales"], row["orders"])
            add("sales", "received", "", unit, row["received"], row["payments"])
            add("sales", "difference", "", unit, row["difference"], "")
            known_parts = [part for part in PARTS if part in row["parts"]]
            for part in known_parts + sorted(set(row["parts"]) - set(known_parts)):
                entry = row["parts"][part]
                add("sales", part, "", unit, entry["amount"], entry["orders"])
        add("sales", "tolerance", "", "%", sales["tolerance"], "")
    # in the states' own order, as the text report: a report read back has its keys sorted
    by_state = report["orders"]["by_state"]
    known = [state for state in STATES if state in by_state]
    for state in known + sorted(set(by_state) - set(known)):
        add("orders", state, "", "", "", by_state[state])
    for entry in report["exceptions"]:
        name, figure = figure_of(entry)
        what = f"{entry['kind']} {name}"
        add("exception", what, entry["order"], entry["coin"], figure["coin"], "")
        add("exception", what, entry["order"], entry["currency"], figure["fiat"], "")
    for entry in report["adjustments"]:
        add("adjustment", str(entry["id"]), entry["order"], entry["coin"], entry["amount"], "")
        add("adjustment", str(entry["id"]), entry["order"], entry["currency"], entry["fiat"], "")
    return "".join(write_csv(rows, columns)).splitlines()


@dataclass(frozen=True, slots=True)
class ExportLines:
    """An export's lines (already formatted), printed as they come."""

    lines: Any
    warnings: Sequence[str] = ()
    missing: int = 0

    def print(self) -> int:
        from orderdash.core.model.errors import EXIT_OK, EXIT_SERVICE

        for warning in _warnings(self.warnings):
            print(warning, file=sys.stderr)
        if self.missing:
            print(
                f"orderdash: {self.missing} of the period's orders could not be read: "
                "the export is incomplete",
                file=sys.stderr,
            )
        out = sys.stdout
        for line in self.lines:
            out.write(line)
        out.flush()
        return EXIT_SERVICE if self.missing else EXIT_OK


@dataclass(frozen=True, slots=True)
class AttentionShown:
    """The orders that need a human (`orderdash attention`), as aligned text or JSON."""

    found: list[Any]
    now_ms: int
    warnings: Sequence[str] = ()
    missing: int = 0
    #: The period read: the orders created in the last `days` days.
    days: int = 7

    @property
    def exit_code(self) -> int:
        from orderdash.core.books.attention import EXIT_NEEDS_ATTENTION
        from orderdash.core.model.errors import EXIT_OK, EXIT_SERVICE

        if self.missing:
            return EXIT_SERVICE
        return EXIT_NEEDS_ATTENTION if self.found else EXIT_OK

    def notes(self) -> list[str]:
        return _warnings(self.warnings)

    def json(self) -> Any:
        from orderdash.core.books.attention import as_json

        return as_json(self.found, now_ms=self.now_ms)

    def text(self) -> list[str]:
        if not self.found:
            return []
        from orderdash.core.books.attention import attention_lines, counts_text

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
