"""Opening the resolve dialog (`screens/resolve.py`) on one order: `R` on the dashboard's
highlighted order, the palette, or any screen through the App's `resolve_order(token)` (the
attention view's rows). The order comes from the watch list's last answer, or is read once
through the client within the watcher's getOrder budget; the resolution is made by the resolve
use case (`core/usecases/resolve.py`) and written through the ledger's writer (`tui/books.py`).
Nothing is sent to the service.

`Resolutions.accept_as_paid`: the point of sale's `a`, an order short accepted as paid after
one question, written down the same way as a resolution (written off, "accepted at the
counter", the operator); the customer's screens then say paid (`shown`).

`Resolutions` is given what it uses (the settings, the screens, the ledger, the state, the
client and the watcher's budget, a notify callable), never the App; the use case and the
dialog load at the first resolution, off the start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from orderdash.core.model.errors import OrderdashError
from orderdash.core.polling.refresh import Kind
from orderdash.core.safetext import clean
from orderdash.tui.ui import Asks, Works

if TYPE_CHECKING:
    from orderdash.core.ledger import ResolutionRecord
    from orderdash.core.ledger.writer import BookWriter
    from orderdash.core.model.results import Fetched
    from orderdash.core.polling.watcher import OrderWatcher
    from orderdash.core.service.client import OrderClient
    from orderdash.core.settings.model import Settings
    from orderdash.core.usecases.resolve import ResolveOptions
    from orderdash.core.watching.onscreen import Shown
    from orderdash.core.watching.session import WatchSession
    from orderdash.core.watching.state import DashboardState
    from orderdash.tui.ui import Notify


class Screens(Asks, Works, Protocol):
    """What the opener asks of Textual's App: its screen stack, and a worker for the write."""


class Ledger(Protocol):
    """The ledger as the dashboard keeps it (`tui/books.py`): its writer, and the attention
    view told of resolutions written (token -> their time, epoch ms)."""

    @property
    def writer(self) -> BookWriter: ...

    def resolved(self, times: dict[str, int]) -> None: ...


class Resolutions:
    """The resolve dialog's opener and the counter's acceptance."""

    def __init__(
        self,
        settings: Settings,
        *,
        screens: Screens,
        ledger: Ledger,
        state: DashboardState,
        client: OrderClient,
        watcher: OrderWatcher,
        notify: Notify,
        shown: Callable[[str], None],
    ) -> None:
        """`shown(token)`: an order just accepted as paid (`state.accept` done), shown so on
        every screen."""
        self._settings = settings
        self._screens = screens
        self._ledger = ledger
        self._state = state
        self._client = client
        self._watcher = watcher
        self._notify = notify
        self._shown = shown
        self._made: ResolveOptions | None = None

    def _options(self) -> ResolveOptions:
        if self._made is None:
            # the resolve dialog's use case: when first opened
            from orderdash.core.usecases.resolve import ResolveOptions

            self._made = ResolveOptions.from_settings(self._settings)
        return self._made

    def open(
        self, token: str | None, *, then: Callable[[ResolutionRecord | None], None] | None = None
    ) -> None:
        """The dialog on `token` (a notice when there is none); `then` is told what was
        written (None: nothing) when the dialog closes."""
        from orderdash.core.usecases.resolve import order_reader
        from orderdash.tui.screens.resolve import ResolveScreen

        notify = self._notify
        if self._settings.readonly:  # (its key and the palette's entry are off already)
            notify("Read-only: no resolution is written.", timeout=3, markup=False)
            return
        if not token:
            notify("No order to resolve: choose one first.", timeout=3, markup=False)
            return
        if isinstance(self._screens.screen, ResolveScreen):
            return
        options = self._options()
        entry = self._state.entries.get(token)
        fetched = entry.fetched if entry is not None else None
        reader = order_reader(self._client, self._watcher.scheduler.budgets[Kind.ORDER])

        async def read() -> Fetched:
            return await reader(token)

        screen = ResolveScreen(
            token,
            writer=self._ledger.writer,
            till=options.till,
            operator=options.operator,
            order=fetched.raw if fetched is not None else None,
            read=read,
            zone=options.zone,
        )

        def closed(record: ResolutionRecord | None) -> None:
            if record is not None:
                # it leaves the attention view until it goes wrong again
                self._ledger.resolved({record.token: int(record.at.timestamp() * 1000)})
                notify(
                    f"Resolved {clean(record.token, limit=40)}: {clean(record.kind, limit=20)}",
                    title="Ledger",
                    timeout=4,
                    markup=False,
                )
            if then is not None:
                then(record)

        self._screens.push_screen(screen, callback=closed)

    def accept_as_paid(self, token: str, question: str) -> None:
        """Ask `question` once; yes writes `token` off as accepted at the counter (the ledger's
        writer, off the event loop), then shows it paid on every screen of the customer's and
        takes it out of the attention view. Refused while read-only."""
        from orderdash.core.usecases.resolve import acceptance
        from orderdash.tui.screens.confirm import ConfirmScreen

        notify = self._notify
        if self._settings.readonly:  # (its key is off already)
            notify("Read-only: nothing is accepted.", timeout=3, markup=False)
            return
        if isinstance(self._screens.screen, ConfirmScreen):
            return
        record = acceptance(token, self._options())

        async def write() -> None:
            try:
                written = await self._ledger.writer.resolution_made(record)
            except OrderdashError as error:
                notify(f"Not accepted: {error.message}", severity="error", markup=False)
                return
            except Exception as error:  # never the app's end: said, and nothing changes
                notify(f"Not accepted: {type(error).__name__}", severity="error", markup=False)
                return
            self._state.accept(token)
            self._ledger.resolved({token: int(written.at.timestamp() * 1000)})
            self._shown(token)

        def answered(yes: bool | None) -> None:
            if yes:
                self._screens.run_worker(write(), group="accept-write", exit_on_error=False)

        self._screens.push_screen(ConfirmScreen("Accept as paid?", question), callback=answered)


class HasResolutions(Protocol):
    """The App as the point of sale reaches the acceptance (`make_app` gives it one)."""

    resolutions: Resolutions


def accept_as_paid(app: HasResolutions, token: str, question: str) -> None:
    """The point of sale's `a` (and whatever else calls it): `Resolutions.accept_as_paid`."""
    app.resolutions.accept_as_paid(token, question)


class ListedRow(Protocol):
    def entry_changed(self, token: str) -> None: ...


class ShowsAccepted(Protocol):
    """The App as an order accepted as paid is shown so: the order on screen (a reactive the
    point of sale watches), the customer's display, the dashboard's row."""

    shown: Shown | None
    state: DashboardState
    session: WatchSession

    @property
    def dashboard(self) -> ListedRow: ...


def show_accepted(app: ShowsAccepted, token: str) -> None:
    """`token`, accepted as paid (`state.accept` done), shown so on every screen: the order on
    screen, the customer's, its row in the list."""
    app.shown = app.state.shown
    app.session.publish_display()
    app.dashboard.entry_changed(token)
