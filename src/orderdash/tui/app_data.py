"""What the App holds for its screens: the clock tick, the order on screen, its freshness, the
customer display's words, the roster, the attention count and the last word on a receipt, as
reactives.

The screens bind to these (`data_bind`) and hand them on to their widgets the same way, so a
value set on the App reaches every pane that shows it. They are declared here, apart from the
App (`tui/app.py`), so that the screens the App imports can name them without importing it back.
"""

from __future__ import annotations

from textual.app import App
from textual.reactive import var

from orderdash.core.watching.onscreen import Freshness, Shown


class AppData(App[None]):
    # `var`s: setting one repaints nothing by itself; the widgets bound to it do
    #: One clock for every countdown on screen: it ticks once a second.
    tick: var[int] = var(0, init=False)
    #: The order on screen as last answered (the order view and the point of sale bind it).
    shown: var[Shown | None] = var(None, init=False, always_update=True)
    #: How fresh the order on screen is (the state's, set by the dashboard as it changes: its
    #: status line, the order view and the point of sale bind it).
    freshness: var[Freshness] = var(Freshness, init=False)
    #: What the customer display shows, in a few words ("" when nothing is published).
    customer_display: var[str] = var("", init=False)
    #: Bumped when orders join or leave the watch list (the list pane rebuilds).
    roster: var[int] = var(0, init=False)
    #: Watched orders that need a human (the title counts them; `!` lists them).
    attention: var[int] = var(0, init=False)
    #: The last word on a receipt: the order it is about, and the line (the point of sale's
    #: staff line shows it; `tui/receipts.py`).
    receipt_line: var[tuple[str, str]] = var(("", ""), init=False)
