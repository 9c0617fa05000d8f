"""The async client of the order API: one method per endpoint, each answer typed or a typed
error, one log line per request (docs/library-pitfalls.md#httpx has the safety rules).

Its parts, by job: transport.py sends (httpx, the deadline, the body cap, httpx's errors as
ours), answers.py and account_answers.py read what comes back (status and envelope as typed
errors, validation, redaction), auth.py holds the bearer and the log-in, first_read.py a
dashboard's first read in a thread, reuse.py a big order's transactions for its next answer;
what the reads return is in `core/model/`. JSON is parsed with Decimal for every fractional number.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr, ValidationError

from orderdash.core.model.errors import ApiError, AuthRequired, InvalidResponse
from orderdash.core.model.results import Fetched
from orderdash.core.service.answers import Answers, first_error, parse_retry_after
from orderdash.core.service.auth import LoginSession
from orderdash.core.service.calls import Calls
from orderdash.core.service.first_read import FirstRead
from orderdash.core.service.net import Timeouts, is_loopback_host
from orderdash.core.service.tokens import token_segment
from orderdash.core.service.transport import DEFAULT_MAX_BODY_BYTES, ServiceTransport

if TYPE_CHECKING:
    import asyncio
    from datetime import datetime

    import httpx

    from orderdash.core.model.account import (
        CoinChoice,
        CreatedOrder,
        HistoryItem,
        HistoryPage,
    )
    from orderdash.core.model.errors import AuthRefused
    from orderdash.core.service.account_answers import AccountOrders, HistoryRead
    from orderdash.core.service.net import ClientSettings

# asyncio is imported where it is used, not here: `orderdash get` asks once through the
# blocking client (`get_order_now`) and never loads it (~13 ms of that command's start).

#: Orders asked for per history page (the service may send fewer: paging follows nextPage).
HISTORY_PAGE_LIMIT = 100
#: History pages read at most by `account_orders` unless told (the `history_max_pages`
#: setting): 5,000 orders at the page size asked, what the watch list holds; a service whose
#: nextPage never ends must not keep a command reading forever.
MAX_HISTORY_PAGES = 50


class OrderClient:
    """getOrder and Update Exchange rate against one configured service origin."""

    def __init__(
        self,
        base_url: str,
        *,
        bearer_token: SecretStr | None = None,
        access_token: SecretStr | None = None,
        timeouts: Timeouts | None = None,
        create_url: str | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        #: Where Generate Order is served (the docs' second address); default the base URL.
        self._create_url = (create_url or base_url).rstrip("/")
        self._wire = ServiceTransport(
            self._base_url,
            self._create_url,
            timeouts=timeouts or Timeouts(),
            max_body_bytes=max_body_bytes,
            transport=transport,
        )
        self.origin = self._wire.origin
        self._answers = Answers(self.origin, self._secrets)
        self._auth = LoginSession(bearer_token, access_token, self._answers)
        self._auth.send_login = self._send_login
        self._calls = Calls(self._wire, self._answers, clock)
        #: The read `begin_first_read` sent, until `get_order_first` takes it.
        self._first_read: FirstRead | None = None
        #: Told of every order read (getOrder, the rate refresh: the ledger's orders seen), on
        #: the caller's loop or thread; it must return at once.
        self.on_order_read: Callable[[Fetched], None] | None = None

    def _read(self, fetched: Fetched) -> Fetched:
        if self.on_order_read is not None:
            self.on_order_read(fetched)
        return fetched

    # the log-in session's state and hooks, as the client's (auth.py has what each means)
    @property
    def login_refused(self) -> AuthRefused | None:
        return self._auth.login_refused

    @property
    def logins(self) -> int:
        return self._auth.logins

    @property
    def bearer_expires_at(self) -> datetime | None:
        """When the bearer in use says it expires (its JWT's `exp`), if it says."""
        return self._auth.expires_at()

    @property
    def on_login_refused(self) -> Callable[[AuthRefused], None] | None:
        return self._auth.on_login_refused

    @on_login_refused.setter
    def on_login_refused(self, hook: Callable[[AuthRefused], None] | None) -> None:
        self._auth.on_login_refused = hook

    @property
    def login_after(self) -> asyncio.Event | None:
        return self._auth.login_after

    @login_after.setter
    def login_after(self, event: asyncio.Event | None) -> None:
        self._auth.login_after = event

    @property
    def on_extra_private_request(self) -> Callable[[], None] | None:
        return self._auth.on_extra_private_request

    @on_extra_private_request.setter
    def on_extra_private_request(self, hook: Callable[[], None] | None) -> None:
        self._auth.on_extra_private_request = hook

    @classmethod
    def from_settings(
        cls, settings: ClientSettings, *, clock: Callable[[], float] = time.time
    ) -> OrderClient:
        """The client every command uses: origin, token, timeouts and body cap from settings."""
        return cls(
            settings.base_url,
            bearer_token=settings.bearer_token,
            access_token=settings.access_token,
            timeouts=settings.timeouts,
            create_url=settings.create_url,
            max_body_bytes=settings.max_body_bytes,
            clock=clock,
        )

    @property
    def has_bearer_token(self) -> bool:
        return self._auth.has_bearer_token

    @property
    def has_credentials(self) -> bool:
        """The private endpoints can be called: a bearer token, or an access token to log in."""
        return self.has_bearer_token or self._auth.access_token is not None

    def __repr__(self) -> str:
        token = "set" if self.has_bearer_token else "unset"
        access = "set" if self._auth.access_token is not None else "unset"
        return f"OrderClient({self._base_url!r}, bearer_token={token}, access_token={access})"

    async def __aenter__(self) -> OrderClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._wire.aclose()

    async def get_order(self, token: str) -> Fetched:
        """getOrder: `GET {base_url}/order/<token>/`."""
        fetched = await self._calls.order(self._order_url(token), token, headers=None, rates=False)
        return self._read(fetched)

    def get_order_now(self, token: str) -> Fetched:
        """getOrder without an event loop, for a command that asks once and exits (`orderdash
        get`): sent through httpx's blocking client, which never loads anyio's asyncio backend
        (~20 ms of that command's start). Same request, checks, answer and errors as
        `get_order`, within the same overall deadline (`ServiceTransport.fetch_now`). The
        async client is never made (~1 ms). A client built with an async transport (tests)
        asks through it instead."""
        if self._wire.transport is not None:
            import asyncio  # only with a test's async transport

            async def once() -> Fetched:
                async with self:
                    return await self.get_order(token)

            return asyncio.run(once())
        return self._read(self._calls.order_now(self._order_url(token), token))

    def begin_first_read(self, token: str) -> None:
        """Send getOrder for the order a dashboard opens with now, in a thread of its own
        (`get_order_now`), before the dashboard is built: `orderdash tui` calls this before it
        imports Textual, so the request, the wait for the service and the answer's parsing
        overlap the imports and the screen's composing instead of following them.
        `get_order_first` of the same token takes this answer; one read at a time is kept (a
        second call replaces nothing). A client built with an async transport (tests) sends
        nothing here: `get_order_first` asks through it."""
        if self._wire.transport is None and self._first_read is None:
            self._first_read = FirstRead(token, self.get_order_now)

    async def get_order_first(self, token: str) -> Fetched:
        """getOrder for the order a dashboard opens with: the read `begin_first_read` sent, or
        one sent now the same way. The blocking client in a thread: the async transport's
        first request imports anyio's asyncio backend (~37 ms of CPU, timed in the bench's
        start-up child), which the first paint does not need. The thread is a daemon:
        quitting never waits for it (a request is bounded by the timeouts anyway). A client
        built with an async transport (tests) asks through it."""
        if self._wire.transport is not None:
            return await self.get_order(token)
        first, self._first_read = self._first_read, None  # taken, or not wanted: another order
        if first is None or first.token != token:
            first = FirstRead(token, self.get_order_now)
        return await first.answer()  # get_order_now told `on_order_read` (in its thread)

    def _order_url(self, token: str) -> str:
        return f"{self._base_url}/order/{token_segment(token)}/"

    async def refresh_rate(self, token: str) -> Fetched:
        """Update Exchange rate: `GET {base_url}/orders/api/<token>/rates` with `bearer_token`."""
        url = f"{self._base_url}/orders/api/{token_segment(token)}/rates"
        fetched: Fetched = await self._auth.private(
            lambda bearer: self._calls.order(
                url, token, headers={"bearer_token": bearer}, rates=True
            ),
            "the rate refresh",
        )
        return self._read(fetched)

    async def create_order(
        self, *, customer_id: str, order_id: str, order_token: str, amount: Decimal
    ) -> CreatedOrder:
        """Generate Order: `POST {create_url}/api/generateOrder`, the access token in the body.
        OrderTokenTaken when the service says the token is taken."""
        access_token = self._auth.access_token
        if access_token is None:
            raise AuthRequired("creating an order needs the access token (access_token_file)")
        from orderdash.core.service import account_answers  # account paths only

        body = {
            "customer_id": customer_id,
            "access_token": access_token.get_secret_value(),
            "order_id": order_id,
            "order_token": order_token,
            "amount": format(amount, "f"),
        }
        return await self._calls.json(
            f"{self._create_url}/api/generateOrder",
            "create",
            order_token,
            headers={"Content-Type": "application/json"},
            interpret=partial(account_answers.created_order, self._answers),
            method="POST",
            content=json.dumps(body).encode("utf-8"),
        )

    @property
    def base_url(self) -> str:
        """The configured service base URL (a charge's checkout link may point at it)."""
        return self._base_url

    async def order_coins(self, token: str) -> tuple[CoinChoice, ...]:
        """The coins an order without a coin offers (`GET {base_url}/orders/api/<token>`)."""
        return (await self.order_offer(token))[1]

    async def order_offer(self, token: str) -> tuple[Fetched, tuple[CoinChoice, ...]]:
        """The order as the UI's get order reads it (its currency, say), and the coins it
        offers while none is chosen (`GET {base_url}/orders/api/<token>`)."""
        url = f"{self._base_url}/orders/api/{token_segment(token)}"
        fetched: Fetched = await self._auth.private(
            lambda bearer: self._calls.order(
                url, token, headers={"bearer_token": bearer}, rates=True
            ),
            "the order's coins",
        )
        return fetched, self._coins_offered(fetched)

    @staticmethod
    def _coins_offered(fetched: Fetched) -> tuple[CoinChoice, ...]:
        coins = fetched.raw.get("coins")
        if coins is None:
            return ()
        if not isinstance(coins, list) or len(coins) > 1000:
            raise InvalidResponse("the order's coins should be a JSON array")
        from orderdash.core.model.account import CoinChoice  # account paths only

        try:
            return tuple(CoinChoice.model_validate(coin) for coin in coins)
        except ValidationError as exc:
            raise InvalidResponse(
                f"the order's coins do not match the API: {first_error(exc)}"
            ) from None

    async def choose_coin(self, token: str, code: str) -> Fetched:
        """Choose crypto: `POST {base_url}/orders/api/<token>` `{"coin": code}`."""
        url = f"{self._base_url}/orders/api/{token_segment(token)}"
        body = json.dumps({"coin": code}).encode("utf-8")
        return await self._auth.private(
            lambda bearer: self._calls.order(
                url,
                token,
                headers={"bearer_token": bearer, "Content-Type": "application/json"},
                rates=False,
                method="POST",
                content=body,
            ),
            "choosing the coin",
        )

    async def order_history(self, page: int, limit: int = HISTORY_PAGE_LIMIT) -> HistoryPage:
        """Get Order History: `GET {base_url}/orders/api?page=&limit=` with `bearer_token`.
        Items that do not match the API are left out (`account_orders` counts them)."""
        read = await self._history_page(page, limit)
        return read.page

    async def account_orders(
        self,
        *,
        limit: int = HISTORY_PAGE_LIMIT,
        max_pages: int = MAX_HISTORY_PAGES,
        before_page: Callable[[], Awaitable[None]] | None = None,
    ) -> AccountOrders:
        """Every order of the account: history pages from 0, following `meta.nextPage` until it
        is null (never assuming a page size), at most `max_pages` pages. `before_page` is
        awaited before each page is asked for (the private budget's gate). An item that does
        not match the API is left out and counted, not the whole history refused."""
        self._auth.check_login_refused()
        from orderdash.core.service.account_answers import AccountOrders  # account paths only

        items: list[HistoryItem] = []
        raw: list[dict[str, Any]] = []
        page: int | None = 0
        seen: set[int] = set()
        read = skipped = 0
        skipped_reason: str | None = None
        while page is not None and read < max_pages:
            if page in seen:
                raise InvalidResponse(
                    f"the order history sent page {page} twice (nextPage goes back): stopped"
                )
            seen.add(page)
            if before_page is not None:
                await before_page()
            one = await self._history_page(page, limit)
            read += 1
            items.extend(one.page.items)
            raw.extend(one.wire)
            skipped += one.skipped
            skipped_reason = skipped_reason or one.skipped_reason
            page = one.page.meta.next_page
        return AccountOrders(
            tuple(items),
            tuple(raw),
            read,
            truncated=page is not None,
            skipped=skipped,
            skipped_reason=skipped_reason,
        )

    async def _history_page(self, page: int, limit: int) -> HistoryRead:
        url = f"{self._base_url}/orders/api?page={int(page)}&limit={int(limit)}"
        from orderdash.core.service import account_answers  # account paths only

        return await self._auth.private(
            lambda bearer: self._calls.json(
                url,
                "history",
                f"page {page}",
                headers={"bearer_token": bearer},
                interpret=partial(account_answers.history_page, self._answers),
            ),
            "the order history",
        )

    # ------------------------------------------------------------------ the log-in's request
    async def _send_login(self, body: bytes) -> SecretStr:
        """The log-in's request, for the session (`LoginSession._login`)."""
        return await self._calls.json(
            f"{self._base_url}/orders/api/login",
            "login",
            "",
            headers={"Content-Type": "application/json"},
            interpret=self._auth.interpret_login,
            method="POST",
            content=body,
        )

    def _secrets(self) -> list[str]:
        return self._auth.secrets()


__all__ = [
    "ApiError",
    "Fetched",
    "OrderClient",
    "Timeouts",
    "is_loopback_host",
    "parse_retry_after",
]
