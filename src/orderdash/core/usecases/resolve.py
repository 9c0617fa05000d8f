"""Resolving an order that needed a human, once for the command (`orderdash resolve`) and the
dashboard's dialog (`R`) and the point of sale's acceptance (`a`): what the person typed
checked before anything is read or written, the order read once, the refund worked out from
what it owes (`core/books/refund.py`; today's rate is the `exchangeRate` of the order as
read), the resolution made once (its id with it) and written through the ledger's writer, and
said in one line. Nothing is sent to the service: it has no endpoint for a resolution.

The dialog works the refund out live as it is typed (`owed_of`, `typed_refund`); it and the
command take every name they need of the books from here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import tzinfo
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol, TypedDict

from orderdash.core.books.orders import BadOrder, read_order
from orderdash.core.books.period import zone_named
from orderdash.core.books.refund import (
    Owed,
    Refund,
    RefundRefused,
    owed_by,
    typed_decimal,
    work_out,
)
from orderdash.core.books.report import refund_entry
from orderdash.core.books.resolve import (
    ACCEPTED_REASON,
    KIND_WORDS,
    check_kind,
    clean_reason,
    new_resolution,
    refund_basis,
    resolution_line,
)
from orderdash.core.books.run import BookOpener, BudgetGate, ledger_book
from orderdash.core.ledger.writer import BookWriter
from orderdash.core.model.errors import OrderdashError
from orderdash.core.polling.account import CommandBudget
from orderdash.core.safetext import clean
from orderdash.core.service.tokens import normalize_token

if TYPE_CHECKING:
    from collections.abc import Mapping

    from orderdash.core.books.shape import RefundJSON
    from orderdash.core.ledger import RefundRecord, ResolutionRecord
    from orderdash.core.model.results import Fetched
    from orderdash.core.polling.budget import Budget
    from orderdash.core.service.client import OrderClient
    from orderdash.core.settings.model import Settings

__all__ = [
    "KIND_WORDS",
    "Owed",
    "Refund",
    "RefundRefused",
    "ResolutionJSON",
    "ResolutionWriter",
    "Resolved",
    "ResolveAsked",
    "ResolveOptions",
    "acceptance",
    "ask",
    "book_writer",
    "clean_reason",
    "new_resolution",
    "order_reader",
    "owed_of",
    "refund_of",
    "resolution_json",
    "resolution_line",
    "resolve",
    "typed_refund",
]


@dataclass(frozen=True, slots=True)
class ResolveOptions:
    """What a resolution takes of the settings, read once: who writes it and where, the zone
    its line is told in (None: the machine's, also for a `timezone` not understood), whether
    today's rate can be read (the bearer or the access token), and the command's budgets."""

    till: str
    operator: str
    zone: tzinfo | None
    readonly: bool
    rate_readable: bool
    #: This till's share of the getOrder budget, per minute and per hour.
    orders_budget: tuple[int, int]
    #: The private budget (the log-in counts), per minute and per hour.
    private_budget: tuple[int, int]

    @classmethod
    def from_settings(cls, settings: Settings) -> ResolveOptions:
        try:
            zone: tzinfo | None = zone_named(settings.timezone)
        except OrderdashError:
            zone = None
        share = settings.budgets
        return cls(
            till=settings.till,
            operator=settings.operator,
            zone=zone,
            readonly=settings.readonly,
            rate_readable=settings.bearer_token is not None or settings.access_token is not None,
            orders_budget=(share["budget_per_minute"], share["budget_per_hour"]),
            private_budget=(share["rate_budget_per_minute"], share["rate_budget_per_hour"]),
        )

    def gates(self) -> tuple[CommandBudget, CommandBudget]:
        """The getOrder budget and the private budget, as every command paces them."""
        return CommandBudget(*self.orders_budget), CommandBudget(*self.private_budget)


@dataclass(frozen=True, slots=True)
class ResolveAsked:
    """A resolution as asked (`orderdash resolve`), every part checked."""

    token: str
    kind: str
    reason: str
    #: "payment", "today" or "typed"; None: no refund.
    basis: str | None = None
    #: The typed rate (fiat units for one coin), for the "typed" basis.
    rate: Decimal | None = None
    #: The network fee taken off the refund, in coin.
    fee: Decimal = Decimal(0)


def ask(
    options: ResolveOptions,
    token: str,
    kind: str,
    reason: str,
    *,
    refund_at: str | None = None,
    fee: str | None = None,
) -> ResolveAsked:
    """Everything typed, checked before anything is read or written (UsageError, one line):
    the token, the kind, the reason, the refund's basis and figures; today's rate needs a
    token that reads it."""
    checked = normalize_token(token)
    kind = check_kind(kind)
    reason = clean_reason(reason)
    basis, rate = (None, None)
    if refund_at is not None or fee is not None:
        basis, rate = refund_basis(refund_at or "payment")
    taken = typed_decimal(fee, "fee") if fee is not None else Decimal(0)
    if basis == "today" and not options.rate_readable:
        raise RefundRefused(
            "today's rate comes from the rate endpoint, which needs the bearer token or the "
            "access token: give one, or type the rate (--refund-at RATE)"
        )
    return ResolveAsked(checked, kind, reason, basis, rate, taken)


def refund_of(fetched: Fetched, basis: str, rate: Decimal | None, fee: Decimal) -> RefundRecord:
    """The refund of the order read (RefundRefused, one line, when it owes nothing back);
    today's rate is the order's own as just read, as the dialog takes it."""
    try:
        owed = owed_by(read_order(fetched.raw))
    except BadOrder as error:
        raise RefundRefused(f"the order cannot be read for a refund: {error}") from None
    if owed is None:
        raise RefundRefused(
            f"order {clean(fetched.order.token, limit=60)} has no excess and no payment "
            "to give back"
        )
    if basis == "today":
        rate = fetched.order.exchange_rate
    return work_out(owed, basis, rate=rate, fee=fee).record


def owed_of(raw: Mapping[str, object]) -> tuple[Owed | None, str]:
    """What the order (getOrder's `data`) owes back (None: nothing), and why its figures
    cannot be read for a refund ("" when they can). Its cost grows with its payments: the
    dialog calls it in a thread."""
    try:
        return owed_by(read_order(raw)), ""
    except BadOrder as error:
        return None, str(error)


def typed_refund(
    owed: Owed | None,
    basis: str,
    *,
    rate: str,
    fee: str,
    today: Decimal | None,
    today_unknown: str = "",
) -> Refund | None:
    """The refund for what the dialog has chosen and typed (None: no refund chosen), or
    RefundRefused (one line): `basis` "" (none), "payment", "today" (`today`, the order's own
    rate as read; `today_unknown`: why it is not known) or "typed" (`rate` as typed); `fee`
    as typed, empty for none."""
    if not basis:
        return None
    if owed is None:
        raise RefundRefused("nothing to refund: the order owes nothing back")
    taken = typed_decimal(fee, "fee") if fee.strip() else Decimal(0)
    at = None
    if basis == "today":
        if today_unknown:
            raise RefundRefused(today_unknown)
        at = today
    elif basis == "typed":
        at = typed_decimal(rate, "rate")
    return work_out(owed, basis, rate=at, fee=taken)


class ResolutionWriter(Protocol):
    """What a resolution needs of the ledger's writer (`core/ledger/writer.py`)."""

    async def resolution_made(self, record: ResolutionRecord) -> ResolutionRecord: ...


@dataclass(frozen=True, slots=True)
class Resolved:
    """A resolution written, and its one line."""

    record: ResolutionRecord
    line: str


async def resolve(
    asked: ResolveAsked,
    options: ResolveOptions,
    *,
    read: Callable[[str], Awaitable[Fetched]],
    writer: ResolutionWriter,
) -> Resolved:
    """The order read once (`read`: an unknown token is refused there), its refund worked
    out when one is asked, the resolution made and written (durable once this returns)."""
    fetched = await read(asked.token)
    refund = None
    if asked.basis is not None:
        refund = refund_of(fetched, asked.basis, asked.rate, asked.fee)
    record = new_resolution(
        fetched.order.token,
        asked.kind,
        asked.reason,
        till=options.till,
        operator=options.operator,
        refund=refund,
    )
    written = await writer.resolution_made(record)
    return Resolved(written, resolution_line(written, options.zone))


def order_reader(client: OrderClient, budget: Budget) -> Callable[[str], Awaitable[Fetched]]:
    """getOrder within the dashboard's getOrder budget (`budget`, which its watcher spends
    too: half its burst left to the orders on screen)."""
    gate = BudgetGate(budget)

    async def read(token: str) -> Fetched:
        await gate.take_turn()
        return await client.get_order(token)

    return read


def acceptance(token: str, options: ResolveOptions) -> ResolutionRecord:
    """An order short accepted as paid at the counter: written off, with the reason that
    tells such a write-off from others when the ledger is read again."""
    return new_resolution(
        token, "written-off", ACCEPTED_REASON, till=options.till, operator=options.operator
    )


def book_writer(settings: Settings, open_book: BookOpener | None = None) -> BookWriter:
    """The book the other commands open (`open_book`'s, None: `core/books/run.py`
    `ledger_book`), in the writer's thread."""
    opener = open_book or ledger_book
    return BookWriter(lambda: opener(settings), settings.till)


class ResolutionJSON(TypedDict):
    """A resolution with every digit (`orderdash resolve --json`)."""

    id: str
    token: str
    kind: str
    reason: str
    till: str
    operator: str
    at: str
    refund: RefundJSON | None


def resolution_json(record: ResolutionRecord) -> ResolutionJSON:
    return {
        "id": record.id,
        "token": record.token,
        "kind": record.kind,
        "reason": record.reason,
        "till": record.till,
        "operator": record.operator,
        "at": record.at.isoformat(),
        "refund": refund_entry(record.refund),
    }
