"""The dashboard's keys. The footer and `?` explain them; an `app.` action is the app's (the
command palette calls the same ones). `d`, `c`, `y`, `o`, `R` and `P` act on the watch list's
highlighted row while the list has the focus (`g`), else on the order open in the panes."""

from __future__ import annotations

from textual.binding import Binding, BindingType

DASHBOARD_BINDINGS: list[BindingType] = [
    Binding("r", "app.refresh", "Refresh", tooltip="Fetch the order and the rate now"),
    Binding("c", "copy_address", "Copy address", tooltip="Copy the payment address"),
    Binding(
        "y",
        "copy_amount",
        "Copy due",
        tooltip="Copy the amount due now, as a wallet can send it",
    ),
    Binding(
        "o",
        "open_transaction",
        "Open tx",
        tooltip="Open the selected transaction's explorer page (the list: its newest payment)",
    ),
    Binding("p", "app.point_of_sale", "POS", tooltip="Full-screen view for the paying customer"),
    Binding(
        "x",
        "app.show_on_display",
        "Display",
        tooltip="Show the order on the customer display (orderdash display)",
    ),
    Binding(
        "X",
        "app.clear_display",
        "Clear display",
        show=False,
        tooltip="The customer display back to its welcome screen",
    ),
    Binding(
        "n",
        "app.new_charge",
        "Charge",
        tooltip="New charge: an amount, confirmed, made into an order, shown on the POS",
    ),
    Binding("slash", "focus_token", "Token", tooltip="Type another order token"),
    Binding("a", "app.add_tokens", "Add", tooltip="Add orders to the watch list (paste several)"),
    Binding(
        "g", "focus_list", "List", tooltip="Go to the watch list (the keys then act on its row)"
    ),
    Binding(
        "d",
        "remove_order",
        "Remove",
        tooltip="Remove the highlighted order (list focused) or the open one",
    ),
    Binding(
        "R",
        "resolve_order",
        "Resolve",
        show=False,
        tooltip="Resolve the highlighted order (list focused) or the open one: how, why, a refund",
    ),
    Binding(
        "P",
        "print_receipt",
        "Receipt",
        show=False,
        tooltip="Print the highlighted (list focused) or open order's receipt; again: a reprint",
    ),
    Binding("u", "app.undo_remove", "Undo", show=False, tooltip="Put the last removed order back"),
    Binding("f", "filter", "Filter", tooltip="Filter the watch list by text"),
    Binding("t", "state_filter", "State", tooltip="Show only orders in one state (cycles)"),
    Binding("s", "sort", "Sort", tooltip="Sort the watch list by the next column"),
    Binding("S", "reverse_sort", "Reverse sort", show=False, tooltip="Reverse the list's sort"),
    Binding("l", "app.alerts", "Alerts", tooltip="The log of alerts"),
    Binding(
        "exclamation_mark",
        "app.attention",
        "Attention",
        tooltip="The orders that need a human: under- or overpaid, paid late, unconfirmed",
    ),
    Binding(
        "Z",
        "app.close_day",
        "Close day",
        tooltip="Close of day: today's report per coin and fiat, its exceptions; closes on a yes",
    ),
    Binding(
        "e",
        "app.export_list",
        "Export",
        tooltip="Export the watch list's rows as shown to a CSV file",
    ),
    Binding(
        "b",
        "app.budgets",
        "Budgets",
        show=False,
        tooltip="Request budgets: use in the last minute and hour, the hour's projection",
    ),
    Binding("w", "toggle_list", "Hide list", show=False, tooltip="Show or hide the watch list"),
    Binding(
        "i",
        "toggle_details",
        "Details",
        show=False,
        tooltip="The order's raw fields as the service names them, or people's words",
    ),
    Binding("escape", "focus_table", "Table", show=False),
    # `?` typed into the token field: help by this key, which the footer then shows
    Binding("f1", "app.help", "Help", show=False, tooltip="Keys and what the screen shows"),
]

#: What the footer keeps when the screen is narrow, most needed first (the rest are on `?` and
#: in the command palette): help and quit always, so a new operator finds the others; then the
#: till's charge, what needs a human and the close of day.
FOOTER_FIRST = (
    "help",
    "quit",
    # shown only while a receipt failed to print: the way to print it is not crowded out
    "retry_receipt",
    # the till's own keys before the list's
    "app.new_charge",
    "app.attention",
    "app.close_day",
    "focus_token",
    "focus_list",
    "remove_order",
    "copy_address",
    "copy_amount",
    "app.point_of_sale",
    "app.add_tokens",
    "app.refresh",
    "open_transaction",
)

#: App actions that are the operator's alone: off while a customer-facing screen is up.
OPERATOR_ACTIONS = frozenset(
    {"quit", "help", "command_palette", "close_day", "export_list", "resolve_order", "attention"}
)
#: Off for good in a standalone point of sale (`orderdash pos`): the other orders, charges,
#: copies and the customer display are the operator's, and no operator is at that screen.
POS_ONLY_OFF = OPERATOR_ACTIONS | {
    "new_charge", "budgets", "alerts", "undo_remove", "add_tokens", "point_of_sale",
    "show_on_display", "clear_display", "copy_address", "copy_amount", "copy_token",
    "copy_hash", "toggle_bell",
}  # fmt: skip
#: Off for a read-only operator (the `readonly` setting), the app's and the dashboard's: what
#: makes an order (a charge), puts one before a customer (the point of sale, the customer
#: display), takes one off the watch list (remove, and its undo) or writes a resolution down.
#: Looking an order up or adding orders still works: more is watched, nothing is lost from
#: sight. The close of day's `c` is its screen's (`screens/close_day.py`). A receipt is handed to
#: a customer and written to the ledger: off too.
READONLY_OFF = frozenset({
    "new_charge", "point_of_sale", "show_on_display", "clear_display", "remove_order",
    "undo_remove", "resolve_order", "print_receipt",
})  # fmt: skip

#: What the footer shows, whatever its width, while read-only.
READONLY_MARK = "READ-ONLY"


def app_action_on(action: str, *, pos_only: bool, readonly: bool, facing: bool) -> bool:
    """Whether the app's `action` is on: off for good in a standalone point of sale and while
    read-only (gone from the footer and the palette; the key does nothing); off while a screen
    faces the customer if it is the operator's (hidden from the customer's footer, and the key
    does nothing there: Esc first)."""
    if pos_only and action in POS_ONLY_OFF:
        return False
    if readonly and action in READONLY_OFF:
        return False
    return not (action in OPERATOR_ACTIONS and facing)
