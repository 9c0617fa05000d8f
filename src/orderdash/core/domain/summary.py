"""The human-readable summary of one order printed by `orderdash get`."""

from __future__ import annotations

from orderdash.core.domain.expiry import expiry_for
from orderdash.core.domain.text import (
    MISSING,
    amount_text,
    coin_code,
    epoch_ms_text,
    fiat_text,
    rate_text,
    server_time_text,
)
from orderdash.core.model.wire import Order
from orderdash.core.safetext import clean


def order_summary(order: Order, received_at: float) -> list[str]:
    currency = order.currency.abbreviation
    coin = coin_code(order)
    amount = f"{amount_text(order.amount)} {coin}" if order.coin_chosen else "coin not chosen yet"
    expiry = expiry_for(order, received_at)
    rows = [
        ("Merchant", clean(order.company_name, limit=80)),
        (
            "Order",
            f"{order.id}  (customer {order.customer_id}, type {clean(order.type, limit=20)})",
        ),
        ("Token", clean(order.token, limit=120)),
        (
            "Status",
            f"{clean(order.status.label, limit=40)}  [{clean(order.status.code, limit=40)}]",
        ),
        ("Amount", f"{fiat_text(order.amount_fiat, currency)}  =  {amount}"),
        ("Rate", rate_text(order)),
        ("Address", clean(order.address, limit=200) or MISSING),
        (
            "Created",
            f"{server_time_text(order.created_at)}  ({epoch_ms_text(order.created_at_ms)})",
        ),
        ("Expiry", expiry.summary),
        ("E-mail", clean(order.email, limit=120) if order.email else MISSING),
        ("Transactions", str(len(order.transactions))),
    ]
    width = max(len(label) for label, _ in rows)
    lines = [f"{label:<{width}}  {value}" for label, value in rows]
    for tx in sorted(order.transactions, key=lambda t: t.created_at_ms, reverse=True):
        lines.append(
            f"  #{tx.id}  {server_time_text(tx.created_at)}  "
            f"{amount_text(tx.amount.base)} {coin}  ({fiat_text(tx.amount_fiat.base, currency)})  "
            f"{clean(tx.hash, limit=80)}"
        )
    return lines
