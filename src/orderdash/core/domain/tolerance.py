"""The payment tolerance: how short of its order's fiat amount a payment may fall and still be
taken as paid, the shortfall covered by the merchant.

The service lets a merchant accept underpaid orders within a percentage set in its cabinet
(up to 5 %, docs/service-api.md#the-underpayment-tolerance); `underpaid_tolerance` is the same
figure, told to orderdash. Only an order with nothing more to come is judged (closed by the
service, or expired): an open order's shortfall may still be paid. The judgement is on the
fiat figures, as the merchant's setting is: a shortfall of at most `tolerance` percent of the
order's fiat amount. Everything is `Decimal`; nothing is rounded.
"""

from __future__ import annotations

from decimal import Decimal

#: The largest tolerance the service offers, in percent.
MAX_TOLERANCE = Decimal(5)


def within_tolerance(shortfall_fiat: Decimal, amount_fiat: Decimal, tolerance: Decimal) -> bool:
    """`shortfall_fiat` (what the order still lacked, in its fiat) is above 0 and at most
    `tolerance` percent of `amount_fiat` (the order's fiat amount): taken as paid. A tolerance
    of 0, no shortfall or an order of no amount is never within it."""
    if tolerance <= 0 or shortfall_fiat <= 0 or amount_fiat <= 0:
        return False
    return shortfall_fiat * 100 <= amount_fiat * tolerance
