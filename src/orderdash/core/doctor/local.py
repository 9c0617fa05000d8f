"""What `doctor` checks on this side of the service: the ledger opens, the callback receiver's
public URL answers, and the request budgets there are to spend."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from orderdash.core.doctor.bounded import within
from orderdash.core.doctor.hosts import probe
from orderdash.core.doctor.result import FAIL, OK, WARN, Check
from orderdash.core.ledger import LedgerError
from orderdash.core.ledger.url import url_secrets

if TYPE_CHECKING:
    from collections.abc import Callable

    from orderdash.core.ledger.store import SqlBook
    from orderdash.core.service.net import Timeouts
    from orderdash.core.settings.model import Budgets

LEDGER = "ledger"
CALLBACK = "callback URL"
BUDGETS = "budgets"


async def ledger_check(open_book: Callable[[], SqlBook], seconds: float, url: str | None) -> Check:
    """The shop's book opens (and is closed again) within `seconds`; `url` (a PostgreSQL
    ledger's, a secret) only says what never to repeat."""

    def opened() -> str:
        book = open_book()
        try:
            return f"{book.engine} {book.where} opens (schema version {book.version})"
        finally:
            book.close_connection()

    try:
        return Check(LEDGER, OK, await within(seconds, opened))
    except TimeoutError:
        return Check(LEDGER, FAIL, f"did not open within {seconds:g} s")
    except LedgerError as error:
        message = error.message
    except (OSError, ValueError) as error:  # what an engine may raise beneath its own errors
        message = f"cannot be opened: {type(error).__name__}"
    for secret in url_secrets(url) if url else ():
        message = message.replace(secret, "***")
    return Check(LEDGER, FAIL, message)


async def callback_check(url: str | None, timeouts: Timeouts) -> Check:
    """The callback receiver's public URL answers a plain HEAD (any answer under 500 but a
    redirect or a 404: a receiver refuses a HEAD, 405), the way the service's POST will come.
    A 404 says nothing receives at that path (a mistyped path, or a proxy that routes it
    elsewhere); a redirect fails every probe (`probe`)."""
    if url is None:
        return Check(CALLBACK, OK, "not set (callback_url): the tills poll")
    answer = await probe(CALLBACK, url, timeouts, method="HEAD")
    if answer.status in (404, 410):
        message = f"{_shown(url)} has nothing that receives callbacks (HTTP {answer.status})"
        return Check(CALLBACK, FAIL, message)
    if answer.check.status == OK:
        return Check(CALLBACK, OK, f"{_shown(url)} answers a HEAD (HTTP {answer.status})")
    return answer.check


def budgets_check(shares: Budgets, spent: dict[str, int], *, tills_per_ip: int) -> Check:
    """The request budgets this till may spend: its share of the configured limits (no
    bookkeeping outlives a run), less what `doctor` itself spent."""
    order_left = shares["budget_per_minute"] - spent["order"]
    private_left = shares["rate_budget_per_minute"] - spent["private"]
    shared = f", this till's share of {tills_per_ip}" if tills_per_ip > 1 else ""
    message = (
        f"getOrder {order_left:,} of {shares['budget_per_minute']:,} a minute and "
        f"{shares['budget_per_hour']:,} an hour{shared}; private calls {private_left:,} of "
        f"{shares['rate_budget_per_minute']:,} a minute and "
        f"{shares['rate_budget_per_hour']:,} an hour"
    )
    if order_left < 1 or private_left < 1:
        return Check(BUDGETS, WARN, message)
    return Check(BUDGETS, OK, message)


def _shown(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"
