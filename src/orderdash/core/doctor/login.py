"""The access token's log-in and the `bearer_token` header's way to the service, as `doctor`
checks them through the project's own client (`OrderClient`), within the private budget.

One authenticated call tells both: the order history's first page (one order long). A log-in
the service accepted followed by that call refused means the bearer never arrived: the header's
name has an underscore, which some reverse proxies drop (nginx unless `underscores_in_headers
on`), so the private calls fail while getOrder, which needs no header, works."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orderdash.core.doctor.result import FAIL, OK, WARN, Check
from orderdash.core.model.errors import ApiError, AuthRefused

if TYPE_CHECKING:
    from datetime import datetime

    from orderdash.core.service.client import OrderClient

LOGIN = "access token"
HEADER = "bearer_token header"
#: What the header's check says when a proxy on the way drops it.
DROPPED = (
    "does not arrive: the bearer was refused right after a good log-in while getOrder answers, "
    "so a proxy on the way drops header names with underscores (nginx: "
    "underscores_in_headers on)"
)


async def login_and_header(
    client: OrderClient, *, has_access: bool, has_bearer: bool, now: datetime
) -> tuple[Check, Check]:
    """The log-in's check and the header's, from one authenticated call (and the log-in it
    needs first, when there is an access token and no bearer token)."""
    if not (has_access or has_bearer):
        skipped = "not checked: neither access_token nor bearer_token is set"
        return Check(LOGIN, WARN, skipped), Check(HEADER, WARN, skipped)
    try:
        await client.order_history(0, limit=1)
    except AuthRefused as refused:
        return _refused(client, refused, has_access=has_access, has_bearer=has_bearer)
    except ApiError as error:
        login = _login_ok(client, now) if client.logins else _not_used(has_access)
        return login, Check(HEADER, FAIL, f"the authenticated call failed: {error.message}")
    login = _login_ok(client, now) if client.logins else _not_used(has_access)
    return login, Check(HEADER, OK, "arrives: the order history answered an authenticated call")


def _refused(
    client: OrderClient, refused: AuthRefused, *, has_access: bool, has_bearer: bool
) -> tuple[Check, Check]:
    if client.login_refused is not None:
        return Check(LOGIN, FAIL, refused.message), Check(
            HEADER, WARN, "not checked: no bearer (the log-in was refused)"
        )
    if client.logins:
        return Check(LOGIN, OK, "the service accepted it"), Check(HEADER, FAIL, DROPPED)
    # a configured bearer_token, refused: expired, or dropped on the way
    return _not_used(has_access), Check(
        HEADER,
        FAIL,
        "the service refused the bearer_token: it has expired, or a proxy on the way drops "
        "header names with underscores (nginx: underscores_in_headers on)",
    )


def _login_ok(client: OrderClient, now: datetime) -> Check:
    expiry = client.bearer_expires_at
    if expiry is None:
        return Check(LOGIN, OK, "the service accepted it")
    left = (expiry - now).total_seconds()
    when = expiry.strftime("%Y-%m-%d %H:%M UTC")
    if left <= 0:
        return Check(LOGIN, WARN, f"the service accepted it; its bearer expired at {when}")
    return Check(LOGIN, OK, f"the service accepted it; its bearer expires at {when}")


def _not_used(has_access: bool) -> Check:
    if has_access:
        return Check(LOGIN, OK, "not needed: bearer_token is set (it is used instead)")
    return Check(LOGIN, OK, "not set: the private calls use bearer_token")
