"""`orderdash doctor`: what a shop needs before it opens, one check at a time (the checks are
`core/doctor/`'s), every request through the project's own client and transport, within the
request budgets and the settings' timeouts: no check can hang, none prints a secret."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from orderdash.core.books.run import gates
from orderdash.core.doctor.hosts import (
    PROBE_TOKEN,
    HostAnswer,
    address_to_allow,
    clock_check,
    probe,
)
from orderdash.core.doctor.local import budgets_check, callback_check, ledger_check
from orderdash.core.doctor.login import HEADER, LOGIN, login_and_header
from orderdash.core.doctor.result import FAIL, WARN, Check, DoctorReport
from orderdash.core.ledger.open import open_book
from orderdash.core.ledger.url import url_secrets
from orderdash.core.runtime.logs import RedactSecrets
from orderdash.core.safetext import clean
from orderdash.core.service.client import OrderClient
from orderdash.core.service.tokens import token_segment

if TYPE_CHECKING:
    from orderdash.core.polling.account import CommandBudget
    from orderdash.core.settings.model import Settings

#: At most this long for a PostgreSQL ledger to connect, and for any one blocking step.
LEDGER_SECONDS = 5.0
#: The longest wait for a turn of a budget: a budget spent elsewhere fails the check instead.
TURN_SECONDS = 5.0


async def run_doctor(settings: Settings) -> DoctorReport:
    """Every check, in the order a shop would fix them: the hosts, the clock, the log-in and the
    header, the ledger, the callback URL, the budgets; and what to paste into the cabinet."""
    order_gate, private_gate = gates(settings)
    spent = {"order": 0, "private": 0}
    checks = await _hosts(settings, order_gate, spent)
    if checks[0].status == FAIL:
        skipped = "not checked: the order API's host does not answer"
        checks += [Check(name, WARN, skipped) for name in (LOGIN, HEADER)]
    else:
        checks += await _login_checks(settings, private_gate, spent)
    checks.append(
        await ledger_check(
            lambda: open_book(settings, connect_seconds=LEDGER_SECONDS),
            LEDGER_SECONDS * 2,
            settings.ledger_url.get_secret_value() if settings.ledger_url else None,
        )
    )
    checks.append(await callback_check(settings.callback_url, settings.timeouts))
    checks.append(budgets_check(settings.budgets, spent, tills_per_ip=settings.tills_per_ip))
    paste = await _paste(settings)
    return DoctorReport(tuple(_redacted(check, settings) for check in checks), paste)


async def _hosts(
    settings: Settings, order_gate: CommandBudget, spent: dict[str, int]
) -> list[Check]:
    """The order API's host (one getOrder, within the getOrder budget), the create host when
    it is another, and the clock against the order API's `Date`."""
    name = "order API host"
    try:
        await asyncio.wait_for(order_gate.take_turn(), TURN_SECONDS)
    except TimeoutError:
        order_host = HostAnswer(Check(name, FAIL, "not asked: the getOrder budget is spent"))
    else:
        spent["order"] += 1
        base = settings.base_url.rstrip("/")
        order_url = f"{base}/order/{token_segment(PROBE_TOKEN)}/"
        order_host = await probe(name, order_url, settings.timeouts)
    checks = [order_host.check]
    create_url = (settings.create_url or settings.base_url).rstrip("/")
    if create_url != settings.base_url.rstrip("/"):
        checks.append((await probe("create host", create_url + "/", settings.timeouts)).check)
    checks.append(clock_check(order_host))
    return checks


async def _login_checks(
    settings: Settings, private_gate: CommandBudget, spent: dict[str, int]
) -> list[Check]:
    has_access = settings.access_token is not None
    has_bearer = settings.bearer_token is not None
    try:
        await asyncio.wait_for(private_gate.take_turn(), TURN_SECONDS)
    except TimeoutError:
        return [
            Check(name, FAIL, "not asked: the private budget is spent") for name in (LOGIN, HEADER)
        ]
    spent["private"] += 1
    # with an access token, a fresh log-in: the header's check then tells a proxy from a
    # refused bearer
    client = OrderClient(
        settings.base_url,
        bearer_token=None if has_access else settings.bearer_token,
        access_token=settings.access_token,
        timeouts=settings.timeouts,
        create_url=settings.create_url,
        max_body_bytes=settings.max_body_bytes,
    )

    def extra() -> None:
        private_gate.spent()
        spent["private"] += 1

    client.on_extra_private_request = extra
    try:
        # each private request at most twice (a log-in and a retry): bounded by the deadlines
        login, header = await asyncio.wait_for(
            login_and_header(
                client, has_access=has_access, has_bearer=has_bearer, now=datetime.now(UTC)
            ),
            settings.timeout * 4 + 1,
        )
    except TimeoutError:
        stuck = "no answer within the deadlines"
        return [Check(name, FAIL, stuck) for name in (LOGIN, HEADER)]
    finally:
        await client.aclose()
    return [login, header]


async def _paste(settings: Settings) -> tuple[tuple[str, str], ...]:
    """What the cabinet needs: the callback URL (when one is set) and the address to allow."""
    paste: list[tuple[str, str]] = []
    if settings.callback_url is not None:
        paste.append(("callback URL", settings.callback_url))
    address = await address_to_allow(settings.base_url, LEDGER_SECONDS)
    paste.append(("IP address to allow", address or "unknown: the service's host was not found"))
    return tuple(paste)


def _redacted(check: Check, settings: Settings) -> Check:
    """The check with no secret in its message, whatever a server or a library put in it."""
    secrets = [
        s.get_secret_value()
        for s in (settings.access_token, settings.bearer_token)
        if s is not None and s.get_secret_value()
    ]
    if settings.ledger_url is not None:
        secrets += url_secrets(settings.ledger_url.get_secret_value())
    # a server's words among it: one safe line, every form of each secret out (the log's own
    # redaction: URL-encoded forms too), then cut once no secret is left to cut in two
    message = clean(RedactSecrets(secrets).redact(clean(check.message)), limit=400)
    return check if message == check.message else Check(check.name, check.status, message)
