"""The private endpoints' bearer: the configured one, or one bought by logging in with the
access token (memory only), bought again once when the service refuses it, never in a loop.

Not an httpx `Auth` flow: a refusal is known only once the answer is read and interpreted
(an error envelope may say 401 inside an HTTP 200), after the body cap, which httpx's flow
runs before; and the log-in is a request of its own with its own deadline, body cap, checks,
log line and rate-budget count, shared by every request that finds its bearer refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from pydantic import SecretStr, ValidationError

from orderdash.core.model.errors import AuthRefused, AuthRequired, InvalidResponse
from orderdash.core.service.answers import Answers, first_error
from orderdash.core.service.bearer_claims import expires_at as bearer_expires_at

if TYPE_CHECKING:
    import asyncio
    from datetime import datetime

    import httpx

#: The longest bearer a log-in may hand out (4 KiB): it is sent as a header on every private
#: request.
MAX_BEARER_BYTES = 4096
#: What a private request's answer is made into.
_T = TypeVar("_T")
#: A JWT in its compact form: header, payload and signature, base64url without padding.
_JWT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")

#: Sends the log-in's body and reads its answer with `LoginSession.interpret_login`.
SendLogin = Callable[[bytes], Awaitable[SecretStr]]


class LoginSession:
    """The bearer of one client's private requests, and the log-in that buys it."""

    def __init__(
        self, bearer_token: SecretStr | None, access_token: SecretStr | None, answers: Answers
    ) -> None:
        self.bearer_token = bearer_token
        self.access_token = (
            access_token if access_token and access_token.get_secret_value() else None
        )
        self._answers = answers
        #: Sends the log-in (set by the client, which owns the requests).
        self.send_login: SendLogin | None = None
        #: The bearer bought by logging in with the access token (memory only).
        self._session: SecretStr | None = None
        self._login_lock: asyncio.Lock | None = None  # made by the first log-in
        #: The service refused the access token: no log-in is sent again (a refused token
        #: does not become good by asking once a minute), every private call raises this.
        self.login_refused: AuthRefused | None = None
        #: Told once when the access token is refused (the dashboard's banner).
        self.on_login_refused: Callable[[AuthRefused], None] | None = None
        #: A log-in waits until this is set (the dashboard sets it at its first paint, so that
        #: logging in never makes the start-up slower); None: at once.
        self.login_after: asyncio.Event | None = None
        #: Log-ins sent.
        self.logins = 0
        #: Called for each private request beyond the one asked for (a log-in, a retry): the
        #: service counts them against the same private limit, so the rate budget must too.
        self.on_extra_private_request: Callable[[], None] | None = None

    @property
    def has_bearer_token(self) -> bool:
        return self.bearer_token is not None and bool(self.bearer_token.get_secret_value())

    def expires_at(self) -> datetime | None:
        """When the bearer in use says it expires (its JWT's `exp` claim), if it says."""
        bearer = self._session or (self.bearer_token if self.has_bearer_token else None)
        if bearer is None:
            return None
        return bearer_expires_at(bearer.get_secret_value())

    def secrets(self) -> list[str]:
        """Every secret this session holds now, for redaction."""
        return [
            secret.get_secret_value()
            for secret in (self.bearer_token, self._session, self.access_token)
            if secret is not None and secret.get_secret_value()
        ]

    async def private(self, call: Callable[[str], Awaitable[_T]], what: str) -> _T:
        """Run `call(bearer)` with the bearer token, or with one bought by logging in (lazily,
        before the first private request); on a refusal of a bought bearer, log in again and
        retry once. A configured `bearer_token` is used as it is."""
        if self.has_bearer_token:
            assert self.bearer_token is not None
            return await call(self.bearer_token.get_secret_value())
        if self.access_token is None:
            raise AuthRequired(
                f"{what} needs a bearer token (--bearer-token-file) or an access token "
                "(access_token_file) to log in with"
            )
        self.check_login_refused()
        bearer = self._session or await self._login(stale=None)
        try:
            return await call(bearer.get_secret_value())
        except AuthRefused:
            # the bought bearer expired (or was revoked): one new log-in, one retry
            bearer = await self._login(stale=bearer)
            self._extra_private_request()
            return await call(bearer.get_secret_value())

    async def _login(self, stale: SecretStr | None) -> SecretStr:
        """A bearer from `POST {base_url}/orders/api/login`; requests that find theirs refused
        at the same time share one new log-in."""
        import asyncio  # `get` reads without an event loop, and without asyncio

        if self._login_lock is None:
            self._login_lock = asyncio.Lock()
        async with self._login_lock:
            current = self._session
            if current is not None and (
                stale is None or current.get_secret_value() != stale.get_secret_value()
            ):
                return current
            if self.login_after is not None:
                await self.login_after.wait()
            self.check_login_refused()
            self._session = None
            assert self.access_token is not None and self.send_login is not None
            body = json.dumps({"token": self.access_token.get_secret_value()}).encode("utf-8")
            self.logins += 1
            self._extra_private_request()
            try:
                bearer = await self.send_login(body)
            except AuthRefused as refused:
                self.login_refused = refused
                if self.on_login_refused is not None:
                    self.on_login_refused(refused)
                raise
            self._session = bearer
            return bearer

    def check_login_refused(self) -> None:
        """A refused access token stays refused: raise its error again, send nothing."""
        if self.login_refused is not None and not self.has_bearer_token:
            # a new error each time: one raised again and again would grow its traceback
            raise AuthRefused(self.login_refused.message)

    def _extra_private_request(self) -> None:
        if self.on_extra_private_request is not None:
            self.on_extra_private_request()

    def interpret_login(self, status: int, headers: httpx.Headers, body: bytes) -> SecretStr:
        """The log-in's answer: a usable bearer, or why not."""
        answers = self._answers
        if status in (401, 403, 422):
            detail = answers.error_detail(body)
            said = f": {detail}" if detail else ""
            raise AuthRefused(
                f"the service refused the access token (HTTP {status}{said}): check "
                "access_token, its expiry and the cabinet's IP allow-list"
            )
        if not 200 <= status < 300:
            answers.refuse_account(status, headers, body, "log-in")
        document = answers.parse_json(body, headers)
        from orderdash.core.model.account import LoginEnvelope  # account paths only

        try:
            envelope = LoginEnvelope.model_validate(document)
        except ValidationError as exc:
            raise InvalidResponse(
                f"the log-in answer does not match the API: {first_error(exc)}"
            ) from None
        if not envelope.success:
            detail = answers.error_detail(body, document)
            raise AuthRefused(
                f"the service refused the access token: {detail or 'no message given'}"
            )
        bearer = (envelope.data or "").strip()
        # it travels as an HTTP header value: one word of visible ASCII
        if not bearer or not (bearer.isascii() and bearer.isprintable() and " " not in bearer):
            raise InvalidResponse("the log-in answer carries no usable bearer token")
        # it goes out with every private request: a JWT of sane size, nothing else
        if len(bearer) > MAX_BEARER_BYTES:
            raise InvalidResponse(
                f"the log-in answer's bearer token is too long ({len(bearer):,} bytes; "
                f"at most {MAX_BEARER_BYTES:,}): not used"
            )
        if not _JWT.fullmatch(bearer):
            raise InvalidResponse(
                "the log-in answer's bearer token is not a JWT (three base64url parts "
                "separated by dots): not used"
            )
        return SecretStr(bearer)
