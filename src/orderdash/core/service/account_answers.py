"""What the answers of the account's endpoints mean: Generate Order's and a history page's
(the log-in's is read by auth.py), and what the client's account reads hand back (the account's
orders, a history page). Read only on the account's paths: their models load here, and these
classes are not made at start-up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from orderdash.core.model import jsontext
from orderdash.core.model.errors import (
    AuthRefused,
    FailureReported,
    InvalidResponse,
    OrderTokenTaken,
)
from orderdash.core.service.answers import (
    LARGE_BODY_BYTES,
    Answers,
    envelope_status_code,
    first_error,
    is_error_envelope,
)

if TYPE_CHECKING:
    import httpx

    from orderdash.core.model.account import CreatedOrder, HistoryItem, HistoryPage


@dataclass(frozen=True, eq=False, repr=False)
class AccountOrders:
    """Every order of the account in the order the history pages listed them, page 0 first."""

    items: tuple[HistoryItem, ...]
    #: The wire item objects as received (numbers with their digits), for --json.
    raw: tuple[dict[str, Any], ...]
    pages: int
    #: True when the page bound stopped the reading before nextPage was null.
    truncated: bool
    #: Items left out because they do not match the API (one bad order does not hide the rest).
    skipped: int = 0
    #: Why the first of them was left out.
    skipped_reason: str | None = None

    def warnings(self) -> list[str]:
        """One line for each way this reading is incomplete (none when it is whole)."""
        lines = []
        if self.truncated:
            lines.append(
                f"stopped after {self.pages:,} pages of the order history (history_max_pages): "
                f"the account has more orders than the {len(self.items):,} read"
            )
        if self.skipped:
            orders = "order" if self.skipped == 1 else "orders"
            lines.append(
                f"{self.skipped:,} {orders} of the order history left out, not as the API "
                f"describes: {self.skipped_reason}"
            )
        return lines


@dataclass(frozen=True, eq=False, repr=False)
class HistoryRead:
    """One history page: its valid items, their wire objects, and what was left out."""

    page: HistoryPage
    wire: list[dict[str, Any]]
    skipped: int
    skipped_reason: str | None


def created_order(
    answers: Answers, status: int, headers: httpx.Headers, body: bytes
) -> CreatedOrder:
    """Generate Order's answer: the order made, or why not (OrderTokenTaken: the token is)."""
    document: Any = None
    if body.strip():
        try:
            document = jsontext.loads(body)
        except jsontext.JsonTextError:
            document = None
    message = document.get("message") if isinstance(document, dict) else None
    if isinstance(message, dict) and any(
        "order_token" in str(key) and "taken" in str(value).lower()
        for key, value in message.items()
    ):
        raise OrderTokenTaken("an order with this token exists")
    if status in (401, 403):
        detail = answers.error_detail(body)
        said = f": {detail}" if detail else ""
        raise AuthRefused(f"the service refused the access token (HTTP {status}{said})")
    if not 200 <= status < 300:
        answers.refuse_account(status, headers, body, "charge")
    document = answers.parse_json(body, headers)
    code = envelope_status_code(document)
    if is_error_envelope(document, rates=False) or (code is not None and code >= 300):
        detail = answers.error_detail(body, document)
        if code is not None and code >= 300:
            answers.refuse(code, headers, detail, "", "charge", rates=True)
        raise FailureReported(
            f"the service reported a failure: {detail or 'no message given'}", detail
        )
    # two published forms: {"success": true, "data": {...}} and {"status": 1, "message": {...}}
    created = document.get("data")
    if not isinstance(created, dict):
        created = document.get("message")
    from orderdash.core.model.account import CreatedOrder  # account paths only

    try:
        return CreatedOrder.model_validate(created)
    except ValidationError as exc:
        raise InvalidResponse(
            f"the charge answer does not match the API: {first_error(exc)}"
        ) from None


def history_page(answers: Answers, status: int, headers: httpx.Headers, body: bytes) -> HistoryRead:
    """A page of Get Order History: its items that match the API, and what was left out."""
    if not 200 <= status < 300:
        answers.refuse_account(status, headers, body, "order history")
    if len(body) < LARGE_BODY_BYTES:
        return _history_read(answers, headers, body)
    from orderdash.core.runtime.bulk import bulk_objects

    # in a worker thread (the client's `_call_json`): see bulk.py for why the collector pauses
    with bulk_objects():
        return _history_read(answers, headers, body)


def _history_read(answers: Answers, headers: httpx.Headers, body: bytes) -> HistoryRead:
    document = answers.parse_json(body, headers)
    if is_error_envelope(document, rates=False):
        code = envelope_status_code(document)
        detail = answers.error_detail(body, document)
        if code is not None and not 200 <= code < 300:
            answers.refuse(code, headers, detail, "", "order history", rates=True)
        raise FailureReported(
            f"the service reported a failure: {detail or 'no message given'}", detail
        )
    from orderdash.core.model.account import HistoryEnvelope, HistoryItem  # account paths only

    data = document.get("data")
    wire = data.get("items") if isinstance(data, dict) else None
    try:
        if isinstance(wire, list):
            # the page without its items: their checks follow one by one
            envelope = HistoryEnvelope.model_validate({**document, "data": {**data, "items": []}})
        else:  # no list of items: the page's check says what is wrong
            envelope = HistoryEnvelope.model_validate(document)
            wire = []
    except ValidationError as exc:
        raise InvalidResponse(
            f"the order history answer does not match the API: {first_error(exc)}"
        ) from None
    # One model call an item, not one for the page: a large page is checked in a worker
    # thread, and each call holds the GIL; 50,000 items in one call froze the screen 0.2 s.
    items: list[HistoryItem] = []
    kept: list[dict[str, Any]] = []
    skipped = 0
    reason: str | None = None
    for index, item in enumerate(wire):
        try:
            items.append(HistoryItem.model_validate(item))
        except ValidationError as exc:
            skipped += 1
            reason = reason or f"item {index} of a page: {first_error(exc)}"
            continue
        kept.append(item)
    page = envelope.data.model_copy(update={"items": tuple(items)})
    return HistoryRead(page, kept, skipped, reason)
