"""The dashboard's state, without any UI: the watched orders and the undo list, the alerts the
watcher's reports raise, the bell and which order is on screen. What is shown of the order on
screen is in `onscreen`, what a customer is shown of an order in `faces`. The app builds one
(`make_app`) and owns it; screens hold a reference and show what it says.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.domain.payment import PaymentState, payment_state
from orderdash.core.model.errors import NotFound
from orderdash.core.model.results import Fetched
from orderdash.core.model.wire import Order, Transaction
from orderdash.core.polling.refresh import Kind, TrackStatus
from orderdash.core.polling.watcher import Change, Failure, is_outage
from orderdash.core.qr.payload import QRContent, qr_payload
from orderdash.core.safetext import clean
from orderdash.core.watching import faces
from orderdash.core.watching.alert_text import change_alert, order_figures
from orderdash.core.watching.entry import Entry
from orderdash.core.watching.faces import Reachability
from orderdash.core.watching.onscreen import Freshness, Shown, rate_direction
from orderdash.core.watching.watchlist_file import WatchListFile

if TYPE_CHECKING:
    from orderdash.core.customer.face import CustomerFace, Trouble
    from orderdash.core.watching.alert import Alert

#: A dashboard left open for weeks keeps the latest alerts and undoable removals, not all.
MAX_ALERTS = 1000
MAX_UNDO = 100


class DashboardState:
    def __init__(
        self,
        *,
        store: WatchListFile | None,
        bell: bool,
        qr_content: str,
        qr_uppercase: bool = True,
        underpaid_tolerance: Decimal = Decimal(0),
        refresh_interval: float,
        rates_enabled: bool,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        demo: bool = False,
    ) -> None:
        self.store = store
        #: The orders are simulated (`orderdash demo`): every face a customer sees says so.
        self.demo = demo
        self.refresh_interval = refresh_interval
        self.rates_enabled = rates_enabled
        self.monotonic = monotonic
        #: Ring the terminal bell on alerts: the one switch (`--no-bell`, the palette's toggle).
        self.bell = bell
        self.qr_content = QRContent(qr_content)
        self.qr_uppercase = qr_uppercase
        #: The payment tolerance (percent), and the orders accepted as paid at the counter.
        self.underpaid_tolerance = underpaid_tolerance
        self.accepted: set[str] = set()
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
        #: A point-of-sale screen shows the order on screen.
        self.pos_up = False
        #: The order whose code asks only for what is still due (the point of sale's `m`),
        #: on the POS and the customer display alike, while it is part-paid.
        self.remaining_for: str | None = None
        #: Watched but not in the saved list yet: a token is kept only after its first good
        #: answer, so a mistyped one is not saved and polled for ever.
        self.unsaved: set[str] = set()
        #: Unsaved tokens the service answered "not found" for (the operator may insist).
        self.not_found: set[str] = set()
        #: Tokens dropped as not found: given again, the operator insists and they are kept.
        self.refused: set[str] = set()
        #: Orders the account's history brought in (not kept in the watch list file: the
        #: history brings the open ones back at the next start).
        self.from_account: set[str] = set()
        #: The access token is configured: the account is connected (else the empty order
        #: pane says how to connect it).
        self.account_connected = False
        #: (asked, answered) token pairs already told about (`token_mismatch`).
        self._told_mismatch: set[tuple[str, str]] = set()
        #: The service has been unreachable since the first failed read (the outage's alarm
        #: is raised); the next good answer ends it with one alarm.
        self.outage = False
        #: Per order, the kind of its failure streak's latest error (`error_kind`).
        self._failing_kind: dict[str, str] = {}
        #: The service's checkout page of an order made here (Generate Order's `payment_url`):
        #: the customer's QR while the order has no coin.
        self.payment_urls: dict[str, str] = {}
        #: Per order, whether the service answers for it: a customer's screen withdraws the QR
        #: when it does not (`faces.Reachability`).
        self.reach = Reachability(monotonic)

    @property
    def order(self) -> Order | None:
        return None if self.shown is None else self.shown.order

    def payment_of(self, order: Order, received_at: float) -> PaymentState:
        """Where `order`'s payment stands, with the tolerance and the counter's acceptance."""
        tolerance, accepted = self.underpaid_tolerance, order.token in self.accepted
        return payment_state(order, received_at, tolerance=tolerance, accepted=accepted)

    def accept(self, token: str) -> None:
        """`token` was accepted as paid at the counter: what is shown of it says paid."""
        self.accepted.add(token)
        entry = self.entries.get(token)
        if entry is not None and (fetched := entry.fetched) is not None:
            payment = self.payment_of(fetched.order, fetched.received_at)
            self.entries[token] = replace(entry, payment=payment)
        if token == self.token and (shown := self.shown) is not None:
            # (no code is shown for a settled state, whatever the payload); its payments were
            # marked new when they came, not again now
            payment = self.payment_of(shown.order, shown.received_at)
            self.shown = replace(shown, payment=payment, new_ids=())

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
        self.unsaved.discard(token)
        self.not_found.discard(token)
        return True

    def kept(self) -> list[str]:
        """The watched tokens that belong in the saved list: not the unconfirmed ones, nor those
        the account's history brought in (it brings the open ones back at the next start)."""
        return [
            token
            for token in self.entries
            if token not in self.unsaved and token not in self.from_account
        ]

    def confirm(self, token: str) -> bool:
        """`token` had a good answer (or the operator insisted): True when it is to be saved
        now."""
        self.not_found.discard(token)
        self.refused.discard(token)
        if token not in self.unsaved or token not in self.entries:
            return False
        self.unsaved.discard(token)
        return True

    def drop_unknown(self, token: str) -> bool:
        """Stop watching an unsaved token the service does not know (no undo: it was never
        kept); True when it was dropped."""
        if token not in self.not_found or token not in self.unsaved:
            return False
        self.entries.pop(token, None)
        self.unsaved.discard(token)
        self.not_found.discard(token)
        self.refused.add(token)
        return True

    def undo(self) -> Entry | None:
        """Put the last removed order back; returns its entry."""
        if not self.removed:
            return None
        token, entry = self.removed.pop()
        self.entries[token] = entry
        return entry

    def new_order(self, token: str, amount: str) -> Alert:
        """An order of the account that appeared after start (`amount`: its fiat amount as
        text): a line in the alerts log, and the unseen mark if it is watched."""
        from orderdash.core.watching.alert import Alert  # with the first alert

        alert = Alert(self.clock(), token, "", clean(f"New order: {amount}", limit=240))
        self.alerts.append(alert)
        entry = self.entries.get(token)
        if entry is not None and token != self.token:
            entry.unseen = True
        return alert

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

    def unfocus(self) -> None:
        """No order in the detail panes (the open one left the list)."""
        self.token = None
        self.shown = None
        self.direction = None
        self.server_qr = None
        self.freshness = Freshness(rates_enabled=self.rates_enabled)

    def show(self, fetched: Fetched, kind: Kind, new_ids: tuple[int, ...] = ()) -> Shown:
        """An answer for the order on screen: what the panes show from now on."""
        order = fetched.order
        if self.order is not None and order.exchange_rate != self.order.exchange_rate:
            self.direction = rate_direction(self.order, order)
        if kind is Kind.RATES and order.qr_code:
            self.server_qr = order.qr_code
        payment = self.payment_of(order, fetched.received_at)
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
        """What the customer display shows: the customer's order, or None (idle)."""
        return self.face_for(self.customer_token)

    def face_for(self, token: str | None) -> CustomerFace | None:
        """What a customer is shown of `token` (`faces.face_for`). A demo's face is marked as
        one."""
        face = faces.face_for(self, token)
        if face is not None and self.demo:
            return face.model_copy(update={"demo": True})
        return face

    def trouble(self, token: str | None, *, has_order: bool) -> Trouble:
        """Why a customer cannot be shown `token`'s QR, or "" (`Reachability.trouble`)."""
        facing = token == self.customer_token or (self.pos_up and token == self.token)
        return self.reach.trouble(token, has_order=has_order, facing=facing)

    def qr_withdrawn(self) -> str:
        """Why the order on screen, which takes a payment, must show no code now, or ""."""
        return faces.qr_withdrawn(self)

    def newest_transaction(self, token: str) -> Transaction | None:
        """The newest payment to `token`'s order, if any."""
        entry = self.entries.get(token)
        order = entry.order if entry is not None else None
        if order is None or not order.transactions:
            return None
        return max(order.transactions, key=lambda tx: (tx.created_at_ms, tx.id))

    def set_payment_url(self, token: str, url: str) -> bool:
        """Remember the checkout page the service gave for `token` when the order was made
        (shown as the QR until a coin is chosen); False when it is not a usable link."""
        from orderdash.core.customer.face import checkout_url  # only for a charge made here

        checked = checkout_url(url)
        if checked:
            self.payment_urls[token] = checked
        return bool(checked)

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
        self.reach.answered(token)
        entry = self.entries.get(token)
        if entry is None:
            return None
        self._failing_kind.pop(token, None)
        before = entry.order
        if change.identity is not None and before is not None:
            entry = replace(entry, was=before)
        entry = self.entries[token] = replace(
            entry,
            fetched=fetched,
            payment=self.payment_of(fetched.order, fetched.received_at),
            error=None,
            failing=False,
            updated_at=self.clock(),
        )
        if not change:
            return entry, None
        alert = self._alert(entry, change, before)
        if not looking:
            entry.unseen = True
        return entry, alert

    def reachable(self) -> Alert | None:
        """A good answer: if the service was out, the outage is over (one alarm)."""
        if not self.outage:
            return None
        self.outage = False
        # about the service, not one order (whichever answered first)
        return self._alarm("", "Service reachable again: orders are read again")

    def failure_alarms(self, token: str, failure: Failure) -> list[Alert]:
        """Alarms for a failed read when it is news: the first failure of an outage (not one
        per order per poll), the end of an outage (the service answers again, if only with an
        error), an order found before that starts answering "not found"."""
        error = failure.error
        if is_outage(error):
            if self.outage:
                return []
            self.outage = True
            return [self._alarm("", f"Service unreachable: {error.message}")]
        alarms = [alarm] if (alarm := self.reachable()) is not None else []
        if failure.kind is not Kind.ORDER or token not in self.entries:
            return alarms
        kind, previous = failure.error_kind, self._failing_kind.get(token)
        self._failing_kind[token] = kind
        if kind != "not-found" or previous == kind:
            return alarms
        entry = self.entries[token]
        if entry.order is None:
            # a token never found (mistyped): the token bar and the list say so, no alarm
            return alarms
        text = f"Order no longer found ({error.message}); was {order_figures(entry.order)}"
        return [*alarms, self._alarm(token, text)]

    def _alarm(self, token: str, text: str) -> Alert:
        entry = self.entries.get(token)
        order = entry.order if entry is not None else None
        company = clean(order.company_name, limit=40) if order is not None else ""
        from orderdash.core.watching.alert import Alert  # with the first alert

        alert = Alert(self.clock(), token, company, clean(text, limit=480), alarm=True)
        self.alerts.append(alert)
        return alert

    def failed(self, token: str, failure: Failure) -> Entry | None:
        """A failed read of a watched order; returns its entry if the list shows the failure."""
        if token == self.token:
            self.freshness = self.freshness.failed(
                failure.kind, failure.error.message, self.monotonic() + failure.retry_in
            )
        if failure.kind is Kind.ORDER:
            self.reach.failed(token, not_found=isinstance(failure.error, NotFound))
        entry = self.entries.get(token)
        if entry is None or failure.kind is not Kind.ORDER:
            return None
        failed = self.entries[token] = replace(entry, error=failure.error.message, failing=True)
        return failed

    def statuses(self, token: str, statuses: Mapping[Kind, TrackStatus]) -> None:
        if token == self.token:
            self.freshness = replace(self.freshness, statuses=statuses)

    def _alert(self, entry: Entry, change: Change, before: Order | None) -> Alert:
        """A line for the alerts log of a change (`alert_text.change_alert`), kept."""
        alert = change_alert(entry, change, before, self.clock())
        self.alerts.append(alert)
        return alert
