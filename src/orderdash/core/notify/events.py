"""The app's events as notifications: the dashboard's alerts, `watch --jsonl`'s lines, the
close of day, and the one entry point for an order that newly needs a human (`attention`).

Events are matched by name: an alert that carries a `kind` naming an event ("late-payment",
...) and a JSON line whose `event` is one go out as that event with no more code here. An
alert without a kind is read from what the state knows (the outage, the order's payments and
phase).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from orderdash.core.books.attention import NEXT_STEPS
from orderdash.core.domain.payment import Phase
from orderdash.core.notify import messages
from orderdash.core.notify.rules import EVENTS, QuietHours

if TYPE_CHECKING:
    from orderdash.core.notify.sender import Notifier, Outcome, Told
    from orderdash.core.runtime.config import Settings
    from orderdash.core.service.models import Order
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


class Notices:
    """Turns the app's events into messages for a `Notifier` (which sends them, or not)."""

    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier
        #: (token, what) told already: an order is told about once per kind of trouble.
        self._attention: set[tuple[str, str]] = set()
        #: Per order, the payments told about (or there already when first seen).
        self._paid: dict[str, set[int]] = {}
        #: `watch --jsonl`: the service is out (an outage's message sent).
        self._out = False
        #: An alert's phase (underpaid, overpaid) tells `attention`: off where the attention
        #: view's keeper tells every kind, resolved orders left out (the dashboard).
        self.attention_from_phases = True

    def attention(self, token: str, what: str, next_step: str = "", *, again: bool = False) -> bool:
        """An order newly needs a human (`what`: what happened); once per order and `what`,
        unless `again` (the caller knows it came back: a payment after its resolution). The
        entry point for whatever finds such orders; True if queued."""
        if (token, what) in self._attention and not again:
            return False
        self._attention.add((token, what))
        return self.notifier.submit(messages.attention(token, what, next_step))

    def closed(self, report: Mapping[str, Any]) -> bool:
        """A close of day was just made: its digest."""
        return self.notifier.submit(messages.close_digest(report))

    def outage(self, reason: str) -> None:
        if not self._out:
            self._out = True
            self.notifier.submit(messages.outage(reason))

    def recovered(self) -> None:
        if self._out:
            self._out = False
            self.notifier.submit(messages.recovery())

    # -- the dashboard's alerts ------------------------------------------------------------------

    def alert(
        self, alert: Alert, *, order: Order | None, phase: Phase | None, outage: bool
    ) -> None:
        """An alert as the dashboard announces it, with its order and payment phase as the
        state holds them, and whether the service is out now."""
        kind = getattr(alert, "kind", None)
        if isinstance(kind, str) and kind in EVENTS and kind not in _READ_FROM_STATE:
            if kind == "attention":
                self.attention(alert.token, alert.text)
            else:
                self.notifier.submit(messages.event_fields(kind, alert.token, alert.text, {}))
            if kind != _LATE:
                return
        elif alert.alarm and not alert.token:  # about the service, not one order
            if outage:
                self.outage(alert.text.removeprefix("Service unreachable: "))
            else:
                self.recovered()
            return
        if order is None:
            return
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
        from orderdash.core.domain.text import coin_code

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
            self.notifier.submit(
                messages.payment(
                    order.token,
                    tx.amount.base,
                    coin_code(order),
                    tx.amount_fiat.base,
                    order.currency.abbreviation,
                    state=state,
                    company=order.company_name,
                )
            )

    # -- `watch --jsonl` -------------------------------------------------------------------------

    def line(self, event: str, token: str | None, fields: Mapping[str, Any]) -> None:
        """A JSON line `watch --jsonl` wrote: a payment, an order's phase, or any event a rule
        can name."""
        if event == "transaction" and token:
            self.notifier.submit(
                messages.payment(
                    token,
                    _decimal(fields.get("amount")),
                    str(fields.get("coin") or "").upper(),
                    _decimal(fields.get("amountFiat")),
                    str(fields.get("currency") or ""),
                    state=str(fields.get("state") or ""),
                )
            )
        elif event in EVENTS and event not in ("outage", "recovery"):
            self.notifier.submit(messages.event_fields(event, token, "", fields))
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


def notices_for(settings: Settings) -> Notices | None:
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
        notifier = Notifier(settings.notify, quiet=quiet, zone=_zone(settings.timezone))
        _made += 1
        notices = Notices(notifier)
        _shared[key] = (_made, notices)
        return notices


def _zone(name: str | None) -> Any:
    from orderdash.core.books.period import zone_named
    from orderdash.core.service.errors import OrderdashError

    try:
        return zone_named(name)
    except OrderdashError:  # the books say so where the zone matters; here: the machine's
        return None


def close_all(timeout: float | None = None, *, since: int = 0) -> Told:
    """At the end of a command: each sender (made after the first `since`: the command's own)
    sends what is queued, within its bounded wait; what became of their messages (`Told`,
    nothing when no sender was made)."""
    from orderdash.core.notify.sender import Told

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
