"""The key reference, on `?`."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = (
    ("/", "type another order token (Enter loads it, Esc returns to the table)"),
    ("r", "refresh the order and the rate now"),
    ("c", "copy the payment address (a closed order's only after a yes)"),
    ("y", "copy the amount due now, as a wallet can send it (rounded up to the coin's unit)"),
    ("o", "open the selected transaction on the block explorer (no browser: the link is shown)"),
    ("\u2191 \u2193", "select a transaction: its full hash and amounts show under the table"),
    ("p", "point of sale: the QR, the amount due and the outcome, for the customer"),
    (
        "x",
        "show the order on the customer display (orderdash display), staying here; asks "
        "first while it shows another order still to be paid",
    ),
    ("X", "clear the customer display: back to its welcome screen"),
    ("n", "new charge: an amount, confirmed, made into an order, a coin, then the POS"),
    ("a", "add orders to the watch list (paste several at once)"),
    (
        "g",
        "go to the watch list: d, c, y, o, R, P then act on its highlighted row, else on the "
        "open one",
    ),
    ("d / u", "remove the highlighted (or open) order from the list / undo"),
    ("f / t / s", "filter the list by text / by state / sort by the next column"),
    ("S", "reverse the list's sort (\u25b2/\u25bc in the header; s on a header's column too)"),
    ("Enter", "in the list: open that order in the panes"),
    ("l", "the alerts log"),
    ("!", "the orders that need a human: under- or overpaid, paid late, unconfirmed too long"),
    (
        "Z",
        "close of day: today's report (orders by state, received per coin and fiat, "
        "exceptions); \u2190 \u2192 other days, c closes the day after a yes",
    ),
    ("R", "resolve the order: how, why, a refund worked out; written to the ledger"),
    (
        "P",
        "print the paid order's receipt (the highlighted or open one; on the POS the one on "
        "screen); again: a reprint, marked REPRINT",
    ),
    ("T", "print again the receipts the printer failed (shown while one did)"),
    ("e", "export the watch list's rows as shown (filters, order) to a CSV file"),
    ("b", "the request budgets: use now and the next hour's plan"),
    ("w", "hide or show the watch list"),
    ("i", "order details: the service's field names and raw values, or people's words"),
    (
        "ctrl+p",
        "command palette: copy token, copy hash, show on / clear the customer display, "
        "new charge, toggle the bell, theme",
    ),
    ("?", "this help"),
    ("q", "quit"),
)

#: The first line of the help while read-only (the `readonly` setting).
READONLY_NOTE = (
    "n, p, x, X, d, u, R, P and Z's c are off: nothing is charged, removed, resolved, closed, "
    "printed or shown to a customer"
)

ABOUT = (
    "The order on screen is polled every poll interval; a new transaction refreshes the exchange "
    "rate at once, rings the bell and is marked \u25cf in the table. The rate is refreshed every "
    "minute when a bearer token or the access token is configured. The other watched orders "
    "share the request budgets "
    "(getOrder 200 a minute and 10,000 an hour, rates 200 a minute and 1,000 an hour, paced "
    "evenly; b shows them). When the service cannot be reached the last good data stays on "
    "screen, marked STALE, and the dashboard retries by itself."
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("question_mark", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def __init__(self, *, readonly: bool = False) -> None:
        super().__init__()
        #: A read-only operator: the first line says which keys are off.
        self.readonly = readonly

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold", no_wrap=True)
        keys.add_column()
        if self.readonly:
            keys.add_row("READ-ONLY", READONLY_NOTE)
        for key, what in KEYS:
            keys.add_row(key, what)
        with VerticalScroll(id="help-body") as body:
            body.border_title = "orderdash \u00b7 keys"
            body.border_subtitle = "Esc closes"
            yield Static(keys)
            yield Static(Text("\n" + ABOUT, "dim"))
