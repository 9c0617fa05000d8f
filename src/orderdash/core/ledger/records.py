"""The ledger's records: what a book holds and hands back (a charge, an order seen, a close, a
resolution, a receipt, a callback received), with their bounds and the names of their kinds.
`core/ledger/__init__.py` says what a book does with them (`Book`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import NamedTuple
from urllib.parse import urlsplit

#: Longest order (`orders_seen.order_json`) and close's report (`closes.report_json`) read
#: back whole: a longer one is read cut one character past it, so that its reader knows it is
#: too long (an order is a few kilobytes; a month of a busy shop's closes, a few megabytes).
MAX_ORDER_JSON = 1 << 20
MAX_REPORT_JSON = 64 << 20
#: Most resolutions read for one period: a close lists no more (a shop resolves a few a day).
MAX_RESOLUTIONS = 10_000
#: Most resolutions of one order read back (its newest): a person's words, a few at most.
MAX_RESOLUTIONS_PER_ORDER = 20

#: A charge's outcome as written down: "sending" is written before the create is sent, and a
#: charge still "sending" or "unknown" at start is looked up by its token.
CHARGE_OUTCOMES = ("sending", "made", "not_made", "unknown", "stopped")
#: How an order that needed a human was resolved (`orderdash resolve --as`).
RESOLUTION_KINDS = ("settled", "refunded", "written-off", "asked-customer")
#: What a refund's coin amount was worked out at: the payment's own figure, today's rate, or
#: a rate the person typed.
REFUND_BASES = ("payment", "today", "typed")


#: Longest service URL a charge is written with, and said with.
MAX_SERVICE_URL = 2048


def service_url(base_url: str) -> str:
    """A service's base URL as the ledger keeps it, so that one service always reads the
    same: scheme and host in lower case, no default port, no trailing slash, never a user or
    password (the `base_url` setting has none; one is dropped all the same)."""
    parts = urlsplit(base_url.strip())
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:  # no port a request could use: kept as written, never dropped, so
        # that it does not read as the service on the default port
        return f"{scheme}://{host}:{parts.netloc.rpartition(':')[2]}{parts.path.rstrip('/')}"
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    return f"{scheme}://{host}{parts.path.rstrip('/')}"


@dataclass(frozen=True)
class ChargeService:
    """Where a charge was sent: the service (its base URL, normalised by `service_url`) and the
    account on it (the `customer_id`; "" when none was set). Never a token: nothing here is a
    secret. An unresolved charge is looked up only on its own service and account."""

    base_url: str
    account: str = ""

    @classmethod
    def of(cls, base_url: str, account: str | None) -> ChargeService:
        return cls(service_url(base_url), account or "")

    def __str__(self) -> str:
        return f"{self.base_url}, account {self.account}" if self.account else self.base_url


@dataclass(frozen=True)
class ChargeRecord:
    """One charge at a till: written before its create is sent, its outcome after."""

    token: str
    amount: Decimal
    currency: str
    till: str
    #: When the person confirmed it (aware, UTC).
    started_at: datetime
    outcome: str = "sending"
    #: One line: why not made, or what is unknown.
    detail: str = ""
    #: When the outcome was written (aware, UTC); None while "sending".
    ended_at: datetime | None = None
    #: Where its create was sent; None for a charge written before the ledger kept it
    #: (schema version 3): such a charge is never looked up.
    service: ChargeService | None = None
    #: When its latest create was sent (a retry of the same charge sends it again); None:
    #: `started_at`.
    sent_at: datetime | None = None

    @property
    def last_sent(self) -> datetime:
        return self.sent_at or self.started_at


@dataclass(frozen=True)
class SeenOrder:
    """The newest read of an order (getOrder's `data` object as JSON text, exact digits)."""

    token: str
    till: str
    first_seen: datetime
    last_seen: datetime
    order_json: str


@dataclass(frozen=True)
class CloseRecord:
    """A close of day, frozen: the same period and till always give back this report."""

    #: The till closed, or "*" for the whole shop (`--all-tills`).
    till: str
    period_from: datetime
    period_until: datetime
    closed_at: datetime
    #: The canonical report (JSON text) and its SHA-256 (hex).
    report_json: str
    digest: str


@dataclass(frozen=True)
class RefundRecord:
    """The coin to return, as worked out (`core/books/refund.py`) and written with its
    resolution."""

    #: The coin's code, upper case ("BTC").
    coin: str
    #: What to send back: rounded down to the coin's smallest unit, the fee taken off.
    amount: Decimal
    #: One of REFUND_BASES.
    basis: str
    #: Fiat units for one coin the amount was worked out at (None: the payment's own figure).
    rate: Decimal | None
    #: The network fee taken off, in coin.
    fee: Decimal


@dataclass(frozen=True)
class ResolutionRecord:
    """A person's word on an order that needed one. A token's resolutions are never changed or
    removed: its latest is its state."""

    #: Made once, before the first write: the same resolution written again stays one.
    id: str
    token: str
    #: One of RESOLUTION_KINDS.
    kind: str
    #: Why, in one line (required).
    reason: str
    till: str
    #: Who (the `operator` setting, or the login name).
    operator: str
    #: When (aware, UTC).
    at: datetime
    refund: RefundRecord | None = None


@dataclass(frozen=True)
class OriginalAsked:
    """An original receipt a process asks to print: the order's token, its rendering (kept
    if this claim is the first), who asks, when."""

    token: str
    text: str
    width: int
    language: str
    digest: str
    till: str
    tool: str
    at: datetime


@dataclass(frozen=True)
class ReceiptPrint:
    """One print to make: the receipt (`text`, `width`, `language`: the original's as claimed
    first) and the journal's attempt (`attempt`), or, when `held` is False, why not: another
    process holds the original (`state`: printed, or sending at `till` with `tool`)."""

    token: str
    held: bool
    text: str
    width: int
    language: str
    digest: str
    state: str
    till: str
    tool: str
    claimed_at: datetime
    attempt: str


class ReceivedCallback(NamedTuple):
    """One row of the callbacks' journal (`callbacks.py`), as read back: every text one bounded
    printable line, the body apart (bounded, its line breaks kept)."""

    id: str
    received_at: datetime
    source: str
    token: str
    body: str
    outcome: str
    detail: str
