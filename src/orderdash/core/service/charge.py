"""A charge at the counter: one order made through Generate Order, then (optionally) its coin.

One charge makes one order: the order token is chosen here once (`secrets`, url-safe) and sent
again on every retry of that charge. An answer lost on the way (timeout, broken connection, 5xx)
is retried with the same token; a later "token taken" then means the order was made, and it is
looked up by its token instead of being made twice.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from orderdash.core.safetext import clean
from orderdash.core.service.account_models import CoinChoice
from orderdash.core.service.client import Fetched, OrderClient
from orderdash.core.service.errors import (
    NetworkError,
    OrderTokenTaken,
    ServiceError,
    UsageError,
)

#: Tries of one charge's creation (the first and two retries), and the pause before each retry.
CREATE_ATTEMPTS = 3
RETRY_PAUSE = 1.0


@dataclass(frozen=True)
class Charge:
    token: str
    payment_url: str | None
    #: The order after its coin was chosen; None without a coin.
    order: Fetched | None = None


def parse_amount(text: str) -> Decimal:
    """A fiat amount as typed: positive, at most 2 decimals, no exponent. UsageError if not."""
    from decimal import InvalidOperation

    cleaned = text.strip()
    try:
        amount = Decimal(cleaned)
    except InvalidOperation:
        raise UsageError(f"the amount {clean(text, limit=30)!r} is not a number") from None
    if not amount.is_finite() or "e" in cleaned.lower() or amount <= 0:
        raise UsageError("the amount must be a positive number such as 5 or 12.50")
    if amount.as_tuple().exponent < -2 or amount >= Decimal("1e12"):  # type: ignore[operator]
        raise UsageError("the amount takes at most 2 decimals and fewer than 13 digits")
    return amount


def pick_coin(coins: tuple[CoinChoice, ...], wanted: str) -> CoinChoice:
    """The offered coin whose code or basename is `wanted`, any case."""
    key = wanted.strip().lower()
    for coin in coins:
        if coin.code.lower() == key or (coin.basename or "").lower() == key:
            return coin
    offered = ", ".join(clean(coin.code, limit=12) for coin in coins) or "none"
    raise UsageError(
        f"the order does not offer the coin {clean(wanted, limit=20)!r} (offered: {offered})"
    )


def new_order_token() -> str:
    """A charge's order token: chosen once, sent again on every retry of that charge."""
    return secrets.token_urlsafe(18)


async def create(
    client: OrderClient,
    amount: Decimal,
    *,
    customer_id: str,
    token: str,
    order_id: str | None = None,
    sent_before: bool = False,
    pause: float = RETRY_PAUSE,
) -> Charge:
    """Make the order of one charge, whose token is `token`. `sent_before`: this charge was
    tried already (its answer may have been lost), so a "token taken" is its own order."""
    order_id = order_id or f"orderdash-{token[:12]}"
    created = None
    for attempt in range(CREATE_ATTEMPTS):
        try:
            created = await client.create_order(
                customer_id=customer_id, order_id=order_id, order_token=token, amount=amount
            )
            break
        except OrderTokenTaken:
            if attempt == 0 and not sent_before:
                # a token never sent before is taken: not this charge's order
                raise
            await client.get_order(token)  # made by the try whose answer was lost
            break
        except (NetworkError, ServiceError) as error:
            lost = isinstance(error, NetworkError) or error.status >= 500
            if not lost or attempt == CREATE_ATTEMPTS - 1:
                raise
            await asyncio.sleep(pause)
    payment_url = created.payment_url if created is not None else None
    if created is not None and created.token != token:
        token = created.token  # the service's word for the order it made
    return Charge(token, payment_url)


async def choose(client: OrderClient, charge: Charge, coin: str) -> Charge:
    """Choose `coin` (code or basename, any case) among those the charge's order offers."""
    offered = await client.order_coins(charge.token)
    chosen = pick_coin(offered, coin)
    fetched = await client.choose_coin(charge.token, chosen.code)
    return Charge(charge.token, charge.payment_url, fetched)


async def charge(
    client: OrderClient,
    amount: Decimal,
    *,
    customer_id: str,
    order_id: str | None = None,
    coin: str | None = None,
    new_token: Callable[[], str] = new_order_token,
    pause: float = RETRY_PAUSE,
) -> Charge:
    made = await create(
        client, amount, customer_id=customer_id, token=new_token(), order_id=order_id, pause=pause
    )
    if coin is None:
        return made
    return await choose(client, made, coin)
