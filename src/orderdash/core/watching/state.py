"""The dashboard's state, without any UI: the watched orders, the alerts, the undo list, the
bell and the order on screen. The app builds one (`make_app`) and owns it; screens hold a
reference and show what it says.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from orderdash.core.customer.face import CustomerFace, customer_face, wall_time
from orderdash.core.domain.display import amount_text, coin_code, fiat_text
from orderdash.core.domain.payment import PaymentState, Phase, payment_state
from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.core.polling.watcher import Change, Failure
from orderdash.core.qr.payload import QRContent, QRPayload, qr_payload
from orderdash.core.safetext import clean
from orderdash.core.service.client import Fetched
from orderdash.core.service.models import Order
from orderdash.core.watching.entry import Entry
from orderdash.core.watching.store import WatchListFile

#: A dashboard left open for weeks keeps the latest alerts and undoable removals, not all.
MAX_ALERTS = 1000
MAX_UNDO = 100


@dataclass(frozen=True)
class Freshness:
    """How fresh the order on screen is. Replaced, never changed in place: a new value is what
    the status line is handed."""

    last_update: float | None = None  # wall time the last good data was fetched
    rates_enabled: bool = True
    loading: bool = False
    #: The last error and the time of the next try, per failing kind of request. `retry_at` and
    #: `next_rate_at` are read off the monotonic clock the line counts down with (a wall-clock
    #: step back of an hour once showed "next rate in 1:00:59").
    errors: Mapping[Kind, str] = field(default_factory=dict)
    retry_at: Mapping[Kind, float] = field(default_factory=dict)
    next_rate_at: float | None = None
    statuses: Mapping[Kind, TrackStatus] = field(default_factory=dict)

    @property
    def stale(self) -> bool:
        """The order poll is failing: what is on screen is no longer being renewed.

        A failing rate call alone does not make the data stale (getOrder keeps it current);
        it is reported on its own.
        """
        return Kind.ORDER in self.errors

    def succeeded(self, kind: Kind, at: float, next_rate_at: float | None) -> Freshness:
        errors = {k: v for k, v in self.errors.items() if k is not kind}
        retry_at = {k: v for k, v in self.retry_at.items() if k is not kind}
        return replace(
            self,
            loading=False,
            last_update=at,
            errors=errors,
            retry_at=retry_at,
            next_rate_at=self.next_rate_at if next_rate_at is None else next_rate_at,
        )

    def failed(self, kind: Kind, message: str, retry_at: float) -> Freshness:
        return replace(
            self,
            errors={**self.errors, kind: message},
            retry_at={**self.retry_at, kind: retry_at},
        )


@dataclass(frozen=True)
class Alert:
    at: float  # wall time
    token: str
    company: str
    text: str


@dataclass(frozen=True)
class Shown:
    """The order on screen as the panes and the point-of-sale screen show it."""

    order: Order
    payment: PaymentState
    payload: QRPayload
    #: When the answer arrived (wall time): the expiry countdown counts from it.
    received_at: float
    #: Transactions new in this answer (the POS flashes, the table marks them).
    new_ids: tuple[int, ...] = ()


def rate_direction(previous: Order | None, current: Order) -> int | None:
    """1 up, -1 down, 0 the same, None when either rate is unknown."""
    if previous is None or previous.exchange_rate is None or current.exchange_rate is None:
        return None
    before, after = previous.exchange_rate, current.exchange_rate
    return (after > before) - (after < before)


class DashboardState:
    def __init__(
        self,
        *,
        store: WatchListFile | None,
        bell: bool,
        qr_content: str,
        qr_uppercase: bool = True,
        refresh_interval: float,
        rates_enabled: bool,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.refresh_interval = refresh_interval
        self.rates_enabled = rates_enabled
        self.monotonic = monotonic
        #: Ring the terminal bell on alerts: the one switch (`--no-bell`, the palette's toggle).
        self.bell = bell
        self.qr_content = QRContent(qr_content)
        self.qr_uppercase = qr_uppercase
        self.clock = clock
        self.entries: dict[str, Entry] = {}
        self.alerts: deque[Alert] = deque(maxlen=MAX_ALERTS)
        self.removed: deque[tuple[str, Entry]] = deque(maxlen=MAX_UNDO)
        #: The order in the detail panes: its token from the moment it is chosen, the rest
        #: once an answer came.
        self.token: str | None = None
        self.shown: Shown | None = None
        self.direction: int | None = None
        #: The last `qrCode` the rate endpoint sent (getOrder carries none).
        self.server_qr: str | None = None
        self.freshness = Freshness()
        #: The order on the customer display (`orderdash display`), if any: it need not be
        #: the one on screen.
        self.customer_token: str | None = None
        #: (asked, answered) token pairs already told about (`token_mismatch`).
        self._told_mismatch: set[tuple[str, str]] = set()

    @property
    def order(self) -> Order | None:
        return None if self.shown is None else self.shown.order

    # -- the watch list --------------------------------------------------------------------------

    def add(self, tokens: Iterable[str]) -> list[str]:
        """Watch the tokens not watched yet; returns those."""
        added = [token for token in dict.fromkeys(tokens) if token not in self.entries]
        for token in added:
            self.entries[token] = Entry(token)
        return added

    def remove(self, token: str) -> bool:
        entry = self.entries.pop(token, None)
        if entry is None:
            return False
        self.removed.append((token, entry))
        return True

    def undo(self) -> Entry | None:
        """Put the last removed order back; returns its entry."""
        if not self.removed:
            return None
        token, entry = self.removed.pop()
        self.entries[token] = entry
        return entry

    def mark_seen(self, token: str) -> Entry | None:
        """The operator looked at `token`: its alert mark goes; returns the entry if it changed."""
        entry = self.entries.get(token)
        if entry is None or not entry.unseen:
            return None
        seen = self.entries[token] = replace(entry, unseen=False)
        return seen

    # -- the order on screen ---------------------------------------------------------------------

    def focus(self, token: str) -> None:
        """`token` goes into the detail panes; nothing of the previous order stays."""
        self.token = token
        self.shown = None
        self.direction = None
        self.server_qr = None
        self.freshness = Freshness(loading=True, rates_enabled=self.rates_enabled)

    def show(self, fetched: Fetched, kind: Kind, new_ids: tuple[int, ...] = ()) -> Shown:
        """An answer for the order on screen: what the panes show from now on."""
        order = fetched.order
        if self.order is not None and order.exchange_rate != self.order.exchange_rate:
            self.direction = rate_direction(self.order, order)
        if kind is Kind.RATES and order.qr_code:
            self.server_qr = order.qr_code
        payment = payment_state(order, fetched.received_at)
        payload = qr_payload(
            order, payment, self.qr_content, self.server_qr, uppercase=self.qr_uppercase
        )
        self.shown = Shown(order, payment, payload, fetched.received_at, new_ids)
        next_rate_at = self.monotonic() + self.refresh_interval if kind is Kind.RATES else None
        # the time of the fetch, not of showing it: an order opened from the list shows data
        # read up to 10 minutes ago (paid orders), and "stale since" must say so
        self.freshness = self.freshness.succeeded(kind, fetched.received_at, next_rate_at)
        return self.shown

    @property
    def closely_watched(self) -> set[str]:
        """The orders read every poll interval: the one on screen and the customer's."""
        return {t for t in (self.token, self.customer_token) if t is not None}

    def customer_face(self) -> CustomerFace | None:
        """What the customer display shows: the customer's order as last answered, or None
        (idle) when there is none or no answer yet."""
        token = self.customer_token
        if token is None:
            return None
        if token == self.token and self.shown is not None:
            shown, fresh = self.shown, self.freshness
            return customer_face(
                shown.order,
                shown.payment,
                shown.payload,
                rate_renews_at=wall_time(fresh.next_rate_at, self.clock, self.monotonic),
                connection_problem=fresh.stale,
            )
        entry = self.entries.get(token)
        if entry is None or entry.fetched is None:
            return None
        order = entry.fetched.order
        payment = entry.payment or payment_state(order, entry.fetched.received_at)
        payload = qr_payload(order, payment, self.qr_content, None, uppercase=self.qr_uppercase)
        return customer_face(order, payment, payload, connection_problem=entry.failing)

    def token_mismatch(self, order: Order) -> tuple[str | None, bool]:
        """A warning when the service answered with another token than the one asked (it may
        normalise tokens, so the answer is shown, but never as if nothing were odd), and
        whether it is the first time for this pair (a notification then)."""
        if self.token is None or order.token == self.token:
            return None, False
        warning = (
            f"Warning: the service answered for order token {clean(order.token, limit=60)!r}, "
            f"not {clean(self.token, limit=60)!r} as asked"
        )
        first = (self.token, order.token) not in self._told_mismatch
        self._told_mismatch.add((self.token, order.token))
        return warning, first

    # -- the watcher's reports -------------------------------------------------------------------

    def fetched(
        self, token: str, fetched: Fetched, change: Change, *, looking: bool
    ) -> tuple[Entry, Alert | None] | None:
        """A good answer for a watched order; None if it is no longer watched. `looking`: the
        operator has this order in front of them (no unseen mark then)."""
        entry = self.entries.get(token)
        if entry is None:
            return None
        entry = self.entries[token] = replace(
            entry,
            fetched=fetched,
            payment=payment_state(fetched.order, fetched.received_at),
            error=None,
            failing=False,
            updated_at=self.clock(),
        )
        if not change:
            return entry, None
        alert = self._alert(entry, change)
        if not looking:
            entry.unseen = True
        return entry, alert

    def failed(self, token: str, failure: Failure) -> Entry | None:
        """A failed read of a watched order; returns its entry if the list shows the failure."""
        if token == self.token:
            self.freshness = self.freshness.failed(
                failure.kind, failure.error.message, self.monotonic() + failure.retry_in
            )
        entry = self.entries.get(token)
        if entry is None or failure.kind is not Kind.ORDER:
            return None
        failed = self.entries[token] = replace(entry, error=failure.error.message, failing=True)
        return failed

    def statuses(self, token: str, statuses: Mapping[Kind, TrackStatus]) -> None:
        if token == self.token:
            self.freshness = replace(self.freshness, statuses=statuses)

    def _alert(self, entry: Entry, change: Change) -> Alert:
        """A line for the alerts log: the payments, the status change, what is wrong now."""
        order, payment = entry.order, entry.payment
        assert order is not None and payment is not None
        texts = []
        if change.new_transaction_ids:
            by_id = {tx.id: tx for tx in order.transactions}
            paid = [
                f"{amount_text(tx.amount.base)} {coin_code(order)} "
                f"({fiat_text(tx.amount_fiat.base, order.currency.abbreviation)})"
                for tx in (by_id.get(i) for i in change.new_transaction_ids)
                if tx is not None
            ]
            texts.append(f"Payment received: {', '.join(paid) or 'new transaction'}")
        if change.status is not None:
            before, after = change.status
            texts.append(f"Status {clean(before, limit=30) or '?'} \u2192 {clean(after, limit=30)}")
        if payment.phase in (Phase.OVERPAID, Phase.UNDERPAID, Phase.EXPIRED, Phase.UNCLEAR):
            texts.append(payment.headline)
        company = clean(order.company_name, limit=40)
        alert = Alert(self.clock(), entry.token, company, clean("; ".join(texts), limit=240))
        self.alerts.append(alert)
        return alert
