"""What the account's commands print: `orderdash orders` (the order history), `orderdash
charge` (the order made, or why nobody can say) and `orderdash charges` (the ledger's charges of
the day)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import tzinfo

from orderdash.cli.render import warnings_said
from orderdash.core.domain.fiat import in_minor_digits
from orderdash.core.domain.history import history_rows
from orderdash.core.domain.text import amount_text
from orderdash.core.domain.units import sendable
from orderdash.core.jsontypes import JSONObject, JSONValue
from orderdash.core.ledger import ChargeRecord
from orderdash.core.ledger.charges import HAS_ORDER, LEDGER, OrderState, charge_money
from orderdash.core.model.account import HistoryItem
from orderdash.core.model.errors import ChargeOutcomeUnknown, ChargeStopped
from orderdash.core.qr.payload import payment_uri
from orderdash.core.safetext import clean
from orderdash.core.usecases.charge import Charge


@dataclass(frozen=True, slots=True)
class OrderList:
    """The account's orders (`orders`): the chosen history items with their raw objects, and
    what the history's reading warned of."""

    chosen: Sequence[tuple[HistoryItem, JSONValue]]
    warnings: list[str]
    open_only: bool
    exit_code: int = 0

    def notes(self) -> list[str]:
        return warnings_said(self.warnings)

    def json(self) -> JSONValue:
        return [raw for _, raw in self.chosen]

    def text(self) -> list[str]:
        if not self.chosen:
            return []
        return history_rows([item for item, _ in self.chosen])

    def empty(self) -> str | None:
        return "no open orders" if self.open_only else "no orders"


def charge_fields(made: Charge) -> JSONObject:
    """A made charge's JSON object: token, payment_url, and with a coin address, amount, uri."""

    fields: JSONObject = {"token": made.token, "payment_url": made.payment_url}
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

    made: Charge
    exit_code: int = 0

    def notes(self) -> list[str]:
        return warnings_said([self.made.link_refused] if self.made.link_refused else [])

    def json(self) -> JSONValue:
        return charge_fields(self.made)

    def text(self) -> list[str]:
        made = self.made
        fields = charge_fields(made)
        lines = [f"order {clean(made.token, limit=80)}"]
        if made.payment_url:
            lines.append(f"checkout: {clean(made.payment_url, limit=200)}")
        if made.order is not None:
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

    charges: list[ChargeRecord]
    #: One line each: this till's earlier charges, looked up.
    resolved: list[str]
    exit_code: int = 0
    #: The zone the day is counted in (the `timezone` setting); each time is shown in it, with
    #: its offset. None: the machine's.
    zone: tzinfo | None = None
    #: The state of each made charge's order, by token (`core/ledger/charges.py` OrderState):
    #: from the ledger's orders seen, or looked up now.
    states: dict[str, OrderState] = field(default_factory=dict)

    def notes(self) -> list[str]:
        return [f"orderdash: an earlier charge: {line}" for line in self.resolved]

    def json(self) -> JSONValue:
        rows: list[JSONValue] = []
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

    def _state_text(self, charge: ChargeRecord) -> str:
        """'paid (ledger, 10:41)', 'partly paid (service, now)': the order's state and where
        it was read; '-' for a charge that made no order."""
        state = self.states.get(charge.token)
        if state is None:
            return "state not known" if charge.outcome in HAS_ORDER else "-"
        if state.source == LEDGER:
            return f"{state.word} (ledger, {state.read_at.astimezone(self.zone):%H:%M})"
        return f"{state.word} (service, now)"

    def text(self) -> list[str]:

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

    unknown: ChargeOutcomeUnknown
    check: str
    #: The command's exit code when not the error's own (130: interrupted by Ctrl-C).
    exit_code_given: int | None = None

    @property
    def exit_code(self) -> int:
        if self.exit_code_given is not None:
            return self.exit_code_given
        return self.unknown.exit_code

    def notes(self) -> list[str]:
        return [
            f"orderdash: {self.unknown.message}",
            f"orderdash: check it before charging again: {clean(self.check, limit=300)}",
        ]

    def json(self) -> JSONValue:
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

    stopped: ChargeStopped

    @property
    def exit_code(self) -> int:
        return self.stopped.exit_code

    def notes(self) -> list[str]:
        return [f"orderdash: {self.stopped.message}"]

    def json(self) -> JSONValue:
        stopped = self.stopped
        answer = {"token": stopped.token, "payment_url": stopped.payment_url}
        return {**answer, "stopped": stopped.message}

    def text(self) -> list[str]:
        lines = [f"order {clean(self.stopped.token, limit=80)}"]
        if self.stopped.payment_url:
            lines.append(f"checkout: {clean(self.stopped.payment_url, limit=200)}")
        return lines

    def empty(self) -> str | None:
        return None
