"""The app's events as notifications: the dashboard's alerts, `watch --jsonl`'s lines, the
close of day, and the one entry point for an order that newly needs a human (`attention`).

Events are matched by name: an alert that carries a `kind` naming an event ("late-payment",
...) and a JSON line whose `event` is one go out as that event with no more code here. An
alert without a kind is read from what the state knows (the outage, the order's payments and
phase).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, tzinfo
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from orderdash.core.books.attention import NEXT_STEPS
from orderdash.core.books.period import zone_named
from orderdash.core.domain.payment import PAYABLE, Phase
from orderdash.core.domain.text import coin_code
from orderdash.core.model import jsontext
from orderdash.core.model.errors import OrderdashError
from orderdash.core.notify import messages
from orderdash.core.notify.messages import Message
from orderdash.core.notify.rules import EVENTS, QuietHours

if TYPE_CHECKING:
    from orderdash.core.model.wire import Order
    from orderdash.core.notify.claims import Claims
    from orderdash.core.notify.rules import NoticeSettings
    from orderdash.core.notify.sender import Notifier, Outcome, Told
    from orderdash.core.watching.alert import Alert

#: The phases that need a human, and the next step to suggest for each (the attention view's:
#: one table, `core/books/attention.py`). The dashboard tells every kind from the view's keeper
#: (`tui/books.py`); `watch --jsonl`, which has no keeper, tells these two from the phases.
ATTENTION = {Phase.UNDERPAID: NEXT_STEPS["underpaid"], Phase.OVERPAID: NEXT_STEPS["overpaid"]}
#: The same, by the phase's name as `watch --jsonl` writes it.
_ATTENTION_NAMES = {phase.value: step for phase, step in ATTENTION.items()}
#: The events read from what the state knows, whatever kind an alert carries: a payment's
#: figures come from the order, an outage is the state's.
_READ_FROM_STATE = frozenset({"payment", "outage", "recovery"})
#: The words of a payment in the state's alert text (`core/watching/state.py`).
_PAID_WORDS = "Payment received: "
#: A payment into an order closed unpaid, or after its deadline: its own event, never also a
#: `payment`, in the dashboard and in `watch --jsonl` alike (there its `transaction` line is
#: not heard: `headless.py`).
_LATE = "late-payment"
#: The phases in which a part-paid order closed short: its attention is told then.
_SHORT = frozenset({Phase.UNDERPAID, Phase.EXPIRED, Phase.CANCELED})
#: An outage is told once it has lasted this many seconds and this many failed reads in a
#: row, whichever comes later: a blip of a request or two is no outage.
OUTAGE_SECONDS = 30.0
OUTAGE_READS = 3


class Notices:
    """Turns the app's events into messages for a `Notifier` (which sends them, or not), each
    claimed first in the ledger (`claims`, when one is set) so that it is sent once by
    whichever process or till runs on the book."""

    def __init__(
        self,
        notifier: Notifier,
        *,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        zone: tzinfo | None = None,
    ) -> None:
        self.notifier = notifier
        self._clock, self._monotonic, self._zone = clock, monotonic, zone
        #: Where each notification is claimed before it is sent (None: sent, unclaimed).
        self.claims: Claims | None = None
        #: (token, event, state) claimed or sent by this process already: not asked again.
        self._told: set[tuple[str, str, str]] = set()
        #: Per order, the payments told about (or there already when first seen).
        self._paid: dict[str, set[int]] = {}
        #: Orders part paid and still open: their attention waits for the close (arguments
        #: of `attention`), told if it closes short or expires, dropped if paid in full.
        self._still_paying: dict[str, tuple[str, str, str, Decimal | None, str]] = {}
        #: The outage going on: when its first failed read was (monotonic, wall), how many
        #: in a row, the latest reason; whether it is told (by this process or another: its
        #: episode in the ledger, for the recovery's claim).
        self._failing_since: tuple[float, float] | None = None
        self._failures = 0
        self._reason = ""
        self._out = False
        self._episode = ""
        #: An alert's phase (underpaid, overpaid) tells `attention`: off where the attention
        #: view's keeper tells every kind, resolved orders left out (the dashboard).
        self.attention_from_phases = True

    def _send(self, token: str, event: str, state: str, message: Message) -> bool:
        """`message`, claimed as (token, event, state) first: once by this process, and once
        by every process on the ledger when one claims it."""
        key = (token, event, state)
        if key in self._told:
            return False
        self._told.add(key)
        if not self.notifier.wants(event):
            return False
        if self.claims is None:
            return self.notifier.submit(message)
        self.claims.claim(token, event, state, lambda: self._submit(message))
        return True

    def _submit(self, message: Message) -> None:
        self.notifier.submit(message)

    def attention(
        self,
        token: str,
        what: str,
        next_step: str = "",
        *,
        state: str = "",
        phase: Phase | None = None,
        amount: Decimal | None = None,
        currency: str = "",
    ) -> bool:
        """An order newly needs a human (`what`: what happened, a kind or a phase's name);
        once per order and `state` (default `what`): a state of its own, such as the
        resolution it came back after, tells it again. A part payment into an order still open
        (`phase`, or the kind `still_paying`) waits for the order to close short. True if
        queued (or claimed)."""
        state = state or what
        if what == "still_paying":  # the customer is still paying: told if it closes short
            return False
        if what == "underpaid" and phase in PAYABLE:
            self._still_paying[token] = (what, next_step, state, amount, currency)
            return False
        self._still_paying.pop(token, None)
        message = messages.attention(token, what, next_step, amount=amount, currency=currency)
        return self._send(token, "attention", state, message)

    def _closed_short(self, token: str, phase: Phase | None) -> None:
        """A still-paying order's phase changed: told once it closed short or expired,
        forgotten once paid in full."""
        waiting = self._still_paying.get(token)
        if waiting is None or phase is None or phase in PAYABLE:
            return
        del self._still_paying[token]
        if phase in _SHORT:
            what, step, state, amount, currency = waiting
            self.attention(token, what, step, state=state, amount=amount, currency=currency)

    def closed(self, report: Mapping[str, Any]) -> bool:
        """A close of day was just made: its digest."""
        return self.notifier.submit(messages.close_digest(report))

    def outage(self, reason: str) -> None:
        """A read failed because the service is out: told once the outage has lasted
        (`OUTAGE_SECONDS` and `OUTAGE_READS` failed reads in a row, whichever is later), once
        per outage by whichever process on the ledger claims it."""
        self._reason = reason
        self._failures += 1
        if self._failing_since is None:
            self._failing_since = (self._monotonic(), self._clock())
        lasted = self._monotonic() - self._failing_since[0]
        if self._out or self._failures < OUTAGE_READS or lasted < OUTAGE_SECONDS:
            return
        self._out = True
        if not self.notifier.wants("outage") and not self.notifier.wants("recovery"):
            return
        message = messages.outage(reason, self._since())
        if self.claims is None:
            self._told_outage("", True, message)
            return
        began = datetime.fromtimestamp(self._failing_since[1], UTC)
        self.claims.claim_outage(
            began, lambda episode, won: self._told_outage(episode, won, message)
        )

    def _told_outage(self, episode: str, won: bool, message: Message) -> None:
        """The outage's claim answered (in the ledger's thread): its episode, for the
        recovery's claim, which comes after it in that thread's order."""
        self._episode = episode
        if won:
            self.notifier.submit(message)

    def _since(self) -> str:
        at = self._failing_since[1] if self._failing_since is not None else self._clock()
        return datetime.fromtimestamp(at, self._zone).strftime("%H:%M")

    def recovered(self) -> None:
        """A good answer: the outage, if it was told, is over (told once); a blip that was
        not told is forgotten."""
        if self._out and self._failing_since is not None:
            since = self._since()
            message = messages.recovery(since)
            if self.claims is None:
                self._send("", "recovery", repr(self._failing_since[0]), message)
            elif self.notifier.wants("recovery"):
                self.claims.claim("", "recovery", self._episode_told, lambda: self._submit(message))
        self._out = False
        self._failing_since, self._failures = None, 0

    def _episode_told(self) -> str:
        """The episode of the outage just over (the ledger's thread), forgotten once asked."""
        episode, self._episode = self._episode, ""
        return episode

    # -- the dashboard's alerts ------------------------------------------------------------------

    def alert(
        self, alert: Alert, *, order: Order | None, phase: Phase | None, outage: bool
    ) -> None:
        """An alert as the dashboard announces it, with its order and payment phase as the
        state holds them, and whether the service is out now. An outage's alarm is not
        itself told: each failed read is (`outage`), the recovery's is."""
        kind = getattr(alert, "kind", None)
        if isinstance(kind, str) and kind in EVENTS and kind not in _READ_FROM_STATE:
            if kind == "attention":
                self.attention(alert.token, alert.text)
            else:
                ids = sorted(getattr(alert, "late_ids", ()) or ())
                state = ",".join(map(str, ids)) if ids else alert.text
                message = messages.event_fields(kind, alert.token, alert.text, {})
                self._send(alert.token, kind, state, message)
            if kind != _LATE:
                return
        elif alert.alarm and not alert.token:  # about the service, not one order
            if not outage:
                self.recovered()
            return
        if order is None:
            return
        self._closed_short(order.token, phase)
        if kind == _LATE:
            # its own event (sent above), never also a `payment`, but told all the same (not
            # announced with the next payment); those that came in time in the same read are
            # payments (an alert that does not say which were late: all its new ones were)
            late = frozenset(getattr(alert, "late_ids", ())) or None
            self._payments(order, phase, late=late, announce=_PAID_WORDS in alert.text)
        elif _PAID_WORDS in alert.text:
            self._payments(order, phase)
        if self.attention_from_phases and phase in ATTENTION:
            self.attention(order.token, phase.value, ATTENTION[phase])

    def _payments(
        self,
        order: Order,
        phase: Phase | None,
        *,
        late: frozenset[int] | None = frozenset(),
        announce: bool = True,
    ) -> None:
        """Announce the order's payments not told yet, but the `late` ones (None: every new
        one is late), and count them all as told."""
        told = self._paid.get(order.token)
        ids = {tx.id for tx in order.transactions}
        self._paid[order.token] = ids
        if not announce or late is None:
            return
        new = [
            tx
            for tx in order.transactions
            if (told is None or tx.id not in told) and tx.id not in late
        ]
        if told is None:  # first heard of: the newest is the one the alert is about
            new = sorted(new, key=lambda tx: (tx.created_at_ms, tx.id))[-1:]
        state = phase.value if phase is not None else ""
        for tx in new:
            message = messages.payment(
                order.token,
                tx.amount.base,
                coin_code(order),
                tx.amount_fiat.base,
                order.currency.abbreviation,
                state=state,
                company=order.company_name,
            )
            self._send(order.token, "payment", str(tx.id), message)

    # -- `watch --jsonl` -------------------------------------------------------------------------

    def line(self, event: str, token: str | None, fields: Mapping[str, Any]) -> None:
        """A JSON line `watch --jsonl` wrote: a payment, an order's phase, or any event a rule
        can name."""
        ident = str(fields.get("id", ""))
        if event == "transaction" and token:
            message = messages.payment(
                token,
                _decimal(fields.get("amount")),
                str(fields.get("coin") or "").upper(),
                _decimal(fields.get("amountFiat")),
                str(fields.get("currency") or ""),
                state=str(fields.get("state") or ""),
            )
            self._send(token, "payment", ident, message)
        elif event in EVENTS and event not in ("outage", "recovery"):
            message = messages.event_fields(event, token, "", fields)
            self._send(token or "", event, ident or jsontext.dumps(dict(fields))[:200], message)
        step = _ATTENTION_NAMES.get(str(fields.get("state")))
        if token and step is not None and event in ("transaction", "status", _LATE):
            self.attention(token, str(fields["state"]), step)


def _decimal(value: Any) -> Decimal | str | None:
    return value if isinstance(value, Decimal | str) else None


#: This process's notices per rules (and quiet hours, zone), each with its number in the order
#: they were made.
_shared: dict[tuple[Any, ...], tuple[int, Notices]] = {}
_made = 0
_lock = threading.Lock()


def made() -> int:
    """How many senders this process has made so far (`close_all`'s `since`)."""
    with _lock:
        return _made


def notices_for(settings: NoticeSettings) -> Notices | None:
    """This process's notices for these settings' rules (one sender however many callers:
    the dashboard's alerts and its close of day share it); None without rules (then nothing,
    Apprise least of all, is loaded)."""
    if not settings.notify:
        return None
    global _made
    key = (settings.notify, settings.quiet_hours, settings.timezone)
    with _lock:
        shared = _shared.get(key)
        if shared is not None:
            return shared[1]
        from orderdash.core.notify.sender import Notifier

        quiet = QuietHours.parse(settings.quiet_hours) if settings.quiet_hours else None
        zone = _zone(settings.timezone)
        notifier = Notifier(settings.notify, quiet=quiet, zone=zone)
        _made += 1
        notices = Notices(notifier, zone=zone)
        _shared[key] = (_made, notices)
        return notices


def _zone(name: str | None) -> tzinfo | None:
    try:
        return zone_named(name)
    except OrderdashError:  # the books say so where the zone matters; here: the machine's
        return None


def close_all(timeout: float | None = None, *, since: int = 0) -> Told:
    """At the end of a command: each sender (made after the first `since`: the command's own)
    sends what is queued, within its bounded wait; what became of their messages (`Told`,
    nothing when no sender was made)."""
    from orderdash.core.notify.sender import Told  # the senders (and Apprise) only with rules

    with _lock:
        mine = [key for key, (number, _) in _shared.items() if number > since]
        shared = [_shared.pop(key)[1] for key in mine]
    outcomes: list[Outcome] = []
    dropped, unfinished = 0, False
    for notices in shared:
        if timeout is None:
            notices.notifier.close()
        else:
            notices.notifier.close(timeout)
        told = notices.notifier.told()
        outcomes += told.outcomes
        dropped += told.dropped
        unfinished = unfinished or told.unfinished
    return Told(tuple(outcomes), dropped, unfinished)
