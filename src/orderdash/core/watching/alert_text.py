"""What an alert of a watched order says: the payments, the status change, what is wrong now,
in one line with every digit the service sent (the alerts log, the toasts, the bell)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from orderdash.core.domain.late_payment import after_expiry, after_expiry_text
from orderdash.core.domain.payment import Phase
from orderdash.core.domain.text import amount_text, coin_code, epoch_ms_text, fiat_text
from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.model.wire import Order, Transaction
    from orderdash.core.polling.watcher import Change
    from orderdash.core.watching.alert import Alert
    from orderdash.core.watching.entry import Entry


def order_figures(order: Order) -> str:
    """An order in one line, for comparing two orders behind one token: "42.50 EUR PAID,
    order id 1001, created 2026-11-24 03:10:07 UTC" (to the second: a service reset a moment
    later gives the same minute)."""
    amount = fiat_text(order.amount_fiat, order.currency.abbreviation)
    created = epoch_ms_text(order.created_at_ms)
    return f"{amount} {clean(order.status.code, limit=30)}, order id {order.id}, created {created}"


def change_alert(entry: Entry, change: Change, before: Order | None, at: float) -> Alert:
    """A line for the alerts log: the payments, the status change, what is wrong now.
    A payment taken back or an order changing identity is an alarm, said first."""
    order, payment = entry.order, entry.payment
    assert order is not None and payment is not None
    texts = []
    alarm = False
    if change.identity is not None:
        alarm = True
        was = order_figures(before) if before is not None else "another order"
        texts.append(f"This token now names another order: was {was}; now {order_figures(order)}")
    elif change.regression:
        alarm = True
        paid_before = paid_now = ""
        if before is not None:
            code = coin_code(order)
            paid_before = f" {_paid_text(before, code)}"
            paid_now = f" {_paid_text(order, code)}"
        texts.append(
            f"Payment taken back: {change.regression} (was{paid_before} "
            f"{clean(before.status.code, limit=30) if before else '?'}, now{paid_now} "
            f"{clean(order.status.code, limit=30)})"
        )
    kind = ""
    if change.identity is None and change.late_ids:
        from orderdash.core.watching.alert import LATE_PAYMENT  # with the first alert

        alarm, kind = True, LATE_PAYMENT
        late = [tx for tx in order.transactions if tx.id in change.late_ids]
        paid = [
            f"{_tx_text(order, tx)}, {after_expiry_text(after_expiry(tx, order))}" for tx in late
        ]
        texts.append(f"Late payment into a closed order: {'; '.join(paid)}")
    on_time = [i for i in change.new_transaction_ids if i not in change.late_ids]
    if change.identity is None and on_time:
        by_id = {tx.id: tx for tx in order.transactions}
        paid = [_tx_text(order, tx) for tx in (by_id.get(i) for i in on_time) if tx]
        texts.append(f"Payment received: {', '.join(paid) or 'new transaction'}")
    if change.status is not None and change.identity is None:
        code_before, code_after = change.status
        texts.append(
            f"Status {clean(code_before, limit=30) or '?'} \u2192 {clean(code_after, limit=30)}"
        )
    if payment.phase in (Phase.OVERPAID, Phase.UNDERPAID, Phase.EXPIRED, Phase.UNCLEAR):
        texts.append(payment.headline)
    company = clean(order.company_name, limit=40)
    text = clean("; ".join(texts), limit=480)
    late_ids = change.late_ids if kind else ()
    # the alert's class only once there is one: the state that imports this module is made
    # before the first paint, an alert comes later (tests/perf/test_startup_dataclasses.py)
    from orderdash.core.watching.alert import Alert

    return Alert(at, entry.token, company, text, alarm=alarm, kind=kind, late_ids=late_ids)


def _tx_text(order: Order, tx: Transaction) -> str:
    """One payment: "0.00050000 BTC (25.00 EUR)", every digit the service sent."""
    fiat = fiat_text(tx.amount_fiat.base, order.currency.abbreviation)
    return f"{amount_text(tx.amount.base)} {coin_code(order)} ({fiat})"


def _paid_text(order: Order, code: str) -> str:
    paid = sum((tx.amount.base for tx in order.transactions), Decimal(0))
    return f"{amount_text(paid)} {code} paid".replace("  ", " ")
