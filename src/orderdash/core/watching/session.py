"""The watching session: every change to what is watched, in one place, without Textual.

A change to what is watched touches up to four things that must stay in step: the state
(`DashboardState`), the watcher (`OrderWatcher`, what it polls and how closely), the watch-list
file (through its sync, which saves off the event loop) and the customer display's channel
(`Publisher`). The session makes each change to all of them and tells its `events` what the
person at the screen must see (a notice, the list's rows, the open order gone, the display's
line). The App builds it (`make_app`) and implements the events; screens call it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from orderdash.core.customer.handover import BackToWelcome
from orderdash.core.customer.holding import Takeover
from orderdash.core.model.errors import NotFound
from orderdash.core.polling.refresh import Kind
from orderdash.core.safetext import clean, shorten_middle
from orderdash.core.watching.watchlist_file import MAX_TOKENS, parse_tokens

if TYPE_CHECKING:
    from orderdash.core.customer.channel import Publisher
    from orderdash.core.customer.reading import Reading
    from orderdash.core.model.results import Fetched
    from orderdash.core.polling.watcher import Change, Failure, OrderWatcher
    from orderdash.core.watching.alert import Alert
    from orderdash.core.watching.entry import Entry
    from orderdash.core.watching.state import DashboardState

Severity = Literal["information", "warning", "error"]
#: What a dashboard may do with the customer display: it holds it ("held": already, or it was
#: free), another live process does ("busy": ask the operator first), or it is off ("off").
ClaimKind = Literal["held", "busy", "off"]
TAKEN_OVER = "The customer display was taken over by another till."


class SessionEvents(Protocol):
    """What the session tells the screen (the App implements it)."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Severity = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def announce(self, alert: Alert) -> None:
        """A payment, a status change or an alarm: the bell and a toast."""

    def roster_changed(self) -> None:
        """Orders joined or left the watch list."""

    def order_closed(self) -> None:
        """The open order left the watch list."""

    def display_changed(self, text: str) -> None:
        """What the customer display shows, in a few words ("" : nothing)."""


class ListFile(Protocol):
    """The watch-list file as the session changes it (`tui/watchlist_sync.py`)."""

    def room(self, count: int) -> int: ...

    def save(self, added: Iterable[str] = (), removed: Iterable[str] = ()) -> None: ...


class _Quiet:
    """Events nobody hears (a session before its screen is attached, or without one)."""

    def notify(self, message: str, **options: object) -> None:
        pass

    def announce(self, alert: Alert) -> None:
        pass

    def roster_changed(self) -> None:
        pass

    def order_closed(self) -> None:
        pass

    def display_changed(self, text: str) -> None:
        pass


class _NoFile:
    """No watch-list file: nothing is saved, the cap still holds."""

    def __init__(self, state: DashboardState) -> None:
        self._state = state

    def room(self, count: int) -> int:
        return min(count, max(MAX_TOKENS - len(self._state.entries), 0))

    def save(self, added: Iterable[str] = (), removed: Iterable[str] = ()) -> None:
        pass


@dataclass(frozen=True, eq=False, repr=False)  # read by its fields, never compared
class DisplayClaim:
    """The answer to `claim_display`: `kind`, and with "busy" what the display shows as its
    channel file says (`shown`); with "off", why (`problem`, "" when there is no display)."""

    kind: ClaimKind
    shown: Reading | None = None
    problem: str = ""


class WatchSession:
    def __init__(
        self,
        state: DashboardState,
        watcher: OrderWatcher,
        *,
        publisher: Publisher | None = None,
        welcome_after: float = 0.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.state = state
        self.watcher = watcher
        #: The customer display's channel (nothing is written until something is shown).
        self.publisher = publisher
        self._back_to_welcome = BackToWelcome(welcome_after, monotonic)
        self._display_problem: str | None = None
        self.events: SessionEvents = _Quiet()
        self.file: ListFile = _NoFile(state)

    def attach(self, events: SessionEvents, file: ListFile) -> None:
        """The screen that hears the session, and the watch-list file's sync."""
        self.events, self.file = events, file

    def _tell(
        self, text: str, *, severity: Severity = "information", timeout: float | None = None
    ) -> None:
        self.events.notify(text, markup=False, severity=severity, timeout=timeout)

    # -- what is watched -------------------------------------------------------------------------

    def watch(self, tokens: Iterable[str], *, save: bool) -> list[str]:
        """Watch the tokens not watched yet, as many as the cap lets in; returns those. With
        `save` they join the saved list after their first good answer (`confirm`), or at once
        when the operator gives a token again that was dropped as not found."""
        state = self.state
        new = [token for token in dict.fromkeys(tokens) if token not in state.entries]
        added = state.add(new[: self.file.room(len(new))])
        for token in added:
            self.watcher.add(token)
        if added:
            self.events.roster_changed()
            if save:
                insisted = [token for token in added if token in state.refused]
                state.unsaved.update(t for t in added if t not in state.refused)
                state.refused.difference_update(insisted)
                if insisted:
                    self.file.save(added=insisted)
        return added

    def confirm(self, token: str) -> None:
        """A good answer for `token`: an order the service knows is kept in the saved list."""
        if self.state.confirm(token):
            self.file.save(added=[token])

    def insist(self, token: str) -> None:
        """The operator keeps a token the service does not know (Enter again on it)."""
        self.state.not_found.discard(token)
        if token in self.state.unsaved:
            self.state.unsaved.discard(token)
            self.file.save(added=[token])
        self._tell(
            f"Kept on the watch list though the service does not know it (yet): "
            f"{clean(token, limit=40)}",
            timeout=5,
        )

    def not_found(self, token: str) -> None:
        """The service does not know an unsaved token: it is not saved; one not on screen (added
        with `a`) is not watched any longer either, and the operator is told."""
        if token not in self.state.unsaved:
            return
        self.state.not_found.add(token)
        if token != self.state.token:
            self.drop_unknown(token)

    def drop_unknown(self, token: str | None) -> None:
        """Stop watching `token` if it is an unsaved token the service does not know."""
        if token is None or not self.state.drop_unknown(token):
            return
        self.watcher.remove(token)
        self.events.roster_changed()
        self._tell(
            f"Not found, not kept on the watch list: {clean(token, limit=40)} "
            "(give it again to keep it anyway)",
            severity="warning",
            timeout=6,
        )

    def unwatch(self, token: str | None) -> None:
        if token is None or not self.state.remove(token):
            self._tell("No order selected.", severity="warning")
            return
        self.watcher.remove(token)
        self.events.roster_changed()
        self.file.save(removed=[token])
        if token == self.state.token:
            self.events.order_closed()
        self._tell(f"Removed {clean(token, limit=40)} \u00b7 u to undo", timeout=6)

    def undo(self) -> None:
        """The last removed order back on the list."""
        state = self.state
        if not state.removed:
            self._tell("Nothing to undo.")
            return
        entry = state.undo() if self.file.room(1) else None
        if entry is None:
            return
        self.watcher.add(entry.token)
        if entry.token == state.token:
            self.watcher.focus({entry.token})
        self.events.roster_changed()
        if entry.fetched is not None:
            if entry.token not in state.from_account:  # the history brings those back
                self.file.save(added=[entry.token])
        else:  # never answered: kept after its first good answer, like any new token
            state.unsaved.add(entry.token)
        self._tell(f"Back on the list: {clean(entry.token, limit=40)}", timeout=3)

    def adopt(self, gone: list[str], new: list[str]) -> None:
        """Another dashboard changed the file: its removals and additions are taken in."""
        for token in gone:
            self.state.entries.pop(token, None)
            self.watcher.remove(token)
        if gone:
            self.events.roster_changed()
        self.watch(new, save=False)

    def add_from_text(self, text: str | None) -> None:
        """Tokens pasted or typed (one a line, or separated by spaces or commas) join the list;
        one notice says how many and what was refused."""
        if not text:
            return
        parsed = parse_tokens(text, known=self.state.entries)
        added = self.watch(parsed.tokens, save=True)
        parts = [f"Added {len(added)}"]
        if parsed.duplicates:
            parts.append(f"{len(parsed.duplicates)} already watched")
        if parsed.invalid:
            raw, reason = parsed.invalid[0]
            more = f" (and {len(parsed.invalid) - 1} more)" if len(parsed.invalid) > 1 else ""
            parts.append(f"{len(parsed.invalid)} refused: {clean(raw, limit=30)}: {reason}{more}")
        self._tell("; ".join(parts), severity="warning" if parsed.invalid else "information")

    # -- the watcher's reports -------------------------------------------------------------------

    def fetched(
        self, token: str, fetched: Fetched, change: Change, *, looking: bool
    ) -> Entry | None:
        """A good answer for `token` (None: removed meanwhile): kept in the saved list, and its
        news (the service reachable again, a payment, a status) announced."""
        result = self.state.fetched(token, fetched, change, looking=looking)
        if result is None:
            return None
        entry, alert = result
        self.confirm(entry.token)
        for news in (self.state.reachable(), alert):
            if news is not None:
                self.events.announce(news)
        return entry

    def failed(self, token: str, failure: Failure) -> bool:
        """A failed read for `token`: its alarms announced, an unknown order let go (unless on
        screen); True when its entry changed."""
        for alarm in self.state.failure_alarms(token, failure):
            self.events.announce(alarm)
        if isinstance(failure.error, NotFound) and failure.kind is Kind.ORDER:
            self.not_found(token)
        return self.state.failed(token, failure) is not None

    # -- the order on screen ---------------------------------------------------------------------

    def open(self, token: str) -> bool:
        """`token`'s order becomes the one on screen (joining the list if new; False when the
        list is full): the order left behind, if unknown to the service, is let go, and the
        watcher watches the new one closely."""
        self.watch([token], save=True)
        if token not in self.state.entries:  # the list is full (the user was told)
            return False
        previous = self.state.token
        self.state.focus(token)
        self.drop_unknown(previous)
        self.watcher.focus(self.state.closely_watched)
        return True

    def refresh(self) -> None:
        if self.state.token is not None:
            self.watcher.refresh_now(self.state.token)
            self._tell("Refreshing\u2026", timeout=1.5)

    def point_of_sale(self, up: bool) -> None:
        """The point of sale went up or down: the watcher polls its order as the customer's."""
        self.state.pos_up = up
        self.watcher.point_of_sale(up)

    # -- the customer display (`orderdash display`, another process, on the local channel) -----

    @property
    def holds_display(self) -> bool:
        """This dashboard holds the customer display's channel (something of its is on it)."""
        return self.publisher is not None and self.publisher.holds

    def claim_display(self) -> DisplayClaim:
        """Hold the customer display's channel if it is free (`holding.py`); while another
        live process holds it, what its channel file shows, for the operator's question."""
        publisher = self.publisher
        if publisher is None:
            return DisplayClaim("off")
        try:
            if publisher.claim():
                return DisplayClaim("held")
        except OSError as error:
            return DisplayClaim("off", problem=f"The customer display is off: {error}")
        from orderdash.core.customer.reading import Reader  # the display's end: only when busy

        return DisplayClaim("busy", Reader(publisher.path, clock=publisher.clock).poll())

    def take_over_display(self, shown: Reading) -> Takeover:
        """After the operator's yes: ask the holder named in `shown` to let go; the caller
        polls the answer and shows its order once it is "taken". Raises OSError when the
        request cannot be written."""
        publisher = self.publisher
        assert publisher is not None
        return Takeover(
            publisher.lock,
            publisher.path,
            holder=shown.holder,
            by=publisher.holder,
            clock=publisher.clock,
        )

    def show_on_display(self, token: str) -> None:
        """`token`'s order on the customer display, when this dashboard holds it (or it is
        free): another's is never written over (the counter asks first)."""
        if self.publisher is None:
            return
        try:
            held = self.publisher.claim()
        except OSError as error:
            self._tell(f"The customer display is off: {error}", severity="warning")
            return
        if not held:
            text = "The customer display is another till's: x asks to take it over."
            self._tell(text, severity="warning")
            return
        if token != self.state.customer_token:
            self._back_to_welcome.reset()
        self.state.customer_token = token
        self.watcher.customer_display({token})
        # not a repeat: `customer_display` keeps the focused set as it was, which may still
        # hold the order the display showed before (the dashboard focuses `closely_watched`)
        self.watcher.focus(self.state.closely_watched)
        self.publish_display()

    def clear_display(self) -> None:
        """The customer display goes back to its welcome screen."""
        assert self.publisher is not None
        self.state.customer_token = None
        self._back_to_welcome.reset()
        self.publisher.end()
        self.watcher.customer_display(())
        self.watcher.focus(self.state.closely_watched)
        self._display_changed()

    def publish_display(self) -> None:
        """Say again what the customer display shows (each tick: the heartbeat, and after an
        answer for its order); a finished order gives way to the welcome screen in time."""
        if self.publisher is None or self.state.customer_token is None:
            return
        if self.publisher.yield_if_asked():
            self._taken_over()
            return
        face = self.state.customer_face()
        if self._back_to_welcome.due(face):
            self.clear_display()
            return
        problem = self.publisher.publish(face)
        if problem != self._display_problem:
            self._display_problem = problem
            if problem:
                self._tell(problem, severity="error")
        self._display_changed()

    def _taken_over(self) -> None:
        """Another till took the display (its operator said yes): this one stops, says so once,
        and its order is no longer read as the customer's."""
        self.state.customer_token = None
        self._back_to_welcome.reset()
        self._display_problem = None
        self.watcher.customer_display(())
        self.watcher.focus(self.state.closely_watched)
        self._display_changed()
        self._tell(TAKEN_OVER, severity="warning", timeout=10)

    def end_display(self) -> None:
        """Quitting: the channel says the dashboard is gone."""
        if self.publisher is not None:
            self.publisher.end()

    def _display_changed(self) -> None:
        token = self.state.customer_token
        entry = self.state.entries.get(token) if token is not None else None
        if token is None:
            text = ""
        elif self._display_problem:
            text = "customer display: not updated"
        else:
            phase = entry.payment.phase.value if entry is not None and entry.payment else "…"
            text = f"customer display: {shorten_middle(clean(token), 17)} \u00b7 {phase}"
        self.events.display_changed(text)
