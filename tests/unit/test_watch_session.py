"""The watching session without any UI (core/watching/session.py): each change to what is
watched reaches the state, the watcher, the list file and the customer display's channel in
step, and the screen hears of it through the events."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from test_watching_state import example, fetched, new_state

from orderdash.core.customer.channel import Publisher
from orderdash.core.model.errors import NotFound
from orderdash.core.polling.refresh import Kind
from orderdash.core.polling.watcher import Change, Failure
from orderdash.core.watching.session import WatchSession


class Watcher:
    """What the session asks of the watcher, recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def add(self, token: str) -> None:
        self.calls.append(("add", token))

    def remove(self, token: str) -> None:
        self.calls.append(("remove", token))

    def focus(self, tokens: Iterable[str]) -> None:
        self.calls.append(("focus", sorted(tokens)))

    def customer_display(self, tokens: Iterable[str]) -> None:
        self.calls.append(("customer_display", sorted(tokens)))

    def point_of_sale(self, up: bool) -> None:
        self.calls.append(("point_of_sale", up))

    def refresh_now(self, token: str) -> None:
        self.calls.append(("refresh_now", token))


class Events:
    def __init__(self) -> None:
        self.notices: list[tuple[str, str]] = []
        self.rosters = 0
        self.closed = 0
        self.display: list[str] = []

    def notify(self, message: str, *, severity: str = "information", **_: object) -> None:
        self.notices.append((severity, message))

    def announce(self, alert: object) -> None:
        self.notices.append(("alert", str(alert)))

    def roster_changed(self) -> None:
        self.rosters += 1

    def order_closed(self) -> None:
        self.closed += 1

    def display_changed(self, text: str) -> None:
        self.display.append(text)


class ListFile:
    def __init__(self, room: int = 100) -> None:
        self.free = room
        self.saves: list[tuple[list[str], list[str]]] = []

    def room(self, count: int) -> int:
        return min(count, self.free)

    def save(self, added: Iterable[str] = (), removed: Iterable[str] = ()) -> None:
        self.saves.append((list(added), list(removed)))


def new_session(
    room: int = 100, publisher: Publisher | None = None
) -> tuple[WatchSession, Watcher, Events, ListFile]:
    watcher, events, file = Watcher(), Events(), ListFile(room)
    session = WatchSession(new_state(), watcher, publisher=publisher)  # type: ignore[arg-type]
    session.attach(events, file)
    return session, watcher, events, file


def test_the_session_loads_no_ui() -> None:
    code = (
        "import sys, orderdash.core.watching.session\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


def test_open_watches_a_new_order_and_focuses_it_once() -> None:
    session, watcher, events, file = new_session()
    assert session.open("tok-1")
    assert session.state.token == "tok-1"
    assert watcher.calls == [("add", "tok-1"), ("focus", ["tok-1"])]
    assert events.rosters == 1
    # saved only after its first good answer
    assert "tok-1" in session.state.unsaved and file.saves == []
    session.state.fetched("tok-1", fetched(example("tok-1")), Change(), looking=True)
    session.confirm("tok-1")
    assert file.saves == [(["tok-1"], [])]


def test_a_full_list_opens_nothing() -> None:
    session, watcher, events, _ = new_session(room=0)
    assert not session.open("tok-1")
    assert session.state.token is None and watcher.calls == [] and events.rosters == 0


def test_unwatch_then_undo_keeps_watcher_file_and_screen_in_step() -> None:
    session, watcher, events, file = new_session()
    session.open("tok-1")
    session.state.fetched("tok-1", fetched(example("tok-1")), Change(), looking=True)
    session.confirm("tok-1")
    watcher.calls.clear()
    session.unwatch("tok-1")
    assert watcher.calls == [("remove", "tok-1")]
    assert file.saves[-1] == ([], ["tok-1"])
    assert events.closed == 1  # it was the order on screen
    assert events.notices[-1] == ("information", "Removed tok-1 \u00b7 u to undo")
    session.state.focus("tok-1")  # (the screen closes it; here it is still the one open)
    session.undo()
    assert watcher.calls[-2:] == [("add", "tok-1"), ("focus", ["tok-1"])]
    assert file.saves[-1] == (["tok-1"], [])
    assert events.notices[-1] == ("information", "Back on the list: tok-1")
    session.undo()
    assert events.notices[-1] == ("information", "Nothing to undo.")


def test_an_unknown_order_left_behind_is_let_go() -> None:
    session, watcher, events, file = new_session()
    session.open("typo")
    session.not_found("typo")  # on screen: kept until the operator moves on
    assert "typo" in session.state.entries
    session.open("tok-2")
    assert "typo" not in session.state.entries
    assert ("remove", "typo") in watcher.calls
    assert events.notices[-1][0] == "warning"
    assert file.saves == []


def test_add_from_text_says_what_was_added_and_refused() -> None:
    session, _, events, _ = new_session()
    session.add_from_text("tok-1 tok-2 tok-1 bad\x01token")
    severity, text = events.notices[-1]
    assert severity == "warning"
    assert text.startswith("Added 2; ")
    assert "1 refused" in text
    assert list(session.state.entries) == ["tok-1", "tok-2"]


def test_the_customer_display_follows_the_session(tmp_path: Path) -> None:
    publisher = Publisher(tmp_path / "channel.json", language="en", clock=lambda: 0.0)
    session, watcher, events, _ = new_session(publisher=publisher)
    session.open("tok-1")
    session.state.fetched("tok-1", fetched(example("tok-1")), Change(), looking=True)
    watcher.calls.clear()
    session.show_on_display("tok-1")
    assert session.state.customer_token == "tok-1"
    assert watcher.calls[:2] == [("customer_display", ["tok-1"]), ("focus", ["tok-1"])]
    assert events.display[-1].startswith("customer display: tok-1")
    assert (tmp_path / "channel.json").exists()
    session.clear_display()
    assert session.state.customer_token is None and events.display[-1] == ""
    assert watcher.calls[-2:] == [("customer_display", []), ("focus", ["tok-1"])]


def test_a_good_answer_is_saved_and_its_news_announced() -> None:
    session, _, events, file = new_session()
    session.open("tok-1")
    entry = session.fetched("tok-1", fetched(example("tok-1")), Change(), looking=True)
    assert entry is not None and entry.token == "tok-1"
    assert file.saves == [(["tok-1"], [])]  # known to the service: kept in the saved list
    assert session.fetched("gone", fetched(example("gone")), Change(), looking=False) is None


def test_a_not_found_off_screen_is_let_go_and_its_alarm_announced() -> None:
    session, watcher, events, file = new_session()
    session.open("tok-1")
    session.add_from_text("typo")
    events.notices.clear()
    gone = Failure(Kind.ORDER, NotFound("no order with token 'typo' (HTTP 404)"), retry_in=60.0)
    session.failed("typo", gone)
    assert "typo" not in session.state.entries
    assert ("remove", "typo") in watcher.calls
    kinds = [severity for severity, _ in events.notices]
    assert "warning" in kinds  # "Not found, not kept on the watch list"
    assert file.saves == []
    # the order on screen stays, marked not found (Enter again keeps it)
    session.failed("tok-1", gone)
    assert "tok-1" in session.state.entries and "tok-1" in session.state.not_found
