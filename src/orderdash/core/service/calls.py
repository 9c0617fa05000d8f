"""One request of the client, from sending to its answer's meaning: fetched (transport.py),
read (answers.py), a big order's answer validated off the event loop, logged in one line, its
error redacted of the client's secrets."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from orderdash.core.model.errors import OrderdashError
from orderdash.core.model.results import Fetched
from orderdash.core.safetext import clean
from orderdash.core.service.answers import LARGE_BODY_BYTES, Answers
from orderdash.core.service.reuse import ReuseByOrder

if TYPE_CHECKING:
    import httpx

    from orderdash.core.model.wire import Order
    from orderdash.core.service.transport import ServiceTransport

# asyncio is imported where it is used, not here: `orderdash get` never loads it.

#: The client's log (its name is what the log file and its readers know it by).
log = logging.getLogger("orderdash.core.service.client")
#: What a call's answer is made into.
_T = TypeVar("_T")


@dataclass(eq=False, repr=False)
class _Outcome:
    """One request as `_reported` logs it: when it started, the status once answered."""

    started: float
    status: int | None = None


class Calls:
    """The requests of one client: `order` for the answers that carry an order, `json` for the
    others (the account's), `order_now` for getOrder without an event loop."""

    def __init__(
        self, wire: ServiceTransport, answers: Answers, clock: Callable[[], float]
    ) -> None:
        self._wire, self._answers, self._clock = wire, answers, clock
        self._reuse = ReuseByOrder()

    def order_now(self, url: str, token: str) -> Fetched:
        """getOrder through httpx's blocking client (`ServiceTransport.fetch_now`)."""
        with self._reported(token, rates=False) as report:
            report.status, headers, body = self._wire.fetch_now(url)
            order, raw = self._answers.interpret(report.status, headers, body, token, rates=False)
        return self._fetched(order, raw, report.started)

    async def json(
        self,
        url: str,
        endpoint: str,
        label: str,
        *,
        headers: dict[str, str] | None,
        interpret: Callable[[int, httpx.Headers, bytes], _T],
        method: str = "GET",
        content: bytes | None = None,
    ) -> _T:
        """One request of the account endpoints: fetched, interpreted, logged, errors redacted."""
        started = time.monotonic()
        status: int | None = None
        try:
            status, response_headers, body = await self._wire.fetch(
                url, headers, method=method, content=content
            )
            if len(body) >= LARGE_BODY_BYTES:
                import asyncio  # `get` runs without asyncio

                # a long history page: validated off the event loop
                result = await asyncio.to_thread(interpret, status, response_headers, body)
            else:
                result = interpret(status, response_headers, body)
        except OrderdashError as exc:
            error = self._answers.redacted(exc)
            log_outcome(endpoint, label, started, status, error)
            raise error from None
        except Exception as exc:
            log_outcome(endpoint, label, started, status, exc)
            raise
        log_outcome(endpoint, label, started, status, None)
        return result

    async def order(
        self,
        url: str,
        token: str,
        *,
        headers: dict[str, str] | None,
        rates: bool,
        method: str = "GET",
        content: bytes | None = None,
    ) -> Fetched:
        with self._reported(token, rates=rates) as report:
            report.status, response_headers, body = await self._wire.fetch(
                url, headers, method=method, content=content
            )
            order, raw = await self._interpret_answer(
                report.status, response_headers, body, token, rates
            )
        return self._fetched(order, raw, report.started)

    @contextlib.contextmanager
    def _reported(self, token: str, *, rates: bool) -> Iterator[_Outcome]:
        """One request's outcome logged (secrets redacted from its error) as it ends."""
        outcome = _Outcome(time.monotonic())
        what = "rates" if rates else "order"
        try:
            yield outcome
        except OrderdashError as exc:
            error = self._answers.redacted(exc)
            log_outcome(what, token, outcome.started, outcome.status, error)
            raise error from None
        except Exception as exc:
            log_outcome(what, token, outcome.started, outcome.status, exc)
            raise
        log_outcome(what, token, outcome.started, outcome.status, None)

    def _fetched(self, order: Order, raw: dict[str, Any], started: float) -> Fetched:
        return Fetched(
            order=order, raw=raw, received_at=self._clock(), elapsed=time.monotonic() - started
        )

    async def _interpret_answer(
        self, status: int, headers: httpx.Headers, body: bytes, token: str, rates: bool
    ) -> tuple[Order, dict[str, Any]]:
        if status != 200 or len(body) < LARGE_BODY_BYTES:
            return self._answers.interpret(status, headers, body, token, rates=rates)
        import asyncio  # `get` runs without asyncio

        reuse = self._reuse.take(token)
        order, raw = await asyncio.to_thread(
            self._answers.interpret, status, headers, body, token, rates=rates, reuse=reuse
        )
        self._reuse.keep(token, reuse, order)
        return order, raw


def log_outcome(
    endpoint: str, token: str, started: float, status: int | None, error: BaseException | None
) -> None:
    """One line per request for the log file: endpoint, order token (or what was asked),
    status/error, elapsed ms.

    No secret is ever an argument here; the log handler redacts them anyway (logs.py).
    """
    if not log.isEnabledFor(logging.INFO):
        return
    elapsed_ms = (time.monotonic() - started) * 1000
    shown = clean(token, limit=80)
    outcome = "-" if status is None else str(status)
    if error is None:
        log.info(
            "request %s token=%r status=%s elapsed_ms=%.0f", endpoint, shown, outcome, elapsed_ms
        )
    elif isinstance(error, OrderdashError):
        log.warning(
            "request %s token=%r status=%s error=%s elapsed_ms=%.0f: %s",
            endpoint,
            shown,
            outcome,
            type(error).__name__,
            elapsed_ms,
            error.message,
        )
    else:
        log.error(
            "request %s token=%r status=%s error=%s elapsed_ms=%.0f: unexpected",
            endpoint,
            shown,
            outcome,
            type(error).__name__,
            elapsed_ms,
            exc_info=error,
        )
