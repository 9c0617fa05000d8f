"""A charge at the counter: one order made through Generate Order, then (optionally) its coin.

One charge makes one order: the order token is chosen here once (`secrets`, url-safe) and sent
again on every retry of that charge. An answer lost on the way (timeout, broken connection, 5xx,
an answer that cannot be read) is retried with the same token; a later "token taken" then means
the order was made, and it is looked up by its token instead of being made twice. When no try
gets an answer, the outcome is unknown (`ChargeOutcomeUnknown`, naming the token sent): never
"not made", which is said only when the service refused the order.

A create answer is believed only so far: it must name the token sent, and its `payment_url` is
the checkout link only when it is https (or http to the configured service on loopback). The
made order's currency is checked against the till's (`currency`) before anyone shows it to the
customer; an order made and then stopped (`ChargeStopped`) is reported with its token.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from orderdash.core.domain import fiat
from orderdash.core.ledger.charges import CREATE_ATTEMPTS, RETRY_PAUSE
from orderdash.core.model.account import CoinChoice
from orderdash.core.model.errors import (
    ApiError,
    AuthRequired,
    CannotConnect,
    ChargeOutcomeUnknown,
    ChargeStopped,
    FailureReported,
    InvalidResponse,
    NetworkError,
    OrderdashError,
    OrderTokenTaken,
    ServiceError,
    UsageError,
)
from orderdash.core.model.results import Fetched
from orderdash.core.safetext import clean
from orderdash.core.service.client import OrderClient
from orderdash.core.service.net import is_loopback_host

if TYPE_CHECKING:
    from orderdash.core.settings.model import Settings

#: A checkout link longer than this is not a link the service means.
MAX_PAYMENT_URL = 2000
#: What `--coin` may be: a coin's code or basename (checked before any order is made).
_COIN_TEXT = re.compile(r"[A-Za-z0-9_-]{1,20}", re.ASCII)


@dataclass(frozen=True)
class Charge:
    token: str
    #: The checkout link, when the service's `payment_url` passed `payment_link`.
    payment_url: str | None
    #: The order after its coin was chosen; None without a coin.
    order: Fetched | None = None
    #: Why the service's `payment_url` is not the checkout link (one line); "" when it is.
    link_refused: str = ""
    #: The made order's currency as the service reported it, once read.
    currency: str | None = None


def parse_amount(text: str, currency: str | None = None) -> Decimal:
    """A fiat amount as typed (see `fiat.parse_amount`): the one parser of the CLI and `n`."""
    return fiat.parse_amount(text, currency)


def check_coin_text(wanted: str) -> str:
    """`--coin` as given, if it can be a coin's code (UsageError before any order is made)."""
    if not _COIN_TEXT.fullmatch(wanted.strip()):
        raise UsageError(
            f"--coin {clean(wanted, limit=20)!r} is not a coin code (letters and digits, "
            "such as btc)"
        )
    return wanted.strip()


def payment_link(url: str | None, base_url: str) -> tuple[str | None, str]:
    """The checkout link in a create answer's `payment_url`, or None and why not (one line):
    https, or http only to the configured service (`base_url`) on loopback (the simulator)."""
    if url is None or url == "":
        return None, ""
    if not isinstance(url, str) or len(url) > MAX_PAYMENT_URL or not url.isprintable():
        return None, "the service's checkout link is not one line of text: not shown"
    try:
        parts = urlsplit(url)
        service = urlsplit(base_url)
        same_service = (parts.scheme, parts.hostname, parts.port) == (
            service.scheme,
            service.hostname,
            service.port,
        )
    except ValueError:
        return None, "the service's checkout link is not a URL: not shown"
    if parts.scheme not in ("http", "https"):
        scheme = clean(parts.scheme, limit=12) if parts.scheme else "no scheme"
        return None, f"the service's checkout link is {scheme!r}, not https: not shown"
    if " " in url or not parts.hostname or parts.username or parts.password:
        return None, "the service's checkout link is not a plain web address: not shown"
    if parts.scheme == "https":
        return url, ""
    if same_service and is_loopback_host(service.hostname or ""):
        return url, ""
    return None, "the service's checkout link is http to another host, not https: not shown"


def _answer_lost(error: OrderdashError) -> bool:
    """The create's answer did not arrive in a form that says what the service did."""
    if isinstance(error, NetworkError):
        return True
    if isinstance(error, ServiceError):
        return error.status >= 500
    return isinstance(error, InvalidResponse) and not isinstance(error, FailureReported)


def _unknown(token: str, why: str) -> ChargeOutcomeUnknown:
    return ChargeOutcomeUnknown(
        f"the charge's outcome is unknown ({why}): order {clean(token, limit=80)} may exist",
        token,
        why,
    )


def interrupted(token: str) -> ChargeOutcomeUnknown:
    """The outcome of a charge stopped (Ctrl-C) once its create may have been sent."""
    return _unknown(token, "interrupted before the service's answer was read")


def check_currency(charge: Charge, reported: str, expected: str | None) -> Charge:
    """The charge with its order's currency as the service reports it (`reported`);
    ChargeStopped when that is not `expected` (the till's currency), before the customer is
    shown anything."""
    if expected and reported.strip().upper() != expected.strip().upper():
        raise ChargeStopped(
            f"order {clean(charge.token, limit=80)} is in {clean(reported, limit=12)!r}, "
            f"not {clean(expected, limit=12)} (the till's currency): stopped, the customer is "
            "shown nothing",
            charge.token,
        )
    return replace(charge, currency=reported)


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
    on_attempt: Callable[[int, int], None] | None = None,
    before_send: Callable[[str], Awaitable[None]] | None = None,
) -> Charge:
    """Make the order of one charge, whose token is `token`. `sent_before`: this charge was
    tried already (its answer may have been lost), so a "token taken" is its own order.
    `on_attempt(k, n)` is told as try k of n starts. `before_send(token)` is awaited before the
    first try (the ledger writes the charge down there; if it raises, nothing is sent).
    Raises ChargeOutcomeUnknown when no try could say what the service did; any other error
    is the service's refusal (not made)."""
    order_id = order_id or f"orderdash-{token[:12]}"
    if before_send is not None:
        await before_send(token)
    lost = "an earlier try's answer was lost" if sent_before else ""
    for attempt in range(CREATE_ATTEMPTS):
        if on_attempt is not None:
            on_attempt(attempt + 1, CREATE_ATTEMPTS)
        try:
            created = await client.create_order(
                customer_id=customer_id, order_id=order_id, order_token=token, amount=amount
            )
        except OrderTokenTaken:
            if attempt == 0 and not sent_before:
                # a token never sent before is taken: not this charge's order
                raise
            return await _found(client, token)  # made by the try whose answer was lost
        except ApiError as error:
            if _answer_lost(error):
                # a connection never made sent nothing: that try made no order
                lost = lost if isinstance(error, CannotConnect) else error.message
                if attempt == CREATE_ATTEMPTS - 1:
                    if not lost:
                        raise  # no try reached the service: not made
                    raise _unknown(token, f"no answer in {CREATE_ATTEMPTS} tries: {lost}") from None
                await asyncio.sleep(pause)
                continue
            if lost:
                # refused now, but an earlier try may have made it
                raise _unknown(token, f"{error.message}; {lost}") from None
            raise
        if created.token != token:
            raise _unknown(
                token,
                f"a wrong answer: it names order {clean(created.token, limit=40)!r}, "
                f"not {clean(token, limit=40)!r} as sent",
            )
        link, refused = payment_link(created.payment_url, client.base_url)
        return Charge(token, link, link_refused=refused)
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


async def _found(client: OrderClient, token: str) -> Charge:
    """The order a lost try made, read by its token (its checkout link was in the lost answer)."""
    try:
        fetched = await client.get_order(token)
    except OrderdashError as error:
        raise _unknown(token, f"the service says the token is taken: {error.message}") from None
    return Charge(token, None, currency=fetched.order.currency.abbreviation)


async def choose(
    client: OrderClient, charge: Charge, coin: str, currency: str | None = None
) -> Charge:
    """Choose `coin` (code or basename, any case) among those the charge's order offers,
    after its currency is checked against `currency`. ChargeStopped (the order is made) when
    that cannot be done."""
    stopped = f"order {clean(charge.token, limit=80)} was made, but"
    try:
        fetched, offered = await client.order_offer(charge.token)
    except OrderdashError as error:
        raise ChargeStopped(
            f"{stopped} could not be read: {error.message}", charge.token, charge.payment_url
        ) from None
    charge = check_currency(charge, fetched.order.currency.abbreviation, currency)
    try:
        chosen = pick_coin(offered, coin)
    except UsageError as error:
        raise ChargeStopped(
            f"{stopped} {error.message}; the customer can choose on the checkout page",
            charge.token,
            charge.payment_url,
        ) from None
    try:
        fetched = await client.choose_coin(charge.token, chosen.code)
    except OrderdashError as error:
        raise ChargeStopped(
            f"{stopped} the coin was not chosen: {error.message}", charge.token, charge.payment_url
        ) from None
    reported = fetched.order.currency.abbreviation
    return replace(check_currency(charge, reported, currency), order=fetched)


async def confirm_currency(client: OrderClient, charge: Charge, currency: str) -> Charge:
    """The charge once its order (getOrder) is read in `currency`; ChargeStopped if not."""
    try:
        fetched = await client.get_order(charge.token)
    except OrderdashError as error:
        raise ChargeStopped(
            f"order {clean(charge.token, limit=80)} was made, but its currency could not be "
            f"read: {error.message}",
            charge.token,
        ) from None
    return check_currency(charge, fetched.order.currency.abbreviation, currency)


async def charge(
    client: OrderClient,
    amount: Decimal,
    *,
    customer_id: str,
    order_id: str | None = None,
    coin: str | None = None,
    currency: str | None = None,
    new_token: Callable[[], str] = new_order_token,
    pause: float = RETRY_PAUSE,
    on_attempt: Callable[[int, int], None] | None = None,
    before_send: Callable[[str], Awaitable[None]] | None = None,
) -> Charge:
    """One charge: the order made, its currency checked against `currency` (the till's, when
    set), then `coin` chosen (when given). `on_attempt`, `before_send`: as in `create` (from
    the first try on, the order may exist)."""
    made = await create(
        client,
        amount,
        customer_id=customer_id,
        token=new_token(),
        order_id=order_id,
        pause=pause,
        on_attempt=on_attempt,
        before_send=before_send,
    )
    if coin is not None:
        return await choose(client, made, coin, currency)
    if currency is None:
        return made
    if made.currency is not None:  # read already (a lost answer's order, found by its token)
        return check_currency(made, made.currency, currency)
    return await confirm_currency(client, made, currency)


@dataclass(frozen=True, slots=True)
class ChargeOptions:
    """What a charge takes of the settings, read once: the till's currency (None: the
    account's), the account it is made for, and whether the access token is there."""

    currency: str | None
    customer_id: str | None
    signed_in: bool

    @classmethod
    def from_settings(cls, settings: Settings) -> ChargeOptions:
        return cls(settings.currency, settings.customer_id, settings.access_token is not None)


@dataclass(frozen=True, slots=True)
class ChargeAsked:
    """A charge as asked, checked before any order is made."""

    amount: Decimal
    customer_id: str
    coin: str | None = None
    order_id: str | None = None


def ask(
    options: ChargeOptions, amount: str, *, coin: str | None = None, order_id: str | None = None
) -> ChargeAsked:
    """The amount in the till's currency (its decimals) and the coin's form, checked first
    (UsageError); then the account's credentials (AuthRequired, as `orders` and `close` miss
    them)."""
    money = parse_amount(amount, options.currency)
    wanted = check_coin_text(coin) if coin is not None else None
    if not options.signed_in or options.customer_id is None:
        raise AuthRequired(
            "charge needs the access token (access_token_file) and customer_id "
            "(--customer-id, ORDERDASH_CUSTOMER_ID): both are in the service's cabinet"
        )
    return ChargeAsked(money, options.customer_id, wanted, order_id)
