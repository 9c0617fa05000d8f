"""The command palette's entries: the rarer actions, and the keys a narrow footer leaves out.

Each entry names an action (`action_<name>`) of the app or of the dashboard screen; the palette
calls the same method the key calls.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import App, SystemCommand
from textual.screen import Screen

from orderdash.tui.screens.dashboard import DashboardScreen

#: On every screen: (title, help, the app's action).
APP_COMMANDS = (
    ("Refresh now", "Fetch the order and the rate now", "refresh"),
    ("Copy order token", "Copy the token of the order on screen", "copy_token"),
    ("Copy payment address", "Copy the address customers pay to", "copy_address"),
    ("Copy amount due", "Copy the amount due now, as a wallet can send it", "copy_amount"),
    ("Copy transaction hash", "Copy the full hash of the selected transaction", "copy_hash"),
    ("Point of sale", "Full-screen QR and amount for the customer", "point_of_sale"),
    (
        "Show on customer display",
        "Put the order on screen on the customer display (orderdash display)",
        "show_on_display",
    ),
    (
        "Clear customer display",
        "Back to the welcome screen on the customer display",
        "clear_display",
    ),
    ("New charge", "Make an order for an amount and show it to the customer", "new_charge"),
    ("Toggle bell", "Ring the terminal bell on payments, or not", "toggle_bell"),
)
#: On the dashboard only (all of them are on `?` too): (title, help, whose, action).
DASHBOARD_COMMANDS = (
    ("Add orders", "Add orders to the watch list (a)", "app", "add_tokens"),
    ("Undo remove", "Put the last removed order back (u)", "app", "undo_remove"),
    ("Go to the watch list", "Focus the list's rows (g)", "screen", "focus_list"),
    ("Hide or show the list", "Hide or show the watch list (w)", "screen", "toggle_list"),
    ("Filter the list", "Filter the watch list by text (f)", "screen", "filter"),
    ("Show one state", "Show only orders in one state, cycles (t)", "screen", "state_filter"),
    ("Sort the list", "Sort the watch list by the next column (s)", "screen", "sort"),
    (
        "Open transaction",
        "The selected transaction's explorer page (o)",
        "screen",
        "open_transaction",
    ),
    ("Order details", "The service's field names and raw values (i)", "screen", "toggle_details"),
    ("Alerts log", "Every alert, newest last (l)", "app", "alerts"),
    ("Need attention", "The orders that need a human, and what to do (!)", "app", "attention"),
    ("Request budgets", "Use in the last minute and hour (b)", "app", "budgets"),
    ("Close of day", "The day's report per coin and fiat; close it (Z)", "app", "close_day"),
    (
        "Resolve the order",
        "How it was resolved, why, and a refund worked out; written down (R)",
        "screen",
        "resolve_order",
    ),
    ("Export the list", "The watch list's rows as shown, to a CSV file (e)", "app", "export_list"),
    (
        "Print receipt",
        "The highlighted or open order's receipt, paid; again: a reprint (P)",
        "screen",
        "print_receipt",
    ),
)


def system_commands(app: App[None], screen: Screen[object]) -> Iterable[SystemCommand]:
    """The app's entries, and the dashboard's while it is the screen; an action its owner
    turns off (`check_action`, e.g. read-only) is not offered, as its key is not shown."""
    for title, help_text, action in APP_COMMANDS:
        if app.check_action(action, ()) is not False:
            yield SystemCommand(title, help_text, getattr(app, f"action_{action}"))
    if not isinstance(screen, DashboardScreen):
        return
    for title, help_text, whose, action in DASHBOARD_COMMANDS:
        owner = app if whose == "app" else screen
        if owner.check_action(action, ()) is not False:
            yield SystemCommand(title, help_text, getattr(owner, f"action_{action}"))
