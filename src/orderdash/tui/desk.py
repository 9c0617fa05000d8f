"""The operator's desk: the clipboard and the browser.

Copying server text (an address, an amount, a hash, a link) and opening a transaction's
explorer page, with the refusals and notices around them. Desktop tools run in worker threads
(`tui/desktop.py`, imported at the first use).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol
from urllib.parse import urlsplit

from orderdash.core.domain.payment import Phase
from orderdash.core.domain.text import amount_text
from orderdash.core.model.wire import Transaction
from orderdash.core.safetext import clean
from orderdash.core.watching.state import DashboardState
from orderdash.tui.ui import Asks, Tells, Works


class Clipboard(Asks, Tells, Works, Protocol):
    """Asks before a risky copy, runs the desktop's tools in threads, tells what was copied;
    sends the terminal its clipboard sequence (OSC 52)."""

    def copy_to_clipboard(self, text: str) -> None: ...

    def call_from_thread(self, callback: Callable[..., object], *args: object) -> object: ...


class Desk:
    def __init__(self, ui: Clipboard, state: DashboardState) -> None:
        """`ui` runs the workers and the dialogs, shows the notices and reaches the terminal's
        clipboard; `state` holds the orders copied from."""
        self._ui = ui
        self._state = state

    def copy_token(self) -> None:
        if self._state.token:
            self._copy(self._state.token, "order token", shown=self._state.token)

    def copy_hash(self, tx: Transaction | None) -> None:
        if tx is not None:
            self._copy(tx.hash, "transaction hash", shown=tx.hash)

    def copy_address(self, token: str | None) -> None:
        """Copy the order's payment address; for a closed order (paid, expired, ...) only after
        the operator says yes: a payment to it now may be lost or pay twice."""
        entry = self._state.entries.get(token) if token is not None else None
        order = entry.order if entry is not None else None
        if order is None or not order.address:
            self._ui.notify("No address to copy yet.", severity="warning", markup=False)
            return
        address, payment = order.address, entry.payment if entry is not None else None
        if payment is not None and payment.settled:  # nothing may be paid to it any more
            from orderdash.tui.screens.confirm import ConfirmScreen

            question = (
                f"{clean(token or '', limit=40)} is {payment.phase.value}: nothing more is to "
                "be paid to this address. Copy it anyway?"
            )

            def answered(yes: bool | None) -> None:
                if yes:
                    self._copy(address, "address", shown=address)

            self._ui.push_screen(ConfirmScreen("Copy the address?", question), callback=answered)
            return
        self._copy(address, "address", shown=address)

    def copy_amount(self, token: str | None) -> None:
        """Copy what is due now, as a wallet can send it (rounded up to the coin's unit)."""
        entry = self._state.entries.get(token) if token is not None else None
        payment = entry.payment if entry is not None else None
        if payment is None or entry is None or entry.order is None:
            self._ui.notify("No order loaded yet.", severity="warning", markup=False)
            return
        if payment.phase is Phase.COIN_NOT_CHOSEN:
            self._ui.notify(
                "No coin amount yet (coin not chosen).", severity="warning", markup=False
            )
            return
        if not payment.payable or payment.due_coin is None:
            self._ui.notify(
                f"Nothing is due on {clean(entry.token, limit=40)}: {payment.headline}.",
                severity="warning",
                markup=False,
            )
            return
        send = payment.send
        figure = send.text if send is not None else amount_text(payment.due_coin)
        note = f" ({send.note})" if send is not None and send.rounded else ""
        self._copy(figure, "amount due", shown=f"{figure} {payment.coin}{note}")

    def _copy(self, text: str, what: str, *, shown: str) -> bool:
        """Copy server text as is, or refuse: a control character would travel to wherever it is
        pasted (a wallet, a shell), and a lone surrogate cannot even be encoded for the
        terminal's clipboard sequence (it used to stop the app with UnicodeEncodeError).

        The terminal's sequence (OSC 52) is always sent; a system clipboard tool, when there is
        one, is run in a thread, and only then is the text called "copied"."""
        if not text.isprintable():
            self._ui.notify(
                f"The {what} holds control characters or invalid text and cannot be copied: "
                f"{clean(text, limit=60)}",
                severity="error",
                markup=False,
            )
            return False
        self._ui.copy_to_clipboard(text)
        label = f"{what[:1].upper()}{what[1:]}"
        shown = clean(shown, limit=100)
        from orderdash.tui import desktop  # the first copy looks for the desktop's tools

        tool = desktop.clipboard_tool()
        if tool is None:
            self._tell_copied(False, label, shown)
            return True

        def copy() -> None:
            done = desktop.copy_with(tool, text)
            self._ui.call_from_thread(self._tell_copied, done, label, shown)

        self._ui.run_worker(copy, group="clipboard", thread=True, exit_on_error=False)
        return True

    def _tell_copied(self, copied: bool, label: str, shown: str) -> None:
        if copied:
            self._ui.notify(f"{label} copied: {shown}", timeout=3, markup=False)
        else:
            self._ui.notify(
                f"{label} sent to the terminal's clipboard (OSC 52): {shown}. "
                "Some terminals and tmux drop it: paste to check.",
                timeout=5,
                markup=False,
            )

    def open_url(self, url: str) -> None:
        """Textual's way to the browser (a link a widget opens): Textual's own runs `webbrowser`
        on the event loop with this process's whole environment, secrets included. Here the
        browser is opened as `o` opens it (`desktop`): off the loop, http(s) links only, with
        the environment cleaned."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or not url.isprintable():
            return
        from orderdash.tui import desktop  # (webbrowser): when first asked

        def open_it() -> None:
            desktop.open_in_browser(url)

        self._ui.run_worker(open_it, group="browser", thread=True, exit_on_error=False)

    def open_transaction(self, tx: Transaction | None) -> None:
        """The transaction's explorer page in the browser: http(s) links only. With no browser
        to open it in, the link is shown as text to select or copy."""
        if tx is None:
            self._ui.notify("Select a transaction first.", severity="warning", markup=False)
            return
        url = tx.hash_url or ""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or not url.isprintable():
            self._ui.notify(
                f"Not opening a link that is not http(s): {clean(url, limit=80)}",
                severity="error",
                markup=False,
            )
            return
        from orderdash.tui import desktop  # (webbrowser)

        if not desktop.browser_available():
            self.show_link(url, "No browser to open it in here (no display, or over SSH).")
            return
        self._ui.notify(f"Opening {clean(parts.netloc, limit=60)}\u2026", timeout=3, markup=False)

        def open_it() -> None:
            if not desktop.open_in_browser(url):
                self._ui.call_from_thread(self.show_link, url, "No browser took the link.")

        self._ui.run_worker(open_it, group="browser", thread=True, exit_on_error=False)

    def show_link(self, url: str, why: str) -> None:
        from orderdash.tui.screens.link import LinkScreen

        def closed(copy: bool | None) -> None:
            if copy:
                self._copy(url, "link", shown=url)

        self._ui.push_screen(LinkScreen(url, why), callback=closed)
