"""A frozen close read back from the ledger: untrusted like anything on disk. Its JSON is parsed
bounded (`jsontext.loads`), its structure and types checked, and its digest computed again and
compared with the one written beside it; anything else is `BadClose`, one line. Also: the
earlier closes that can matter to a new one, and a close that would overlap one already made.
Blocking and growing with the closes: callers run these in a worker thread."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, cast

from orderdash.core.books.orders import DECIMAL_TEXT, InexactSum
from orderdash.core.books.period import Period
from orderdash.core.books.report import (
    FIGURE_NAMES,
    READABLE_VERSIONS,
    EarlierClose,
    digest_of,
)
from orderdash.core.books.sales import BooksDoNotAddUp, check_adds_up
from orderdash.core.ledger import MAX_REPORT_JSON, Book, CloseRecord, OverlappingClose
from orderdash.core.model import jsontext
from orderdash.core.model.errors import OrderdashError
from orderdash.core.safetext import clean

if TYPE_CHECKING:
    from orderdash.core.books.shape import CloseReport, SalesJSON, SumJSON
    from orderdash.core.jsontypes import JSONObject, JSONValue

#: A digest as a close writes it: SHA-256 in lower-case hex.
DIGEST_TEXT = re.compile(r"[0-9a-f]{64}")


class BadClose(OrderdashError):
    """A close in the ledger is not a report this orderdash wrote (damaged or altered)."""


def _bad(record: CloseRecord, why: str) -> BadClose:
    return BadClose(
        f"the ledger's close from {record.period_from.isoformat()} cannot be read: {why}"
    )


def read_close(record: CloseRecord) -> CloseReport:
    """The report of `record`, checked (see the module's docstring); BadClose otherwise."""
    if len(record.report_json) > MAX_REPORT_JSON:
        raise _bad(record, f"it is over {MAX_REPORT_JSON >> 20} MiB")
    try:
        report = jsontext.loads(record.report_json)
    except ValueError as exc:
        raise _bad(record, f"not JSON ({exc})") from None
    try:
        checked = _check_report(report)
    except (BooksDoNotAddUp, InexactSum) as exc:
        raise _bad(record, exc.message) from None
    except KeyError as exc:
        raise _bad(record, f"{clean(str(exc), limit=40)} is missing") from None
    except (TypeError, ValueError) as exc:
        raise _bad(record, str(exc)) from None
    try:
        digest = digest_of(report)
    except (TypeError, ValueError):  # a member this orderdash never writes (a fraction)
        raise _bad(record, "it holds a value a report never has") from None
    if checked["digest"] != record.digest or digest != record.digest:
        raise _bad(record, "its digest does not match its report")
    # (checked member by member against the shape: `_check_report` raised unless it is one)
    return cast("CloseReport", checked)


def find_frozen(book: Book, till: str, period: Period) -> CloseReport | None:
    """The report of the close of exactly `period` and `till`, checked; None when not closed."""
    found = book.find_close(till, period.start, period.end)
    return None if found is None else read_close(found)


def prior_closes(
    book: Book, till: str, period: Period, *, look_back: timedelta, refuse_overlap: bool
) -> tuple[list[EarlierClose], list[str]]:
    """The closes of `till` that can matter to closing `period` (those ending after its start
    less `look_back`: only their orders are read), read and checked, and a warning for each that
    cannot be read. `refuse_overlap`: OverlappingClose when one overlaps `period` (another
    close of the same till counted some of its payments already); else that is a warning."""
    records = book.closes(till)
    warnings: list[str] = []
    over = overlapping(records, period)
    if over is not None:
        refusal = OverlappingClose.of(over)
        if refuse_overlap:
            raise refusal
        warnings.append(refusal.message + " (it cannot be closed)")
    low = period.start - look_back
    earlier: list[EarlierClose] = []
    for record in records:
        if record.period_until <= low:
            continue
        try:
            earlier.append(EarlierClose.from_report(read_close(record)))
        except BadClose as exc:
            warnings.append(f"{exc.message}: its payments are not known here")
    return earlier, warnings


def overlapping(records: Sequence[CloseRecord], period: Period) -> CloseRecord | None:
    """A close among `records` that overlaps `period` without being exactly it."""
    for record in records:
        same = record.period_from == period.start and record.period_until == period.end
        if not same and record.period_from < period.end and record.period_until > period.start:
            return record
    return None


# -- the report's shape (docs/books.md "The report") ----------------------------------------------

_PAYMENT_KEYS = ("order", "at", "coin", "currency")


def _obj(value: object, where: str) -> JSONObject:
    if not isinstance(value, dict):
        raise TypeError(f"{where} is not an object")
    return value


def _list(value: object, where: str) -> list[JSONValue]:
    if not isinstance(value, list):
        raise TypeError(f"{where} is not a list")
    return value


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where} is not text")
    return value


def _count(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"{where} is not a count")
    return value


def _amount(value: object, where: str) -> str:
    if not isinstance(value, str) or not DECIMAL_TEXT.fullmatch(value):
        raise ValueError(f"{where} is not decimal text")
    return value


def _time(value: object, where: str) -> None:
    try:
        when = datetime.fromisoformat(_text(value, where))
    except ValueError:
        raise ValueError(f"{where} is not an ISO-8601 time") from None
    if when.tzinfo is None:
        raise ValueError(f"{where} has no offset")


def _check_report(data: object) -> JSONObject:
    """`data` as it was read, once each member it must have is checked (`CloseReport`, the
    members of its version); TypeError, ValueError, KeyError saying which is not."""
    report = _obj(data, "the report")
    found = report.get("version")
    if isinstance(found, bool) or found not in READABLE_VERSIONS:
        raise ValueError(f"its version is not one of {', '.join(map(str, READABLE_VERSIONS))}")
    version = READABLE_VERSIONS[READABLE_VERSIONS.index(found)]
    period = _obj(report["period"], "period")
    _time(period["from"], "period.from")
    _time(period["until"], "period.until")
    _text(period["zone"], "period.zone")
    _text(report["till"], "till")
    _time(report["closed_at"], "closed_at")
    _text(report["digest"], "digest")
    orders = _obj(report["orders"], "orders")
    _count(orders["total"], "orders.total")
    for state, count in _obj(orders["by_state"], "orders.by_state").items():
        _count(count, f"orders.by_state.{clean(state, limit=20)}")
    received = _obj(report["received"], "received")
    for kind in ("coins", "fiat"):
        for unit, value in _obj(received[kind], f"received.{kind}").items():
            row = _obj(value, f"received.{kind}.{clean(unit, limit=12)}")
            _amount(row["amount"], f"received.{kind} amount")
            _count(row["payments"], f"received.{kind} payments")
    for item in _list(report["exceptions"], "exceptions"):
        entry = _obj(item, "an exception")
        for key in ("kind", "order", "state", "coin", "currency"):
            _text(entry[key], f"an exception's {key}")
        name = next((n for n in FIGURE_NAMES if n in entry), None)
        if name is None:
            raise ValueError("an exception has no figure")
        figure = _obj(entry[name], f"an exception's {name}")
        _amount(figure["coin"], f"an exception's {name}")
        _amount(figure["fiat"], f"an exception's {name}")
        if version >= 2 and entry["resolution"] is not None:
            _resolution(entry["resolution"], "an exception's resolution")
    for item in _list(report["payments"], "payments"):
        _payment(item, "a payment")
    for item in _list(report["adjustments"], "adjustments"):
        entry = _payment(item, "an adjustment")
        closed = _obj(entry["closed_period"], "an adjustment's closed_period")
        _time(closed["from"], "an adjustment's closed_period")
        _time(closed["until"], "an adjustment's closed_period")
    for warning in _list(report["warnings"], "warnings"):
        _text(warning, "a warning")
    if version >= 2:
        for item in _list(report["resolutions"], "resolutions"):
            _resolution(item, "a resolution")
    if version >= 3 and report["previous"] is not None:
        previous = _obj(report["previous"], "previous")
        _time(previous["from"], "previous.from")
        _time(previous["until"], "previous.until")
        if not DIGEST_TEXT.fullmatch(_text(previous["digest"], "previous.digest")):
            raise ValueError("previous.digest is not a SHA-256 in hex")
    if version >= 4:
        sales = _sales(report["sales"])
        check_adds_up(sales, cast("dict[str, SumJSON]", _obj(received["fiat"], "received.fiat")))
    return report


def _sales(data: object) -> SalesJSON:
    block = _obj(data, "sales")
    if block["currency"] is not None:
        _text(block["currency"], "sales.currency")
    _amount(block["tolerance"], "sales.tolerance")
    for unit, value in _obj(block["fiat"], "sales.fiat").items():
        where = f"sales.fiat.{clean(unit, limit=12)}"
        row = _obj(value, where)
        for key in ("sales", "received", "difference"):
            _amount(row[key], f"{where}.{key}")
        _count(row["orders"], f"{where}.orders")
        _count(row["payments"], f"{where}.payments")
        for part, value in _obj(row["parts"], f"{where}.parts").items():
            entry = _obj(value, f"{where}.parts.{clean(part, limit=20)}")
            _amount(entry["amount"], f"{where}.parts amount")
            _count(entry["orders"], f"{where}.parts orders")
    return cast("SalesJSON", block)  # (checked member by member above)


def _resolution(data: object, what: str) -> None:
    entry = _obj(data, what)
    for key in ("order", "kind", "reason", "operator", "till"):
        _text(entry[key], f"{what}'s {key}")
    _time(entry["at"], f"{what}'s at")
    refund = entry["refund"]
    if refund is None:
        return
    refund = _obj(refund, f"{what}'s refund")
    _text(refund["coin"], f"{what}'s refund coin")
    _text(refund["basis"], f"{what}'s refund basis")
    _amount(refund["amount"], f"{what}'s refund amount")
    _amount(refund["fee"], f"{what}'s refund fee")
    if refund["rate"] is not None:
        _amount(refund["rate"], f"{what}'s refund rate")


def _payment(data: object, what: str) -> JSONObject:
    entry = _obj(data, what)
    for key in _PAYMENT_KEYS:
        _text(entry[key], f"{what}'s {key}")
    _time(entry["at"], f"{what}'s at")
    if isinstance(entry["id"], bool) or not isinstance(entry["id"], int):
        raise TypeError(f"{what}'s id is not an integer")
    _amount(entry["amount"], f"{what}'s amount")
    _amount(entry["fiat"], f"{what}'s fiat")
    return entry
