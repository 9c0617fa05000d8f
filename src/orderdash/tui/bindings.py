"""The dashboard's keys. The footer and `?` explain them; an `app.` action is the app's (the
command palette calls the same ones)."""

from __future__ import annotations

from textual.binding import Binding

DASHBOARD_BINDINGS = [
    Binding("r", "app.refresh", "Refresh", tooltip="Fetch the order and the rate now"),
    Binding("c", "app.copy_address", "Copy address", tooltip="Copy the payment address"),
    Binding("y", "app.copy_amount", "Copy amount", tooltip="Copy the coin amount, exact digits"),
    Binding(
        "o",
        "open_transaction",
        "Open tx",
        tooltip="Open the selected transaction's explorer page",
    ),
    Binding("p", "app.point_of_sale", "POS", tooltip="Full-screen view for the paying customer"),
    Binding(
        "x",
        "app.show_on_display",
        "Display",
        tooltip="Show the order on the customer display (orderdash display)",
    ),
    Binding("slash", "focus_token", "Token", tooltip="Type another order token"),
    Binding("a", "app.add_tokens", "Add", tooltip="Add orders to the watch list (paste several)"),
    Binding("d", "remove_order", "Remove", tooltip="Remove the selected order from the list"),
    Binding("u", "app.undo_remove", "Undo", show=False, tooltip="Put the last removed order back"),
    Binding("f", "filter", "Filter", tooltip="Filter the watch list by text"),
    Binding("t", "state_filter", "State", tooltip="Show only orders in one state (cycles)"),
    Binding("s", "sort", "Sort", tooltip="Sort the watch list by the next column"),
    Binding("S", "reverse_sort", "Reverse sort", show=False, tooltip="Reverse the list's sort"),
    Binding("l", "app.alerts", "Alerts", tooltip="The log of alerts"),
    Binding(
        "b",
        "app.budgets",
        "Budgets",
        show=False,
        tooltip="Request budgets: use in the last minute and hour, the hour's projection",
    ),
    Binding("w", "toggle_list", "List", show=False, tooltip="Show or hide the watch list"),
    Binding("escape", "focus_table", "Table", show=False),
]
